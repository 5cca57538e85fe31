"""Reproduce the JDR and ComFy papers' tables under each paper's own protocol.

    python benchmarks/reproduce_papers.py --table baselines      # no-rewiring rows of both papers
    python benchmarks/reproduce_papers.py --table jdr            # GCN/GPRGNN + JDR (JDR Tables 2-3)
    python benchmarks/reproduce_papers.py --table comfy          # ComFy Tables 1 and 3
    python benchmarks/reproduce_papers.py --table jdr --splits 5 --datasets texas --stored-only

Rows go to a SQLite store (default ``runs/baselines.db``); a re-run skips finished rows,
so the script can be stopped and restarted at any time, and several tables can run at once
from separate processes. It prints ours against the paper with a "matches" column (the two
95% intervals overlap) and writes the table as Markdown (``--out``). ``--runs-file
docs/reproduction_runs.csv.gz`` carries the per-split rows between machines: missing rows
are loaded from it first, and the store is written back to it at the end.

Intervals compared: JDR reports the 95% bootstrap CI of the mean, ComFy reports
2·std/√n; each of our rows uses the same statistic as the paper it is compared with.

Budgets: where the ComFy paper names the budget behind its best result (FeaSt, ComFy,
HigherComMa) we use it. Where it does not (ProxyAdd/ProxyDelete, FoSR, LowerComMa), each
budget of the official script's grid runs on the first ``SELECTION_SPLITS`` splits and the
one with the best mean validation accuracy is kept, as the paper selected its budgets.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from rewirekit.bench import JDRPreset
from rewirekit.bench.progress import RichProgress
from rewirekit.bench.report import SummaryRow, summarize_records
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
from rewirekit.bench.stats import intervals_overlap
from rewirekit.bench.store import ResultStore
from rewirekit.datasets import (
    DatasetUnavailable,
    available_offline,
    get_split_preset,
    load,
    standardize,
)


@dataclass(frozen=True)
class PaperRow:
    """One published result: mean ± half-width of the paper's interval (percent).

    ``candidates`` holds the method parameters to try when the paper does not say which
    budget it used (the best on validation is kept); otherwise it has one entry."""

    preset: str  # training preset: "jdr" or "comfy"
    split: str
    model: str
    dataset: str  # our dataset name
    mean: float
    pm: float
    splits: int  # how many splits we run by default
    label: str = "base"  # the paper's name of the method, e.g. "FeaStAdd"
    method: str = "none"
    candidates: tuple[dict[str, Any], ...] = field(default=({},))


SELECTION_SPLITS = 10
_LARGE = 10  # no-rewiring splits on Computers/Photo (a GCN run takes minutes on one thread)
_LARGE_REWIRED = 20


def _jdr(split: str, model: str, dataset: str, mean: float, pm: float, splits: int) -> PaperRow:
    """A JDR row: the paper's tuned settings for (dataset, model, split), faithful mode."""
    params = JDRPreset().rewiring_params(dataset, model, split)
    return PaperRow(
        "jdr",
        split,
        model,
        dataset,
        mean,
        pm,
        splits,
        f"{model.upper()}+JDR",
        "jdr",
        ({**params, "faithful": True},),
    )


