"""ComMa's edits as the official code makes them (``ComMa(faithful=True)``).

Official code: RelationalML/ComFy, ``CommunityRewiring/methods.py`` (``community_rewiring``
for HigherComMa, ``inverse_community_rewiring`` for LowerComMa). This module re-implements
their observable behaviour, so that a reproduction can run what the paper ran;
:class:`~rewirekit.methods.community.ComMa` with ``faithful=False`` is the clean method.
Given the same partition and seed, the edits equal the official ones
(``benchmarks/comma_vs_official.py``).

What the official functions do, and so what this one does:

* The random stream is Python's :mod:`random` seeded with ``seed`` (community detection
  draws from its own generator, so it does not move the stream).
* **Deletions.** The candidates (edges between communities for HigherComMa, inside them for
  LowerComMa) are listed in the order of networkx's ``graph.edges()`` on the graph that
  ``to_networkx(data, to_undirected=True)`` builds. The cap is the longest *prefix* of that
  list whose removal leaves the graph connected (0 when the input is already disconnected),
  and ``random.sample(candidates, min(delete, cap))`` picks the edges to delete. The sample
  is not the prefix, so a faithful deletion can disconnect the graph.
* **Additions.** HigherComMa draws a community uniformly (``random.choice``), skips it when it
  has fewer than two nodes, then two distinct members (``random.sample``); LowerComMa draws
  two distinct communities (``random.sample``) and one member of each (``random.choice``).
  A pair that is already an edge is dropped. At most ``10 · add`` draws are made, so fewer
  edges than asked can be added (small communities are over-filled: a community is drawn
  with probability ``1/K`` whatever its size).
* Member lists are ``list(community)`` of Python sets built as
  :func:`~rewirekit.methods.comfy_faithful.community_sets` builds them (iteration order
  matters for which node a draw returns).
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
from torch import Tensor

from rewirekit.methods.comfy_faithful import community_sets, official_graph


def official_comma_edits(
    edge_index: Tensor,
    num_nodes: int,
    labels: np.ndarray,
    mode: str,
    add: int,
    delete: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The official ComMa edits on ``edge_index`` with communities ``labels``.

    ``mode`` is ``"higher"`` (``community_rewiring``) or ``"lower"``
    (``inverse_community_rewiring``). Returns ``(added, removed)``, each an ``(m, 2)`` int64
    array of pairs ``u ≤ v`` in the order they were chosen.
    """
    stream = random.Random(seed)
    graph = official_graph(edge_index, num_nodes)
    communities = community_sets(labels)
    higher = mode == "higher"
    candidates = [(u, v) for u, v in graph.edges() if (labels[u] != labels[v]) == higher]
    removed = stream.sample(candidates, min(delete, _connected_prefix(graph, candidates)))
    graph.remove_edges_from(removed)
    draw = _draw_inside if higher else _draw_between
    added: list[tuple[int, int]] = []
    for _ in range(10 * add):
        if len(added) == add:
            break
        pair = draw(stream, communities)
        if pair is not None and not graph.has_edge(*pair):
            graph.add_edge(*pair)
            added.append(pair)
    return _canonical(added), _canonical(removed)


def _connected_prefix(graph: nx.Graph, candidates: list[tuple[int, int]]) -> int:
    """The largest ``i`` such that removing ``candidates[:i]`` leaves ``graph`` connected
    (the official loop tries ``i = 1, 2, …`` and stops at the first disconnection).

    Removal is monotone, so the answer is found by bisection in ``O(E log E)``."""
    if not candidates or not nx.is_connected(graph):
        return 0

    def connected_without(i: int) -> bool:
        trial = graph.copy()
        trial.remove_edges_from(candidates[:i])
        return nx.is_connected(trial)

    low, high = 0, len(candidates)  # connected_without(low) holds
    while low < high:
        middle = (low + high + 1) // 2
        if connected_without(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _draw_inside(stream: random.Random, communities: list[set[int]]) -> tuple[int, int] | None:
    community = stream.choice(communities)
    if len(community) < 2:
        return None
    u, v = stream.sample(list(community), 2)
    return u, v


def _draw_between(stream: random.Random, communities: list[set[int]]) -> tuple[int, int]:
    first, second = stream.sample(communities, 2)  # two distinct, hence disjoint, communities
    return stream.choice(list(first)), stream.choice(list(second))


def _canonical(pairs: list[tuple[int, int]]) -> np.ndarray:
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return np.sort(array, axis=1)


__all__ = ["official_comma_edits"]
