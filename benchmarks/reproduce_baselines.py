"""Reproduce the no-rewiring rows of the JDR and ComFy papers under each paper's protocol.

    python benchmarks/reproduce_baselines.py                      # everything, resumable
    python benchmarks/reproduce_baselines.py --splits 5 --only comfy --datasets cora texas

Rows go to a SQLite store (default ``runs/baselines.db``); a re-run skips finished rows,
so the script can be stopped and restarted at any time. It prints ours against the paper
with a "matches" column (the two 95% intervals overlap) and writes the table as Markdown.

Intervals compared: JDR reports the 95% bootstrap CI of the mean, ComFy reports
2·std/√n; each of our rows uses the same statistic as the paper it is compared with.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from rewirekit.bench.progress import RichProgress
from rewirekit.bench.report import SummaryRow, summarize_records
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
from rewirekit.bench.stats import intervals_overlap
from rewirekit.bench.store import ResultStore
from rewirekit.datasets import (DatasetUnavailable, available_offline, get_split_preset, load,
                                standardize)


@dataclass(frozen=True)
class PaperRow:
    """One published baseline: mean ± half-width of the paper's interval (percent)."""

    preset: str  # "jdr" or "comfy"
    split: str
    model: str
    dataset: str  # our dataset name
    mean: float
    pm: float
    splits: int  # how many splits we run by default


# JDR (Linkerhägner et al., ICLR 2025), Tables 2 and 3: mean ± 95% bootstrap CI, 100 splits.
# ComFy (Rubio-Madrigal et al., ICLR 2025), Table 1: mean ± 2σ/√n, 100 splits; its
# heterophilic data are the yandex files, so chameleon/squirrel are the filtered versions.
_LARGE = 10  # splits on Computers and Photo (each GCN run takes minutes on one CPU thread)
PAPER: list[PaperRow] = [
    PaperRow("jdr", "sparse", "gcn", "cora", 77.26, 0.35, 100),
    PaperRow("jdr", "sparse", "gcn", "citeseer", 67.16, 0.37, 100),
    PaperRow("jdr", "sparse", "gcn", "computers", 84.42, 0.31, _LARGE),
    PaperRow("jdr", "sparse", "gcn", "photo", 91.33, 0.29, _LARGE),
    PaperRow("jdr", "sparse", "gprgnn", "cora", 79.65, 0.33, 100),
    PaperRow("jdr", "sparse", "gprgnn", "citeseer", 67.50, 0.35, 100),
    PaperRow("jdr", "sparse", "gprgnn", "computers", 84.06, 0.48, _LARGE),
    PaperRow("jdr", "sparse", "gprgnn", "photo", 92.01, 0.41, _LARGE),
    PaperRow("jdr", "dense", "gcn", "chameleon", 67.65, 0.42, 100),
    PaperRow("jdr", "dense", "gcn", "actor", 34.00, 0.31, 100),
    PaperRow("jdr", "dense", "gcn", "texas", 75.62, 1.12, 100),
    PaperRow("jdr", "dense", "gcn", "cornell", 64.68, 1.25, 100),
    PaperRow("jdr", "dense", "gprgnn", "chameleon", 69.15, 0.51, 100),
    PaperRow("jdr", "dense", "gprgnn", "actor", 39.52, 0.22, 100),
    PaperRow("jdr", "dense", "gprgnn", "texas", 92.82, 0.67, 100),
    PaperRow("jdr", "dense", "gprgnn", "cornell", 87.79, 0.89, 100),
    PaperRow("comfy", "comfy", "gcn", "cora", 86.12, 0.36, 100),
    PaperRow("comfy", "comfy", "gcn", "citeseer", 77.83, 0.35, 100),
    PaperRow("comfy", "comfy", "gcn", "cornell", 35.14, 1.63, 100),
    PaperRow("comfy", "comfy", "gcn", "texas", 35.14, 1.50, 100),
    PaperRow("comfy", "comfy", "gcn", "wisconsin", 38.00, 1.47, 100),
    PaperRow("comfy", "comfy", "gcn", "chameleon_filtered", 39.33, 0.59, 100),
    PaperRow("comfy", "comfy", "gcn", "squirrel_filtered", 31.69, 0.42, 100),
    PaperRow("comfy", "comfy", "gcn", "actor", 27.24, 0.21, 100),
]

#: One line per known mismatch, shown in the table next to rows that do not match.
MISMATCH_REASONS: dict[tuple[str, str, str], str] = {
    ("comfy", "gcn", "actor"): "paper value equals 414/1520 correct test nodes, as the other "
                               "ComFy baselines equal single-split accuracies",
    ("jdr", "gcn", "cornell"): "the intervals miss by 0.05 points; same data, model and split "
                               "rule, other random splits of 37 test nodes (our first 30 "
                               "splits gave 67.10 ± 2.57, which overlaps)",
}


def single_run_fraction(paper: PaperRow) -> str | None:
    """If the paper's mean is exactly ``k / |test set|`` (to the printed 0.01) for a test set
    of our split's size, return ``"k/|test|"``.

    A mean over 100 random splits lands on such a fraction only by chance, with probability
    about ``0.01 / (100 / |test|)``; the check is made only where that is below 5%
    (``|test| < 500``), so a hit means the figure is one split's accuracy."""
    split = get_split_preset(paper.split)
    data = split.prepare(standardize(load(paper.dataset)))
    test = int(split.split(data, 0, paper.dataset)[2].sum())
    k = round(paper.mean * test / 100)
    exact = abs(100 * k / test - paper.mean) < 0.005
    return f"{k}/{test}" if exact and test < 500 else None