# JDR (Linkerhägner et al., ICLR 2025), Tables 2 and 3: mean ± 95% bootstrap CI, 100 splits.
JDR_BASELINES: list[PaperRow] = [
    PaperRow("jdr", "sparse", "gcn", "cora", 77.26, 0.35, 100),
    PaperRow("jdr", "sparse", "gcn", "citeseer", 67.16, 0.37, 100),
    PaperRow("jdr", "sparse", "gcn", "computers", 84.42, 0.31, _LARGE),
    PaperRow("jdr", "sparse", "gcn", "photo", 91.33, 0.29, _LARGE),
    PaperRow("jdr", "sparse", "gprgnn", "cora", 79.65, 0.33, 100),
    PaperRow("jdr", "sparse", "gprgnn", "citeseer", 67.50, 0.35, 100),
    PaperRow("jdr", "sparse", "gprgnn", "computers", 84.06, 0.48, _LARGE),
    PaperRow("jdr", "sparse", "gprgnn", "photo", 92.01, 0.41, _LARGE),
    PaperRow("jdr", "dense", "gcn", "chameleon", 67.65, 0.42, 100),
    PaperRow("jdr", "dense", "gcn", "squirrel", 57.94, 0.31, 100),
    PaperRow("jdr", "dense", "gcn", "actor", 34.00, 0.31, 100),
    PaperRow("jdr", "dense", "gcn", "texas", 75.62, 1.12, 100),
    PaperRow("jdr", "dense", "gcn", "cornell", 64.68, 1.25, 100),
    PaperRow("jdr", "dense", "gprgnn", "chameleon", 69.15, 0.51, 100),
    PaperRow("jdr", "dense", "gprgnn", "squirrel", 53.44, 0.37, 100),
    PaperRow("jdr", "dense", "gprgnn", "actor", 39.52, 0.22, 100),
    PaperRow("jdr", "dense", "gprgnn", "texas", 92.82, 0.67, 100),
    PaperRow("jdr", "dense", "gprgnn", "cornell", 87.79, 0.89, 100),
]
JDR_REWIRED: list[PaperRow] = [
    _jdr("dense", "gcn", "texas", 85.12, 0.74, 100),
    _jdr("dense", "gcn", "cornell", 84.51, 1.06, 100),
    _jdr("dense", "gprgnn", "texas", 93.85, 0.54, 100),
    _jdr("dense", "gprgnn", "cornell", 89.45, 0.84, 100),
    _jdr("sparse", "gcn", "cora", 79.96, 0.26, 100),
    _jdr("sparse", "gprgnn", "cora", 80.77, 0.29, 100),
    _jdr("sparse", "gcn", "citeseer", 69.35, 0.28, 100),
    _jdr("sparse", "gprgnn", "citeseer", 69.17, 0.30, 100),
    _jdr("dense", "gcn", "chameleon", 69.76, 0.50, 100),
    _jdr("dense", "gprgnn", "chameleon", 71.00, 0.50, 100),
    _jdr("dense", "gcn", "squirrel", 61.76, 0.39, 100),
    _jdr("dense", "gprgnn", "squirrel", 60.62, 0.38, 100),
    _jdr("sparse", "gcn", "photo", 92.52, 0.23, _LARGE_REWIRED),
    _jdr("sparse", "gprgnn", "photo", 92.68, 0.25, _LARGE_REWIRED),
    _jdr("dense", "gcn", "actor", 40.47, 0.31, 100),
    _jdr("dense", "gprgnn", "actor", 41.89, 0.24, 100),
    _jdr("sparse", "gcn", "computers", 85.66, 0.36, _LARGE_REWIRED),
    _jdr("sparse", "gprgnn", "computers", 84.77, 0.35, _LARGE_REWIRED),
]

# ComFy (Rubio-Madrigal et al., ICLR 2025), Tables 1 and 3: GCN, mean ± 2σ/√n, 100 splits;
# its heterophilic data are the yandex files, so chameleon/squirrel are the filtered versions.
COMFY_DATASETS = (
    "cora",
    "citeseer",
    "cornell",
    "texas",
    "wisconsin",
    "chameleon_filtered",
    "squirrel_filtered",
    "actor",
)
COMFY_BASELINES: list[PaperRow] = [
    PaperRow("comfy", "comfy", "gcn", d, m, pm, 100)
    for d, (m, pm) in zip(
        COMFY_DATASETS,
        [
            (86.12, 0.36),
            (77.83, 0.35),
            (35.14, 1.63),
            (35.14, 1.50),
            (38.00, 1.47),
            (39.33, 0.59),
            (31.69, 0.42),
            (27.24, 0.21),
        ],
        strict=True,
    )
]

