"""The signals of ``rewirekit diagnose`` on offline datasets, for the "choosing a method" guide.

    REWIREKIT_DATA=/work/shared/datasets python benchmarks/diagnose_signals.py \
        --out docs/diagnose_signals.md

For every dataset it computes what ``rewirekit diagnose --dataset NAME --protocol comfy``
prints (the same library calls: the ``comfy`` split preset, the training nodes of split 0,
seeded Leiden communities), and, on ``--after`` datasets, the same signals after each
``--method`` rewiring, as ``... --method SPEC`` does. It writes one
markdown table per part; every signal of :class:`rewirekit.diagnostics.GraphDiagnostics`
is a column, so a signal added there shows up on the next run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torch import Tensor
from torch_geometric.data import Data

from rewirekit.cli import parse_method
from rewirekit.datasets import canonical_name, get_split_preset, load, standardize
from rewirekit.diagnostics import diagnose
from rewirekit.methods import get_method

DATASETS = ("cora", "citeseer", "chameleon", "actor", "texas", "cornell", "wisconsin")
AFTER_DATASETS = ("texas",)
METHODS = (
    "random:add=50,delete=50",
    "fosr:add=50",
    "feast:add=50,delete=50",
    "comma:add=50,delete=50",
    "comfy:add=50,delete=50",
)
PROTOCOL = "comfy"


def prepared(name: str) -> tuple[Data, Tensor]:
    """The dataset and training mask that ``rewirekit diagnose`` uses (split 0)."""
    preset = get_split_preset(PROTOCOL)
    data = preset.prepare(standardize(load(name)))
    train_mask, _, _ = preset.split(data, 0, name)
    return data, train_mask


def markdown_table(first: str, rows: list[tuple[str, dict[str, float]]]) -> str:
    columns = list(rows[0][1])
    lines = [
        "| " + " | ".join([first, *(c.replace("_", " ") for c in columns)]) + " |",
        "|" + "---|" * (len(columns) + 1),
    ]
    for label, values in rows:
        cells = [str(v) if isinstance(v, int) else f"{v:.4f}" for v in values.values()]
        lines.append("| " + " | ".join([label, *cells]) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--after", nargs="*", default=list(AFTER_DATASETS))
    parser.add_argument("--method", dest="methods", action="append", default=None)
    parser.add_argument("--out", type=Path, default=Path("docs/diagnose_signals.md"))
    args = parser.parse_args(argv)
    methods = args.methods or list(METHODS)

    before = []
    for dataset in args.datasets:
        name = canonical_name(dataset)
        data, mask = prepared(name)
        before.append((name, diagnose(data, mask).to_dict()))
        print(f"{name}: {before[-1][1]}", flush=True)
    parts = [
        "# `rewirekit diagnose` on offline datasets\n",
        "Written by `python benchmarks/diagnose_signals.py --out "
        f"{args.out.as_posix()}` (datasets from `REWIREKIT_DATA`). Each row is what "
        f"`rewirekit diagnose --dataset NAME --protocol {PROTOCOL}` prints: the "
        f"`{PROTOCOL}` split preset (largest connected component), label NMI on the "
        "training nodes of split 0, seeded Leiden communities.\n",
        "## Before rewiring\n",
        markdown_table("dataset", before),
    ]
    for dataset in args.after:
        name = canonical_name(dataset)
        data, mask = prepared(name)
        rows = [("none", diagnose(data, mask).to_dict())]
        for text in methods:
            spec = parse_method(text)
            rewired = get_method(spec.name, **spec.params)(data)
            rows.append((f"`{text}`", diagnose(rewired, mask).to_dict()))
            print(f"{name} after {text}: {rows[-1][1]}", flush=True)
        parts += [
            f"## {name}: after each rewiring\n",
            f"`rewirekit diagnose --dataset {name} --protocol {PROTOCOL} --method SPEC`, "
            "one row per SPEC.\n",
            markdown_table("method", rows),
        ]
    args.out.write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
