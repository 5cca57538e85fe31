"""Edge deletions that keep the connected components of a graph."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

from rewirekit.graph import EdgeSet, pair_keys


def removable_in_order(edges: EdgeSet, candidates: np.ndarray) -> np.ndarray:
    """Greedy deletions that never increase the number of connected components.

    Walk ``candidates`` (positions into ``edges.src``) in the given order and delete each
    edge unless that would split a connected component. Returns the positions deleted, in
    walk order. Computed at once, without the walk: the surviving candidates are those in a
    minimum spanning forest where every non-candidate edge is cheaper than every candidate
    and later candidates are cheaper than earlier ones (the walk is the reverse-delete
    algorithm of Kruskal, 1956, under those weights), so the cost is one ``scipy``
    spanning-forest computation, ``O(E log E)``.

    Example::

        >>> deleted = removable_in_order(edges, np.random.default_rng(0).permutation(m))
    """
    m = edges.num_pairs
    if candidates.size == 0:
        return candidates
    weight = np.ones(m)
    weight[candidates] = 2.0 + np.arange(candidates.size)[::-1]
    n = edges.num_nodes
    matrix = sp.csr_matrix((weight, (edges.src, edges.dst)), shape=(n, n))
    forest = minimum_spanning_tree(matrix).tocoo()
    lo, hi = np.minimum(forest.row, forest.col), np.maximum(forest.row, forest.col)
    kept = np.isin(
        pair_keys(edges.src[candidates], edges.dst[candidates], n),
        pair_keys(lo, hi, n),
        assume_unique=True,
    )
    return candidates[~kept]
