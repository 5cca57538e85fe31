"""FeaSt and ComFy at scale: 1,000 edits on an ogbn-arxiv-sized seeded graph.

    python benchmarks/comfy_scale.py                       # N=169,343, F=128, ~1.2M edges
    python benchmarks/comfy_scale.py --nodes 20000 --edits 200

Generates a seeded two-class cSBM (``rewirekit.datasets.csbm``: mean degree 14, 128
features, about 1.19M undirected edges at the default size) and runs FeaSt and ComFy,
add and delete, with ``--edits`` edges each. Additions need the most similar non-edges
among all ``N²/2`` pairs: the similarity is computed block by block with a running
top-k, never as an ``N×N`` matrix. ComFy's communities come from igraph's Leiden (its
default). Prints the wall time of each run and the peak resident memory
of the process.
"""

from __future__ import annotations

import argparse
import resource
import time


def main(argv: list[str] | None = None) -> list[tuple[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=169_343)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--degree", type=float, default=14.0)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--methods", nargs="+", default=["feast", "comfy"])
    args = parser.parse_args(argv)
    from timing import set_threads

    set_threads(args.threads)
    import rewirekit
    from rewirekit.datasets import csbm

    start = time.perf_counter()
    data = csbm(
        num_nodes=args.nodes, num_features=args.features, avg_degree=args.degree, phi=0.5, seed=0
    )
    print(
        f"cSBM N={args.nodes}, F={args.features}, mean degree {args.degree}: "
        f"{data.edge_index.size(1) // 2} edges, generated in "
        f"{time.perf_counter() - start:.1f}s; threads {args.threads}",
        flush=True,
    )
    timings = []
    for name in args.methods:
        for kind in ("add", "delete"):
            out = rewirekit.rewire(data, name, **{kind: args.edits})
            report = out.rewire_report
            changed = report.edges_added if kind == "add" else report.edges_removed
            timings.append((f"{name} {kind}={args.edits}", report.seconds))
            print(
                f"{name:<6} {kind:<6} {args.edits}: {report.seconds:7.1f}s, "
                f"{changed} edges {kind}{'ed' if kind == 'add' else 'd'}; "
                f"peak RSS so far {_peak_rss_gib():.2f} GiB",
                flush=True,
            )
    total = sum(seconds for _, seconds in timings)
    print(f"total {total:.1f}s; peak RSS {_peak_rss_gib():.2f} GiB")
    return timings


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB


if __name__ == "__main__":
    main()