# Paper Table 1 / Table 3 values per method, in COMFY_DATASETS order.
_COMFY_RESULTS: dict[str, list[tuple[float, float]]] = {
    "FoSR": [
        (83.50, 0.39),
        (75.47, 0.31),
        (40.54, 1.47),
        (51.35, 1.75),
        (54.00, 1.46),
        (41.01, 0.63),
        (32.36, 0.37),
        (27.57, 0.21),
    ],
    "ProxyAddMin": [
        (84.10, 0.39),
        (78.77, 0.40),
        (45.95, 1.50),
        (48.65, 1.45),
        (42.00, 1.23),
        (39.33, 0.55),
        (33.71, 0.40),
        (28.03, 0.22),
    ],
    "ProxyAddMax": [
        (85.92, 0.43),
        (79.25, 0.35),
        (48.65, 1.41),
        (40.54, 1.64),
        (50.00, 1.25),
        (38.20, 0.70),
        (35.06, 0.44),
        (25.99, 0.20),
    ],
    "ProxyDelMin": [
        (85.92, 0.37),
        (79.01, 0.34),
        (45.95, 1.50),
        (48.65, 1.63),
        (44.00, 1.13),
        (39.89, 0.59),
        (34.83, 0.45),
        (26.58, 0.25),
    ],
    "ProxyDelMax": [
        (86.32, 0.38),
        (81.84, 0.38),
        (54.05, 1.67),
        (48.65, 1.35),
        (52.00, 1.33),
        (39.33, 0.70),
        (34.61, 0.39),
        (27.30, 0.22),
    ],
    "HigherComMaAdd": [
        (83.64, 0.38),
        (77.13, 0.38),
        (49.93, 1.34),
        (52.66, 1.47),
        (50.55, 1.24),
        (41.23, 0.72),
        (34.51, 0.40),
        (30.92, 0.21),
    ],
    "HigherComMaDel": [
        (83.82, 0.31),
        (77.31, 0.41),
        (49.03, 1.26),
        (48.57, 1.53),
        (50.32, 1.38),
        (40.44, 0.69),
        (34.66, 0.39),
        (30.71, 0.24),
    ],
    "LowerComMaAdd": [
        (83.41, 0.37),
        (77.15, 0.36),
        (51.08, 1.67),
        (50.29, 1.71),
        (50.95, 1.29),
        (40.61, 0.64),
        (34.48, 0.39),
        (30.79, 0.23),
    ],
    "LowerComMaDel": [
        (83.61, 0.35),
        (77.39, 0.37),
        (49.69, 1.43),
        (50.59, 1.52),
        (50.61, 1.35),
        (40.43, 0.71),
        (34.76, 0.40),
        (30.79, 0.22),
    ],
    "FeaStAdd": [
        (87.73, 0.39),
        (78.54, 0.34),
        (59.46, 1.49),
        (54.05, 1.51),
        (60.00, 1.09),
        (43.26, 0.62),
        (39.33, 0.73),
        (31.25, 0.22),
    ],
    "FeaStDel": [
        (90.74, 0.39),
        (81.60, 0.39),
        (51.35, 1.63),
        (64.86, 1.43),
        (60.00, 1.27),
        (42.70, 0.69),
        (36.40, 0.36),
        (31.97, 0.21),
    ],
    "ComFyAdd": [
        (87.73, 0.26),
        (77.36, 0.38),
        (67.57, 1.68),
        (62.16, 1.52),
        (62.00, 1.12),
        (41.57, 0.83),
        (36.85, 0.38),
        (32.30, 0.25),
    ],
    "ComFyDel": [
        (88.13, 0.27),
        (78.07, 0.35),
        (70.27, 1.50),
        (64.86, 1.51),
        (66.00, 1.34),
        (45.51, 0.76),
        (39.10, 0.43),
        (31.12, 0.19),
    ],
    # Table 3 prints means only; their ± is taken as unknown (0).
    "FeaStAddDel": [
        (85.71, 0),
        (80.19, 0),
        (54.05, 0),
        (56.76, 0),
        (58.00, 0),
        (44.94, 0),
        (35.73, 0),
        (32.63, 0),
    ],
    "ComFyAddDel": [
        (88.93, 0),
        (80.42, 0),
        (62.16, 0),
        (59.46, 0),
        (64.00, 0),
        (46.63, 0),
        (37.75, 0),
        (33.09, 0),
    ],
}
# Best budgets (add, delete) the paper reports, in COMFY_DATASETS order.
_BEST_BUDGETS = {
    "feast": [
        (1000, 500),
        (1000, 10),
        (20, 5),
        (5, 100),
        (10, 50),
        (20, 20),
        (50, 100),
        (100, 100),
    ],
    "comfy": [
        (100, 2000),
        (100, 1000),
        (10, 10),
        (10, 0),
        (50, 50),
        (100, 1500),
        (500, 1500),
        (500, 2000),
    ],
    "comma": [(100, 127), (10, 10), (5, 10), (100, 10), (5, 10), (100, 20), (20, 1000), (20, 50)],
}
# The official scripts' budget grids (gen_spect.sh / run_*comm*.sh) for rows without a
# published best budget: Planetoid, WebKB, and the three larger heterophilic sets.
_GRIDS = {
    "planetoid": (10, 50, 100, 500),
    "webkb": (5, 10, 20, 50, 100),
    "large": (20, 50, 100, 500, 1000),
}
_GRID_OF = {
    "cora": "planetoid",
    "citeseer": "planetoid",
    "cornell": "webkb",
    "texas": "webkb",
    "wisconsin": "webkb",
    "chameleon_filtered": "large",
    "squirrel_filtered": "large",
    "actor": "large",
}
_COMFY_SPLITS = 30


