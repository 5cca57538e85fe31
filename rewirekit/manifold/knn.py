"""Symmetrised k-nearest-neighbour graphs of point clouds, with Euclidean edge lengths."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.neighbors import NearestNeighbors

from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet, symmetric_csr
from rewirekit.validation import check_int


@dataclass(frozen=True)
class KnnGraph:
    """An undirected graph on points, each edge carrying its Euclidean length.

    Edges are stored once, as canonical pairs ``src < dst`` sorted by ``(src, dst)``;
    :attr:`edge_index` and :attr:`edge_weight` give both directions, PyG style.

    Attributes:
        num_nodes: number of points.
        src, dst: int64 endpoint arrays of the ``num_edges`` pairs.
        length: float64 Euclidean length of each pair.
    """

    num_nodes: int
    src: np.ndarray
    dst: np.ndarray
    length: np.ndarray

    @property
    def num_edges(self) -> int:
        return int(self.src.size)

    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Both directions as CSR rows: ``(indptr, neighbours, lengths, pair)``, where
        ``pair`` maps each entry back to its position in ``src``/``dst``."""
        empty = np.empty(0, dtype=np.int64)
        edges = EdgeSet(self.num_nodes, self.src, self.dst, None, empty, None, False)
        indptr, neighbours, pair = symmetric_csr(edges)
        return indptr, neighbours, self.length[pair], pair

    @property
    def edge_index(self) -> np.ndarray:
        """``[2, 2 * num_edges]`` int64 array, both directions, rows sorted."""
        indptr, neighbours, _, _ = self.csr()
        rows = np.repeat(np.arange(self.num_nodes, dtype=np.int64), np.diff(indptr))
        return np.stack([rows, neighbours])

    @property
    def edge_weight(self) -> np.ndarray:
        """Euclidean length of each column of :attr:`edge_index`."""
        return self.csr()[2]

    def degree(self) -> np.ndarray:
        return np.bincount(np.concatenate([self.src, self.dst]), minlength=self.num_nodes)

    def subgraph(self, keep: np.ndarray) -> KnnGraph:
        """The graph on the same nodes with only the pairs where ``keep`` is true."""
        return KnnGraph(self.num_nodes, self.src[keep], self.dst[keep], self.length[keep])

    @classmethod
    def from_pairs(
        cls, num_nodes: int, src: np.ndarray, dst: np.ndarray, length: np.ndarray
    ) -> KnnGraph:
        """Build from pairs in any order or direction; a pair given twice keeps its larger
        length (``A = max(A, Aᵀ)``)."""
        src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
        length = np.asarray(length, dtype=np.float64)
        if src.shape != dst.shape or src.shape != length.shape or src.ndim != 1:
            raise RewireError("src, dst and length must be 1-d arrays of equal length.")
        if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= num_nodes):
            raise RewireError(f"edge endpoints must lie in [0, {num_nodes - 1}].")
        if not np.all(np.isfinite(length)) or np.any(length < 0):
            raise RewireError("edge lengths must be finite and non-negative.")
        lo, hi = np.minimum(src, dst), np.maximum(src, dst)
        proper = lo != hi
        lo, hi, length = lo[proper], hi[proper], length[proper]
        keys = lo * num_nodes + hi
        order = np.lexsort((-length, keys))  # by key, the longest copy first
        keys, length = keys[order], length[order]
        first = np.r_[True, keys[1:] != keys[:-1]][: keys.size]
        keys = keys[first]
        return cls(num_nodes, keys // num_nodes, keys % num_nodes, length[first])

    @classmethod
    def from_edge_index(
        cls, edge_index: np.ndarray, weight: np.ndarray, num_nodes: int
    ) -> KnnGraph:
        """Build from a ``[2, E]`` edge index and per-column lengths (symmetrised)."""
        edge_index = np.asarray(edge_index)
        if edge_index.ndim != 2 or edge_index.shape[0] != 2:
            raise RewireError(f"edge_index must have shape [2, E], got {edge_index.shape}.")
        return cls.from_pairs(num_nodes, edge_index[0], edge_index[1], weight)


def check_points(points: object) -> np.ndarray:
    """A finite ``[n, d]`` float64 array of at least two points."""
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] < 2 or array.shape[1] < 1:
        raise RewireError(
            f"points must be an [n, d] array with n >= 2 and d >= 1, got shape {array.shape}."
        )
    if not np.all(np.isfinite(array)):
        raise RewireError("points contain NaN or inf; drop or impute them first.")
    return array


