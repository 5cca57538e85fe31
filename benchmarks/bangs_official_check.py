"""Whether the official BANGS code (fangxin-wang/BANGS) can run beside rewirekit's torch.

    git clone https://github.com/fangxin-wang/BANGS /tmp/BANGS
    python benchmarks/bangs_official_check.py /tmp/BANGS \\
        --out docs/official_runs/bangs_official_check.txt

The official code is written on DGL (``dgl.graph``, ``dgl.nn``, ``dgl.sparse``). The script
installs the DGL release that pip resolves from the package index (``--packages``, no
dependencies; DGL's own ``torchdata`` import included) into a temporary folder and, in a
fresh interpreter with that folder first on the path and this environment's torch,
imports ``dgl``, ``dgl.sparse`` (``ST_src/utils_new.py`` uses it) and the official modules
that ``main_node.py`` imports. It prints each step's outcome (the error's last line when it
fails), the versions, the torch builds the wheel ships C++ libraries for, and the official
checkout's commit. It runs no training: when every import succeeds, the official
``main_node.py`` can be run side by side with ``benchmarks/bangs_reproduction.py``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import git_commit

#: What pip installs into the temporary folder: DGL and the module its import needs.
DEFAULT_PACKAGES = ("dgl", "torchdata==0.7.1")

#: Imports tried in order, each in a fresh interpreter (a failure does not stop the next).
STEPS = (
    ("import torch", "import torch; print(torch.__version__)"),
    ("import dgl", "import dgl; print(dgl.__version__)"),
    ("import dgl.sparse", "import dgl.sparse"),
    ("official ST_src.utils_new", "import ST_src.utils_new"),
    ("official ST_src.models", "import ST_src.models"),
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("official_dir", type=Path, help="a fangxin-wang/BANGS checkout")
    parser.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    lines = [
        f"$ python benchmarks/bangs_official_check.py {args.official_dir} "
        f"--packages {' '.join(args.packages)}",
        f"official fangxin-wang/BANGS {git_commit(str(args.official_dir))}",
        f"python {sys.version.split()[0]}",
    ]
    with tempfile.TemporaryDirectory() as folder:
        install = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", folder,
             *args.packages],
            capture_output=True, text=True,
        )  # fmt: skip
        lines.append(f"pip install --no-deps {' '.join(args.packages)}: rc={install.returncode}")
        if install.returncode:
            lines.append(_last_line(install.stderr))
        installed = sorted(
            p.name.removesuffix(".dist-info") for p in Path(folder).glob("*.dist-info")
        )
        lines.append(f"installed: {', '.join(installed) or 'nothing'}")
        lines += _shipped_builds(Path(folder))
        for name, code in STEPS:
            lines.append(f"{name}: {_attempt(code, folder, args.official_dir)}")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report)


def _attempt(code: str, folder: str, official_dir: Path) -> str:
    """``ok`` and what the code printed, or ``FAILED`` and the error's last line."""
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path[:0] = [{folder!r}]; {code}"],
        capture_output=True, text=True, cwd=official_dir,
    )  # fmt: skip
    if done.returncode == 0:
        return ("ok " + done.stdout.strip()).strip()
    return "FAILED: " + _last_line(done.stderr)


def _shipped_builds(folder: Path) -> list[str]:
    """The torch versions each of DGL's torch-specific C++ libraries is built for."""
    out = []
    for library in ("tensoradapter", "dgl_sparse", "graphbolt"):
        builds = sorted(
            path.name.split("_pytorch_")[1].removesuffix(".so")
            for path in folder.glob(f"dgl/**/lib{library}_pytorch_*.so")
        )
        out.append(f"lib{library} built for torch: {', '.join(builds) or 'none found'}")
    return out


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


if __name__ == "__main__":
    main()
