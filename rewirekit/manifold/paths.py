"""Shortest-path distances between given node pairs, searched only up to a per-pair limit.

ORC-ManL's validation step, its good/bad edge labels and the two-MST baseline all ask the
same question: is the shortest path between ``i`` and ``j`` longer than a threshold? One
search from ``i`` answers it when it reaches ``j`` or when its lower bound passes the
threshold, so each query touches only the nodes that could lie on a short enough path,
never the whole graph, and no all-pairs matrix is built.

The search is A* (Hart, Nilsson and Raphael, 1968) when the points are given in a few
dimensions: a graph whose edge lengths are Euclidean distances has the straight-line
distance to the target as a consistent lower bound, which steers the search along the
path. Otherwise the queries that share a source share one Dijkstra search, pruned at the
largest of their limits and stopped once all their targets are settled: ORC-ManL's
candidates on the kNN graph of high-dimensional node features crowd at hubs (on
Chameleon's, 14,721 candidate edges at 364 nodes), and there the straight-line bound would
cost a pass over thousands of coordinates per visit. Both return the exact shortest-path
length.
"""

from __future__ import annotations

import numba
import numpy as np

from rewirekit.errors import RewireError
from rewirekit.linalg.threads import keeps_torch_threads
from rewirekit.manifold.knn import KnnGraph

#: Above this many coordinates the A* bound (one pass over them per visit) costs more than it
#: saves, and the queries share Dijkstra searches by source instead: on principal components
#: of Cora's features A* was faster at 40 and slower at 100 (docs/orc_manl_paths_speed.txt).
A_STAR_MAX_DIMENSION = 64


@keeps_torch_threads
def bounded_pair_distances(
    graph: KnnGraph,
    src: np.ndarray,
    dst: np.ndarray,
    limit: np.ndarray | float,
    points: np.ndarray | None = None,
) -> np.ndarray:
    """Shortest-path length from ``src[p]`` to ``dst[p]`` in ``graph`` (edge lengths as
    weights), or ``inf`` where it exceeds ``limit[p]`` or no path exists.

    Args:
        graph: the graph; its lengths are the edge weights.
        src, dst: node ids of the queries.
        limit: per-query (or one) threshold; longer paths are reported as ``inf``.
        points: ``[n, d]`` coordinates such that every edge is at least as long as the
            straight line between its ends (true of a :func:`knn_graph`); with at most
            :data:`A_STAR_MAX_DIMENSION` of them each query runs its own A* search.
            Otherwise (or ``None``) the queries of one source share a Dijkstra search.

    Queries run in parallel on numba threads.
    """
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    limit = np.ascontiguousarray(np.broadcast_to(limit, src.shape), dtype=np.float64)
    if points is not None:
        coords = np.ascontiguousarray(points, dtype=np.float64)
        if coords.ndim != 2 or coords.shape[0] != graph.num_nodes:
            raise RewireError(f"points must have one row per node ({graph.num_nodes}).")
    if src.size == 0:
        return np.empty(0, dtype=np.float64)
    indptr, neighbours, lengths, _ = graph.csr()
    threads = numba.get_num_threads()
    if points is not None and coords.shape[1] <= A_STAR_MAX_DIMENSION:
        num_blocks = min(src.size, 8 * threads)  # blocks balance the threads
        return _pair_distances(indptr, neighbours, lengths, coords, src, dst, limit, num_blocks)
    order = np.argsort(src, kind="stable")
    group_ptr = np.r_[np.flatnonzero(np.r_[True, np.diff(src[order]) != 0]), src.size]
    out = np.empty(src.size)
    num_blocks = min(group_ptr.size - 1, 8 * threads)
    out[order] = _shared_source_distances(
        indptr, neighbours, lengths, group_ptr, src[order], dst[order], limit[order], num_blocks
    )
    return out


@numba.njit(parallel=True, cache=True)
def _shared_source_distances(
    indptr, neighbours, lengths, group_ptr, src, dst, limit, num_blocks
):  # pragma: no cover
    """The queries in groups ``group_ptr[g] .. group_ptr[g + 1] - 1`` of one source each: one
    Dijkstra search per group, pruned at the group's largest limit and stopped once every
    target is settled; a query gets its target's distance where it is within its limit."""
    n = indptr.size - 1
    out = np.full(src.size, np.inf)
    num_groups = group_ptr.size - 1
    block = (num_groups + num_blocks - 1) // num_blocks
    zero = np.zeros((n, 1))  # all coordinates equal: Dijkstra
    for b in numba.prange(num_blocks):
        dist = np.full(n, np.inf)
        wanted = np.zeros(n, dtype=np.bool_)
        buffers = (np.empty(16, dtype=np.int64), np.empty(16), np.empty(16),
                   np.empty(16, dtype=np.int64))  # fmt: skip
        for g in range(b * block, min((b + 1) * block, num_groups)):
            first, last = group_ptr[g], group_ptr[g + 1]
            reach, num_wanted = 0.0, 0
            for p in range(first, last):
                num_wanted += not wanted[dst[p]]
                wanted[dst[p]] = True
                reach = max(reach, limit[p])
            # target -1 matches no node: the search settles nodes until every wanted one is
            _, buffers, num_touched = _search(
                indptr, neighbours, lengths, zero, src[first], -1, reach, dist, buffers,
                wanted, num_wanted,
            )  # fmt: skip
            for p in range(first, last):  # an unsettled target is beyond all its group's limits
                wanted[dst[p]] = False
                if dist[dst[p]] <= limit[p]:
                    out[p] = dist[dst[p]]
            touched = buffers[0]
            for t in range(num_touched):
                dist[touched[t]] = np.inf
    return out


