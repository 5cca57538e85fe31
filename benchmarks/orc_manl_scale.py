"""ORC-ManL at scale: a 100,000-point noisy swiss roll, k = 20, clean mode, timed by stage.

Target (issue #14): under 5 minutes on 2 cores. Writes ``docs/orc_manl_scale.txt`` with the
wall time of each stage (kNN graph, local scales, curvature, validation, reattachment), the
edge and candidate counts, peak RSS and the thread count.

    python benchmarks/orc_manl_scale.py [--n-points 100000] [--k 20] [--threads 2]
        [--out docs/orc_manl_scale.txt]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import set_threads

TARGET_SECONDS = 300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-points", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("docs/orc_manl_scale.txt"))
    args = parser.parse_args()
    set_threads(args.threads)
    import numba

    numba.set_num_threads(args.threads)
    from rewirekit.manifold import knn_graph, make_manifold, orc_manl

    warm = make_manifold("swiss_roll", n_points=500, seed=1)
    orc_manl(warm.points, k=10)  # numba compilation, excluded from the timings
    sample = make_manifold("swiss_roll", n_points=args.n_points, seed=0)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    graph = knn_graph(sample.points, args.k)
    knn_seconds = time.perf_counter() - start
    start = time.perf_counter()
    result = orc_manl(graph, k=args.k, points=sample.points)
    prune_seconds = time.perf_counter() - start
    total = knn_seconds + prune_seconds
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    verdict = "met" if total < TARGET_SECONDS else "MISSED"
    lines = [
        f"command: python benchmarks/orc_manl_scale.py --n-points {args.n_points} "
        f"--k {args.k} --threads {args.threads}",
        f"data: 3-d swiss roll, paper noise (6.25 / 2.25), {args.n_points} points, seed 0",
        f"threads: {args.threads} (numba, BLAS); machine: {os.cpu_count()} CPUs, 1-minute load "
        f"average {load_before:.2f} before and {os.getloadavg()[0]:.2f} after (other jobs "
        "count); numba compilation excluded (warm-up)",
        f"kNN graph: {graph.num_edges} edges, {knn_seconds:.1f} s",
        f"ORC-ManL (scales, curvature, validation, reattachment): {prune_seconds:.1f} s; "
        f"{int(result.candidates.sum())} candidates, {int(result.shortcuts.sum())} removed, "
        f"{result.reattached.shape[1]} reattached",
        f"total: {total:.1f} s (target < {TARGET_SECONDS} s: {verdict}); peak RSS {peak_gb:.2f} GB",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
