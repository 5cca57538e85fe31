"""knn_graph against scikit-learn's kneighbors_graph; bounded path search against scipy."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from sklearn.neighbors import kneighbors_graph

from rewirekit import RewireError
from rewirekit.manifold import KnnGraph, bounded_pair_distances, knn_graph


def _points(n=300, d=2, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def test_knn_graph_is_the_symmetrised_sklearn_graph():
    points = _points()
    graph = knn_graph(points, 7)
    ref = kneighbors_graph(points, 7, mode="distance")
    ref = ref.maximum(ref.T).tocoo()
    upper = ref.row < ref.col
    order = np.lexsort((ref.col[upper], ref.row[upper]))
    assert np.array_equal(graph.src, ref.row[upper][order])
    assert np.array_equal(graph.dst, ref.col[upper][order])
    assert np.allclose(graph.length, ref.data[upper][order])
    assert np.allclose(graph.length, np.linalg.norm(points[graph.src] - points[graph.dst], axis=1))


@pytest.mark.parametrize("k", [1, 5, 29])
def test_ties_at_the_kth_distance_go_to_the_smaller_index(k):
    # Binary points: distances are square roots of integers, so most rows tie at the k-th.
    points = np.random.default_rng(1).integers(0, 2, size=(30, 6)).astype(float)
    squared = ((points[:, None] - points[None]) ** 2).sum(-1)  # exact integers
    np.fill_diagonal(squared, np.inf)
    nearest = np.array([np.lexsort((np.arange(30), row))[:k] for row in squared])
    sym = np.zeros((30, 30), dtype=bool)
    sym[np.repeat(np.arange(30), k), nearest.ravel()] = True
    src, dst = np.nonzero(sym | sym.T)
    upper = src < dst
    graph = knn_graph(points, k)
    assert np.array_equal(graph.src, src[upper]) and np.array_equal(graph.dst, dst[upper])
    assert np.allclose(graph.length, np.sqrt(squared[graph.src, graph.dst]))


def test_edge_index_holds_both_directions_with_weights():
    graph = knn_graph(_points(50), 3)
    ei, w = graph.edge_index, graph.edge_weight
    assert ei.shape == (2, 2 * graph.num_edges) and w.shape == (2 * graph.num_edges,)
    forward = dict(zip(map(tuple, ei.T.tolist()), w.tolist(), strict=True))
    assert all(forward[(v, u)] == length for (u, v), length in forward.items())
    assert graph.degree().min() >= 3


def test_from_pairs_keeps_the_longer_copy_and_drops_loops():
    g = KnnGraph.from_pairs(4, [0, 1, 2, 3], [1, 0, 2, 0], [1.0, 2.0, 5.0, 3.0])
    assert g.src.tolist() == [0, 0] and g.dst.tolist() == [1, 3]
    assert g.length.tolist() == [2.0, 3.0]


@pytest.mark.parametrize("k, points", [(0, _points(5)), (5, _points(5)), (2, np.ones((1, 2)))])
def test_knn_graph_rejects_bad_input(k, points):
    with pytest.raises(RewireError):
        knn_graph(points, k)


def test_knn_graph_rejects_nan():
    points = _points(10)
    points[3, 1] = np.nan
    with pytest.raises(RewireError, match="NaN"):
        knn_graph(points, 2)


@pytest.mark.parametrize(("use_points", "dimension"), [(False, 2), (True, 2), (True, 80)])
def test_bounded_pair_distances_match_dijkstra(use_points, dimension):
    """A* per query (few dimensions), Dijkstra searches shared by source (many, or none)."""
    points = _points(400, d=dimension, seed=1)
    graph = knn_graph(points, 5)
    n = graph.num_nodes
    matrix = csr_matrix((graph.edge_weight, tuple(graph.edge_index)), shape=(n, n))
    full = dijkstra(matrix)
    rng = np.random.default_rng(2)
    src, dst = rng.integers(0, n, 3000), rng.integers(0, n, 3000)
    limit = rng.uniform(0, 2.5 * np.sqrt(dimension / 2), 3000)
    got = bounded_pair_distances(graph, src, dst, limit, points=points if use_points else None)
    expected = np.where(full[src, dst] <= limit, full[src, dst], np.inf)
    assert np.isinf(expected).any() and np.isfinite(expected).any()
    assert np.array_equal(np.isinf(got), np.isinf(expected))
    finite = np.isfinite(expected)
    assert np.allclose(got[finite], expected[finite], rtol=1e-12, atol=1e-12)


def test_bounded_pair_distances_across_components_is_inf():
    graph = KnnGraph.from_pairs(4, [0, 2], [1, 3], [1.0, 1.0])
    got = bounded_pair_distances(graph, np.array([0, 0, 1]), np.array([1, 2, 1]), 10.0)
    assert got.tolist() == [1.0, np.inf, 0.0]