#: The paper's community detection (our default is Leiden).
PAPER_COMMUNITIES = {"communities": "louvain"}


def _comfy_candidates(label: str, index: int, dataset: str) -> tuple[str, tuple[dict, ...]]:
    grid = _GRIDS[_GRID_OF[dataset]]
    if label == "FoSR":
        return "fosr", tuple({"add": b} for b in grid)
    if label.startswith("Proxy"):
        kind, objective = label[5:8], label[8:].lower()
        name, budget = ("proxy_add", "add") if kind == "Add" else ("proxy_delete", "delete")
        return name, tuple({"objective": objective, budget: b} for b in grid)
    if label.startswith("LowerComMa"):
        budget = "add" if label.endswith("Add") else "delete"
        return "comma", tuple({"mode": "lower", budget: b, **PAPER_COMMUNITIES} for b in grid)
    name = {"HigherComMa": "comma", "FeaSt": "feast", "ComFy": "comfy"}[
        label.removesuffix("AddDel").removesuffix("Add").removesuffix("Del")
    ]
    add, delete = _BEST_BUDGETS[name][index]
    params: dict[str, int | str] = {"mode": "higher"} if name == "comma" else {}
    if name in ("comma", "comfy"):
        params.update(PAPER_COMMUNITIES)
    if (
        name == "comfy"
    ):  # the rows were run with the paper's half-up budgets (see pin_comfy_rounding)
        params["rounding"] = "round"
    if label.endswith("AddDel"):
        params.update(add=add, delete=delete)
    elif label.endswith("Add"):
        params["add"] = add
    else:
        params["delete"] = delete
    return name, (params,)


COMFY_REWIRED: list[PaperRow] = []
for _label, _values in _COMFY_RESULTS.items():
    for _i, (_dataset, (_mean, _pm)) in enumerate(zip(COMFY_DATASETS, _values, strict=True)):
        _name, _candidates = _comfy_candidates(_label, _i, _dataset)
        COMFY_REWIRED.append(
            PaperRow(
                "comfy",
                "comfy",
                "gcn",
                _dataset,
                _mean,
                _pm,
                _COMFY_SPLITS,
                _label,
                _name,
                _candidates,
            )
        )

TABLES: dict[str, list[PaperRow]] = {
    "baselines": JDR_BASELINES + COMFY_BASELINES,
    "jdr": JDR_BASELINES + JDR_REWIRED,
    "comfy": COMFY_BASELINES + COMFY_REWIRED,
}