DOC_HEADER = """# No-rewiring baselines: ours against the papers

Written by `python benchmarks/reproduce_baselines.py --out docs/baselines.md` (rows come
from the resumable store `runs/baselines.db`; `--stored-only` re-tabulates without training).

- **jdr** rows: the JDR paper's protocol (Linkerhägner et al., ICLR 2025, Tables 2–3): the
  `jdr` training preset (official defaults + per-dataset yaml overrides), `sparse`
  (2.5/2.5/95) or `dense` (60/20/20) class-balanced random splits; ± is the 95% bootstrap
  CI of the mean (percentile, 1000 resamples; the paper's code uses BCa).
- **comfy** rows: the ComFy paper's protocol (Rubio-Madrigal et al., ICLR 2025, Table 1):
  largest connected component, random 60/20/20 splits, two-layer GCN without dropout, 100
  epochs, last epoch evaluated; ± is 2σ/√n as in the paper. Its heterophilic data are the
  yandex files, so Chameleon/Squirrel are the filtered versions.
- Graphs lose self-loops and duplicate edges and are made undirected, except that the jdr
  rows keep Actor directed, as the official JDR code does (this moves GCN from 35.5 to 33.9
  over 10 splits). Chameleon uses the geom-gcn edges, as the raw edge files the JDR paper
  used are not available offline; their directions differ from the raw graph's, so it is
  made undirected (kept directed, GCN falls to 45.7 over 30 splits).
- "matches" means the two intervals overlap. n is our number of splits: the target is 100
  (10 on Computers/Photo, where one run takes minutes on one CPU thread); rows below it
  were cut short by the session's time and continue on the next run of the script.

"""


def _our_interval(row: SummaryRow, preset: str) -> tuple[float, float]:
    if preset == "comfy":
        return row.mean - row.two_sigma, row.mean + row.two_sigma
    return row.ci_low, row.ci_high


def run(paper_rows: list[PaperRow], store: ResultStore, splits: int | None,
        console: Console, *, stored_only: bool = False) -> list[tuple[PaperRow, SummaryRow | None]]:
    results = []
    for paper in paper_rows:
        if stored_only:
            records = list(store.records(dataset=paper.dataset, split_preset=paper.split,
                                         model=paper.model, training_preset=paper.preset,
                                         method="none"))
            results.append((paper, summarize_records(records)[0] if records else None))
            continue
        if not available_offline(paper.dataset):
            console.print(f"[yellow]skip {paper.dataset}: not available offline[/]")
            results.append((paper, None))
            continue
        spec = BenchmarkSpec(datasets=[DatasetSpec.named(paper.dataset)],
                             methods=[MethodSpec("none")], models=[paper.model],
                             split_preset=paper.split, training_preset=paper.preset,
                             num_splits=splits or paper.splits)
        with RichProgress() as progress:
            records = run_benchmark(spec, store, progress)
        results.append((paper, summarize_records(records)[0]))
    return results


def to_markdown(results: list[tuple[PaperRow, SummaryRow | None]]) -> str:
    head = ("| preset | split | model | dataset | paper | ours | n | matches | note |\n"
            "|---|---|---|---|---|---|---|---|---|\n")
    lines = []
    for paper, ours in results:
        if ours is None:
            lines.append(f"| {paper.preset} | {paper.split} | {paper.model} | {paper.dataset} | "
                         f"{paper.mean:.2f} ± {paper.pm:.2f} | — | 0 | — | not run |")
            continue
        lo, hi = _our_interval(ours, paper.preset)
        match = intervals_overlap(lo, hi, paper.mean - paper.pm, paper.mean + paper.pm)
        note = "" if match else _mismatch_reason(paper)
        lines.append(f"| {paper.preset} | {paper.split} | {paper.model} | {paper.dataset} | "
                     f"{paper.mean:.2f} ± {paper.pm:.2f} | {ours.mean:.2f} ± {(hi - lo) / 2:.2f} | "
                     f"{ours.n} | {'yes' if match else 'no'} | {note} |")
    return head + "\n".join(lines) + "\n"


def _mismatch_reason(paper: PaperRow) -> str:
    known = MISMATCH_REASONS.get((paper.preset, paper.model, paper.dataset))
    if known:
        return known
    fraction = single_run_fraction(paper)
    if fraction:
        return (f"paper value is exactly {fraction} correct test nodes: one split's accuracy, "
                f"not a mean over 100 splits like ours")
    return "unexplained"


def to_rich(markdown: str) -> Table:
    rows = [line.strip("|").split("|") for line in markdown.strip().splitlines()]
    table = Table(title="no-rewiring baselines: ours vs paper")
    for col in rows[0]:
        table.add_column(col.strip())
    for row in rows[2:]:
        table.add_row(*(c.strip() for c in row))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("runs/baselines.db"))
    parser.add_argument("--splits", type=int, default=None,
                        help="splits per row (default: 100, or 10 on Computers/Photo)")
    parser.add_argument("--only", choices=["jdr", "comfy"], default=None)
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown table here")
    parser.add_argument("--stored-only", action="store_true",
                        help="train nothing: tabulate the rows already in the store")
    args = parser.parse_args(argv)
    rows = [r for r in PAPER
            if (args.only is None or r.preset == args.only)
            and (args.datasets is None or r.dataset in args.datasets)
            and (args.models is None or r.model in args.models)]
    console = Console()
    with ResultStore(args.store) as store:
        try:
            results = run(rows, store, args.splits, console, stored_only=args.stored_only)
        except DatasetUnavailable as err:
            console.print(f"[red]error:[/] {err}")
            return 2
    markdown = to_markdown(results)
    console.print(to_rich(markdown))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(DOC_HEADER + markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
