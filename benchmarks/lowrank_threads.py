"""Lanczos steps on ``A + Q M Qᵀ`` with the low-rank products on one BLAS thread or several.

    python benchmarks/lowrank_threads.py                       # N=169,343, q=768, 2 threads
    python benchmarks/lowrank_threads.py --nodes 20000 --rank 384

ARPACK runs inside ``rewirekit.linalg.single_threaded_blas()``; the operator of
:class:`~rewirekit.linalg.SparsePlusLowRank` still runs its products with the ``N×q``
factor on the caller's BLAS threads (``low_rank_threads``), because streaming that factor
gains from more cores. This script times the same ARPACK run (64 largest eigenpairs, a
fixed number of restarts, same start vector) with those products on one thread and on
``--threads``, alternately ``--repeat`` times, and prints the time per Lanczos step. The
sparse part is a seeded cSBM adjacency (mean degree 14); ``Q`` is a random orthonormal
``N×q`` basis and ``M`` a random symmetric ``q×q`` core, products in float32 as in JDR.
"""

from __future__ import annotations

import argparse
import time
from contextlib import suppress


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=169_343)
    parser.add_argument("--rank", type=int, default=768, help="q, columns of Q")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--restarts", type=int, default=4, help="ARPACK restarts per run")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    from timing import set_threads

    set_threads(args.threads)
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

    from rewirekit.datasets import csbm
    from rewirekit.linalg import SparsePlusLowRank, single_threaded_blas

    graph = csbm(num_nodes=args.nodes, num_features=8, avg_degree=14.0, phi=0.5, seed=0)
    src, dst = graph.edge_index.numpy()
    n = args.nodes
    matrix = SparsePlusLowRank(sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n)))
    rng = np.random.default_rng(0)
    core = rng.standard_normal((args.rank, args.rank))
    matrix.add(np.linalg.qr(rng.standard_normal((n, args.rank)))[0], (core + core.T) / 4)
    start = rng.standard_normal(n)

    def per_step(low_rank_threads: int) -> tuple[float, int]:
        operator = matrix.operator(np.float32, low_rank_threads=low_rank_threads)
        steps = 0

        def matvec(x):
            nonlocal steps
            steps += 1
            return operator.matvec(x)

        counted = LinearOperator(operator.shape, matvec=matvec, dtype=np.float64)
        begin = time.perf_counter()
        # A fixed budget of restarts is the point: running out of it is expected.
        with single_threaded_blas(), suppress(ArpackNoConvergence):
            eigsh(counted, k=64, which="LA", v0=start, tol=1e-6, maxiter=args.restarts)
        return (time.perf_counter() - begin) / steps, steps

    print(f"N={n:,}, q={matrix.rank}, ARPACK on 1 BLAS thread, {args.restarts} restarts")
    results: dict[int, list[float]] = {1: [], args.threads: []}
    for _ in range(args.repeat):
        for threads in results:
            seconds, steps = per_step(threads)
            results[threads].append(seconds)
            print(
                f"low-rank products on {threads} thread(s): {seconds * 1e3:.1f} ms a step "
                f"({steps} steps)",
                flush=True,
            )
    one, many = min(results[1]), min(results[args.threads])
    print(
        f"best: {one * 1e3:.1f} ms on 1 thread, {many * 1e3:.1f} ms on {args.threads} "
        f"({one / many:.2f}x)"
    )


if __name__ == "__main__":
    main()
