"""ComFy's edge selection as the official code performs it (``ComFy(faithful=True)``).

Official code: RelationalML/ComFy, ``Comm+Sim/comsim.py`` (``modify_graph``). This module
re-implements its observable behaviour so that a reproduction can run what the paper ran;
:class:`~rewirekit.methods.similarity.ComFy` with ``faithful=False`` is the clean method.
Given the same partition, the selected pairs equal the official ones
(``benchmarks/comfy_vs_official.py --faithful``).

What the official selection does, and so what this one does:

* Similarities are ``(X Xᵀ) / (‖x‖ ‖x‖ᵀ)`` in float32 over all ``N × N`` pairs (rows of norm
  0 give NaN, and a community pair with a NaN mean selects nothing). Cost: ``O(N² F)`` time and
  ``O(N²)`` memory — this mode is for comparisons, not for scale.
* ``B_ij = int(N · |C_i||C_j| / Σ_{x≤y} |C_x||C_y|)`` in floating point, the sum over *all*
  community pairs, with or without edges.
* Community pairs ``(i, j)``, ``i ≤ j``, are visited in label order. A pair's mean edge
  similarity ``s̄_ij`` is the float32 mean over its edges in the iteration order of the Python
  set the official code builds (so the float32 rounding is the same); its scores are
  ``(s̄|E| + s)/(|E| + 1)`` (add) and ``(s̄|E| − s)/(|E| − 1)`` (delete) in float32, sorted
  ascending with ties broken by ``(u, v)``.
* The selection is the slice ``ranking[-B_ij:]``, visited in ascending order, until the global
  budget is used. ``B_ij = 0`` gives ``ranking[-0:]``, the *whole* ranking, worst first.
* Inside a community both orientations ``(u, v)`` and ``(v, u)`` are ranked and ``(u, u)`` is a
  candidate: the second orientation is skipped without refunding its slot, and self-loops are
  added.
* Edits are applied to a networkx graph as they are chosen, as the official code does; later
  pairs see them in the order of its adjacency lists (which fixes the summation order of their
  means).
"""

from __future__ import annotations

from dataclasses import replace

import networkx as nx
import numpy as np
import torch
from torch import Tensor

from rewirekit.graph import EdgeSet, apply_edits, pair_keys


def official_comfy_edits(
    x: Tensor, edge_index: Tensor, labels: np.ndarray, add: int, delete: int
) -> tuple[np.ndarray, np.ndarray]:
    """The official ComFy selection on ``(x, edge_index)`` with communities ``labels``.

    Returns ``(added, removed)``, each an ``(m, 2)`` int64 array of pairs ``u ≤ v`` in the
    order they were chosen (self-loops included).
    """
    num_nodes = int(labels.size)
    similarity = _float32_cosine(x)
    graph = official_graph(edge_index, num_nodes)
    communities = community_sets(labels)
    budgets_add, budgets_delete = (
        _official_budgets(communities, add),
        _official_budgets(communities, delete),
    )
    added: list[tuple[int, int]] = []
    removed: list[tuple[int, int]] = []
    seen_added: set[tuple[int, int]] = set()
    for i in range(len(communities)):
        for j in range(i, len(communities)):
            first, second = set(communities[i]), set(communities[j])  # as the official loop
            between = _edges_between(graph, first, second)
            if not between:
                continue
            pairs = np.array(list(between), dtype=np.int64).reshape(-1, 2)
            mean = np.mean(similarity[pairs[:, 0], pairs[:, 1]])
            count = len(between)
            ranked = _ranked_additions(
                similarity, graph, first, second, mean, count, budgets_add[i, j]
            )
            for u, v in ranked:
                if len(added) >= add:
                    break
                key = (min(u, v), max(u, v))
                if key not in seen_added:
                    graph.add_edge(u, v)
                    seen_added.add(key)
                    added.append(key)
            for u, v in _ranked_deletions(similarity, pairs, mean, count, budgets_delete[i, j]):
                if len(removed) >= delete:
                    break
                graph.remove_edge(u, v)
                removed.append((min(u, v), max(u, v)))
    return _pair_array(added), _pair_array(removed)


def faithful_edge_set(edges: EdgeSet, added: np.ndarray, removed: np.ndarray) -> EdgeSet:
    """``edges`` (undirected) with the official selection applied; added pairs and added
    self-loops get weight 1 where the graph is weighted."""
    n = edges.num_nodes
    loop = added[:, 0] == added[:, 1]
    gone = removed[removed[:, 0] != removed[:, 1]]
    positions = np.searchsorted(edges.keys, pair_keys(gone[:, 0], gone[:, 1], n))
    out = apply_edits(edges, positions, added[~loop, 0], added[~loop, 1])
    kept = ~np.isin(edges.self_loops, removed[removed[:, 0] == removed[:, 1], 0])
    loops = np.concatenate([edges.self_loops[kept], added[loop, 0]])
    loop_weight = None
    if edges.self_loop_weight is not None:
        loop_weight = np.concatenate([edges.self_loop_weight[kept], np.ones(int(loop.sum()))])
    order = np.argsort(loops, kind="stable")
    return replace(
        out,
        self_loops=loops[order],
        self_loop_weight=None if loop_weight is None else loop_weight[order],
    )


