"""Ollivier–Ricci curvature of the edges of an undirected graph, exact and fast.

For an edge ``(x, y)`` the curvature is (Ollivier, *Ricci curvature of Markov chains on metric
spaces*, J. Funct. Anal. 2009)

    κ(x, y) = 1 − W1(μ_x, μ_y) / d(x, y),

where ``d`` is the shortest-path distance of the (weighted) graph, ``W1`` the optimal-transport
(earth mover's) distance with ground cost ``d``, and ``μ_x`` the lazy neighbour measure of
GraphRicciCurvature 0.6.1 (Ni et al., *Ricci curvature of the Internet topology*, INFOCOM 2015):

    μ_x(x) = α,   μ_x(v) = (1 − α) · w(x, v) / Σ_u w(x, u)  for v ∈ N(x),   w = exp(−ℓ^p),

with ℓ the edge length (weight) and ``p = exp_power``. Only the ``nbr_topk = 3000`` largest
neighbour weights are kept; a sum ``Σ w ≤ 1e-7`` falls back to the uniform measure; a node
without neighbours keeps all its mass (δ_x). ``d(x, y) < 1e-7`` gives κ = 0. The values equal
``OllivierRicci(G, alpha, method="OTD", exp_power=p).compute_ricci_curvature()`` (tested to
1e-6; it uses ``ot.emd2`` over an all-pairs shortest-path matrix).

How it is computed, without all-pairs distances and without a Python loop over edges:

1. *Shared mass stays put.* ``d`` is a metric, so an optimal plan moves ``min(μ_x, μ_y)`` nowhere
   at zero cost; only the rest is transported, between disjoint supports ``S`` and ``T``.
2. *Only the distances the supports need.* Both supports lie in ``N[x] ∪ N[y]``. With equal
   lengths ``c`` every needed distance is ``c`` times 1 (an edge), 2 (a common neighbour) or 3
   (the path through ``x`` and ``y``). The edges are grouped by their endpoint of larger
   degree (the hub, whose measure becomes the column side): per hub, each node next to its
   neighbourhood gets a bitset of its neighbours there, and each row-side node, once per hub,
   two bitsets (its columns at distance 1, and within 2: the OR of its neighbours'). With
   varying lengths each edge is turned so that its smaller support is the source side (the
   balls are the source's: a hub's ball is not scattered once per edge), and each source
   support node gets one Dijkstra ball holding just the nodes its edges need (counted
   first, then filled in one pass); the search is pruned at a radius that provably covers
   them (``d(a, b) ≤ min(h(a), H) + ℓ(x, y) + H``, ``h`` the longest incident length and
   ``H = max(h(x), h(y))``), lowered once all of them have been reached; it reads each
   node's edges shortest first and stops once they are all settled.
3. *Exact transport.* With hop costs, equal rows merge on their bitset words before any cost
   matrix exists, then equal columns on their codes over the merged rows (the row bitsets
   transposed 64 × 64 bits at a time); both through a hash table (masses added; exact). A
   least-cost greedy start (hop costs: level by level, the lines with the fewest cost-1
   cells first; other costs: cells in a bucket order) gives an upper bound and a
   spanning-tree basis; when it meets the lower bound
   ``max(Σ_a μ(a) min_b d(a, b), Σ_b ν(b) min_a d(a, b))`` the edge is settled, otherwise the
   transportation simplex finishes it: the basis tree is kept as parent pointers and child
   lists (a pivot re-hangs one subtree by reversing a parent chain and shifts only that
   subtree's MODI duals), block pricing by rows, Bland's rule after a run of degenerate
   pivots. One support of size 1 is settled in closed form. Edges (groups of edges on hop
   costs, dealt to the chunks by their estimated work; on other costs, runs of neighbouring
   groups) run in parallel (numba ``prange``); each is solved on its own, so the thread
   count does not change the values. The nodes are first renumbered in reverse
   Cuthill–McKee order, so that the work of neighbouring nodes, done in number order,
   shares what the caches hold.

Differences from GraphRicciCurvature: none in the values (up to floating-point rounding of an
exact LP optimum). Self-loops are ignored, as there; a self-loop column of ``edge_index`` gets
κ = 0. The graph is always undirected: a column ``(u, v)`` and its reverse are the same edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import reverse_cuthill_mckee

from rewirekit.errors import RewireError
from rewirekit.graph import sorted_contains
from rewirekit.linalg.threads import keeps_torch_threads
from rewirekit.validation import check_choice, check_fraction, check_int

__all__ = ["Measures", "edge_wasserstein", "neighbour_measures", "ollivier_ricci"]

NBR_TOPK = 3000
"""GraphRicciCurvature's ``nbr_topk``: the neighbours with the largest weights kept in μ_x."""
_RADIUS_MARGIN = 1e-9
"""Relative slack on the Dijkstra ball radii (see ``_balls``)."""
EPSILON = 1e-7
"""GraphRicciCurvature's ``EPSILON``: the uniform-fallback and zero-distance threshold."""
_MASS_TOL = 1e-14  # mass below this (relative to the measure's total) is not transported
_COLUMN_DONE, _ROW_DONE, _BASIS_DONE = 0, 1, 2  # what a greedy cell retires (``_take``)
_ALL_STAGES = 4  # shared mass, costs, greedy start, simplex: the kernels' ``stages``
_COST_TABLE = 1 << 18  # entries of a group's distance table (2 MiB) before it is cut


@dataclass(frozen=True)
class Measures:
    """Ragged probability measures, one per row, CSR style.

    Row ``r`` puts mass ``mass[ptr[r]:ptr[r + 1]]`` on nodes ``nodes[ptr[r]:ptr[r + 1]]``.

    Attributes:
        ptr: int64 offsets, length ``rows + 1``, ``ptr[0] == 0``, non-decreasing.
        nodes: int64 node ids, distinct within a row.
        mass: float64 non-negative masses.
    """

    ptr: np.ndarray
    nodes: np.ndarray
    mass: np.ndarray

    @property
    def rows(self) -> int:
        return int(self.ptr.size - 1)

    def totals(self) -> np.ndarray:
        """Total mass of each row."""
        return np.add.reduceat(np.r_[self.mass, 0.0], self.ptr[:-1]) * (np.diff(self.ptr) > 0)


@dataclass(frozen=True)
class _Graph:
    """An undirected simple graph in symmetric CSR form (neighbours sorted), with lengths."""

    num_nodes: int
    indptr: np.ndarray
    indices: np.ndarray
    lengths: np.ndarray
    unit: float  # the common length when all lengths are equal, else NaN

    @property
    def keys(self) -> np.ndarray:
        """Sorted scalar keys ``u * n + v`` of the directed CSR entries."""
        rows = np.repeat(np.arange(self.num_nodes, dtype=np.int64), np.diff(self.indptr))
        return rows * self.num_nodes + self.indices


@keeps_torch_threads
def ollivier_ricci(
    edge_index: Any,
    num_nodes: int,
    edge_weight: Any = None,
    alpha: float = 0.5,
    exp_power: float = 2.0,
    method: str = "exact",
    pairs: Any = None,
) -> np.ndarray:
    """Ollivier–Ricci curvature of every column of ``edge_index`` (or of the edges ``pairs``),
    exactly as GraphRicciCurvature 0.6.1 ``OllivierRicci(method="OTD")`` computes it (see the
    module docstring for the math).

    Args:
        edge_index: ``[2, E]`` integer array or tensor of an undirected graph; each edge may
            appear in one direction or both (then both columns get the same value).
        num_nodes: number of nodes ``n``; ids must lie in ``[0, n)``.
        edge_weight: optional ``[E]`` non-negative lengths ``ℓ`` (the networkx ``weight``);
            ``None`` means 1 everywhere. An edge given in both directions needs one length.
        alpha: mass ``α`` the measure keeps on its centre node, in ``[0, 1]``.
        exp_power: ``p`` in the neighbour weights ``exp(−ℓ^p)``, ``>= 0``.
        method: ``"exact"`` (optimal transport solved exactly; the only method).
        pairs: optional ``[2, K]`` integer array of edges of the graph: only their curvature
            is computed, in that order (each value as in the whole graph's; what changes
            after a few edits, say). ``None``: every column of ``edge_index``.

    Returns:
        float64 array of length ``E`` (``K`` with ``pairs``): κ of each column (0 on
        self-loops).

    Example:
        >>> import networkx as nx, numpy as np
        >>> g = nx.karate_club_graph()
        >>> ei = np.array(list(g.edges)).T
        >>> round(float(ollivier_ricci(ei, 34)[0]), 6)  # edge (0, 1)
        0.111111
    """
    check_choice("method", method, ("exact",))
    alpha = check_fraction("alpha", alpha)
    exp_power = _check_nonnegative("exp_power", exp_power)
    row, col, weight, n = _read_edges(edge_index, num_nodes, edge_weight)
    loop = row == col
    weight = None if weight is None else weight[~loop]
    graph, pair_of_column = _undirected_graph(row[~loop], col[~loop], weight, n)
    measures = _neighbour_measures(graph, alpha, exp_power)
    keys = graph.keys
    if pairs is not None:
        x, y = _read_pairs(pairs, n)
        if not sorted_contains(keys, x * n + y).all():
            raise RewireError("every pair must be an edge of the graph (edge_index), not a loop.")
        return _curvature(*_transport(graph, x, y, measures, x, measures, y))
    upper = keys // n < keys % n
    x, y = keys[upper] // n, keys[upper] % n
    curvature = _curvature(*_transport(graph, x, y, measures, x, measures, y))
    out = np.zeros(row.size)
    out[~loop] = curvature[pair_of_column]
    return out


