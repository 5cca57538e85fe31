"""The pruning baselines ORC-ManL is compared with (Saidi et al., ICLR 2025, section 5).

Each returns a boolean mask over the edges of a :class:`~rewirekit.manifold.KnnGraph`
(``True`` = removed); their thresholds are per data set, as in the paper. They follow the
descriptions and the official ``src/experiments/baselines.py`` (TristanSaidi/orcml), with
per-edge Python loops replaced by vectorised queries.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.stats import gaussian_kde
from sklearn.neighbors import KDTree, NearestNeighbors

from rewirekit.errors import RewireError
from rewirekit.manifold.knn import KnnGraph, check_points
from rewirekit.manifold.paths import bounded_pair_distances
from rewirekit.validation import check_int


def prune_curvature(curvature: np.ndarray, delta: float = 0.8) -> np.ndarray:
    """ORC only: remove every edge with ``κ < -1 + 4(1 - δ)``, ORC-ManL's candidates,
    without its validation step. (The official baseline removes ``κ <=`` the threshold;
    the two differ only on ties.)"""
    return np.asarray(curvature) < -1 + 4 * (1 - delta)


def prune_distance(graph: KnnGraph, threshold: float) -> np.ndarray:
    """Remove every edge longer than ``threshold``."""
    return graph.length > threshold


def prune_bisection(graph: KnnGraph, points: np.ndarray, n_neighbors: int = 10) -> np.ndarray:
    """Bisection (Xia, Li, Zhang and Tang, "A more topologically stable locally linear
    embedding algorithm based on R*-tree", 2008): remove ``{i, j}`` when the axis-aligned box
    of half-width ``e_ij`` around the midpoint holds no sample point.

    ``e_ij = min(e_i, e_j)`` and ``e_i`` is the mean distance from ``i`` to its
    ``n_neighbors`` nearest sample points, counting ``i`` itself (distance 0), as the
    official code does.
    """
    points = _points_of(graph, points)
    n_neighbors = check_int("n_neighbors", n_neighbors, 2)
    count = min(n_neighbors - 1, points.shape[0] - 1)
    distances, _ = NearestNeighbors(n_neighbors=count).fit(points).kneighbors()
    scale = distances.sum(axis=1) / n_neighbors
    half_width = np.minimum(scale[graph.src], scale[graph.dst])
    midpoints = (points[graph.src] + points[graph.dst]) / 2
    inside = KDTree(points, metric="chebyshev").query_radius(
        midpoints, r=half_width, count_only=True
    )
    return inside == 0


def prune_two_mst(
    graph: KnnGraph, threshold: float, points: np.ndarray | None = None
) -> np.ndarray:
    """Two-MST pruning (Carreira-Perpiñán and Zemel, "Proximity graphs for clustering and
    manifold learning", NeurIPS 2004; Shao, Huang and Zhou, P-ISOMAP, 2006): remove
    ``{i, j}`` when its endpoints are farther than ``threshold`` apart in the union of a
    minimum spanning tree of the graph and a minimum spanning tree of what remains.

    Spanning forests where the graph is disconnected. ``points`` only speed the path search.
    """
    first = _spanning_forest(graph, np.ones(graph.num_edges, dtype=bool))
    second = _spanning_forest(graph, ~first)
    union = graph.subgraph(first | second)
    if points is not None:
        points = _points_of(graph, points)
    distance = bounded_pair_distances(union, graph.src, graph.dst, threshold, points=points)
    return np.isinf(distance)


def prune_density(graph: KnnGraph, points: np.ndarray, threshold: float) -> np.ndarray:
    """Remove ``{i, j}`` when a Gaussian kernel density estimate of the sample (scipy's
    :class:`~scipy.stats.gaussian_kde`, Scott's bandwidth) is below ``threshold`` at the
    edge's midpoint."""
    points = _points_of(graph, points)
    midpoints = (points[graph.src] + points[graph.dst]) / 2
    return gaussian_kde(points.T)(midpoints.T) < threshold


def _spanning_forest(graph: KnnGraph, allowed: np.ndarray) -> np.ndarray:
    """Mask of the edges of a minimum spanning forest of the ``allowed`` edges."""
    index = np.flatnonzero(allowed)
    n = graph.num_nodes
    # csgraph reads a stored zero as "no edge": shift lengths by a constant, which keeps the
    # order of the edges and so the tree
    weights = graph.length[index] + 1.0
    matrix = coo_matrix((weights, (graph.src[index], graph.dst[index])), shape=(n, n))
    tree = minimum_spanning_tree(matrix.tocsr()).tocoo()
    keys = np.minimum(tree.row, tree.col).astype(np.int64) * n + np.maximum(tree.row, tree.col)
    chosen = np.zeros(graph.num_edges, dtype=bool)
    chosen[index[np.isin(graph.src[index] * n + graph.dst[index], keys)]] = True
    return chosen


def _points_of(graph: KnnGraph, points: np.ndarray) -> np.ndarray:
    points = check_points(points)
    if points.shape[0] != graph.num_nodes:
        raise RewireError(f"points has {points.shape[0]} rows but the graph {graph.num_nodes}.")
    return points