def _pair_array(pairs: list[tuple[int, int]]) -> np.ndarray:
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def community_sets(labels: np.ndarray) -> list[set[int]]:
    """Communities as Python sets built as ``benchmarks/comfy_vs_official.py`` hands them to the
    official code (a set of the sorted member list, copied once); a set's iteration order
    depends on how it was built, and the official means are summed in that order."""
    count = int(labels.max()) + 1
    built = [set(np.flatnonzero(labels == c).tolist()) for c in range(count)]
    return [set(community) for community in built]  # the copy the benchmark passes on


def _float32_cosine(x: Tensor) -> np.ndarray:
    features = x.to(torch.float32)
    products = torch.mm(features, features.t())
    norms = torch.norm(features, dim=1, keepdim=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (products / (norms * norms.t())).numpy()


def official_graph(edge_index: Tensor, num_nodes: int) -> nx.Graph:
    """The graph ``torch_geometric.utils.to_networkx(data, to_undirected=True)`` builds: nodes
    ``0..N-1``, then the columns ``u ≤ v`` of ``edge_index`` in their order."""
    graph = nx.Graph()
    graph.add_nodes_from(range(num_nodes))
    src, dst = edge_index.tolist()
    graph.add_edges_from((u, v) for u, v in zip(src, dst, strict=True) if u <= v)
    return graph


def _official_budgets(communities: list[set[int]], budget: int) -> dict[tuple[int, int], int]:
    sizes = [len(c) for c in communities]
    scores = {(i, j): sizes[i] * sizes[j] for i in range(len(sizes)) for j in range(i, len(sizes))}
    total = sum(scores.values())
    return {pair: int(budget * (score / total)) for pair, score in scores.items()}


def _edges_between(graph: nx.Graph, first: set[int], second: set[int]) -> set[tuple[int, int]]:
    """``set(graph.edges(first)) & {(u, v) : u ∈ first, v ∈ second}``, built as CPython builds
    an intersection (iterating the smaller operand, ties to the right one), so that the result
    iterates in the same order as the official set."""
    incident = set(graph.edges(first))
    if len(first) * len(second) > len(incident):
        return {edge for edge in incident if edge[1] in second}
    product = {(u, v) for u in first for v in second}
    return {edge for edge in product if edge in incident}


def _sorted_slice(scores: np.ndarray, u: np.ndarray, v: np.ndarray, budget: int) -> np.ndarray:
    """``ranking[-min(budget, len):]`` of the ranking sorted by ``(score, u, v)``, ascending."""
    order = np.lexsort((v, u, scores.astype(np.float64)))
    take = min(budget, order.size)
    return order[-take:] if take else order


def _ranked_additions(
    similarity: np.ndarray,
    graph: nx.Graph,
    first: set[int],
    second: set[int],
    mean: np.float32,
    count: int,
    budget: int,
) -> list[tuple[int, int]]:
    """The official addition slice of one community pair: ordered pairs ``(u, v)``,
    ``u ∈ first``, ``v ∈ second``, that are not edges, with ``s > s̄``."""
    n = similarity.shape[0]
    rows = np.fromiter(first, dtype=np.int64, count=len(first))
    cols = np.fromiter(second, dtype=np.int64, count=len(second))
    u, v = np.repeat(rows, cols.size), np.tile(cols, rows.size)
    block = similarity[np.ix_(rows, cols)].reshape(-1)
    present = np.array(list(graph.edges(first)), dtype=np.int64).reshape(-1, 2)
    present_keys = np.concatenate(
        [present[:, 0] * n + present[:, 1], present[:, 1] * n + present[:, 0]]
    )
    keep = ~np.isin(u * n + v, present_keys) & (block > mean)
    u, v, s = u[keep], v[keep], block[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = (mean * np.float32(count) + s) / np.float32(count + 1)
    chosen = _sorted_slice(scores, u, v, budget)
    return list(zip(u[chosen].tolist(), v[chosen].tolist(), strict=True))


def _ranked_deletions(
    similarity: np.ndarray, pairs: np.ndarray, mean: np.float32, count: int, budget: int
) -> list[tuple[int, int]]:
    s = similarity[pairs[:, 0], pairs[:, 1]]
    keep = s < mean
    u, v, s = pairs[keep, 0], pairs[keep, 1], s[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = (mean * np.float32(count) - s) / np.float32(count - 1)
    chosen = _sorted_slice(scores, u, v, budget)
    return list(zip(u[chosen].tolist(), v[chosen].tolist(), strict=True))


__all__ = ["official_comfy_edits", "faithful_edge_set"]
