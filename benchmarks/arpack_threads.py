"""ARPACK with threaded BLAS against ARPACK on one BLAS thread, side by side in one process.

    python benchmarks/arpack_threads.py                        # 2 threads, the default sizes
    python benchmarks/arpack_threads.py --threads 4 --repeat 3

ARPACK's Lanczos steps are many small BLAS-2 calls; rewirekit runs them inside
``rewirekit.linalg.single_threaded_blas()``. This script times the same calls with that
limit switched off (BLAS on ``--threads`` threads) and on, for:

* the 64 leading eigenpairs of a JDR iterate ``A + Q M Qᵀ`` (seeded cSBM, 4 JDR iterations
  of L = 64 first, so ``q = 128 + 4 · 64 = 384``), as the truncated JDR solver computes them;
* the Fiedler pair of a seeded cSBM's normalised adjacency, as ProxyAdd/ProxyDelete do
  once per edit;
* ProxyAdd with ``--edits`` additions (one Fiedler pair per edit).
"""

from __future__ import annotations

import argparse
import contextlib


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--jdr-nodes", type=int, default=20_000)
    parser.add_argument("--fiedler-nodes", type=int, default=100_000)
    parser.add_argument("--edits", type=int, default=100, help="ProxyAdd additions")
    from timing import Protocol, ratio, set_threads

    Protocol.add_arguments(parser, repeats=3, warmup=1)
    args = parser.parse_args(argv)
    protocol = Protocol.from_args(args)

    set_threads(args.threads)
    import numpy as np

    import rewirekit
    import rewirekit.linalg.eigen as eigen
    from rewirekit.algorithms import fiedler_pair
    from rewirekit.datasets import csbm
    from rewirekit.methods.jdr import _TruncatedGraph

    def threaded(run):  # the same call with the library's one-thread limit switched off
        def call():
            saved = eigen.single_threaded_blas
            eigen.single_threaded_blas = contextlib.nullcontext
            try:
                return run()
            finally:
                eigen.single_threaded_blas = saved

        return call

    jdr_data = csbm(num_nodes=args.jdr_nodes, num_features=128, avg_degree=14.0, phi=0.5, seed=0)
    jdr_iterate = _jdr_iterate(rewirekit, jdr_data, _TruncatedGraph)
    operator = jdr_iterate.operator(np.float32)

    def leading_eigenpairs():
        eigen.extreme_eigenpairs(operator, 0, 64, np.random.default_rng(0), tol=1e-6)

    graph = csbm(num_nodes=args.fiedler_nodes, num_features=8, avg_degree=14.0, phi=0.5, seed=0)
    src, dst = graph.edge_index.numpy()
    upper = src < dst
    n = graph.num_nodes

    def fiedler():
        fiedler_pair(n, src[upper], dst[upper])

    def proxy_add():
        rewirekit.rewire(graph, "proxy_add", add=args.edits)

    print(f"BLAS threads={args.threads}; {protocol.describe()}")
    print(f"{'call':44s} {'threaded':>17s} {'1 thread':>17s} {'ratio':>6s}")
    for name, run in (
        (f"JDR: 64 eigenpairs, N={args.jdr_nodes:,}, q={jdr_iterate.rank}", leading_eigenpairs),
        (f"Fiedler pair, N={n:,}", fiedler),
        (f"ProxyAdd, {args.edits} edits, N={n:,}", proxy_add),
    ):
        slow, fast = protocol.measure(threaded(run)), protocol.measure(run)
        print(f"{name:44s} {slow.cell()} {fast.cell()} {ratio(slow, fast):5.1f}x", flush=True)


def _jdr_iterate(rewirekit, data, truncated_graph):
    """The sparse-plus-low-rank ``Ã`` after 4 truncated JDR iterations with L = 64."""
    kept = {}
    replace = truncated_graph.replace

    def keep(self, window, new):
        replace(self, window, new)
        kept["matrix"] = self.matrix

    truncated_graph.replace = keep
    try:
        rewirekit.rewire(
            data,
            "jdr",
            num_iterations=4,
            rank_a=64,
            rank_x=64,
            top_k=64,
            solver="truncated",
            seed=0,
        )
    finally:
        truncated_graph.replace = replace
    return kept["matrix"]


if __name__ == "__main__":
    main()
