"""JDR at scale: the truncated solver on a large cSBM (ogbn-arxiv size by default).

    python benchmarks/jdr_scale.py                          # N=169,343, K=10, L_A=L_X=64, 2 threads
    python benchmarks/jdr_scale.py --nodes 20000            # a quick run of the same path
    python benchmarks/jdr_scale.py --solver randomized      # approximate eigenpairs, fixed work

Generates a seeded two-class cSBM (mean degree 14, 128 features) with
``rewirekit.datasets.csbm``, runs JDR with the truncated solver (ARPACK on
``A + Q M Qᵀ``, the final top-k computed block by block, never an ``N×N`` matrix) and
prints the wall time, the rank ``q`` of the accumulated low-rank correction and the peak
resident memory of the process, with JDR's progress (a line per iteration) as it runs;
``--profile`` adds where the time went. ``--solver randomized`` runs the same path with
approximate eigenpairs (block Krylov Ritz pairs, ``--krylov-passes`` products per
iteration) instead of ARPACK's.
"""

from __future__ import annotations

import argparse
import logging
import resource
import time


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=169_343)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--degree", type=float, default=14.0)
    parser.add_argument("--phi", type=float, default=0.5)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--rank", type=int, default=64, help="L_A = L_X")
    parser.add_argument("--top-k", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--solver", choices=["truncated", "randomized"], default="truncated")
    parser.add_argument("--krylov-passes", type=int, default=8, help="randomized solver only")
    parser.add_argument("--profile", action="store_true", help="print the top cProfile entries")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    from timing import set_threads

    set_threads(args.threads)
    import rewirekit
    from rewirekit.datasets import csbm

    start = time.perf_counter()
    data = csbm(
        num_nodes=args.nodes,
        num_features=args.features,
        avg_degree=args.degree,
        phi=args.phi,
        seed=0,
    )
    generated = time.perf_counter() - start
    print(
        f"cSBM N={args.nodes}, F={args.features}, mean degree {args.degree}, phi={args.phi}: "
        f"{data.edge_index.size(1) // 2} edges, generated in {generated:.1f}s",
        flush=True,
    )
    method = rewirekit.get_method(
        "jdr",
        num_iterations=args.iterations,
        rank_a=args.rank,
        rank_x=args.rank,
        top_k=args.top_k,
        solver=args.solver,
        krylov_passes=args.krylov_passes,
        seed=0,
    )
    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        out = profile.runcall(method, data)
        pstats.Stats(profile).sort_stats("tottime").print_stats(12)
    else:
        out = method(data)
    report = out.rewire_report
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB
    solver = args.solver
    if solver == "randomized":
        solver += f" ({args.krylov_passes} passes)"
    print(
        f"JDR K={args.iterations}, L_A=L_X={args.rank}, top_k={args.top_k}, {solver}: "
        f"{report.seconds:.1f}s wall, peak RSS {peak_gib:.2f} GiB, threads {args.threads}"
    )
    print(
        f"edges {report.edges_before} -> {report.edges_after}; low-rank q = "
        f"{report.extra['low_rank']}; alignment {report.extra['alignment_before']:.3f} -> "
        f"{report.extra['alignment_after']:.3f}"
    )


if __name__ == "__main__":
    main()
