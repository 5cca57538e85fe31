"""Where the exact Ollivier–Ricci kernel spends its time, stage by stage (issue 14, item 2).

    python benchmarks/orc_profile.py                       # Chameleon and the circles kNN graph
    python benchmarks/orc_profile.py --graphs circles --points 500     # quick
    python benchmarks/orc_profile.py --graphs cora-features            # a graph with hubs

The graphs are ``orc_vs_graphricci.py``'s, with α = 0.5; ``NAME-features`` is instead what
ORC-ManL's clean mode measures on that dataset's node features: their kNN graph (k = 5, a
few nodes of high-dimensional data are hubs with hundreds of neighbours), its local lengths
ε and uniform measures (α = 0, exp_power = 0). The transport of
``rewirekit.algorithms.ollivier_ricci`` (all edges) runs on one thread, cut after
each stage in turn (its ``stages`` argument): set-up (the Dijkstra balls of a weighted graph;
grouping the edges by hub on an unweighted one), shared mass removed, costs built (hop
bitsets with equal rows and columns merged, or Dijkstra-ball look-ups), greedy start,
simplex. A stage's time is the difference between consecutive cuts, in CPU seconds of this
process (``time.process_time``, less sensitive to a loaded machine than wall time). Every cut
runs once to compile first, untimed. The load average (``os.getloadavg``) is printed per
graph.
"""

from __future__ import annotations

import argparse
import importlib
import os
import time

import numba
import numpy as np

kernel = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
STAGES = ("set-up", "shared mass", "costs", "greedy", "simplex")


FEATURES_K = 5


def load(name: str, points: int) -> tuple[np.ndarray, int, np.ndarray | None, float, float]:
    """``(pairs, num_nodes, lengths, alpha, exp_power)`` of a graph to profile."""
    if name.endswith("-features"):
        from rewirekit.datasets import load as load_dataset
        from rewirekit.manifold import knn_graph

        orc_manl = importlib.import_module("rewirekit.manifold.orc_manl")
        knn = knn_graph(load_dataset(name.removesuffix("-features")).x.numpy(), FEATURES_K)
        scale = orc_manl.edge_scale(knn, FEATURES_K)
        return np.stack([knn.src, knn.dst]), knn.num_nodes, scale, 0.0, 0.0
    from orc_vs_graphricci import load_graph

    return (*load_graph(name, points), 0.5, 2.0)


def profile(name: str, points: int) -> dict[str, float]:
    pairs, n, lengths, alpha, exp_power = load(name, points)
    row, col, weight, n = kernel._read_edges(pairs, n, lengths)
    graph, _ = kernel._undirected_graph(row, col, weight, n)
    measures = kernel._neighbour_measures(graph, alpha, exp_power)
    x, y = pairs
    seconds = {}
    previous = 0.0
    for stages, stage in enumerate(STAGES):
        kernel._transport(graph, x, y, measures, x, measures, y, stages)  # compile
        start = time.process_time()
        kernel._transport(graph, x, y, measures, x, measures, y, stages)
        elapsed = time.process_time() - start
        seconds[stage] = elapsed - previous
        previous = elapsed
    return seconds


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", nargs="+", default=["chameleon", "circles"])
    parser.add_argument("--points", type=int, default=4000, help="circles kNN graph size")
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    out = {}
    for name in args.graphs:
        load_before = os.getloadavg()[0]
        seconds = profile(name, args.points)
        total = sum(seconds.values())
        pairs, n = load(name, args.points)[:2]
        degree = np.bincount(pairs.ravel(), minlength=n)
        print(f"{name}: N={n}, E={pairs.shape[1]}, maximum degree {degree.max()}")
        parts = ", ".join(f"{k} {v:.2f}s ({100 * v / total:.0f}%)" for k, v in seconds.items())
        print(
            f"{name}: {total:.2f} CPU s on 1 thread | {parts}"
            f" | load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        out[name] = seconds
    return out


if __name__ == "__main__":
    main()