#: One line per known mismatch, shown in the table next to rows that do not match.
MISMATCH_REASONS: dict[tuple[str, str, str, str], str] = {
    ("comfy", "gcn", "actor", "base"): "paper value equals 414/1520 correct test nodes, as the "
    "other ComFy baselines equal single-split accuracies",
    ("jdr", "gprgnn", "cornell", "GPRGNN+JDR"): "ours is above the paper, as our GPRGNN baseline "
    "is (89.77 vs 87.79); the gain from JDR agrees",
    ("jdr", "gcn", "cornell", "GCN+JDR"): "the official code does not reach it either: run on "
    "this CPU with its committed yaml (train_model.py "
    "--dataset Cornell --data_split dense --net GCN "
    "--denoise_default GCN, 100 splits) it gets 68.03 ± "
    "3.10, and 71.7-78.4 with other node-order seeds "
    "(--run_num 1-3); ours overlaps the official run",
    ("jdr", "gprgnn", "squirrel", "base"): "likely the graph: ours is geom-gcn's edge list made "
    "undirected, the paper's code reads the raw "
    "WikipediaNetwork edges, which are not available "
    "offline (GCN's baseline matches all the same)",
    ("jdr", "gcn", "photo", "GCN+JDR"): "not explained; the yaml's L_X = 1867 exceeds rank(X) "
    "<= 745, so most pulled singular vectors are an arbitrary "
    "basis of X's null space (as in the official code), "
    "which depends on the LAPACK build and the node order "
    "(on Cornell, 3 such vectors move the official code's "
    "own result between 68 and 78)",
    ("jdr", "gcn", "actor", "GCN+JDR"): "unexplained; not the input graph: the official code's "
    "JDR reads only the lower triangle of the directed Actor "
    "adjacency, and on that graph ours moves by +0.29 points "
    "(paired, 20 splits, CI -0.15 to +0.74; "
    "docs/jdr_actor_direction.txt)",
    ("jdr", "gprgnn", "citeseer", "GPRGNN+JDR"): "unexplained; our GPRGNN baseline and GCN+JDR "
    "rows match, and faithful JDR performs the "
    "official operations; the official pipeline "
    "trains 2-3.5 min a split on this CPU (over 3 h "
    "for 100 splits), too long to run beside it",
    ("jdr", "gcn", "chameleon", "GCN+JDR"): "unexplained; possibly the graph (ours: geom-gcn's "
    "edges made undirected; the paper's code: the raw "
    "WikipediaNetwork edges, not available offline); "
    "the official pipeline on our graph early-stops "
    "after as many epochs (481 and 375 in its first "
    "splits, ours 580 on average) but takes about 2 min "
    "a split here (over 3 h for 100), not run",
    ("jdr", "gprgnn", "actor", "GPRGNN+JDR"): "the intervals miss by 0.12 points at 100 "
    "splits; our GPRGNN baseline on Actor is lower too "
    "(39.28 vs 39.52), and the gain from JDR is close",
    ("jdr", "gcn", "cornell", "base"): "the intervals miss by 0.05 points; same data, model and "
    "split rule, other random splits of 37 test nodes (our "
    "first 30 splits gave 67.10 ± 2.57, which overlaps); "
    "the official code on this CPU gets 66.69 ± 1.20 "
    "(100 splits), which overlaps ours",
    ("jdr", "gprgnn", "cornell", "base"): "the intervals miss by 0.13 points; same data, model "
    "and split rule, other random splits of 37 test "
    "nodes (our first 30 splits gave 90.11 ± 1.45, "
    "which overlaps); our GCN baseline on Cornell is "
    "above the paper too, as is the official code's "
    "GCN run on this CPU",
}


@dataclass(frozen=True)
class Result:
    """Our figures for one paper row (``summary`` is None when nothing ran)."""

    paper: PaperRow
    params: dict[str, Any]
    summary: SummaryRow | None


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


class Reproduction:
    """Runs (or, with ``stored_only``, only reads) the rows of a table in ``store``."""

    def __init__(self, store: ResultStore, splits: int | None, *, stored_only: bool = False):
        self.store, self.splits, self.stored_only = store, splits, stored_only

    def result(self, paper: PaperRow) -> Result:
        params = self.select(paper)
        if params is None:
            return Result(paper, dict(paper.candidates[0]), None)
        records = self.records(
            paper, [MethodSpec(paper.method, params)], self.splits or paper.splits
        )
        return Result(paper, params, summarize_records(records)[0] if records else None)

    def select(self, paper: PaperRow) -> dict[str, Any] | None:
        """The candidate with the best mean validation accuracy over the selection splits
        (the first on ties); None if they are not all in the store."""
        if len(paper.candidates) == 1:
            return dict(paper.candidates[0])
        methods = [MethodSpec(paper.method, c) for c in paper.candidates]
        summaries = {
            s.method: s
            for s in summarize_records(
                self.records(paper, methods, min(SELECTION_SPLITS, self.splits or SELECTION_SPLITS))
            )
        }
        if any(m.label not in summaries for m in methods):
            return None
        best = max(range(len(methods)), key=lambda i: (summaries[methods[i].label].val_mean, -i))
        return dict(paper.candidates[best])

    def records(self, paper: PaperRow, methods: list[MethodSpec], splits: int) -> list:
        if self.stored_only:
            return [
                r
                for m in methods
                for r in self.store.records(
                    dataset=paper.dataset,
                    split_preset=paper.split,
                    model=paper.model,
                    training_preset=paper.preset,
                    method=m.name,
                    params_hash=m.params_hash,
                )
                if r.key.split_id < splits
            ]
        if not available_offline(paper.dataset):
            return []
        spec = BenchmarkSpec(
            datasets=[DatasetSpec.named(paper.dataset)],
            methods=methods,
            models=[paper.model],
            split_preset=paper.split,
            training_preset=paper.preset,
            num_splits=splits,
        )
        with RichProgress() as progress:
            return run_benchmark(spec, self.store, progress)


