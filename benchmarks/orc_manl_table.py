"""ORC-ManL's pruning table (Saidi et al., ICLR 2025, Tables 1-2): % of good and % of bad
kNN edges removed by ORC-ManL and five baselines, on ten noisy manifolds, over trials.

Protocol (the paper's, as in the official ``scripts/pruning.py``): n = 4000 points, k = 20,
δ = 0.8, λ = 0.01; baseline thresholds per data set from the official ``param_map``. A sample
without any bad edge is skipped and the next seed drawn (the official code resamples too).
Trial seeds are 42, 43, ... per data set; the seed of every row is stored.

Per-trial rows go to ``docs/orc_manl_trials.csv`` as they finish; a rerun skips what is
there (resumable). The summary (mean ± std over trials) replaces the part of
``docs/orc_manl.md`` between the ``orc_manl_table`` markers (the file is created if absent),
next to the official code's trial-1 figures when ``docs/official_runs/orc_manl_official.csv``
exists (written by ``benchmarks/orc_manl_official.py``).

    python benchmarks/orc_manl_table.py [--trials 10] [--n-points 4000] [--datasets ...]
        [--faithful] [--out docs]
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numpy as np

from rewirekit.manifold import (
    MANIFOLDS,
    edge_labels,
    knn_graph,
    make_manifold,
    orc_manl,
    prune_bisection,
    prune_density,
    prune_distance,
    prune_two_mst,
    removal_rates,
)

#: baseline thresholds: (two-MST path length, KDE density, edge length), official param_map
THRESHOLDS = {
    "circles": (0.5, 0.125, 0.15),
    "moons": (0.5, 0.175, 0.15),
    "s_curve": (0.5, 0.05, 0.15),
    "cassini": (0.5, 0.2, 0.09),
    "gaussians": (0.3, 0.15, 0.1),
    "tori": (1.5, 0.0007, 1.0),
    "hyperboloids": (1.5, 0.015, 0.4),
    "paraboloid_hyperboloid": (0.75, 0.015, 0.4),
    "double_paraboloid": (1.0, 0.01, 0.5),
    "swiss_roll": (10.0, 0.00005, 3.0),
}
BISECTION_NEIGHBOURS = 10
MAX_SEEDS = 20  # samples drawn for one trial before giving up (few points: no shortcuts)
K, DELTA, LDA = 20, 0.8, 0.01
FIELDS = [
    "dataset", "trial", "seed", "n_points", "edges", "bad_edges", "method",
    "good_removed_pct", "bad_removed_pct", "removed", "seconds",
]  # fmt: skip
METHOD_ORDER = [
    "orc_manl", "orc_manl_faithful", "orc_only", "orc_only_faithful",
    "bisection", "two_mst", "density", "distance",
]  # fmt: skip


def run_trial(dataset: str, seed: int, n_points: int, faithful: bool) -> list[dict] | None:
    """All methods on one sample; ``None`` if the sample has no bad edge."""
    sample = make_manifold(dataset, n_points=n_points, seed=seed)
    graph = knn_graph(sample.points, K)
    good = edge_labels(graph, sample)
    if good.all():
        return None
    points = sample.points
    mst, density, distance = THRESHOLDS[dataset]
    removals: dict[str, tuple[np.ndarray, float]] = {}
    for mode in (False, True) if faithful else (False,):
        start = time.perf_counter()
        result = orc_manl(graph, k=K, delta=DELTA, lda=LDA, faithful=mode, points=points)
        suffix = "_faithful" if mode else ""
        removals["orc_manl" + suffix] = (result.shortcuts, time.perf_counter() - start)
        removals["orc_only" + suffix] = (result.candidates, 0.0)
    for name, prune in (
        ("bisection", lambda: prune_bisection(graph, points, BISECTION_NEIGHBOURS)),
        ("two_mst", lambda: prune_two_mst(graph, mst, points)),
        ("density", lambda: prune_density(graph, points, density)),
        ("distance", lambda: prune_distance(graph, distance)),
    ):
        start = time.perf_counter()
        removals[name] = (prune(), time.perf_counter() - start)
    rows = []
    for name, (removed, seconds) in removals.items():
        rate_good, rate_bad = removal_rates(good, removed)
        rows.append(
            dict(
                dataset=dataset,
                trial=0,
                seed=seed,
                n_points=n_points,
                edges=graph.num_edges,
                bad_edges=int((~good).sum()),
                method=name,
                good_removed_pct=f"{rate_good:.4f}",
                bad_removed_pct=f"{rate_bad:.4f}",
                removed=int(removed.sum()),
                seconds=f"{seconds:.2f}",
            )  # fmt: skip
        )
    return rows


def run(datasets: list[str], trials: int, n_points: int, faithful: bool, out: Path) -> Path:
    """Fill ``out/orc_manl_trials.csv`` up to ``trials`` trials per data set, trial 1 of
    every data set first, then trial 2, ... (an interrupted run covers all data sets)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "orc_manl_trials.csv"
    done = [r for r in _read(path) if int(r["n_points"]) == n_points]
    new_file = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        if new_file:
            writer.writeheader()
        for trial in range(1, trials + 1):
            for dataset in datasets:
                mine = [r for r in done if r["dataset"] == dataset]
                if len({r["trial"] for r in mine}) >= trial:
                    continue
                first = max((int(r["seed"]) for r in mine), default=41) + 1
                for seed in range(first, first + MAX_SEEDS):
                    if (rows := run_trial(dataset, seed, n_points, faithful)) is not None:
                        break
                else:
                    print(f"{dataset}: no bad edge in {MAX_SEEDS} samples; skipped", flush=True)
                    continue
                for row in rows:
                    row["trial"] = trial
                    writer.writerow(row)
                handle.flush()
                done += [{k: str(v) for k, v in row.items()} for row in rows]
                summary = {r["method"]: (r["good_removed_pct"], r["bad_removed_pct"]) for r in rows}
                print(f"{dataset} trial {trial} seed {seed}: {summary}", flush=True)
    return path


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as handle:
        return list(csv.DictReader(handle))


