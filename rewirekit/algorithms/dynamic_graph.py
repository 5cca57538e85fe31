"""An undirected graph that changes one edge at a time, with a value per edge.

Rows are neighbour lists in one array with free room at the end of each row (a CSR with
slack), so adding or removing an edge is ``O(degree)`` and the compiled curvature kernels
(:func:`rewirekit.algorithms.balanced_forman.pair_curvature`) read the rows in place.
Every edge has an id (its slot in the edge table, never reused): the ids ``0 .. E-1`` are
the input edges in input order, later additions get the next ids.
"""

from __future__ import annotations

import numba
import numpy as np

_SLACK = 4  # free slots per row at the start; a full row doubles its room


class DynamicGraph:
    """Undirected simple graph on ``num_nodes`` nodes built from canonical pairs
    ``src < dst``; ``room`` bounds the number of edges ever added (the edge table's size)."""

    def __init__(self, num_nodes: int, src: np.ndarray, dst: np.ndarray, room: int) -> None:
        self.num_nodes = num_nodes
        degree = np.bincount(src, minlength=num_nodes) + np.bincount(dst, minlength=num_nodes)
        self.capacity = degree.astype(np.int64) + _SLACK
        self.start = np.concatenate([[0], np.cumsum(self.capacity)[:-1]]).astype(np.int64)
        self.count = np.zeros(num_nodes, dtype=np.int64)
        self.nbr = np.full(int(self.capacity.sum()), -1, dtype=np.int64)
        self.edge_of_slot = np.full(self.nbr.size, -1, dtype=np.int64)
        size = src.size + room
        self.src = np.full(size, -1, dtype=np.int64)
        self.dst = np.full(size, -1, dtype=np.int64)
        self.alive = np.zeros(size, dtype=bool)
        ids = np.arange(src.size, dtype=np.int64)
        self.src[: src.size], self.dst[: src.size], self.alive[: src.size] = src, dst, True
        self.num_edges = src.size  # ids handed out so far
        _fill_rows(self.start, self.count, self.nbr, self.edge_of_slot, src, dst, ids)

    def neighbours(self, node: int) -> np.ndarray:
        begin = self.start[node]
        return self.nbr[begin : begin + self.count[node]]

    def has_edges(self, us: np.ndarray, vs: np.ndarray) -> np.ndarray:
        """Whether each pair ``(us[t], vs[t])`` is an edge."""
        return _has_edges(self.start, self.count, self.nbr, us, vs)

    def add(self, u: int, v: int) -> int:
        """Add the absent edge ``{u, v}``; returns its id."""
        for node in (u, v):
            if self.count[node] == self.capacity[node]:
                self._grow(node)
        eid = self.num_edges
        self.num_edges += 1
        self.src[eid], self.dst[eid], self.alive[eid] = min(u, v), max(u, v), True
        for a, b in ((u, v), (v, u)):
            slot = self.start[a] + self.count[a]
            self.nbr[slot], self.edge_of_slot[slot] = b, eid
            self.count[a] += 1
        return eid

    def remove(self, eid: int) -> None:
        """Remove the edge with id ``eid``."""
        u, v = int(self.src[eid]), int(self.dst[eid])
        for a, b in ((u, v), (v, u)):
            slot = _find(self.start, self.count, self.nbr, a, b)
            last = self.start[a] + self.count[a] - 1
            self.nbr[slot], self.edge_of_slot[slot] = self.nbr[last], self.edge_of_slot[last]
            self.nbr[last], self.edge_of_slot[last] = -1, -1
            self.count[a] -= 1
        self.alive[eid] = False

    def edges_near(self, u: int, v: int) -> np.ndarray:
        """Ids of the edges with one end in ``N(u)`` and the other in ``N(v)``. For a present
        edge ``{u, v}`` (``N(u)`` holds ``v`` and ``N(v)`` holds ``u``, so this includes every
        edge at ``u`` or ``v``) these are the edges whose balanced Forman curvature can change
        when it is removed, or has just been added: both curvatures read only the rows of the
        two ends and of their neighbours, and only the rows of ``u`` and ``v`` change. For an
        absent one, none is at ``u`` or ``v``."""
        mark = np.zeros(self.num_nodes, dtype=np.int8)
        return _edges_between(self.start, self.count, self.nbr, self.edge_of_slot, u, v, mark)

    def edges_at(self, u: int, v: int) -> np.ndarray:
        """Ids of the edges at ``u`` or ``v``."""
        rows = [self.edge_of_slot[self.start[a] : self.start[a] + self.count[a]] for a in (u, v)]
        return np.unique(np.concatenate(rows))

    def _grow(self, node: int) -> None:
        capacity = self.capacity.copy()
        capacity[node] *= 2
        start = np.concatenate([[0], np.cumsum(capacity)[:-1]]).astype(np.int64)
        nbr = np.full(int(capacity.sum()), -1, dtype=np.int64)
        edge_of_slot = np.full(nbr.size, -1, dtype=np.int64)
        _move_rows(self.start, self.count, self.nbr, self.edge_of_slot, start, nbr, edge_of_slot)
        self.capacity, self.start, self.nbr, self.edge_of_slot = capacity, start, nbr, edge_of_slot


@numba.njit(cache=True)
def _fill_rows(start, count, nbr, edge_of_slot, src, dst, ids):  # pragma: no cover - compiled
    for e in range(src.size):
        for a, b in ((src[e], dst[e]), (dst[e], src[e])):
            slot = start[a] + count[a]
            nbr[slot], edge_of_slot[slot] = b, ids[e]
            count[a] += 1


@numba.njit(cache=True)
def _move_rows(start, count, nbr, edge_of_slot, new_start, new_nbr, new_edge_of_slot):
    for v in range(start.size):  # pragma: no cover - compiled
        for t in range(count[v]):
            new_nbr[new_start[v] + t] = nbr[start[v] + t]
            new_edge_of_slot[new_start[v] + t] = edge_of_slot[start[v] + t]


@numba.njit(cache=True)
def _find(start, count, nbr, u, v):  # pragma: no cover - compiled
    """Slot of ``v`` in the row of ``u``, or -1."""
    for s in range(start[u], start[u] + count[u]):
        if nbr[s] == v:
            return s
    return -1


@numba.njit(cache=True)
def _has_edges(start, count, nbr, us, vs):  # pragma: no cover - compiled
    found = np.empty(us.size, dtype=np.bool_)
    for t in range(us.size):
        u, v = us[t], vs[t]
        if count[v] < count[u]:
            u, v = v, u
        found[t] = _find(start, count, nbr, u, v) >= 0
    return found


@numba.njit(cache=True)
def _edges_between(start, count, nbr, edge_of_slot, u, v, mark):  # pragma: no cover
    # the edge {u, v} is present, so N(u) holds v and N(v) holds u
    for s in range(start[v], start[v] + count[v]):
        mark[nbr[s]] = 1
    found = []
    for t in range(start[u], start[u] + count[u]):
        a = nbr[t]
        for s in range(start[a], start[a] + count[a]):
            if mark[nbr[s]] == 1:
                found.append(edge_of_slot[s])
    for s in range(start[v], start[v] + count[v]):
        mark[nbr[s]] = 0
    return np.unique(np.array(found, dtype=np.int64))
