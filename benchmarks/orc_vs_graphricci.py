"""Ollivier–Ricci curvature: rewirekit against GraphRicciCurvature 0.6.1, values and times.

    python benchmarks/orc_vs_graphricci.py                    # Cora, Chameleon, circles kNN
    python benchmarks/orc_vs_graphricci.py --graphs circles --repeats 1 --points 500  # quick

GraphRicciCurvature comes from PyPI (the ``bench`` extra): ``OllivierRicci(G, alpha,
method="OTD", proc=threads).compute_ricci_curvature()``, which builds all-pairs shortest paths
(networkit) and solves one ``ot.emd2`` per edge in a process pool. rewirekit's
``ollivier_ricci`` runs on the same graph with the same thread count (numba threads; BLAS and
torch pinned by ``timing.set_threads``).

Protocol, fixed before running: each side is timed ``--repeats`` times (default 3) on each
graph, wall clock of the whole call (GraphRicciCurvature: constructing ``OllivierRicci`` and
``compute_ricci_curvature``, its APSP included; rewirekit: the ``ollivier_ricci`` call on an
``edge_index``). The repeats alternate (ours, theirs, ours, theirs, ...) so that both sides
see the same machine load; median and min are printed for both and the ratio is of the
medians. One rewirekit warm-up call per graph (numba compilation, or loading the compiled
cache) runs first and is excluded; GraphRicciCurvature has nothing to compile. The 1-minute
load average (``os.getloadavg``) is printed before and after each graph. Values: the max
absolute difference of κ over all edges.

Graphs: Cora and Chameleon (undirected, unweighted, self-loops dropped; ``$REWIREKIT_DATA``)
and ``--points`` (4,000) points of sklearn's ``make_circles`` (noise 0.09, factor 0.5,
seed 0) joined by sklearn's exact ``kneighbors_graph`` (k = 20), symmetrised, with Euclidean
edge lengths as weights.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

GRAPHS = ("cora", "chameleon", "circles")


def load_graph(name: str, points: int) -> tuple[np.ndarray, int, np.ndarray | None]:
    """``(pairs [2, E] with u < v, num_nodes, lengths or None)``."""
    if name == "circles":
        from sklearn.datasets import make_circles
        from sklearn.neighbors import kneighbors_graph

        xy, _ = make_circles(n_samples=points, noise=0.09, factor=0.5, random_state=0)
        knn = kneighbors_graph(xy, 20, mode="distance")
        knn = knn.maximum(knn.T).tocoo()
        upper = knn.row < knn.col
        return np.array([knn.row[upper], knn.col[upper]]), points, knn.data[upper]
    from rewirekit.datasets import load

    data = load(name)
    row, col = data.edge_index.numpy()
    lo, hi = np.minimum(row, col), np.maximum(row, col)
    n = int(data.num_nodes)
    keys = np.unique((lo * n + hi)[lo != hi])
    return np.array([keys // n, keys % n]), n, None


def graphricci(pairs: np.ndarray, n: int, lengths, alpha: float, threads: int) -> np.ndarray:
    import networkx as nx
    from GraphRicciCurvature.OllivierRicci import OllivierRicci

    g = nx.Graph()
    g.add_nodes_from(range(n))
    if lengths is None:
        g.add_edges_from(pairs.T.tolist())
    else:
        g.add_weighted_edges_from(
            (u, v, w) for (u, v), w in zip(pairs.T.tolist(), lengths.tolist(), strict=True)
        )
    orc = OllivierRicci(g, alpha=alpha, method="OTD", proc=threads, verbose="ERROR")
    orc.compute_ricci_curvature()
    return np.array([orc.G[u][v]["ricciCurvature"] for u, v in pairs.T.tolist()])


def alternating(repeats: int, first, second):
    """Call ``first`` and ``second`` in turn ``repeats`` times each; their last outputs and the
    wall seconds of every call, ``(out_first, times_first, out_second, times_second)``."""
    outs: list = [None, None]
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for side, run in enumerate((first, second)):
            start = time.perf_counter()
            outs[side] = run()
            times[side].append(time.perf_counter() - start)
    return outs[0], times[0], outs[1], times[1]


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", nargs="+", choices=GRAPHS, default=list(GRAPHS))
    parser.add_argument("--points", type=int, default=4000, help="circles kNN graph size")
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    from timing import set_threads

    set_threads(args.threads)
    import numba

    numba.set_num_threads(args.threads)
    from rewirekit.algorithms import ollivier_ricci

    print(
        f"threads {args.threads}, alpha {args.alpha}, {args.repeats} alternating repeats each "
        "(median and min wall seconds); rewirekit warm-up excluded"
    )
    rows = []
    for name in args.graphs:
        pairs, n, lengths = load_graph(name, args.points)

        def ours(pairs=pairs, n=n, lengths=lengths):
            return ollivier_ricci(pairs, n, edge_weight=lengths, alpha=args.alpha)

        def theirs(pairs=pairs, n=n, lengths=lengths):
            return graphricci(pairs, n, lengths, args.alpha, args.threads)

        load_before = load()
        start = time.perf_counter()
        ours()
        warmup = time.perf_counter() - start
        kappa, ours_times, expected, ref_times = alternating(args.repeats, ours, theirs)
        ours_median, ours_min = statistics.median(ours_times), min(ours_times)
        ref_median, ref_min = statistics.median(ref_times), min(ref_times)
        diff = float(np.abs(kappa - expected).max()) if kappa.size else 0.0
        row = dict(
            graph=name,
            nodes=n,
            edges=pairs.shape[1],
            weighted=lengths is not None,
            ours_median=ours_median,
            ours_min=ours_min,
            ref_median=ref_median,
            ref_min=ref_min,
            ratio=ref_median / ours_median,
            max_abs_diff=diff,
            warmup=warmup,
        )
        rows.append(row)
        print(
            f"{name}: N={n}, E={row['edges']}, {'weighted' if row['weighted'] else 'unweighted'}"
            f" | rewirekit median {ours_median:.3f}s min {ours_min:.3f}s (warm-up {warmup:.1f}s)"
            f" | GraphRicciCurvature median {ref_median:.3f}s min {ref_min:.3f}s"
            f" | ratio {row['ratio']:.1f}x | max |diff| {diff:.2e}"
            f" | load average {load_before} -> {load()}",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
