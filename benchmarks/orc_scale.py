"""Ollivier–Ricci curvature of every edge of a large cSBM (ogbn-arxiv size by default).

    python benchmarks/orc_scale.py                  # N=169,343, mean degree 14, 2 threads
    python benchmarks/orc_scale.py --nodes 20000    # a quick run of the same path

The graph is jdr_scale.py's: ``rewirekit.datasets.csbm`` with the same arguments and seed
(two classes, 128 features, mean degree 14, phi 0.5). ``ollivier_ricci`` (α = 0.5, unweighted)
runs once on all of its edges; the script prints the wall time (numba compilation, or loading
its cache, timed apart in a warm-up call on a 200-node cSBM), the peak resident memory of the
process, the thread count and the curvature's quartiles.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=169_343)
    parser.add_argument("--degree", type=float, default=14.0)
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    from timing import set_threads

    set_threads(args.threads)
    import numba

    numba.set_num_threads(args.threads)
    from rewirekit.algorithms import ollivier_ricci
    from rewirekit.datasets import csbm

    def graph(nodes: int):
        data = csbm(num_nodes=nodes, num_features=128, avg_degree=args.degree, phi=0.5, seed=0)
        return data.edge_index.numpy(), nodes

    start = time.perf_counter()
    warm_index, warm_nodes = graph(200)
    ollivier_ricci(warm_index, warm_nodes, alpha=args.alpha)
    warmup = time.perf_counter() - start
    start = time.perf_counter()
    edge_index, n = graph(args.nodes)
    generated = time.perf_counter() - start
    upper = edge_index[:, edge_index[0] < edge_index[1]]
    print(
        f"cSBM N={n}, mean degree {args.degree}: {upper.shape[1]} edges, "
        f"generated in {generated:.1f}s",
        flush=True,
    )
    start = time.perf_counter()
    kappa = ollivier_ricci(upper, n, alpha=args.alpha)
    seconds = time.perf_counter() - start
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB
    quartiles = np.quantile(kappa, [0.0, 0.25, 0.5, 0.75, 1.0])
    print(
        f"ORC alpha={args.alpha} on {upper.shape[1]} edges: {seconds:.1f}s wall "
        f"(warm-up {warmup:.1f}s apart), peak RSS {peak_gib:.2f} GiB, threads {args.threads}"
    )
    print("kappa min/q1/median/q3/max: " + " ".join(f"{q:.4f}" for q in quartiles))
    return dict(edges=upper.shape[1], seconds=seconds, peak_gib=peak_gib)


if __name__ == "__main__":
    main()