def summarise(out: Path, n_points: int) -> str:
    """The markdown table: mean ± std over trials, per data set and method."""
    rows = [r for r in _read(out / "orc_manl_trials.csv") if int(r["n_points"]) == n_points]
    official = {
        (r["dataset"], r["method"]): r
        for r in _read(out / "official_runs" / "orc_manl_official.csv")
        if r["source"] == "official"
    }
    lines = [
        f"n = {n_points}, k = {K}, δ = {DELTA}, λ = {LDA}; mean ± std over trials; "
        "each cell: % of good edges removed / % of bad edges removed (lower / higher is "
        "better). `official t1` = the official code's trial 1 (seed 42, its own sample).",
        "",
        "| data set | trials | edges | bad | method | good removed % | bad removed % "
        "| official t1 good / bad % |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for dataset in MANIFOLDS:
        mine = [r for r in rows if r["dataset"] == dataset]
        if not mine:
            continue
        trials = len({r["trial"] for r in mine})
        edges = np.mean([int(r["edges"]) for r in mine])
        bad = np.mean([int(r["bad_edges"]) for r in mine])
        for method in METHOD_ORDER:
            cells = [r for r in mine if r["method"] == method]
            if not cells:
                continue
            good_pct = np.array([float(r["good_removed_pct"]) for r in cells])
            bad_pct = np.array([float(r["bad_removed_pct"]) for r in cells])
            ref = official.get((dataset, method))
            ref_cell = (
                f"{float(ref['good_removed_pct']):.2f} / {float(ref['bad_removed_pct']):.2f}"
                if ref
                else ""
            )
            lines.append(
                f"| {dataset} | {len(cells)}/{trials} | {edges:.0f} | {bad:.1f} | {method} "
                f"| {good_pct.mean():.2f} ± {good_pct.std():.2f} "
                f"| {bad_pct.mean():.2f} ± {bad_pct.std():.2f} | {ref_cell} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--n-points", type=int, default=4000)
    parser.add_argument("--datasets", nargs="*", default=list(MANIFOLDS))
    parser.add_argument("--faithful", action="store_true", help="also run faithful=True")
    parser.add_argument("--out", type=Path, default=Path("docs"))
    args = parser.parse_args()
    run(args.datasets, args.trials, args.n_points, args.faithful, args.out)
    table = summarise(args.out, args.n_points)
    note = (
        f"Written by `python benchmarks/orc_manl_table.py --trials {args.trials} "
        f"--n-points {args.n_points}{' --faithful' if args.faithful else ''}` "
        f"(per-trial rows: `orc_manl_trials.csv`; {os.cpu_count()} CPUs shared with other "
        "jobs, so the seconds in the CSV are loaded-machine times).\n\n"
    )
    write_between_markers(args.out / "orc_manl.md", "orc_manl_table", note + table)
    print(table)


def write_between_markers(path: Path, key: str, text: str) -> None:
    """Replace what lies between ``<!-- key:start -->`` and ``<!-- key:end -->`` in ``path``
    (appending the block if the markers are absent)."""
    start, end = f"<!-- {key}:start -->", f"<!-- {key}:end -->"
    block = f"{start}\n{text}{end}"
    old = path.read_text() if path.exists() else ""
    if start in old and end in old:
        head, rest = old.split(start, 1)
        new = head + block + rest.split(end, 1)[1]
    else:
        new = old + ("\n" if old else "") + block + "\n"
    path.write_text(new)


if __name__ == "__main__":
    main()