@numba.njit(parallel=True, cache=True)
def _pair_distances(
    indptr, neighbours, lengths, coords, src, dst, limit, num_blocks
):  # pragma: no cover
    n = indptr.size - 1
    out = np.full(src.size, np.inf)
    block = (src.size + num_blocks - 1) // num_blocks
    for b in numba.prange(num_blocks):
        dist = np.full(n, np.inf)
        nothing = np.zeros(n, dtype=np.bool_)  # no other node is wanted
        buffers = (np.empty(16, dtype=np.int64), np.empty(16), np.empty(16),
                   np.empty(16, dtype=np.int64))  # fmt: skip
        for p in range(b * block, min((b + 1) * block, src.size)):
            out[p], buffers, num_touched = _search(
                indptr, neighbours, lengths, coords, src[p], dst[p], limit[p], dist, buffers,
                nothing, 0,
            )  # fmt: skip
            touched = buffers[0]
            for t in range(num_touched):
                dist[touched[t]] = np.inf
    return out


@numba.njit(cache=True)
def _lower_bound(coords, node, target):  # pragma: no cover
    total = 0.0
    for c in range(coords.shape[1]):
        diff = coords[node, c] - coords[target, c]
        total += diff * diff
    return np.sqrt(total)


@numba.njit(cache=True)
def _search(
    indptr,
    neighbours,
    lengths,
    coords,
    source,
    target,
    limit,
    dist,
    buffers,
    wanted,
    num_wanted,
):  # pragma: no cover
    """One early-stopping A* search (Dijkstra when all coordinates are equal), to ``target``
    or, with ``num_wanted`` > 0, until that many nodes marked in ``wanted`` are settled.

    ``dist`` is all ``inf`` on entry; the caller resets the ``touched`` entries afterwards.
    The heap holds ``(bound, distance, node)`` triples with lazy deletion; buffers grow by
    doubling and are handed back for the next search.
    """
    touched, heap_bound, heap_dist, heap_node = buffers
    dist[source] = 0.0
    touched[0] = source
    num_touched = 1
    heap_bound[0], heap_dist[0], heap_node[0] = _lower_bound(coords, source, target), 0.0, source
    size = 1
    found = np.inf
    while size > 0:
        bound, g, node = heap_bound[0], heap_dist[0], heap_node[0]
        size -= 1  # pop the root: move the last entry up top and sift it down
        last = (heap_bound[size], heap_dist[size], heap_node[size])
        i = 0
        while True:
            child = 2 * i + 1
            if child >= size:
                break
            if child + 1 < size and heap_bound[child + 1] < heap_bound[child]:
                child += 1
            if heap_bound[child] >= last[0]:
                break
            heap_bound[i], heap_dist[i], heap_node[i] = (
                heap_bound[child], heap_dist[child], heap_node[child]
            )  # fmt: skip
            i = child
        if size > 0:
            heap_bound[i], heap_dist[i], heap_node[i] = last
        if g > dist[node]:
            continue  # a stale entry
        if bound > limit:
            break  # every remaining path is longer than the limit
        if node == target:
            found = g
            break
        if wanted[node]:
            num_wanted -= 1
            if num_wanted == 0:
                break
        for e in range(indptr[node], indptr[node + 1]):
            other = neighbours[e]
            candidate = g + lengths[e]
            if candidate >= dist[other]:
                continue
            other_bound = candidate + _lower_bound(coords, other, target)
            if other_bound > limit:
                continue
            if dist[other] == np.inf:
                if num_touched == touched.size:
                    touched = _grown(touched)
                touched[num_touched] = other
                num_touched += 1
            dist[other] = candidate
            if size == heap_bound.size:
                heap_bound, heap_dist, heap_node = (
                    _grown(heap_bound), _grown(heap_dist), _grown(heap_node)
                )  # fmt: skip
            i = size  # push: sift the new entry up
            size += 1
            while i > 0:
                parent = (i - 1) // 2
                if heap_bound[parent] <= other_bound:
                    break
                heap_bound[i], heap_dist[i], heap_node[i] = (
                    heap_bound[parent], heap_dist[parent], heap_node[parent]
                )  # fmt: skip
                i = parent
            heap_bound[i], heap_dist[i], heap_node[i] = other_bound, candidate, other
    return found, (touched, heap_bound, heap_dist, heap_node), num_touched


@numba.njit(cache=True)
def _grown(array):  # pragma: no cover
    bigger = np.empty(2 * array.size, dtype=array.dtype)
    bigger[: array.size] = array
    return bigger
