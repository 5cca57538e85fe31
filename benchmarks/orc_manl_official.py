"""Run the official ORC-ManL code (TristanSaidi/orcml) next to ours, on the official samples.

For each data set (default: circles and moons) this seeds numpy with 42 once, as the
official ``scripts/pruning.py`` does, draws the official sample of trial 1 with the official
generator, and runs the official pipeline (``prune_helper``: kNN graph, ORC, validation) and
the official baselines on it, scored with the official ``get_edge_labels`` and
``compute_metrics``. Then it runs ``rewirekit.manifold.orc_manl`` (faithful and clean) and
our baselines on the *same points*, and compares edge by edge: the kNN edges, the curvature
(faithful mode against the official values), the candidates and the removed edges.

Outputs (``--out``, default ``docs/official_runs``):
- ``orc_manl_official.csv``: one row per data set and method, official and ours;
- ``orc_manl_official.txt``: the log: command, official commit, thread count, agreement.

    git --git-dir=<mirror of TristanSaidi/orcml> worktree add /tmp/orcml HEAD
    python benchmarks/orc_manl_official.py /tmp/orcml [--datasets circles moons]

The official code needs networkit, POT, networkx, scikit-learn and GraphRicciCurvature
(its ``util`` module); its ORC uses a process pool of ``--threads`` workers.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from orc_manl_table import BISECTION_NEIGHBOURS, DELTA, LDA, THRESHOLDS

from rewirekit.manifold import (
    orc_manl,
    prune_bisection,
    prune_density,
    prune_distance,
    prune_two_mst,
    removal_rates,
)

#: the official generators' arguments (scripts/pruning.py, get_*)
OFFICIAL_SAMPLES = {
    "circles": ("concentric_circles", dict(factor=0.385, noise=0.09, noise_thresh=0.275)),
    "moons": ("moons", dict(noise=0.2, noise_thresh=0.1925)),
}
FIELDS = ["dataset", "source", "method", "edges", "bad_edges", "removed",
          "good_removed_pct", "bad_removed_pct", "seconds"]  # fmt: skip


def run_official(dataset: str, threads: int) -> dict:
    """Trial 1 of the official experiment on ``dataset``."""
    import src.ollivier_ricci as official_orc
    from data import data as official_data
    from src.experiments import baselines as base
    from src.experiments.utils.exp_utils import prune_helper
    from src.utils.eval_utils import compute_metrics
    from src.utils.graph_utils import get_edge_labels

    official_orc._proc = threads  # the pool size (module default: cpu_count)
    generator, kwargs = OFFICIAL_SAMPLES[dataset]
    np.random.seed(42)  # noqa: NPY002 -- the official code draws from the global stream
    sample = getattr(official_data, generator)(n_points=4000, supersample=True, **kwargs)
    points = sample["data"]
    params = dict(mode="nbrs", n_neighbors=20, lda=LDA, delta=DELTA, epsilon=None)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        pruned = prune_helper(points, exp_params=params)
    seconds = time.perf_counter() - start
    graph = pruned["G_original"]
    labels = np.array(
        get_edge_labels(
            graph,
            cluster=sample["cluster"],
            data_supersample_dict={
                "data_supersample": sample["data_supersample"],
                "subsample_indices": sample["subsample_indices"],
            },
            scale=10,
        )
    )
    mst, density, distance = THRESHOLDS[dataset]
    kept = {"orc_manl": (pruned["non_shortcut_edges"], seconds)}
    for method, prune in (
        ("orc_only", lambda: base.prune_orc(graph, DELTA, points)),
        ("bisection", lambda: base.prune_bisection(graph, points, BISECTION_NEIGHBOURS)),
        ("two_mst", lambda: base.prune_mst(graph, points, mst)),
        ("density", lambda: base.prune_density(graph, points, density)),
        ("distance", lambda: base.prune_distance(graph, points, distance)),
    ):  # fmt: skip
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            kept[method] = (prune()["preserved_edges"], time.perf_counter() - start)
    edges = np.array([(min(i, j), max(i, j)) for i, j in graph.edges()], dtype=np.int64)
    curvature = np.array([d["ricciCurvature"] for _, _, d in graph.edges(data=True)])
    rows = []
    for method, (preserved, secs) in kept.items():
        removed = np.ones(len(edges), dtype=bool)
        removed[np.asarray(preserved, dtype=np.int64)] = False
        good_pct, bad_pct = (100 * v for v in compute_metrics(labels, preserved))
        rows.append(_row(dataset, "official", method, labels, removed, good_pct, bad_pct, secs))
    shortcut = np.zeros(len(edges), dtype=bool)
    shortcut[np.asarray(pruned["shortcut_edges"], dtype=np.int64)] = True
    return dict(
        points=points, edges=edges, labels=labels.astype(bool), curvature=curvature,
        shortcut=shortcut, candidate=curvature < -1 + 4 * (1 - DELTA), rows=rows,
    )  # fmt: skip


def run_ours(dataset: str, official: dict) -> tuple[list[dict], list[str]]:
    """Our pipeline on the official points and labels, and how it agrees edge by edge."""
    points, labels = official["points"], official["labels"]
    order = np.lexsort((official["edges"][:, 1], official["edges"][:, 0]))
    rows, log = [], []
    graph = None
    for faithful in (True, False):
        start = time.perf_counter()
        result = orc_manl(points, k=20, delta=DELTA, lda=LDA, faithful=faithful)
        seconds = time.perf_counter() - start
        graph = result.input
        ours = np.c_[graph.src, graph.dst]
        same_edges = ours.shape == official["edges"].shape and np.array_equal(
            ours, official["edges"][order]
        )
        method = "orc_manl_faithful" if faithful else "orc_manl"
        name = "faithful" if faithful else "clean"
        log.append(f"  {name}: kNN edges identical to the official graph: {same_edges}")
        if not same_edges:
            continue
        lab = labels[order]
        for tag, removed, secs in (
            (method, result.shortcuts, seconds),
            ("orc_only_faithful" if faithful else "orc_only", result.candidates, 0.0),
        ):
            rows.append(
                _row(dataset, "ours", tag, lab, removed, *removal_rates(lab, removed), secs)
            )
        cand, short = official["candidate"][order], official["shortcut"][order]
        diff = np.abs(result.curvature - official["curvature"][order])
        log.append(
            f"  {name}: max |κ_ours − κ_official| = {diff.max():.3g} "
            f"(edges above 1e-6: {int((diff > 1e-6).sum())}); "
            f"candidates ours {int(result.candidates.sum())} / official {int(cand.sum())}, "
            f"differing {int((result.candidates != cand).sum())}; "
            f"shortcuts ours {int(result.shortcuts.sum())} / official {int(short.sum())}, "
            f"differing {int((result.shortcuts != short).sum())}; {seconds:.1f} s"
        )  # fmt: skip
    if graph is not None:
        lab = labels[order]
        mst, density, distance = THRESHOLDS[dataset]
        for method, prune in (
            ("bisection", lambda: prune_bisection(graph, points, BISECTION_NEIGHBOURS)),
            ("two_mst", lambda: prune_two_mst(graph, mst, points)),
            ("density", lambda: prune_density(graph, points, density)),
            ("distance", lambda: prune_distance(graph, distance)),
        ):
            start = time.perf_counter()
            removed = prune()
            secs = time.perf_counter() - start
            rows.append(
                _row(dataset, "ours", method, lab, removed, *removal_rates(lab, removed), secs)
            )
    return rows, log


def _row(dataset, source, method, labels, removed, good_pct, bad_pct, seconds) -> dict:
    return dict(
        dataset=dataset, source=source, method=method, edges=len(labels),
        bad_edges=int((~np.asarray(labels, dtype=bool)).sum()), removed=int(np.sum(removed)),
        good_removed_pct=f"{good_pct:.4f}", bad_removed_pct=f"{bad_pct:.4f}",
        seconds=f"{seconds:.2f}",
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("official_dir", type=Path)
    parser.add_argument("--datasets", nargs="*", default=list(OFFICIAL_SAMPLES))
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--out", type=Path, default=Path("docs/official_runs"))
    args = parser.parse_args()
    sys.path.insert(0, str(args.official_dir.resolve()))
    commit = subprocess.run(
        ["git", "-C", str(args.official_dir), "rev-parse", "HEAD"],
        capture_output=True, text=True, check=False,
    ).stdout.strip() or "unknown"  # fmt: skip
    log = [
        f"command: python benchmarks/orc_manl_official.py {args.official_dir} "
        f"--datasets {' '.join(args.datasets)} --threads {args.threads}",
        f"official: TristanSaidi/orcml @ {commit}; ORC process pool of {args.threads}",
        f"machine: {os.cpu_count()} CPUs, shared with other jobs (times are loaded-machine times)",
        "protocol: numpy seeded with 42, the official trial-1 sample (n = 4000, k = 20, "
        f"δ = {DELTA}, λ = {LDA}); ours runs on the same points and labels",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    for dataset in args.datasets:
        official = run_official(dataset, args.threads)
        rows += official["rows"]
        log.append(f"{dataset}: {len(official['edges'])} edges, "
                   f"{int((~official['labels']).sum())} bad, "
                   f"{int(official['candidate'].sum())} official candidates")  # fmt: skip
        ours, lines = run_ours(dataset, official)
        rows += ours
        log += lines
        print("\n".join(log[-3:]), flush=True)
    log.append("")
    log.append(f"{'data set':<10} {'source':<9} {'method':<18} {'good %':>8} {'bad %':>8} {'s':>7}")
    for r in rows:
        log.append(
            f"{r['dataset']:<10} {r['source']:<9} {r['method']:<18} "
            f"{float(r['good_removed_pct']):>8.2f} {float(r['bad_removed_pct']):>8.2f} "
            f"{float(r['seconds']):>7.1f}"
        )
    with (args.out / "orc_manl_official.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    (args.out / "orc_manl_official.txt").write_text("\n".join(log) + "\n")
    print("\n".join(log))


if __name__ == "__main__":
    main()