def _curvature(w1: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """κ = 1 − W1 / d, and 0 where ``d < EPSILON`` (GraphRicciCurvature's rule)."""
    return np.where(dist < EPSILON, 0.0, 1.0 - w1 / np.where(dist < EPSILON, 1.0, dist))


def neighbour_measures(
    edge_index: Any,
    num_nodes: int,
    edge_weight: Any = None,
    alpha: float = 0.5,
    exp_power: float = 2.0,
) -> Measures:
    """The measures μ_x of :func:`ollivier_ricci`, one row per node (arguments as there):
    start from them to build modified measures for :func:`edge_wasserstein`."""
    alpha = check_fraction("alpha", alpha)
    exp_power = _check_nonnegative("exp_power", exp_power)
    row, col, weight, n = _read_edges(edge_index, num_nodes, edge_weight)
    loop = row == col
    weight = None if weight is None else weight[~loop]
    graph, _ = _undirected_graph(row[~loop], col[~loop], weight, n)
    return _neighbour_measures(graph, alpha, exp_power)


def _neighbour_measures(graph: _Graph, alpha: float, exp_power: float) -> Measures:
    """The lazy neighbour measure μ_x of every node (row ``x``), GraphRicciCurvature's: mass
    ``α`` on ``x`` (listed last) and ``(1 − α) w / Σ w`` on its ``NBR_TOPK`` heaviest
    neighbours, ``w = exp(−ℓ^exp_power)``; uniform if ``Σ w <= 1e-7``; ``δ_x`` if ``x`` has no
    neighbours."""
    n = graph.num_nodes
    degree = np.diff(graph.indptr)
    rows = np.repeat(np.arange(n, dtype=np.int64), degree)
    weight = np.exp(-(graph.lengths**exp_power))
    keep = np.ones(rows.size, dtype=bool)
    if degree.max(initial=0) > NBR_TOPK:
        # GraphRicciCurvature's heap keeps the largest (weight, node id) pairs.
        order = np.lexsort((graph.indices, weight, rows))[::-1]  # per node, heaviest first
        rank = np.empty(rows.size, dtype=np.int64)
        rank[order] = _rank_in_group(rows[order])
        keep = rank < NBR_TOPK
    rows, nbrs, weight = rows[keep], graph.indices[keep], weight[keep]
    kept = np.bincount(rows, minlength=n)
    total = np.bincount(rows, weights=weight, minlength=n)
    uniform = total[rows] <= EPSILON
    nbr_mass = np.where(
        uniform, (1.0 - alpha) / np.maximum(kept[rows], 1), (1.0 - alpha) * weight / total[rows]
    )
    self_mass = np.where(kept > 0, alpha, 1.0)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(kept + 1, out=ptr[1:])
    nodes = np.empty(ptr[-1], dtype=np.int64)
    mass = np.empty(ptr[-1])
    slot = np.arange(rows.size) + rows  # each row shifts by one per earlier self entry
    nodes[slot], mass[slot] = nbrs, nbr_mass
    nodes[ptr[1:] - 1], mass[ptr[1:] - 1] = np.arange(n), self_mass
    return Measures(ptr=ptr, nodes=nodes, mass=mass)


def _rank_in_group(groups: np.ndarray) -> np.ndarray:
    """Position of each entry within its run of equal values in ``groups`` (runs contiguous)."""
    start = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    sizes = np.diff(np.r_[start, groups.size])
    return np.arange(groups.size) - np.repeat(start, sizes)


@keeps_torch_threads
def edge_wasserstein(
    edge_index: Any,
    num_nodes: int,
    lengths: Any,
    pairs: Any,
    source: Measures,
    target: Measures,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact W1 between given measures on given edges, with the graph's shortest paths as cost.

    The building block of :func:`ollivier_ricci` for callers that build their own measures
    (ORC-ManL's faithful mode uses asymmetric ones). For query edge ``k`` with endpoints
    ``(x, y) = pairs[:, k]`` it returns ``W1(source_k, target_k)`` and ``d(x, y)``; the
    curvature is then ``1 − W1 / d``.

    Args:
        edge_index: ``[2, E]`` integer array of the undirected ground graph (one or both
            directions per edge).
        num_nodes: number of nodes ``n``.
        lengths: ``[E]`` non-negative edge lengths; shortest paths over them are the cost.
        pairs: ``[2, K]`` integer array of query edges; each must be an edge of the graph.
        source: :class:`Measures` with ``K`` rows, row ``k`` the measure of ``x_k``.
        target: :class:`Measures` with ``K`` rows, row ``k`` the measure of ``y_k``; row
            totals must equal those of ``source`` (to 1e-9).

    Every support node of row ``k`` must lie in ``N[x_k] ∪ N[y_k]`` (the closed
    neighbourhoods of the endpoints): that is what makes the local distances exact.

    Returns:
        ``(w1, dist)``: two float64 arrays of length ``K``.

    Example:
        >>> import numpy as np
        >>> path = np.array([[0, 1], [1, 2]])  # 0 - 1 - 2
        >>> delta = lambda v: Measures(np.array([0, 1]), np.array([v]), np.array([1.0]))
        >>> edge_wasserstein(path, 3, [1.0, 1.0], [[0], [1]], delta(0), delta(2))
        (array([2.]), array([1.]))
    """
    row, col, weight, n = _read_edges(edge_index, num_nodes, lengths)
    if weight is None:
        raise RewireError("edge_wasserstein needs lengths, one per column of edge_index.")
    loop = row == col
    graph, _ = _undirected_graph(row[~loop], col[~loop], weight[~loop], n)
    x, y = _read_pairs(pairs, n)
    for name, measures in (("source", source), ("target", target)):
        _check_measures(name, measures, x.size, n)
    if not np.allclose(source.totals(), target.totals(), rtol=0.0, atol=1e-9):
        raise RewireError("source and target measures must have equal total mass row by row.")
    keys = graph.keys
    if not sorted_contains(keys, x * n + y).all():
        raise RewireError("every query pair must be an edge of the graph (edge_index).")
    for name, measures in (("source", source), ("target", target)):
        owner = np.repeat(np.arange(x.size), np.diff(measures.ptr))
        a, ex, ey = measures.nodes, x[owner], y[owner]
        local = (a == ex) | (a == ey) | sorted_contains(keys, a * n + ex)
        local |= sorted_contains(keys, a * n + ey)
        if not local.all():
            raise RewireError(
                f"{name} measures must live on N[x] ∪ N[y] of their query edge (x, y); "
                f"{int((~local).sum())} support nodes lie farther away."
            )
    rows = np.arange(x.size, dtype=np.int64)
    return _transport(graph, x, y, source, rows, target, rows)


# --------------------------------------------------------------------------- input checks


def _check_nonnegative(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise RewireError(f"{name} must be a number >= 0, got {value!r}.")
    if not np.isfinite(value) or value < 0:
        raise RewireError(f"{name} must be a finite number >= 0, got {value!r}.")
    return float(value)


def _as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def _read_edges(
    edge_index: Any, num_nodes: Any, edge_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    n = check_int("num_nodes", num_nodes, 1)
    ei = _as_numpy(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise RewireError(
            f"edge_index must have shape [2, num_edges], got {ei.shape}; "
            "transpose an [E, 2] edge list."
        )
    if ei.size and not np.issubdtype(ei.dtype, np.integer):
        raise RewireError(f"edge_index must hold integers, got dtype {ei.dtype}.")
    ei = ei.astype(np.int64, copy=False)
    if ei.size and (ei.min() < 0 or ei.max() >= n):
        raise RewireError(
            f"edge_index holds node ids outside [0, {n - 1}] (min {ei.min()}, max {ei.max()}); "
            "fix the ids or pass the true num_nodes."
        )
    if edge_weight is None:
        return ei[0], ei[1], None, n
    w = _as_numpy(edge_weight).astype(np.float64)
    if w.shape != (ei.shape[1],):
        raise RewireError(
            f"edge weights must be 1-d with one value per edge ({ei.shape[1]}), got {w.shape}."
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise RewireError("edge weights (lengths) must be finite and >= 0.")
    return ei[0], ei[1], w, n


def _undirected_graph(
    row: np.ndarray, col: np.ndarray, weight: np.ndarray | None, n: int
) -> tuple[_Graph, np.ndarray]:
    """Symmetric CSR of the undirected graph of the columns ``(row, col)`` (no self-loops), and
    for each column the index of its pair among the sorted unique pairs ``u < v``."""
    lo, hi = np.minimum(row, col), np.maximum(row, col)
    keys = lo * n + hi
    unique, pair_of_column = np.unique(keys, return_inverse=True)
    if weight is None:
        length = np.ones(unique.size)
    else:
        length = np.full(unique.size, np.nan)
        length[pair_of_column] = weight
        if not np.array_equal(length[pair_of_column], weight):
            raise RewireError(
                "an edge appears more than once (or in both directions) with different "
                "weights; give each undirected edge one weight."
            )
    u, v = unique // n, unique % n
    src, dst = np.r_[u, v], np.r_[v, u]
    order = np.argsort(src * n + dst)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    lengths = np.r_[length, length][order]
    unit = float(lengths[0]) if lengths.size and np.all(lengths == lengths[0]) else np.nan
    graph = _Graph(n, indptr, dst[order].astype(np.int64), lengths, unit)
    return graph, pair_of_column


def _read_pairs(pairs: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    p = _as_numpy(pairs)
    if p.ndim != 2 or p.shape[0] != 2 or (p.size and not np.issubdtype(p.dtype, np.integer)):
        raise RewireError(f"pairs must be a [2, K] integer array, got shape {p.shape}.")
    p = p.astype(np.int64, copy=False)
    if p.size and (p.min() < 0 or p.max() >= n):
        raise RewireError(f"pairs hold node ids outside [0, {n - 1}].")
    return p[0], p[1]


def _check_measures(name: str, m: Measures, rows: int, n: int) -> None:
    ptr = np.asarray(m.ptr)
    if ptr.ndim != 1 or ptr.size != rows + 1 or ptr[0] != 0 or (np.diff(ptr) < 0).any():
        raise RewireError(
            f"{name}.ptr must be non-decreasing offsets of length {rows + 1} starting at 0."
        )
    if m.nodes.shape != (ptr[-1],) or m.mass.shape != (ptr[-1],):
        raise RewireError(f"{name}.nodes and {name}.mass need ptr[-1] = {ptr[-1]} entries each.")
    if m.nodes.size and (m.nodes.min() < 0 or m.nodes.max() >= n):
        raise RewireError(f"{name}.nodes hold node ids outside [0, {n - 1}].")
    if not np.isfinite(m.mass).all() or (m.mass < 0).any():
        raise RewireError(f"{name}.mass must be finite and >= 0.")
    owner = np.repeat(np.arange(rows, dtype=np.int64), np.diff(ptr))
    keys = np.sort(owner * n + m.nodes)
    if keys.size > 1 and (keys[1:] == keys[:-1]).any():
        raise RewireError(f"{name} measures list a node twice in one row; merge the masses.")


# --------------------------------------------------------------------------- transport


def _transport(
    graph: _Graph,
    x: np.ndarray,
    y: np.ndarray,
    source: Measures,
    source_row: np.ndarray,
    target: Measures,
    target_row: np.ndarray,
    stages: int = _ALL_STAGES,
) -> tuple[np.ndarray, np.ndarray]:
    """W1(source[source_row[k]], target[target_row[k]]) and d(x_k, y_k) for every k.

    ``stages`` below ``_ALL_STAGES`` cuts the work short, for ``benchmarks/orc_profile.py``:
    0 = the set-up only (the Dijkstra balls, or the grouping by hub), then 1 = shared mass
    removed, 2 = costs built, 3 = greedy start (W1 is its cost), 4 = simplex."""
    ptr_s, nodes_s, mass_s = _as_arrays(source)
    ptr_t, nodes_t, mass_t = _as_arrays(target)
    if x.size == 0:
        return np.zeros(0), np.zeros(0)
    graph, x, y, nodes_s, nodes_t = _in_local_order(graph, x, y, nodes_s, nodes_t)
    source_row = source_row.astype(np.int64)
    target_row = target_row.astype(np.int64)
    if np.isfinite(graph.unit):
        # Group the edges by their endpoint of larger degree ("hub"); that endpoint's measure
        # is the column side, so the hub's neighbourhood bitsets serve all its edges.
        degree = np.diff(graph.indptr)
        swap = degree[x] > degree[y]
        hub = np.where(swap, x, y)
        order = np.argsort(hub, kind="stable")
        group_ptr = np.r_[0, np.flatnonzero(np.diff(hub[order])) + 1, x.size]
        chunks = min(group_ptr.size - 1, 8 * numba.get_num_threads())
        # A group's work grows with its edges' support sizes, deg(x) deg(y) summed.
        work = np.add.reduceat(((degree[x] + 1) * (degree[y] + 1))[order], group_ptr[:-1])
        chunk_ptr, chunk_groups = _balanced_chunks(work.astype(np.float64), chunks)
        if stages == 0:
            return np.zeros(x.size), np.full(x.size, graph.unit)
        w1 = _hop_kernel(
            graph.num_nodes, graph.indptr, graph.indices, graph.unit, group_ptr, order, swap,
            ptr_s, nodes_s, mass_s, source_row, ptr_t, nodes_t, mass_t, target_row,
            chunk_ptr, chunk_groups, stages,
        )  # fmt: skip
        return w1, np.full(x.size, graph.unit)
    x, y, source_row, target_row, ptr_s, nodes_s, mass_s, ptr_t, nodes_t, mass_t = (
        _smaller_support_first(
            x, y, source_row, target_row, ptr_s, nodes_s, mass_s, ptr_t, nodes_t, mass_t
        )
    )
    ball_ptr, ball_nodes, ball_dist, ball_of = _balls(
        graph, x, y, ptr_s, nodes_s, source_row, ptr_t, nodes_t, target_row
    )
    if stages == 0:
        return np.zeros(x.size), np.zeros(x.size)
    # Group the queries by source row, the groups in the order of their source ends (near
    # ones share balls), and cut them into runs of about equal work, which grows with the
    # cost matrices' sizes.
    order = np.lexsort((source_row, x))
    group_ptr = np.r_[0, np.flatnonzero(np.diff(source_row[order])) + 1, x.size]
    size_s, size_t = np.diff(ptr_s)[source_row], np.diff(ptr_t)[target_row]
    work = np.add.reduceat((size_s * size_t)[order], group_ptr[:-1]).astype(np.float64)
    chunks = min(group_ptr.size - 1, 8 * numba.get_num_threads())
    chunk_ptr = _contiguous_chunks(work, chunks)
    chunk_groups = np.arange(work.size)
    return _transport_kernel(
        graph.num_nodes, x, y, ptr_s, nodes_s, mass_s, source_row, ptr_t, nodes_t, mass_t,
        target_row, ball_ptr, ball_nodes, ball_dist, ball_of, group_ptr, order, chunk_ptr,
        chunk_groups, stages,
    )  # fmt: skip


def _as_arrays(measures: Measures) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ptr, nodes, mass)`` as int64, int64 and float64, without copies where they already
    are (a source and target that are one object stay one)."""
    return (
        measures.ptr.astype(np.int64, copy=False),
        measures.nodes.astype(np.int64, copy=False),
        measures.mass.astype(np.float64, copy=False),
    )


def _in_local_order(
    graph: _Graph, x: np.ndarray, y: np.ndarray, nodes_s: np.ndarray, nodes_t: np.ndarray
) -> tuple[_Graph, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The graph, the query ends and the support nodes with the nodes renumbered in reverse
    Cuthill–McKee order (scipy): nodes close in the graph get close numbers, so the searches
    and tables of neighbouring nodes, which the kernels visit in number order, share what
    the caches hold (docs/orc_vs_graphricci.txt: the circles kNN graph comes numbered at
    random). The values do not depend on the numbering, up to rounding."""
    n = graph.num_nodes
    structure = sparse.csr_matrix(
        (np.ones(graph.indices.size, dtype=np.int8), graph.indices, graph.indptr), shape=(n, n)
    )
    order = reverse_cuthill_mckee(structure, symmetric_mode=True).astype(np.int64)
    label = np.empty(n, dtype=np.int64)
    label[order] = np.arange(n)
    indptr, indices, lengths = _permuted_csr(
        graph.indptr, graph.indices, graph.lengths, order, label
    )
    same = nodes_t is nodes_s
    nodes_s = label[nodes_s]
    nodes_t = nodes_s if same else label[nodes_t]
    relabelled = _Graph(n, indptr, indices, lengths, graph.unit)
    return relabelled, label[x], label[y], nodes_s, nodes_t


@numba.njit(parallel=True, cache=True)
def _permuted_csr(indptr, indices, lengths, order, label):
    """The CSR graph with node ``order[r]`` renamed ``r`` (``label`` the inverse of
    ``order``), neighbours sorted by their new names."""
    n = order.size
    new_ptr = np.zeros(n + 1, dtype=np.int64)
    for r in range(n):
        new_ptr[r + 1] = new_ptr[r] + indptr[order[r] + 1] - indptr[order[r]]
    new_indices = np.empty(indices.size, dtype=np.int64)
    new_lengths = np.empty(lengths.size)
    for r in numba.prange(n):
        start, stop = indptr[order[r]], indptr[order[r] + 1]
        names = np.empty(stop - start, dtype=np.int64)
        for e in range(start, stop):
            names[e - start] = label[indices[e]]
        sort = _argsort_short(names)
        for e in range(sort.size):
            new_indices[new_ptr[r] + e] = names[sort[e]]
            new_lengths[new_ptr[r] + e] = lengths[start + sort[e]]
    return new_ptr, new_indices, new_lengths


def _smaller_support_first(
    x: np.ndarray,
    y: np.ndarray,
    source_row: np.ndarray,
    target_row: np.ndarray,
    *measures: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """The queries turned so that each has its smaller support on the source side; W1 and
    ``d`` are symmetric, so the values do not change. On a weighted graph a source node's
    Dijkstra ball is scattered once per query and its targets read from it, so a hub (a
    node with hundreds of neighbours, as in the kNN graph of high-dimensional features)
    belongs on the target side. ``measures`` are the source's and then the target's
    ``(ptr, nodes, mass)``; the turned queries read one table holding both."""
    ptr_s, nodes_s, mass_s, ptr_t, nodes_t, mass_t = measures
    swap = np.diff(ptr_s)[source_row] > np.diff(ptr_t)[target_row]
    if not swap.any():
        return (x, y, source_row, target_row, *measures)
    if ptr_s is ptr_t and nodes_s is nodes_t and mass_s is mass_t:
        ptr, nodes, mass, shift = ptr_s, nodes_s, mass_s, 0
    else:
        ptr = np.r_[ptr_s, ptr_t[1:] + ptr_s[-1]]
        nodes, mass, shift = np.r_[nodes_s, nodes_t], np.r_[mass_s, mass_t], ptr_s.size - 1
    rows_s, rows_t = source_row, target_row + shift
    return (
        np.where(swap, y, x), np.where(swap, x, y),
        np.where(swap, rows_t, rows_s), np.where(swap, rows_s, rows_t),
        ptr, nodes, mass, ptr, nodes, mass,
    )  # fmt: skip


@numba.njit(cache=True)
def _balanced_chunks(work, chunks):
    """The groups dealt to ``chunks`` chunks by the longest-processing-time rule (heaviest
    group first, each to the chunk with the least work so far), so that no chunk's work
    exceeds another's by more than one group's: chunk ``c`` takes
    ``groups[ptr[c]:ptr[c + 1]]``. A static schedule gives each thread a run of chunks; with
    the chunks level, the threads are too (the groups of one hub are far from level)."""
    load = np.zeros(chunks)
    chunk_of = np.empty(work.size, dtype=np.int64)
    for g in np.argsort(-work, kind="mergesort"):
        c = np.argmin(load)
        chunk_of[g] = c
        load[c] += work[g]
    ptr = np.zeros(chunks + 1, dtype=np.int64)
    for g in range(work.size):
        ptr[chunk_of[g] + 1] += 1
    for c in range(chunks):
        ptr[c + 1] += ptr[c]
    return ptr, np.argsort(chunk_of, kind="mergesort")


@numba.njit(cache=True)
def _contiguous_chunks(work, chunks):
    """Cut the items, in their order, into ``chunks`` runs of about equal total ``work``: run
    ``c`` is ``ptr[c]:ptr[c + 1]``, and no run exceeds the mean by more than one item's
    work. Runs keep neighbours together (see ``_in_local_order``); a static schedule gives
    each thread a block of runs."""
    cumulative = np.cumsum(work)
    total = cumulative[-1] if work.size else 0.0
    ptr = np.empty(chunks + 1, dtype=np.int64)
    ptr[0] = 0
    for c in range(1, chunks):
        ptr[c] = np.searchsorted(cumulative, total * c / chunks)
    ptr[chunks] = work.size
    return ptr


def _balls(
    graph: _Graph,
    x: np.ndarray,
    y: np.ndarray,
    ptr_s: np.ndarray,
    nodes_s: np.ndarray,
    source_row: np.ndarray,
    ptr_t: np.ndarray,
    nodes_t: np.ndarray,
    target_row: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Dijkstra balls of the nodes that need distances: every source support node and every
    ``x``. The radius of node ``a`` covers all its targets ``b`` on query edges ``(x, y)``:
    ``d(a, b) <= min(h(a), H) + ℓ(x, y) + H`` with ``h`` the longest incident length and
    ``H = max(h(x), h(y))``, because ``a`` and ``b`` lie within one edge of an endpoint. The
    searches read each node's edges shortest first (``_by_length``)."""
    n = graph.num_nodes
    rows = np.repeat(np.arange(n), np.diff(graph.indptr))
    reach = np.zeros(n)
    np.maximum.at(reach, rows, graph.lengths)
    edge_length = _edge_lengths(graph, x, y)
    radius, node_ptr, queries = _centre_queries(
        n, reach, x, y, edge_length, ptr_s, nodes_s, source_row
    )
    centres = np.flatnonzero(radius >= 0)  # exactly the nodes that serve a query
    # Dijkstra sums a path's lengths in path order, the bound above in another order: one ulp
    # can put a needed node outside the ball (an infinite cost). A relative margin keeps it in.
    radius[centres] *= 1.0 + _RADIUS_MARGIN
    ball_of = np.full(n, -1, dtype=np.int64)
    ball_of[centres] = np.arange(centres.size)
    query_ptr = np.r_[node_ptr[centres], node_ptr[-1]]
    chunks = min(centres.size, 8 * numba.get_num_threads())
    shortest_first = _by_length(graph.indptr, graph.lengths)
    ptr, nodes, dist = _dijkstra_balls(
        graph.indptr, graph.indices[shortest_first], graph.lengths[shortest_first], centres,
        radius[centres],
        query_ptr, queries, y, ptr_t, nodes_t, target_row, chunks,
    )  # fmt: skip
    return ptr, nodes, dist, ball_of


@numba.njit(cache=True)
def _centre_queries(n, reach, x, y, edge_length, ptr_s, nodes_s, row_s):
    """Each node's ball radius (-1 where it serves no query) and the queries it serves, CSR
    by node (``queries[ptr[a]:ptr[a + 1]]``, in query order): those with it in the source
    support, then those with it as ``x``. The radius of ``a`` is the largest over its queries
    of ``min(h(a), H) + ℓ(x, y) + H`` with ``H = max(h(x), h(y))``, or ``ℓ(x, y)`` for
    ``x``'s own."""
    radius = np.full(n, -1.0)
    ptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(x.size):
        far = max(reach[x[k]], reach[y[k]])
        for e in range(ptr_s[row_s[k]], ptr_s[row_s[k] + 1]):
            a = nodes_s[e]
            radius[a] = max(radius[a], min(reach[a], far) + edge_length[k] + far)
            ptr[a + 1] += 1
        radius[x[k]] = max(radius[x[k]], edge_length[k])
        ptr[x[k] + 1] += 1
    for a in range(n):
        ptr[a + 1] += ptr[a]
    cursor = ptr[:-1].copy()
    queries = np.empty(ptr[-1], dtype=np.int64)
    for k in range(x.size):
        for e in range(ptr_s[row_s[k]], ptr_s[row_s[k] + 1]):
            queries[cursor[nodes_s[e]]] = k
            cursor[nodes_s[e]] += 1
    for k in range(x.size):
        queries[cursor[x[k]]] = k
        cursor[x[k]] += 1
    return radius, ptr, queries


@numba.njit(parallel=True, cache=True)
def _by_length(indptr, lengths):
    """The CSR entries reordered so that each node's edges come shortest first (a
    permutation of ``[0, E)``): a search then stops reading a node's edges at the first one
    that leaves its ball."""
    order = np.empty(lengths.size, dtype=np.int64)
    for v in numba.prange(indptr.size - 1):
        start = indptr[v]
        order[start : indptr[v + 1]] = start + _argsort_short(lengths[start : indptr[v + 1]])
    return order


@numba.njit(cache=True)
def _argsort_short(values):
    """``np.argsort(values)``, by insertion for the short rows of a sparse graph (cheaper there
    than a general sort, which the long ones keep)."""
    if values.size > 32:
        return np.argsort(values)
    order = np.empty(values.size, dtype=np.int64)
    for i in range(values.size):
        j = i
        while j > 0 and values[order[j - 1]] > values[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    return order


def _edge_lengths(graph: _Graph, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Length of the edge ``(x_k, y_k)`` (each must be an edge)."""
    pos = np.searchsorted(graph.keys, x * graph.num_nodes + y)
    return graph.lengths[pos]


@numba.njit(cache=True)
def _dijkstra_one(
    indptr, indices, lengths, source, radius, wanted, want, stamp, dist, slot, heap_d, heap_v,
    touched, out_v, out_d,
):  # fmt: skip
    """Distances from ``source`` to the ``wanted`` nodes ``v`` with ``want[v] == stamp``, by
    Dijkstra pruned at ``radius`` and stopped once all are settled; they go to
    ``out_v``/``out_d`` in settle order (returns their count). Each node's edges must come
    shortest first: the first one past the limit ends its scan. Once every wanted node has
    been reached, the limit drops to the largest of the distances they were first reached
    at: a node farther out cannot shorten the path to any of them (lengths are
    non-negative, and a sum of them never falls as terms are added). The heap holds each
    reached node once (``slot[v]``: its place; a shorter path moves it up), so no stale
    entry is ever popped. ``dist`` is scratch of +inf, restored on exit; ``slot`` is scratch,
    read only for nodes in the heap."""
    found = 0
    reached = 1
    touched[0] = source
    dist[source] = 0.0
    heap_d[0] = 0.0
    heap_v[0] = source
    slot[source] = 0
    size = 1
    limit = radius
    unreached = wanted - (want[source] == stamp)  # wanted nodes not in the heap yet
    first_far = 0.0  # the largest distance a wanted node was first reached at
    while size > 0 and found < wanted:
        d = heap_d[0]
        v = heap_v[0]
        size -= 1
        if size > 0:  # sift the last entry down from the root
            ld, lv = heap_d[size], heap_v[size]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= size:
                    break
                if c + 1 < size and heap_d[c + 1] < heap_d[c]:
                    c += 1
                if heap_d[c] >= ld:
                    break
                heap_d[i], heap_v[i] = heap_d[c], heap_v[c]
                slot[heap_v[i]] = i
                i = c
            heap_d[i], heap_v[i] = ld, lv
            slot[lv] = i
        if want[v] == stamp:
            out_v[found] = v
            out_d[found] = d
            found += 1
            if found == wanted:
                break
        dist[v] = -1.0 - d  # settled
        for k in range(indptr[v], indptr[v + 1]):
            nd = d + lengths[k]
            if nd > limit:
                break
            u = indices[k]
            if dist[u] >= 0 and nd < dist[u]:
                if dist[u] == np.inf:
                    touched[reached] = u
                    reached += 1
                    i = size
                    size += 1
                    if want[u] == stamp:
                        first_far = max(first_far, nd)
                        unreached -= 1
                        if unreached == 0:
                            limit = min(limit, first_far)
                else:
                    i = slot[u]
                dist[u] = nd
                while i > 0:  # sift up
                    p = (i - 1) // 2
                    if heap_d[p] <= nd:
                        break
                    heap_d[i], heap_v[i] = heap_d[p], heap_v[p]
                    slot[heap_v[i]] = i
                    i = p
                heap_d[i], heap_v[i] = nd, u
                slot[u] = i
    for k in range(reached):
        dist[touched[k]] = np.inf
    return found


@numba.njit(parallel=True, cache=True)
def _dijkstra_balls(
    indptr, indices, lengths, centres, radii, query_ptr, queries, y, ptr_t, nodes_t, row_t,
    chunks,
):  # fmt: skip
    """The balls of ``centres``: CSR ``(ptr, nodes, dist)``, each ball holding just the nodes
    its queries (``queries[query_ptr[i]:query_ptr[i + 1]]``) need, the target support and
    ``y`` of each, sorted by id; one Dijkstra per centre, pruned at its radius and stopped
    once they are all settled. The needs are counted first, so the balls are filled in one
    pass. Each chunk takes a run of consecutive centres (neighbours, in the local order of
    ``_in_local_order``), of about equal needs."""
    n = indptr.size - 1
    m = centres.size
    rows_t = ptr_t.size - 1
    counts = np.zeros(m, dtype=np.int64)
    run = _contiguous_chunks(np.diff(query_ptr).astype(np.float64), chunks)
    for c in numba.prange(chunks):
        want = np.full(n, -1, dtype=np.int64)
        seen = np.full(rows_t, -1, dtype=np.int64)
        for i in range(run[c], run[c + 1]):
            counts[i] = _mark_needs(i, query_ptr, queries, y, ptr_t, nodes_t, row_t, want, seen)
    ptr = np.zeros(m + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(counts)
    nodes = np.empty(ptr[-1], dtype=np.int64)
    dist_out = np.empty(ptr[-1])
    run = _contiguous_chunks(counts.astype(np.float64), chunks)
    for c in numba.prange(chunks):
        want = np.full(n, -1, dtype=np.int64)
        seen = np.full(rows_t, -1, dtype=np.int64)
        dist = np.full(n, np.inf)
        slot = np.empty(n, dtype=np.int64)
        heap_d = np.empty(n)
        heap_v = np.empty(n, dtype=np.int64)
        touched = np.empty(n, dtype=np.int64)
        out_v = np.empty(n, dtype=np.int64)
        out_d = np.empty(n)
        for i in range(run[c], run[c + 1]):
            _mark_needs(i, query_ptr, queries, y, ptr_t, nodes_t, row_t, want, seen)
            k = _dijkstra_one(
                indptr, indices, lengths, centres[i], radii[i], counts[i], want, i, dist,
                slot, heap_d, heap_v, touched, out_v, out_d,
            )  # fmt: skip
            order = np.argsort(out_v[:k])
            start = ptr[i]
            for j in range(k):
                nodes[start + j] = out_v[order[j]]
                dist_out[start + j] = out_d[order[j]]
            for j in range(k, counts[i]):  # a need out of reach (never, by the radii)
                nodes[start + j] = n
                dist_out[start + j] = np.inf
    return ptr, nodes, dist_out


@numba.njit(cache=True)
def _mark_needs(i, query_ptr, queries, y, ptr_t, nodes_t, row_t, want, seen):
    """Stamp ``want[v] = i`` on the nodes ball ``i`` needs; returns how many there are.
    ``seen[r] = i`` marks the target rows already read: on a kNN graph a target support
    comes back in the queries of several of the centre's neighbours."""
    count = 0
    for e in range(query_ptr[i], query_ptr[i + 1]):
        k = queries[e]
        if want[y[k]] != i:
            want[y[k]] = i
            count += 1
        if seen[row_t[k]] == i:
            continue
        seen[row_t[k]] = i
        for t in range(ptr_t[row_t[k]], ptr_t[row_t[k] + 1]):
            if want[nodes_t[t]] != i:
                want[nodes_t[t]] = i
                count += 1
    return count


@numba.njit(cache=True)
def _ball_distance(ball_ptr, ball_nodes, ball_dist, ball, target):
    lo, hi = ball_ptr[ball], ball_ptr[ball + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if ball_nodes[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    if lo < ball_ptr[ball + 1] and ball_nodes[lo] == target:
        return ball_dist[lo]
    return np.inf


@numba.njit(parallel=True, cache=True)
def _transport_kernel(
    n, x, y, ptr_s, nodes_s, mass_s, row_s, ptr_t, nodes_t, mass_t, row_t,
    ball_ptr, ball_nodes, ball_dist, ball_of, group_ptr, order, chunk_ptr, chunk_groups,
    stages,
):  # fmt: skip
    """W1 and d(x, y) per query edge on a weighted graph, costs read from the Dijkstra balls.

    The queries come in groups sharing a source row (``order[group_ptr[g]:group_ptr[g +
    1]]``); chunk ``c`` takes the groups ``chunk_groups[chunk_ptr[c]:chunk_ptr[c + 1]]``
    (``_balanced_chunks``). Per group, the distances from every node of the source support
    to the union ``U`` of the target supports go into one table, each source node's ball
    walked once; each query's cost matrix is then read from it (rows and columns of its
    reduced supports). A group whose table would exceed ``_COST_TABLE`` entries is cut into
    batches of queries. ``stages`` < ``_ALL_STAGES`` stops each edge after that many stages
    (for profiling)."""
    w1 = np.zeros(x.size)
    dxy = np.zeros(x.size)
    for c in numba.prange(chunk_ptr.size - 1):
        mark = np.full(n, -1, dtype=np.int64)  # _reduced's scratch
        row_of = np.full(n, -1, dtype=np.int64)  # source support node -> its row of the table
        col_of = np.full(n + 1, -1, dtype=np.int64)  # node of U -> its column (n: out of reach)
        for g in chunk_groups[chunk_ptr[c] : chunk_ptr[c + 1]]:
            rs = row_s[order[group_ptr[g]]]
            support = nodes_s[ptr_s[rs] : ptr_s[rs + 1]]
            for i in range(support.size):
                row_of[support[i]] = i
            first, last = group_ptr[g], group_ptr[g + 1]
            while first < last:
                stop, universe = _batch_universe(
                    order, first, last, row_t, ptr_t, nodes_t, support.size, col_of
                )
                table = np.full((support.size, universe.size), np.inf)
                if stages >= 2:
                    for i in range(support.size):
                        b = ball_of[support[i]]
                        for e in range(ball_ptr[b], ball_ptr[b + 1]):
                            j = col_of[ball_nodes[e]]
                            if j >= 0:
                                table[i, j] = ball_dist[e]
                for k in order[first:stop]:
                    rt = row_t[k]
                    s_nodes, s_mass = _reduced(
                        support, mass_s[ptr_s[rs] : ptr_s[rs + 1]],
                        nodes_t[ptr_t[rt] : ptr_t[rt + 1]], mass_t[ptr_t[rt] : ptr_t[rt + 1]],
                        mark,
                    )  # fmt: skip
                    t_nodes, t_mass = _reduced(
                        nodes_t[ptr_t[rt] : ptr_t[rt + 1]], mass_t[ptr_t[rt] : ptr_t[rt + 1]],
                        support, mass_s[ptr_s[rs] : ptr_s[rs + 1]], mark,
                    )  # fmt: skip
                    dxy[k] = _ball_distance(ball_ptr, ball_nodes, ball_dist, ball_of[x[k]], y[k])
                    if stages < 2:
                        continue
                    cols = np.empty(t_nodes.size, dtype=np.int64)
                    for j in range(t_nodes.size):
                        cols[j] = col_of[t_nodes[j]]
                    cost = np.empty((s_nodes.size, t_nodes.size))
                    for i in range(s_nodes.size):
                        r = row_of[s_nodes[i]]
                        for j in range(t_nodes.size):
                            cost[i, j] = table[r, cols[j]]
                    if stages >= 3:
                        w1[k] = _emd(s_mass, t_mass, cost, stages >= 4)
                for v in universe:
                    col_of[v] = -1
                first = stop
            for i in range(support.size):
                row_of[support[i]] = -1
    return w1, dxy


@numba.njit(cache=True)
def _batch_universe(order, first, last, row_t, ptr_t, nodes_t, rows, col_of):
    """The queries ``order[first:stop]`` of one group whose target supports together keep a
    ``rows × |U|`` table within ``_COST_TABLE`` entries (at least one query), and ``U``, their
    union; ``col_of`` numbers the nodes of ``U`` (the caller resets it)."""
    size = 0
    for p in range(first, last):
        rt = row_t[order[p]]
        size += ptr_t[rt + 1] - ptr_t[rt]
    universe = np.empty(size, dtype=np.int64)
    size = 0
    stop = first
    while stop < last:
        rt = row_t[order[stop]]
        fresh = 0
        for v in nodes_t[ptr_t[rt] : ptr_t[rt + 1]]:
            fresh += col_of[v] < 0
        if stop > first and rows * (size + fresh) > _COST_TABLE:
            break
        for v in nodes_t[ptr_t[rt] : ptr_t[rt + 1]]:
            if col_of[v] < 0:
                col_of[v] = size
                universe[size] = v
                size += 1
        stop += 1
    return stop, universe[:size]


@numba.njit(parallel=True, cache=True)
def _hop_kernel(
    n, indptr, indices, unit, group_ptr, order, swap,
    ptr_s, nodes_s, mass_s, row_s, ptr_t, nodes_t, mass_t, row_t, chunk_ptr, chunk_groups,
    stages,
):  # fmt: skip
    """W1 per query edge when every length is ``unit`` (hop distances 1, 2, 3 times ``unit``).

    The queries come in groups sharing an endpoint, the hub (``order[group_ptr[g]:
    group_ptr[g + 1]]``); a query's measure at the hub (the source measure where ``swap``,
    else the target) is its column side. Per group: the universe ``U`` is the union of the
    column supports; each node ``z`` next to ``U`` gets a bitset of its neighbours in ``U``;
    each row-side node ``a`` gets, once per group, two bitsets over ``U`` (distance 1:
    ``z = a``'s own bitset; distance <= 2: the union over its neighbours). An edge's rows are
    these masked to its column support; equal rows merge on the words (``_distinct_rows``)
    before the small ``rows × columns`` matrix is built, whose equal columns merge next
    (masses added; exact: a plan of the merged problem splits in proportion). A cost is 1
    (an edge), 2 (a common neighbour) or 3 (the path through the query edge, as both
    supports lie in ``N[x] ∪ N[y]``). Chunk ``c`` takes the groups
    ``chunk_groups[chunk_ptr[c]:chunk_ptr[c + 1]]`` (``_balanced_chunks``). ``stages`` as in
    ``_transport_kernel``."""
    w1 = np.zeros(row_s.size)
    for c in numba.prange(chunk_ptr.size - 1):
        mark = np.full(n, -1, dtype=np.int64)  # _reduced's scratch
        position = np.full(n, -1, dtype=np.int64)  # node -> its bit in U
        slot = np.full(n, -1, dtype=np.int64)  # node next to U -> its row of ``bits``
        cached = np.full(n, -1, dtype=np.int64)  # row-side node -> its row of ``sig``
        for g in chunk_groups[chunk_ptr[c] : chunk_ptr[c + 1]]:
            members = order[group_ptr[g] : group_ptr[g + 1]]
            col_size = 0
            row_size = 0
            for k in members:
                rs, rt = row_s[k], row_t[k]
                col_size += ptr_s[rs + 1] - ptr_s[rs] if swap[k] else ptr_t[rt + 1] - ptr_t[rt]
                row_size += ptr_t[rt + 1] - ptr_t[rt] if swap[k] else ptr_s[rs + 1] - ptr_s[rs]
            universe = np.empty(col_size, dtype=np.int64)
            size = 0
            for k in members:
                if swap[k]:
                    col_nodes = nodes_s[ptr_s[row_s[k]] : ptr_s[row_s[k] + 1]]
                else:
                    col_nodes = nodes_t[ptr_t[row_t[k]] : ptr_t[row_t[k] + 1]]
                for v in col_nodes:
                    if position[v] < 0:
                        position[v] = size
                        universe[size] = v
                        size += 1
            words = (size + 63) // 64
            touched = 0
            for j in range(size):
                touched += indptr[universe[j] + 1] - indptr[universe[j]]
            near = np.empty(touched, dtype=np.int64)
            count = 0
            for j in range(size):
                for e in range(indptr[universe[j]], indptr[universe[j] + 1]):
                    z = indices[e]
                    if slot[z] < 0:
                        slot[z] = count
                        near[count] = z
                        count += 1
            bits = np.zeros((count, words), dtype=np.uint64)
            for j in range(size):
                bit = np.uint64(1) << np.uint64(j & 63)
                for e in range(indptr[universe[j]], indptr[universe[j] + 1]):
                    bits[slot[indices[e]], j >> 6] |= bit
            sig = np.zeros((row_size, 2 * words), dtype=np.uint64)  # [distance 1 | <= 2]
            sig_nodes = np.empty(row_size, dtype=np.int64)
            signed = 0
            mask = np.empty(words, dtype=np.uint64)
            for k in members:
                rs, rt = row_s[k], row_t[k]
                a_nodes, a_mass = (
                    nodes_s[ptr_s[rs] : ptr_s[rs + 1]],
                    mass_s[ptr_s[rs] : ptr_s[rs + 1]],
                )
                b_nodes, b_mass = (
                    nodes_t[ptr_t[rt] : ptr_t[rt + 1]],
                    mass_t[ptr_t[rt] : ptr_t[rt + 1]],
                )
                if swap[k]:
                    a_nodes, a_mass, b_nodes, b_mass = b_nodes, b_mass, a_nodes, a_mass
                s_nodes, s_mass = _reduced(a_nodes, a_mass, b_nodes, b_mass, mark)
                t_nodes, t_mass = _reduced(b_nodes, b_mass, a_nodes, a_mass, mark)
                if stages < 2:
                    continue
                ns = s_nodes.size
                mask[:] = 0
                for v in t_nodes:
                    mask[position[v] >> 6] |= np.uint64(1) << np.uint64(position[v] & 63)
                rows = np.empty((ns, 2 * words), dtype=np.uint64)
                for i in range(ns):
                    a = s_nodes[i]
                    if cached[a] < 0:
                        cached[a] = signed
                        sig_nodes[signed] = a
                        if slot[a] >= 0:
                            sig[signed, :words] = bits[slot[a]]
                        for e in range(indptr[a], indptr[a + 1]):
                            z = slot[indices[e]]
                            if z >= 0:
                                for w in range(words):
                                    sig[signed, words + w] |= bits[z, w]
                        for w in range(words):
                            sig[signed, words + w] |= sig[signed, w]
                        signed += 1
                    r = cached[a]
                    for w in range(words):
                        rows[i, w] = sig[r, w] & mask[w]
                        rows[i, words + w] = sig[r, words + w] & mask[w]
                keep, p = _distinct_rows(rows, s_mass)
                code = _column_codes(rows[keep], words, position[t_nodes])
                cols, q = _distinct_rows(code, t_mass)
                cost = _hop_costs(code[cols], keep.size, unit)
                if stages >= 3:
                    w1[k] = _emd(p, q, cost, stages >= 4, 3)
            for i in range(signed):
                cached[sig_nodes[i]] = -1
            for j in range(size):
                position[universe[j]] = -1
            for i in range(count):
                slot[near[i]] = -1
    return w1


@numba.njit(cache=True)
def _column_codes(rows, words, bit_of):
    """The transpose of the merged rows as bitsets over rows: column ``j`` (bit ``bit_of[j]`` of
    a row's ``words``-word halves, [distance 1 | distance <= 2]) gets two bitsets of
    ``(rows + 63) // 64`` words, the rows at distance 1 from it and those within 2. Equal
    columns have equal codes, so they merge on a few words instead of one byte per row. Built
    by 64 × 64 bit-block transposes (``_transpose64``), not bit by bit."""
    m = rows.shape[0]
    half = (m + 63) // 64
    table = np.zeros((2 * half, 64 * words), dtype=np.uint64)  # [side, row block] x bit
    block = np.zeros(64, dtype=np.uint64)
    for side in range(2):
        for h in range(half):
            r0 = 64 * h
            rn = min(64, m - r0)
            for w in range(words):
                block[:rn] = rows[r0 : r0 + rn, side * words + w]
                block[rn:] = 0
                _transpose64(block)
                table[side * half + h, 64 * w : 64 * w + 64] = block
    code = np.empty((bit_of.size, 2 * half), dtype=np.uint64)
    for j in range(bit_of.size):
        for t in range(2 * half):
            code[j, t] = table[t, bit_of[j]]
    return code


_TRANSPOSE_MASKS = np.array(
    [0x00000000FFFFFFFF, 0x0000FFFF0000FFFF, 0x00FF00FF00FF00FF, 0x0F0F0F0F0F0F0F0F,
     0x3333333333333333, 0x5555555555555555],
    dtype=np.uint64,
)  # fmt: skip
"""For block size ``32 >> s``: the bits whose index has bit ``32 >> s`` clear."""


@numba.njit(cache=True)
def _transpose64(a):
    """Transpose a 64 × 64 bit matrix in place (bit ``c`` of ``a[r]`` goes to bit ``r`` of
    ``a[c]``): six rounds, each swapping the off-diagonal ``j × j`` blocks of every
    ``2j × 2j`` block (``j`` = 32, 16, …, 1) with shifts and masks, 192 word swaps in all
    (Hacker's Delight, 7-3, with the least significant bit as column 0)."""
    j = 32
    for s in range(6):
        mask = _TRANSPOSE_MASKS[s]
        shift = np.uint64(j)
        for k in range(64):
            if k & j == 0:
                t = ((a[k] >> shift) ^ a[k + j]) & mask
                a[k + j] ^= t
                a[k] ^= t << shift
        j >>= 1


@numba.njit(cache=True)
def _hop_costs(code, m, unit):
    """The ``m × columns`` cost matrix of columns given by ``_column_codes``: ``unit`` times 1
    (distance-1 bit set), 2 (only the within-2 bit) or 3 (neither)."""
    half = code.shape[1] // 2
    cost = np.empty((m, code.shape[0]))
    for r in range(m):
        w = r >> 6
        b = np.uint64(r & 63)
        for t in range(code.shape[0]):
            near = (code[t, w] >> b) & np.uint64(1)
            within = (code[t, half + w] >> b) & np.uint64(1)
            cost[r, t] = (3.0 - float(near) - float(within)) * unit
    return cost


@numba.njit(cache=True)
def _reduced(nodes, mass, other_nodes, other_mass, mark):
    """``mass − min(mass, other)`` on ``nodes``, keeping entries above the tolerance.
    ``mark`` is scratch of -1 (restored)."""
    total = mass.sum()
    for j in range(other_nodes.size):
        mark[other_nodes[j]] = j
    keep_nodes = np.empty(nodes.size, dtype=np.int64)
    keep_mass = np.empty(nodes.size)
    count = 0
    for i in range(nodes.size):
        j = mark[nodes[i]]
        rest = mass[i] - min(mass[i], other_mass[j]) if j >= 0 else mass[i]
        if rest > _MASS_TOL * total:
            keep_nodes[count] = nodes[i]
            keep_mass[count] = rest
            count += 1
    for j in range(other_nodes.size):
        mark[other_nodes[j]] = -1
    return keep_nodes[:count], keep_mass[:count]


@numba.njit(cache=True)
def _distinct_rows(table, mass):
    """The distinct rows of an integer ``table`` (hashed into an open-addressing table, equal
    hashes compared word by word; O(rows), no sort): the index of each class's first row, in
    order, and each class's total ``mass``."""
    m, n = table.shape
    capacity = 2
    while capacity < 2 * m:  # at most half full: short probes
        capacity *= 2
    slots = np.full(capacity, -1, dtype=np.int64)  # slot -> class
    keep = np.empty(m, dtype=np.int64)
    hashes = np.empty(m, dtype=np.uint64)
    merged = np.empty(m)
    groups = 0
    for i in range(m):
        h = np.uint64(14695981039346656037)
        for j in range(n):
            h = (h ^ np.uint64(table[i, j])) * np.uint64(1099511628211)
        s = np.int64(h >> np.uint64(32)) & (capacity - 1)
        while True:
            g = slots[s]
            if g < 0:  # a new class
                slots[s] = groups
                keep[groups], hashes[groups], merged[groups] = i, h, mass[i]
                groups += 1
                break
            if hashes[g] == h and _same_row(table, keep[g], i):
                merged[g] += mass[i]
                break
            s = (s + 1) & (capacity - 1)
    return keep[:groups].copy(), merged[:groups].copy()


@numba.njit(cache=True)
def _same_row(table, a, b):
    """Whether rows ``a`` and ``b`` of ``table`` are equal."""
    j = 0
    while j < table.shape[1] and table[a, j] == table[b, j]:
        j += 1
    return j == table.shape[1]


@numba.njit(cache=True)
def _only_plan(p, q, cost):
    """Cost of the one plan there is when one side has a single node."""
    m, n = cost.shape
    total = 0.0
    for i in range(m):
        for j in range(n):
            total += (p[i] if n == 1 else q[j]) * cost[i, j]
    return total


@numba.njit(cache=True)
def _emd(p, q, cost, simplex=True, levels=0):
    """Exact earth mover's distance between masses ``p`` (rows) and ``q`` (columns) of equal
    total under ``cost``: bounds first, then the transportation simplex (skipped, and the
    greedy plan's cost returned, if not ``simplex``: for profiling). ``levels`` as in
    ``_greedy_basis``."""
    m, n = cost.shape
    if m == 0 or n == 0:
        return 0.0
    if m == 1 or n == 1:
        return _only_plan(p, q, cost)
    # Normalise the column total to the row total (they agree up to rounding).
    q = q * (p.sum() / q.sum())
    # One pass: the bounds' row and column minima, and the cost range for the greedy order.
    lower_rows = 0.0
    col_min = np.full(n, np.inf)
    high = -np.inf
    for i in range(m):
        row_min = np.inf
        for j in range(n):
            c = cost[i, j]
            row_min = min(row_min, c)
            col_min[j] = min(col_min[j], c)
            high = max(high, c)
        lower_rows += p[i] * row_min
    lower_cols = 0.0
    for j in range(n):
        lower_cols += q[j] * col_min[j]
    bi = np.empty(m + n - 1, dtype=np.int64)
    bj = np.empty(m + n - 1, dtype=np.int64)
    flow = np.empty(m + n - 1)
    upper = _greedy_basis(cost, p, q, bi, bj, flow, levels, col_min.min(), high)
    scale = 1.0 + high
    if not simplex or upper - max(lower_rows, lower_cols) <= 1e-13 * scale:
        return upper
    return _simplex(cost, bi, bj, flow, scale)


@numba.njit(cache=True)
def _greedy_basis(cost, p, q, bi, bj, flow, levels=0, low=np.inf, high=-np.inf):
    """Greedy plan as a spanning-tree basis of ``m + n − 1`` cells (degenerate cells carry 0):
    each cell retires exactly one line (its row, or its column), the last one both. With
    ``levels`` > 0 the costs take at most that many evenly spaced values (hop costs 1, 2, 3:
    ``levels=3``) and ``_greedy_by_levels`` visits the cells (``low``/``high``: the cost
    range when known); otherwise ``_relative_costs`` orders them. Returns the plan's cost."""
    if levels > 0:
        return _greedy_by_levels(cost, p, q, bi, bj, flow, levels, low, high)
    key, low, high = _relative_costs(cost, p, q)
    rows, cols = _bucket_order(key, low, high)
    rest_p, rest_q = p.copy(), q.copy()
    row_on = np.ones(cost.shape[0], dtype=np.bool_)
    col_on = np.ones(cost.shape[1], dtype=np.bool_)
    left = (0, cost.shape[0], cost.shape[1])
    total = 0.0
    for c in range(rows.size):
        i, j = rows[c], cols[c]
        if row_on[i] and col_on[j]:
            left, done = _take(i, j, left, rest_p, rest_q, row_on, col_on, bi, bj, flow)
            total += flow[left[0] - 1] * cost[i, j]
            if done == _BASIS_DONE:
                break
    return total


@numba.njit(cache=True)
def _relative_costs(cost, p, q):
    """The greedy start's order on real costs: ``cost[i, j] − cost[r, j] − cost[i, c]``,
    with ``r`` the row and ``c`` the column of most mass, and its range. This is the reduced
    cost under the duals ``u_i = cost[i, c]``, ``v_j = cost[r, j]``: a cell comes early
    when it is cheap next to the two heavy lines' own alternatives (shipping row ``i`` to
    ``c``, or row ``r`` to ``j``). Neighbour measures put a mass ``α`` on each endpoint, which
    dominates both sides; from this start the simplex has much less to do than from the
    plain least-cost order (the circles kNN graph in docs/orc_profile.txt)."""
    m, n = cost.shape
    r, c = np.argmax(p), np.argmax(q)
    key = np.empty((m, n))
    low, high = np.inf, -np.inf
    for i in range(m):
        for j in range(n):
            k = cost[i, j] - cost[r, j] - cost[i, c]
            key[i, j] = k
            low, high = min(low, k), max(high, k)
    return key, low, high


@numba.njit(cache=True)
def _greedy_by_levels(cost, p, q, bi, bj, flow, levels, low, high):
    """``_greedy_basis`` on costs of ``levels`` evenly spaced values, level by level. Within a
    level the rows, and in each row the columns, come in increasing number of cells at the
    lowest level (stable): lines with few cheapest cells take them first, a min-degree
    heuristic for moving the most mass at the lowest cost, which leaves the simplex fewer
    pivots (on Chameleon's hop costs about half the simplex time of row-major order;
    docs/orc_profile.txt). A retired row is skipped whole, not cell by cell. ``levels`` is
    at most 255."""
    m, n = cost.shape
    if low > high:
        low, high = cost.min(), cost.max()
    scale = (levels - 1) / (high - low) if high > low else 1.0
    level = np.empty((m, n), dtype=np.uint8)
    row_count = np.zeros(m, dtype=np.int64)
    col_count = np.zeros(n, dtype=np.int64)
    for i in range(m):
        for j in range(n):
            b = min(int((cost[i, j] - low) * scale + 0.5), levels - 1)
            level[i, j] = b
            row_count[i] += b == 0
            col_count[j] += b == 0
    row_order = np.argsort(row_count, kind="mergesort")
    col_order = np.argsort(col_count, kind="mergesort")
    rest_p, rest_q = p.copy(), q.copy()
    row_on = np.ones(m, dtype=np.bool_)
    col_on = np.ones(n, dtype=np.bool_)
    left = (0, m, n)
    total = 0.0
    for b in range(levels):
        for i in row_order:
            if not row_on[i]:
                continue
            for j in col_order:
                if level[i, j] == b and col_on[j]:
                    left, done = _take(i, j, left, rest_p, rest_q, row_on, col_on, bi, bj, flow)
                    total += flow[left[0] - 1] * cost[i, j]
                    if done == _BASIS_DONE:
                        return total
                    if done == _ROW_DONE:
                        break
    return total


@numba.njit(cache=True)
def _take(i, j, left, rest_p, rest_q, row_on, col_on, bi, bj, flow):
    """Add cell ``(i, j)`` to the greedy basis as cell ``left[0]``, with all the mass its row
    and column have left (``rest_p``/``rest_q``), and retire its column or its row
    (``col_on``/``row_on``). ``left`` is ``(cells so far, rows left, columns left)``; returns
    it updated and what was retired: ``_COLUMN_DONE``, ``_ROW_DONE``, or ``_BASIS_DONE`` for
    the last line."""
    k, rows_left, cols_left = left
    amount = max(0.0, min(rest_p[i], rest_q[j]))
    bi[k], bj[k], flow[k] = i, j, amount
    rest_p[i] -= amount
    rest_q[j] -= amount
    if rows_left == 1 and cols_left == 1:
        return (k + 1, 0, 0), _BASIS_DONE
    if rows_left == 1 or (cols_left > 1 and rest_p[i] > rest_q[j]):
        col_on[j] = False
        return (k + 1, rows_left, cols_left - 1), _COLUMN_DONE
    row_on[i] = False
    return (k + 1, rows_left - 1, cols_left), _ROW_DONE


@numba.njit(cache=True)
def _greedy_tree(m, n, bi, bj, parent, parent_cell):
    """Parent pointers of a greedy basis's spanning tree (rows are tree nodes ``0..m-1``,
    columns ``m..m+n-1``; ``parent_cell[t]`` is the basic cell joining ``t`` to its parent),
    read off the order the greedy took its cells in: each cell retired one line, which no
    later cell touches, while its other line was retired later. So in reverse order each
    cell hangs its retired line from the other, already in the tree; the last cell's row is
    the root. Returns the root."""
    last = m + n - 2
    root = bi[last]
    parent[:] = -2
    parent[root] = -1
    parent[m + bj[last]], parent_cell[m + bj[last]] = root, last
    for k in range(last - 1, -1, -1):
        row, column = bi[k], m + bj[k]
        if parent[row] == -2:
            parent[row], parent_cell[row] = column, k
        else:
            parent[column], parent_cell[column] = row, k
    return root


@numba.njit(cache=True)
def _tree_duals(cost, m, bi, bj, root, parent, parent_cell, dual, stamp, stack, pivot):
    """Duals ``u_i + v_j = cost[i, j]`` on the basic cells (``dual[:m]`` = u, ``dual[m:]`` = v,
    0 at ``root``): each node's dual follows from its parent's, so one walk up from every
    node not yet stamped with ``pivot`` sets the whole tree in O(m + n)."""
    stamp[root] = pivot
    dual[root] = 0.0
    for start in range(dual.size):
        top = 0
        t = start
        while stamp[t] != pivot:
            stack[top] = t
            top += 1
            t = parent[t]
        while top > 0:
            top -= 1
            t = stack[top]
            k = parent_cell[t]
            dual[t] = cost[bi[k], bj[k]] - dual[parent[t]]
            stamp[t] = pivot
    return dual


@numba.njit(cache=True)
def _bucket_order(cost, low=np.inf, high=-np.inf):
    """The cells of ``cost`` in increasing order up to a bucket width, as row and column
    indices (no division per cell when they are read): a stable counting sort into
    ``4 √cells`` equal-width buckets (O(cells); coarser and cheaper than one per value, the
    simplex making up the difference). The range ``low``/``high`` is computed unless given."""
    m, n = cost.shape
    size = m * n
    buckets = max(2, int(4 * np.sqrt(size)))
    if low > high:
        low, high = cost.min(), cost.max()
    scale = (buckets - 1) / (high - low) if high > low else 1.0
    rows = np.empty(size, dtype=np.int32)
    cols = np.empty(size, dtype=np.int32)
    start = np.zeros(buckets + 1, dtype=np.int64)
    for i in range(m):
        for j in range(n):  # a cell's bucket is recomputed below (cheaper than stored)
            start[min(int((cost[i, j] - low) * scale + 0.5), buckets - 1) + 1] += 1
    for b in range(buckets):
        start[b + 1] += start[b]
    for i in range(m):
        for j in range(n):
            b = min(int((cost[i, j] - low) * scale + 0.5), buckets - 1)
            rows[start[b]] = i
            cols[start[b]] = j
            start[b] += 1
    return rows, cols


@numba.njit(cache=True)
def _attach(t, p, first_child, next_sib, prev_sib):
    """Put tree node ``t`` first in ``p``'s child list."""
    head = first_child[p]
    next_sib[t], prev_sib[t] = head, -1
    if head >= 0:
        prev_sib[head] = t
    first_child[p] = t


@numba.njit(cache=True)
def _detach(t, p, first_child, next_sib, prev_sib):
    """Take tree node ``t`` out of its parent ``p``'s child list."""
    if prev_sib[t] >= 0:
        next_sib[prev_sib[t]] = next_sib[t]
    else:
        first_child[p] = next_sib[t]
    if next_sib[t] >= 0:
        prev_sib[next_sib[t]] = prev_sib[t]


@numba.njit(cache=True)
def _block_pricing(cost, dual, tol, cursor, block):
    """Block search for the entering cell, as in LEMON's network simplex, by whole rows: the
    most negative reduced cost ``cost[i, j] − u_i − v_j`` below ``−tol`` among the rows
    scanned cyclically from row ``cursor`` until at least ``block`` cells are seen and one
    is found (all rows if none is). Returns ``(reduced cost, i, j, next cursor)``, ``i = −1``
    if every cell prices out."""
    m, n = cost.shape
    best = -tol
    ei, ej = -1, -1
    i = cursor
    seen = 0
    for _ in range(m):
        u = dual[i]
        for j in range(n):
            r = cost[i, j] - u - dual[m + j]
            if r < best:
                best, ei, ej = r, i, j
        i = i + 1 if i + 1 < m else 0
        seen += n
        if ei >= 0 and seen >= block:
            break
    return best, ei, ej, i


@numba.njit(cache=True)
def _first_negative(cost, dual, tol):
    """Bland's rule: the first cell in row-major order with reduced cost below ``−tol``."""
    m, n = cost.shape
    for i in range(m):
        for j in range(n):
            r = cost[i, j] - dual[i] - dual[m + j]
            if r < -tol:
                return r, i, j
    return -tol, -1, -1


@numba.njit(cache=True)
def _simplex(cost, bi, bj, flow, scale):
    """Transportation simplex from the greedy basis ``(bi, bj, flow)``, its cells in the order
    the greedy took them (``_greedy_tree``). The basis is a spanning tree
    kept as parent pointers and child lists: a pivot re-hangs the cut-off subtree on the
    entering cell by reversing one parent chain, and only that subtree's duals move: a walk
    over its child lists sets each from its parent's by ``_tree_duals``'s own formula, so the
    duals are always those derived from scratch, to the last bit, and optimality is declared
    on them. Block pricing by rows picks the entering cell (Bland's rule after a run of
    degenerate pivots, which rules out cycling); the ratio test along the tree cycle picks
    the leaving cell."""
    m, n = cost.shape
    nodes = m + n
    cells = nodes - 1
    tol = 1e-12 * scale
    parent = np.empty(nodes, dtype=np.int64)
    parent_cell = np.empty(nodes, dtype=np.int64)
    root = _greedy_tree(m, n, bi, bj, parent, parent_cell)
    first_child = np.full(nodes, -1, dtype=np.int64)
    next_sib = np.full(nodes, -1, dtype=np.int64)
    prev_sib = np.full(nodes, -1, dtype=np.int64)
    for t in range(nodes):
        if t != root:
            _attach(t, parent[t], first_child, next_sib, prev_sib)
    dual = np.empty(nodes)
    stamp = np.full(nodes, -1, dtype=np.int64)
    seen = np.full(nodes, -1, dtype=np.int64)
    stack = np.empty(nodes, dtype=np.int64)
    up_a = np.empty(cells, dtype=np.int64)  # cycle cells from the entering column up
    up_b = np.empty(cells, dtype=np.int64)  # cycle cells from the entering row up
    degenerate_run = 0
    bland = False
    block = max(8, int(np.sqrt(m * n)))
    cursor = 0  # the row where the last pricing stopped
    _tree_duals(cost, m, bi, bj, root, parent, parent_cell, dual, stamp, stack, 0)
    for pivot in range(100 * nodes * nodes + 1000):
        if bland:
            best, ei, ej = _first_negative(cost, dual, tol)
        else:
            best, ei, ej, cursor = _block_pricing(cost, dual, tol, cursor, block)
        if ei < 0:
            break
        # The tree cycle: mark the ancestors of column ej, climb from row ei to the first
        # marked node (the join); its cells alternate −, +, −, ... from column ej to row ei.
        t = m + ej
        while t >= 0:
            seen[t] = pivot
            t = parent[t]
        front = 0
        t = ei
        while seen[t] != pivot:
            up_b[front] = parent_cell[t]
            front += 1
            t = parent[t]
        join = t
        back = front
        front = 0
        t = m + ej
        while t != join:
            up_a[front] = parent_cell[t]
            front += 1
            t = parent[t]
        length = front + back
        theta = np.inf
        leave = -1
        for s in range(0, length, 2):
            k = up_a[s] if s < front else up_b[length - 1 - s]
            key = bi[k] * n + bj[k]
            if flow[k] < theta or (
                flow[k] == theta and leave >= 0 and key < bi[leave] * n + bj[leave]
            ):
                theta, leave = flow[k], k
        theta = max(theta, 0.0)
        leave_on_a = False
        for s in range(length):
            k = up_a[s] if s < front else up_b[length - 1 - s]
            flow[k] += theta if s % 2 else -theta
            if k == leave and s < front:
                leave_on_a = True
        flow[leave] = theta
        # The leaving cell cuts off the subtree holding one end of the entering cell; re-hang
        # that subtree from this end, whose new parent is the other end.
        child = m + bj[leave] if parent_cell[m + bj[leave]] == leave else bi[leave]
        node, other = (m + ej, ei) if leave_on_a else (ei, m + ej)
        hang = node
        bi[leave], bj[leave] = ei, ej
        prev, prev_cell = other, leave
        while True:
            up, up_cell = parent[node], parent_cell[node]
            _detach(node, up, first_child, next_sib, prev_sib)
            parent[node], parent_cell[node] = prev, prev_cell
            _attach(node, prev, first_child, next_sib, prev_sib)
            if node == child:
                break
            prev, prev_cell, node = node, up_cell, up
        top = 1
        stack[0] = hang
        while top > 0:  # the subtree's duals, parents first (the entering cell prices to 0)
            top -= 1
            t = stack[top]
            k = parent_cell[t]
            dual[t] = cost[bi[k], bj[k]] - dual[parent[t]]
            c = first_child[t]
            while c >= 0:
                stack[top] = c
                top += 1
                c = next_sib[c]
        if theta <= 1e-15:
            degenerate_run += 1
            bland = bland or degenerate_run > nodes
        else:
            degenerate_run = 0
    total = 0.0
    for k in range(cells):
        total += max(flow[k], 0.0) * cost[bi[k], bj[k]]
    return total
