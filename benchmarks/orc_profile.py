"""Where the exact Ollivier–Ricci kernel spends its time, stage by stage (issue 14, item 2).

    python benchmarks/orc_profile.py                       # Chameleon and the circles kNN graph
    python benchmarks/orc_profile.py --graphs circles --points 500     # quick

The graphs are ``orc_vs_graphricci.py``'s. The per-edge pipeline of
``rewirekit.algorithms.ollivier_ricci`` (α = 0.5) runs on one thread, cut after each stage in
turn: shared mass removed, cost matrix built (hop bitsets, or Dijkstra-ball look-ups on a
weighted graph), equal rows and columns merged (hop costs only), greedy start, simplex. A
stage's time is the difference between consecutive cuts, in CPU seconds of this process
(``time.process_time``, less sensitive to a loaded machine than wall time); the Dijkstra balls
of a weighted graph are timed on their own. Every cut runs once to compile first, untimed.
The load average (``os.getloadavg``) is printed per graph.
"""

from __future__ import annotations

import argparse
import importlib
import os
import time

import numba
import numpy as np

kernel = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
STAGES = ("shared mass", "costs", "merge", "greedy", "simplex")


@numba.njit
def _pipeline(cut, n, indptr, indices, hop, x, y, ptr, nodes, mass, balls):
    """The kernel's per-edge work up to and including stage ``cut`` (an index of STAGES)."""
    ball_ptr, ball_nodes, ball_dist, ball_of = balls
    mark = np.full(n, -1, dtype=np.int64)
    slot = np.full(n, -1, dtype=np.int64)
    total = 0.0
    for k in range(x.size):
        a, b = ptr[x[k]], ptr[y[k]]
        sa, ea, sb, eb = a, ptr[x[k] + 1], b, ptr[y[k] + 1]
        s_nodes, p = kernel._reduced(nodes[sa:ea], mass[sa:ea], nodes[sb:eb], mass[sb:eb], mark)
        t_nodes, q = kernel._reduced(nodes[sb:eb], mass[sb:eb], nodes[sa:ea], mass[sa:ea], mark)
        total += s_nodes.size
        if cut == 0 or s_nodes.size < 2 or t_nodes.size < 2:
            continue
        if hop:
            cost = kernel._hop_costs(indptr, indices, s_nodes, t_nodes, mark, slot)
        else:
            cost = np.empty((s_nodes.size, t_nodes.size))
            for i in range(s_nodes.size):
                ball = ball_of[s_nodes[i]]
                for j in range(t_nodes.size):
                    cost[i, j] = kernel._ball_distance(
                        ball_ptr, ball_nodes, ball_dist, ball, t_nodes[j]
                    )
        total += cost[0, 0]
        if cut == 1:
            continue
        q = q * (p.sum() / q.sum())
        if hop:
            cost, p = kernel._merge_equal_rows(cost, p)
            cost_t, q = kernel._merge_equal_rows(cost.T.copy(), q)
            cost = cost_t.T.copy()
        m, nn = cost.shape
        if cut == 2 or m < 2 or nn < 2:
            continue
        bi = np.empty(m + nn - 1, dtype=np.int64)
        bj = np.empty(m + nn - 1, dtype=np.int64)
        flow = np.empty(m + nn - 1)
        total += kernel._greedy_basis(cost, p, q, bi, bj, flow)
        if cut == 4:
            total += kernel._simplex(cost, bi, bj, flow, 1.0 + cost.max())
    return total


def profile(name: str, points: int) -> dict[str, float]:
    from orc_vs_graphricci import load_graph

    pairs, n, lengths = load_graph(name, points)
    row, col, weight, n = kernel._read_edges(pairs, n, lengths)
    graph, _ = kernel._undirected_graph(row, col, weight, n)
    measures = kernel._neighbour_measures(graph, 0.5, 2.0)
    x, y = pairs
    hop = bool(np.isfinite(graph.unit))
    seconds = {"balls": 0.0}
    start = time.process_time()
    if hop:
        balls = (np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64))
    else:
        m = measures
        balls = kernel._balls(graph, x, y, m.ptr, m.nodes, x, m.ptr, m.nodes, y)
        seconds["balls"] = time.process_time() - start
    m = measures
    args = (n, graph.indptr, graph.indices, hop, x, y, m.ptr, m.nodes, m.mass, balls)
    previous = 0.0
    for cut, stage in enumerate(STAGES):
        _pipeline(cut, *args)  # compile
        start = time.process_time()
        _pipeline(cut, *args)
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
