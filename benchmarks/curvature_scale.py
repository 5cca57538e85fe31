"""SDRF and BORF at scale: a seeded cSBM of ogbn-arxiv size (as benchmarks/jdr_scale.py).

    python benchmarks/curvature_scale.py                     # N=169,343, mean degree 14, 2 threads
    python benchmarks/curvature_scale.py --nodes 2000 --sdrf-iter 50 --borf-batches 1  # smoke

Runs ``sdrf`` (paper mode: incremental balanced Forman updates, never an N x N matrix) and
``borf`` (paper mode: one exact Ollivier-Ricci pass, then only the edges near the edits per
batch, POT plans for the ``batch_add`` edges) on the same graph, one after the other in this
process, and prints for each the wall time, the CPU time of the process (user + system, all
threads: on a machine shared with other jobs the wall time overstates the cost, and on 2
idle cores the wall time is at least half the CPU time), the edits made and the peak
resident memory of the process so far (Linux ``ru_maxrss``: the peak over the whole run).
"""

from __future__ import annotations

import argparse
import resource
import time


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=169_343)
    parser.add_argument("--degree", type=float, default=14.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sdrf-iter", type=int, default=2000)
    parser.add_argument("--tau", type=float, default=115.0)
    parser.add_argument("--removal-bound", type=float, default=0.5)
    parser.add_argument("--borf-batches", type=int, default=3)
    parser.add_argument("--batch-add", type=int, default=80)
    parser.add_argument("--batch-remove", type=int, default=30)
    args = parser.parse_args(argv)
    from timing import process_cpu_seconds, set_threads

    set_threads(args.threads)
    import numba

    numba.set_num_threads(args.threads)
    import rewirekit
    from rewirekit.datasets import csbm

    start = time.perf_counter()
    data = csbm(num_nodes=args.nodes, num_features=8, avg_degree=args.degree, phi=0.5, seed=0)
    print(
        f"cSBM N={args.nodes}, mean degree {args.degree}: {data.edge_index.size(1) // 2} edges, "
        f"generated in {time.perf_counter() - start:.1f}s; threads {args.threads}",
        flush=True,
    )
    runs = [
        (
            "sdrf",
            dict(max_iter=args.sdrf_iter, tau=args.tau, removal_bound=args.removal_bound, seed=0),
        ),
        (
            "borf",
            dict(
                num_batches=args.borf_batches,
                batch_add=args.batch_add,
                batch_remove=args.batch_remove,
            ),
        ),
    ]
    for name, params in runs:
        cpu_before = process_cpu_seconds()
        report = rewirekit.rewire(data, name, **params).rewire_report
        cpu = process_cpu_seconds() - cpu_before
        peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        print(
            f"{name}({shown}): {report.seconds:.1f}s wall, {cpu:.1f}s CPU, "
            f"+{report.edges_added} -{report.edges_removed} edges, "
            f"peak RSS so far {peak_gib:.2f} GiB",
            flush=True,
        )
        summary = {k: v for k, v in report.extra.items() if k != "steps"}
        print(f"  report: {summary}", flush=True)


if __name__ == "__main__":
    main()