def _our_interval(row: SummaryRow, preset: str) -> tuple[float, float]:
    if preset == "comfy":
        return row.mean - row.two_sigma, row.mean + row.two_sigma
    return row.ci_low, row.ci_high


def _params_text(result: Result) -> str:
    shown = {k: v for k, v in result.params.items() if k != "faithful"}
    if result.paper.method == "jdr":  # the tuned settings are in the preset; name them briefly
        return "paper's tuned settings, faithful"
    return ", ".join(f"{k}={v}" for k, v in shown.items())


def to_markdown(results: list[Result]) -> str:
    head = (
        "| preset | split | model | dataset | method | params | paper | ours | n | matches "
        "| note |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    bases = {_cell(r.paper): r for r in results if r.paper.label == "base"}
    lines = []
    for result in results:
        paper, ours = result.paper, result.summary
        cells = (
            f"| {paper.preset} | {paper.split} | {paper.model} | {paper.dataset} | "
            f"{paper.label} | {_params_text(result)} | {paper.mean:.2f} ± {paper.pm:.2f} | "
        )
        if ours is None:
            lines.append(cells + "— | 0 | — | not run |")
            continue
        if ours.n < 2:
            lines.append(cells + f"{ours.mean:.2f} | 1 | — | one split: no interval yet |")
            continue
        lo, hi = _our_interval(ours, paper.preset)
        match = intervals_overlap(lo, hi, paper.mean - paper.pm, paper.mean + paper.pm)
        note = "" if match else _mismatch_reason(paper, ours.mean, bases.get(_cell(paper)))
        lines.append(
            cells + f"{ours.mean:.2f} ± {(hi - lo) / 2:.2f} | {ours.n} | "
            f"{'yes' if match else 'no'} | {note} |"
        )
    return head + "\n".join(lines) + "\n"


def _cell(paper: PaperRow) -> tuple[str, str, str, str]:
    return paper.preset, paper.split, paper.model, paper.dataset


def _mismatch_reason(paper: PaperRow, ours: float, base: Result | None = None) -> str:
    """Why a row (our mean ``ours``) does not match: a known reason, a single-split paper
    value, or, for a rewired row, a mismatch of the paper's baseline too. Rewired rows also
    get the effect of rewiring (row minus baseline) in the paper and in ours."""
    reason = MISMATCH_REASONS.get((paper.preset, paper.model, paper.dataset, paper.label))
    fraction = None if reason else single_run_fraction(paper)
    if fraction:
        reason = (
            f"paper value is exactly {fraction} correct test nodes: one split's "
            f"accuracy, not a mean over 100 splits like ours"
        )
    if base is None or base.summary is None or paper.label == "base":
        return reason or "unexplained"
    if reason is None:
        base_reason = _mismatch_reason(base.paper, base.summary.mean)
        reason = (
            "unexplained"
            if base_reason == "unexplained"
            else f"the paper's baseline here is off too ({base_reason})"
        )
    return (
        f"{reason}; rewiring vs. base: paper {paper.mean - base.paper.mean:+.2f}, ours "
        f"{ours - base.summary.mean:+.2f} points"
    )


def to_rich(markdown: str, title: str) -> Table:
    rows = [line.strip("|").split("|") for line in markdown.strip().splitlines()]
    table = Table(title=title)
    for col in rows[0]:
        table.add_column(col.strip())
    for row in rows[2:]:
        table.add_row(*(c.strip() for c in row))
    return table


DOC_INTRO = """\
Written by `python benchmarks/reproduce_papers.py --table {table} --out {out} --runs-file
docs/reproduction_runs.csv.gz` (rows come from the resumable store `runs/baselines.db`;
every per-split row is also committed in `docs/reproduction_runs.csv.gz`, which the same
option loads into a new machine's store; `--stored-only` re-tabulates without training).

- **jdr** rows: the JDR paper's protocol (Linkerhägner et al., ICLR 2025, Tables 2–3): the
  `jdr` training preset (official defaults + per-dataset yaml overrides), `sparse`
  (2.5/2.5/95) or `dense` (60/20/20) class-balanced random splits; ± is the 95% bootstrap
  CI of the mean (percentile, 1000 resamples; the paper's code uses BCa). JDR runs in
  `faithful` mode with the official yaml's tuned settings for the dataset, model and split,
  and the default `solver="auto"`: the official dense decompositions everywhere except
  Computers with the GCN settings (975 of 13,752 eigenpairs, under a tenth), which runs
  ARPACK (same algorithm, other rounding and tie order than the official float32 `eigh`).
- **comfy** rows: the ComFy paper's protocol (Rubio-Madrigal et al., ICLR 2025, Tables 1
  and 3): largest connected component, random 60/20/20 splits, two-layer GCN without
  dropout, 100 epochs, last epoch evaluated; ± is 2σ/√n as in the paper. Its heterophilic
  data are the yandex files, so Chameleon/Squirrel are the filtered versions. Budgets are
  the paper's best where it names them (FeaSt, ComFy, HigherComMa; Table 3's add+delete
  rows combine the best add and the best delete budget); elsewhere (Proxy*, FoSR,
  LowerComMa) the official script's grid, best mean validation accuracy over the first
  10 splits. ComMa and ComFy take the paper's networkx Louvain communities (our default
  is Leiden).
- Graphs lose self-loops and duplicate edges and are made undirected, except that the jdr
  rows keep Actor directed, as the official JDR code does (this moves GCN from 35.5 to 33.9
  over 10 splits). Chameleon and Squirrel use the geom-gcn edges, as the raw edge files the
  JDR paper used are not available offline; their directions differ from the raw graph's,
  so they are made undirected (kept directed, GCN falls to 45.7 on Chameleon over 30
  splits).
- "matches" means the two intervals overlap. n is our number of splits: the target is 100
  (10 no-rewiring and 20 JDR splits on Computers/Photo, where one run takes minutes on one
  CPU thread; 30 on the ComFy method rows); rows below it were cut short by the session's
  time and continue on the next run of the script.

"""
TITLES = {
    "baselines": "No-rewiring baselines: ours against the papers",
    "jdr": "JDR reproduction: GCN/GPRGNN with and without JDR, ours against the paper",
    "comfy": "ComFy reproduction: GCN with each rewiring, ours against the paper",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=sorted(TABLES), default="baselines")
    parser.add_argument("--store", type=Path, default=Path("runs/baselines.db"))
    parser.add_argument(
        "--splits", type=int, default=None, help="splits per row (default: each row's target)"
    )
    parser.add_argument(
        "--only",
        choices=["jdr", "comfy"],
        default=None,
        help="keep the rows of one training preset",
    )
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument(
        "--methods",
        nargs="*",
        default=None,
        help="keep these rows by the paper's method label (e.g. base FeaStAdd)",
    )
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown table here")
    parser.add_argument(
        "--stored-only",
        action="store_true",
        help="train nothing: tabulate the rows already in the store",
    )
    parser.add_argument(
        "--runs-file",
        type=Path,
        default=None,
        help="a CSV(.gz) of per-split rows that travels with the repository "
        "(e.g. docs/reproduction_runs.csv.gz): its rows missing from the "
        "store are added first, and the whole store is written back to it "
        "at the end",
    )
    args = parser.parse_args(argv)
    rows = [
        r
        for r in TABLES[args.table]
        if (args.only is None or r.preset == args.only)
        and (args.datasets is None or r.dataset in args.datasets)
        and (args.models is None or r.model in args.models)
        and (args.methods is None or r.label in args.methods)
    ]
    console = Console()
    results = []
    with ResultStore(args.store) as store:
        if args.runs_file is not None and args.runs_file.exists():
            console.print(f"{store.import_csv(args.runs_file)} rows added from {args.runs_file}")
        reproduction = Reproduction(store, args.splits, stored_only=args.stored_only)
        try:
            for paper in rows:
                if not args.stored_only and not available_offline(paper.dataset):
                    console.print(f"[yellow]skip {paper.dataset}: not available offline[/]")
                results.append(reproduction.result(paper))
        except DatasetUnavailable as err:
            console.print(f"[red]error:[/] {err}")
            return 2
        finally:
            if args.runs_file is not None:
                console.print(
                    f"{store.export_csv(args.runs_file)} rows written to {args.runs_file}"
                )
    markdown = to_markdown(results)
    console.print(to_rich(markdown, TITLES[args.table]))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        intro = DOC_INTRO.format(table=args.table, out=args.out)
        args.out.write_text(f"# {TITLES[args.table]}\n\n{intro}{markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