def knn_graph(points: object, k: int) -> KnnGraph:
    """The symmetrised k-nearest-neighbour graph of ``points``.

    Each point is joined to its ``k`` nearest other points (exact search with
    scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors`, which picks a k-d tree,
    ball tree or brute force by size; all are exact), and the directed kNN relation is
    symmetrised as ``A = max(A, Aᵀ)``: ``{i, j}`` is an edge when either point is among the
    other's ``k`` nearest. Edges carry their Euclidean length.

    Ties at the ``k``-th distance (common with binary features: bag-of-words distances are
    square roots of integers) go to the points of smaller index. The search's own order of
    equal distances is unspecified, and the same code and packages were seen to keep
    different neighbours on different machines (ORC-ManL on Texas); with this rule the graph
    is the same everywhere. Distances within ``1e-9`` relative of the ``k``-th count as tied,
    so rounding that differs between machines cannot break a tie either.

    Args:
        points: ``[n, d]`` array.
        k: neighbours per point, ``1 <= k < n``.

    Example::

        >>> g = knn_graph(np.random.default_rng(0).normal(size=(100, 2)), k=5)
        >>> g.edge_index.shape[1] == 2 * g.num_edges
        True
    """
    points = check_points(points)
    n = points.shape[0]
    k = check_int("k", k, 1)
    if k >= n:
        raise RewireError(f"k must be smaller than the number of points ({n}), got {k}.")
    search = NearestNeighbors().fit(points)
    if k == n - 1:  # every other point: no tie to break
        distances, neighbours = search.kneighbors(n_neighbors=k)
    else:
        distances, neighbours = search.kneighbors(n_neighbors=k + 1)
        tied = distances[:, k] <= distances[:, k - 1] + tie_tolerance(distances[:, k - 1])
        distances, neighbours = distances[:, :k], neighbours[:, :k]
        rows = np.flatnonzero(tied)
        if rows.size:
            neighbours[rows], distances[rows] = _nearest_by_index(points, rows, k)
    rows = np.repeat(np.arange(n, dtype=np.int64), k)
    return KnnGraph.from_pairs(n, rows, neighbours.ravel(), distances.ravel())


def tie_tolerance(distance: np.ndarray | float) -> np.ndarray | float:
    """How far from ``distance`` another distance still counts as equal to it in
    :func:`knn_graph`: ``1e-9`` relative, plus ``1e-12`` so that zero ties with zero."""
    return 1e-9 * distance + 1e-12


def _nearest_by_index(
    points: np.ndarray, rows: np.ndarray, k: int, chunk_bytes: int = 64 << 20
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest other points of each point of ``rows`` (and their distances), the
    points at the ``k``-th distance taken in index order: those strictly nearer first,
    then the tied ones of smallest index. Distances are computed in chunks of rows."""
    n = points.shape[0]
    neighbours = np.empty((rows.size, k), dtype=np.int64)
    distances = np.empty((rows.size, k))
    step = max(1, chunk_bytes // (8 * n))
    for start in range(0, rows.size, step):
        chunk = rows[start : start + step]
        block = euclidean_distances(points[chunk], points)
        block[np.arange(chunk.size), chunk] = np.inf  # not its own neighbour
        for i, row in enumerate(block):
            kth = np.partition(row, k - 1)[k - 1]
            tolerance = tie_tolerance(kth)
            nearer = np.flatnonzero(row < kth - tolerance)
            tied = np.flatnonzero(np.abs(row - kth) <= tolerance)
            chosen = np.concatenate([nearer, tied[: k - nearer.size]])
            neighbours[start + i], distances[start + i] = chosen, row[chosen]
    return neighbours, distances
