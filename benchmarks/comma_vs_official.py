"""Edits of ``comma(faithful=True)`` against the official ComMa code (RelationalML/ComFy).

    git clone <RelationalML/ComFy> /tmp/comfy-clone
    REWIREKIT_DATA=/work/shared/datasets python benchmarks/comma_vs_official.py /tmp/comfy-clone \
        --out docs/comma_vs_official.txt

Runs the official ``community_rewiring`` (HigherComMa) and ``inverse_community_rewiring``
(LowerComMa) from ``CommunityRewiring/methods.py`` and ``comma(faithful=True)`` on the same
input and says whether the added and the deleted edge sets are identical. The input is the one
``benchmarks/comfy_vs_official.py`` prepares (ComFy protocol: largest connected component),
with our Louvain partition (seed 0) handed to the official code in place of its own Louvain
call, so the comparison isolates the edit step; both use seed 0 for their random draws.
``nx_cugraph`` (CUDA-only) is replaced by a stub. Budgets: the paper's best HigherComMa
budgets and points of the official scripts' grids.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

from comfy_vs_official import (
    SEED,
    edits,
    fixed_louvain,
    install_cugraph_stub,
    load_prepared,
    our_communities,
    quiet_scratch_dir,
    with_masks,
)

import rewirekit

#: (mode, add, delete) per dataset: the paper's best HigherComMa budgets, then grid points.
RUNS = {
    "cora": [("higher", 100, 127), ("higher", 500, 50), ("lower", 100, 10), ("lower", 10, 500)],
    "chameleon_filtered": [
        ("higher", 100, 20),
        ("higher", 20, 500),
        ("lower", 50, 100),
        ("lower", 500, 20),
    ],
}
OFFICIAL = {"higher": "community_rewiring", "lower": "inverse_community_rewiring"}


def import_official_methods(official_dir: Path):
    """``CommunityRewiring/methods.py`` under a name of its own (``Comm+Sim`` has a
    ``methods.py`` too). Its ``from clustering import *`` resolves in ``Spectral/``."""
    folder = official_dir / "CommunityRewiring"
    if not folder.is_dir():
        sys.exit(f"{folder} not found: pass the root of a RelationalML/ComFy checkout.")
    install_cugraph_stub()
    sys.path[:0] = [str(folder), str(official_dir / "Spectral")]
    spec = importlib.util.spec_from_file_location("official_comma", folder / "methods.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare(module, dataset: str, mode: str, add: int, delete: int) -> str:
    data = load_prepared(dataset)
    labels = our_communities(data)
    with fixed_louvain(labels), quiet_scratch_dir():
        if mode == "higher":
            official = module.community_rewiring(with_masks(data), SEED, delete, add)[0]
        else:
            official = module.inverse_community_rewiring(with_masks(data), SEED, delete, add)[0]
    ours = rewirekit.rewire(
        data,
        "comma",
        mode=mode,
        add=add,
        delete=delete,
        seed=SEED,
        faithful=True,
        communities="louvain",
    )
    (off_add, off_del), (our_add, our_del) = edits(data, official), edits(data, ours)
    same = off_add == our_add and off_del == our_del
    return (
        f"{dataset:<19} {mode:<6} {add:>5} {delete:>6} | {len(off_add):>5} {len(off_del):>5} | "
        f"{len(our_add):>5} {len(our_del):>5} | {len(off_add ^ our_add):>6} "
        f"{len(off_del ^ our_del):>6} | {'yes' if same else 'NO'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("official", type=Path, help="root of a RelationalML/ComFy checkout")
    parser.add_argument("--datasets", nargs="*", default=list(RUNS))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    module = import_official_methods(args.official)
    commit = _commit(args.official)
    lines = [
        f"comma(faithful=True) against RelationalML/ComFy {commit} CommunityRewiring/methods.py",
        "same input and Louvain partition (seed 0), random draws seeded 0; counts are edges",
        "",
        f"{'dataset':<19} {'mode':<6} {'add':>5} {'delete':>6} | official: added deleted | "
        "ours: added deleted | differ: added deleted | identical",
    ]
    for dataset in args.datasets:
        for mode, add, delete in RUNS[dataset]:
            lines.append(compare(module, dataset, mode, add, delete))
            print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    identical = all(line.endswith("yes") for line in lines[4:])
    return 0 if identical else 1


def _commit(folder: Path) -> str:
    """The checkout's commit, or "(commit unknown)" for an exported tree without .git."""
    result = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return result.stdout.strip() if result.returncode == 0 else "(commit unknown)"


if __name__ == "__main__":
    sys.exit(main())
