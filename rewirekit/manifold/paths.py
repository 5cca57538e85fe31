"""Shortest-path distances between given node pairs, searched only up to a per-pair limit.

ORC-ManL's validation step, its good/bad edge labels and the two-MST baseline all ask the
same question: is the shortest path between ``i`` and ``j`` longer than a threshold? A
Dijkstra search from ``i`` answers it when it reaches ``j`` or when its frontier passes the
threshold, so each query touches only a ball of that radius, never the whole graph, and no
all-pairs matrix is built.
"""

from __future__ import annotations

import numba
import numpy as np

from rewirekit.manifold.knn import KnnGraph


def bounded_pair_distances(
    graph: KnnGraph, src: np.ndarray, dst: np.ndarray, limit: np.ndarray | float
) -> np.ndarray:
    """Shortest-path length from ``src[p]`` to ``dst[p]`` in ``graph`` (edge lengths as
    weights), or ``inf`` where it exceeds ``limit[p]`` or no path exists.

    Queries run in parallel (numba threads); each is an early-stopping Dijkstra search.
    """
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    limit = np.ascontiguousarray(np.broadcast_to(limit, src.shape), dtype=np.float64)
    if src.size == 0:
        return np.empty(0, dtype=np.float64)
    indptr, neighbours, lengths, _ = graph.csr()
    num_blocks = min(src.size, 8 * numba.get_num_threads())  # blocks balance the threads
    return _pair_distances(indptr, neighbours, lengths, src, dst, limit, num_blocks)


@numba.njit(parallel=True, cache=True)
def _pair_distances(indptr, neighbours, lengths, src, dst, limit, num_blocks):  # pragma: no cover
    n = indptr.size - 1
    out = np.full(src.size, np.inf)
    block = (src.size + num_blocks - 1) // num_blocks
    for b in numba.prange(num_blocks):
        dist = np.full(n, np.inf)
        touched = np.empty(16, dtype=np.int64)
        heap_key = np.empty(16)
        heap_node = np.empty(16, dtype=np.int64)
        for p in range(b * block, min((b + 1) * block, src.size)):
            out[p], touched, heap_key, heap_node, num_touched = _dijkstra_until(
                indptr, neighbours, lengths, src[p], dst[p], limit[p],
                dist, touched, heap_key, heap_node,
            )  # fmt: skip
            for t in range(num_touched):
                dist[touched[t]] = np.inf
    return out


@numba.njit(cache=True)
def _dijkstra_until(
    indptr, neighbours, lengths, source, target, limit, dist, touched, heap_key, heap_node
):  # pragma: no cover
    """One early-stopping search; ``dist`` is all ``inf`` on entry and the caller resets the
    ``touched`` entries afterwards. Buffers grow by doubling and are handed back."""
    found = np.inf
    dist[source] = 0.0
    touched[0] = source
    num_touched = 1
    heap_key[0], heap_node[0] = 0.0, source
    size = 1
    while size > 0:
        key, node = heap_key[0], heap_node[0]
        size -= 1  # pop the root: move the last entry up top and sift it down
        last_key, last_node = heap_key[size], heap_node[size]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and heap_key[child + 1] < heap_key[child]:
                child += 1
            if heap_key[child] >= last_key:
                break
            heap_key[i], heap_node[i] = heap_key[child], heap_node[child]
            i = child
        if size > 0:
            heap_key[i], heap_node[i] = last_key, last_node
        if key > dist[node]:
            continue  # a stale entry
        if key > limit:
            break
        if node == target:
            found = key
            break
        for e in range(indptr[node], indptr[node + 1]):
            other = neighbours[e]
            candidate = key + lengths[e]
            if candidate < dist[other] and candidate <= limit:
                if dist[other] == np.inf:
                    if num_touched == touched.size:
                        touched = _grown(touched)
                    touched[num_touched] = other
                    num_touched += 1
                dist[other] = candidate
                if size == heap_key.size:
                    heap_key, heap_node = _grown(heap_key), _grown(heap_node)
                i = size  # push: sift the new entry up
                size += 1
                while i > 0:
                    parent = (i - 1) // 2
                    if heap_key[parent] <= candidate:
                        break
                    heap_key[i], heap_node[i] = heap_key[parent], heap_node[parent]
                    i = parent
                heap_key[i], heap_node[i] = candidate, other
    return found, touched, heap_key, heap_node, num_touched


@numba.njit(cache=True)
def _grown(array):  # pragma: no cover
    bigger = np.empty(2 * array.size, dtype=array.dtype)
    bigger[: array.size] = array
    return bigger
