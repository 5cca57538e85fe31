"""Balanced Forman curvature (Topping et al., ICLR 2022), sparse.

Reference: J. Topping, F. Di Giovanni, B. P. Chamberlain, X. Dong, M. M. Bronstein,
"Understanding over-squashing and bottlenecks on graphs via curvature", ICLR 2022,
Definition 1. Official code: https://github.com/jctops/understanding-oversquashing
(``gdl/src/gdl/curvature/cuda.py``).

Every value is computed from the neighbour lists of the two endpoints and of their
neighbours (marker arrays, no ``N x N`` matrix), so the cost is
``O(sum over edges (i, j) of sum over k in N(i) | N(j) of deg k)`` time and ``O(N + E)``
memory. The per-pair kernel :func:`pair_curvature` also serves SDRF's incremental updates,
:func:`curvature_with_each_candidate` scores SDRF's candidate edges for one pair, and
:func:`curvature_after_edit` updates the pairs next to an edge SDRF adds or removes.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse

from rewirekit.errors import RewireError
from rewirekit.linalg.threads import keeps_torch_threads
from rewirekit.validation import check_bool

__all__ = ["balanced_forman"]

_IN_I = 1  # marker bit: node is a neighbour of the first endpoint
_IN_J = 2  # marker bit: node is a neighbour of the second endpoint


@keeps_torch_threads
def balanced_forman(edge_index: ArrayLike, num_nodes: int, faithful: bool = False) -> np.ndarray:
    r"""Balanced Forman curvature of every edge of an undirected graph.

    For an edge :math:`(i, j)` with degrees :math:`d_i, d_j`, triangles
    :math:`\sharp_\Delta = |N(i) \cap N(j)|` and 4-cycle sets

    .. math::
        \sharp_\square^i = \{k \in N(i) \setminus N(j),\ k \ne j :
        \exists w \in (N(k) \cap N(j)) \setminus N(i),\ w \ne i\},

    Definition 1 of the paper reads (0 if :math:`\min(d_i, d_j) = 1`)

    .. math::
        \mathrm{Ric}(i, j) = \frac{2}{d_i} + \frac{2}{d_j} - 2
        + 2\frac{\sharp_\Delta}{d_{\max}} + \frac{\sharp_\Delta}{d_{\min}}
        + \frac{|\sharp_\square^i| + |\sharp_\square^j|}{\gamma_{\max}\, d_{\max}},

    where :math:`\gamma_{\max}` is the largest number of 4-cycles through one
    :math:`k \in \sharp_\square^i` (or :math:`\sharp_\square^j`), i.e.
    :math:`|(N(k) \cap N(j)) \setminus N(i)| - 1`; the last term is 0 without 4-cycles.

    ``faithful=True`` reproduces the counting of the official kernel
    (``_balanced_forman_curvature`` in ``gdl/curvature/cuda.py``), which differs from the
    paper in these ways:

    * an edge is set to 0 only if a degree is 0, never because a degree is 1;
    * the triangle term is :math:`(2/d_{\max} + 1/d_{\min}) (A^2)_{ij}`, as in the paper;
    * the "4-cycle" count is :math:`s = |\{k \in N(j) : (A^2)_{ik} - A_{ik} > 0\}|
      + |\{k \in N(i) : (A^2)_{kj} - A_{kj} > 0\}|`, which counts ``k = i`` and ``k = j``
      (through :math:`(A^2)_{ii} = d_i`) and plain 2-paths, not only 4-cycles without
      diagonals;
    * :math:`\gamma_{\max}` is replaced by :math:`\lambda`, the largest of those
      :math:`(A^2)_{ik} - A_{ik}` and :math:`(A^2)_{kj} - A_{kj}` (so
      :math:`\lambda \ge \max(d_i, d_j)`), and the term is :math:`s / (d_{\max} \lambda)`.

    On the path P5 the paper gives 0 on every edge and the official kernel 1.75 on the end
    edges and 1.0 in the middle; on K5 they give 1.25 and 1.75. The official CPU kernel
    (``gdl/curvature/numba.py``) has ``break`` where the CUDA kernel returns (issue #4): it
    stops each row at its first non-neighbour, so most entries keep stale or zero values.
    That bug is *not* reproduced; ``faithful=True`` equals the CUDA logic, in float64 (the
    official CUDA kernel works in float32).

    Args:
        edge_index: ``[2, E]`` integer array or tensor holding both directions of every
            edge. Self-loops are ignored (value 0); duplicate columns get the same value.
        num_nodes: number of nodes.
        faithful: use the official kernel's counting instead of the paper's.

    Returns:
        float64 array of length ``E``, one curvature per column of ``edge_index``.

    Example::

        >>> import numpy as np
        >>> ring = np.array([[0, 1, 1, 2, 2, 3, 3, 0], [1, 0, 2, 1, 3, 2, 0, 3]])
        >>> balanced_forman(ring, 4)  # C4: 2/2 + 2/2 - 2 + (1 + 1) / (1 * 2)
        array([1., 1., 1., 1., 1., 1., 1., 1.])
    """
    faithful = check_bool("faithful", faithful)
    row, col = _read_edges(edge_index, num_nodes)
    adjacency = _simple_undirected(row, col, num_nodes)
    indptr, indices = adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int64)
    start, count = indptr[:-1].copy(), np.diff(indptr)
    chunks = max(1, min(num_nodes, 4 * numba.get_num_threads()))
    values = _all_pairs(start, count, indices, faithful, chunks)  # one per CSR entry
    out = np.zeros(row.size, dtype=np.float64)
    real = row != col
    keys = np.repeat(np.arange(num_nodes, dtype=np.int64), count) * num_nodes + indices
    slot = np.searchsorted(keys, row[real] * num_nodes + col[real])
    out[real] = values[slot]
    return out


def _read_edges(edge_index: ArrayLike, num_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, (int, np.integer)):
        raise RewireError(f"num_nodes must be an integer, got {num_nodes!r}.")
    if hasattr(edge_index, "detach"):
        edge_index = edge_index.detach().cpu().numpy()
    edges = np.asarray(edge_index)
    if edges.ndim != 2 or edges.shape[0] != 2 or not np.issubdtype(edges.dtype, np.integer):
        raise RewireError(
            f"edge_index must be an integer array of shape [2, E], got {edges.dtype} {edges.shape}."
        )
    row, col = edges.astype(np.int64)
    if row.size and (min(row.min(), col.min()) < 0 or max(row.max(), col.max()) >= num_nodes):
        raise RewireError(f"edge_index holds node ids outside [0, {num_nodes - 1}].")
    forward = np.unique(row[row != col] * num_nodes + col[row != col])
    backward = np.unique(col[row != col] * num_nodes + row[row != col])
    if not np.array_equal(forward, backward):
        raise RewireError(
            "balanced Forman curvature is defined on undirected graphs: edge_index must hold "
            "both directions of every edge (torch_geometric.utils.to_undirected)."
        )
    return row, col


def _simple_undirected(row: np.ndarray, col: np.ndarray, n: int) -> sparse.csr_matrix:
    """The 0/1 adjacency without self-loops, CSR with sorted columns."""
    keep = row != col
    adjacency = sparse.csr_matrix(
        (np.ones(int(keep.sum()), dtype=np.int8), (row[keep], col[keep])), shape=(n, n)
    )
    adjacency.sum_duplicates()
    adjacency.sort_indices()
    return adjacency


@numba.njit(parallel=True, cache=True)
def _all_pairs(
    start: np.ndarray, count: np.ndarray, nbr: np.ndarray, faithful: bool, chunks: int
) -> np.ndarray:  # pragma: no cover - compiled
    n = start.size
    values = np.zeros(nbr.size, dtype=np.float64)
    for c in numba.prange(chunks):
        mark = np.zeros(n, dtype=np.int8)
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            for s in range(start[i], start[i] + count[i]):
                j = nbr[s]
                if j > i:
                    values[s] = pair_curvature(start, count, nbr, i, j, mark, faithful, -1, -1)
    # mirror the upper triangle onto the lower one
    for i in numba.prange(n):
        for s in range(start[i], start[i] + count[i]):
            j = nbr[s]
            if j < i:
                values[s] = values[_find(start, count, nbr, j, i)]
    return values


@numba.njit(cache=True)
def _find(start, count, nbr, i, j):  # pragma: no cover - compiled
    for s in range(start[i], start[i] + count[i]):
        if nbr[s] == j:
            return s
    return -1


@numba.njit(cache=True, inline="always")
def _extra_out(v, extra_src, extra_dst, faithful):  # pragma: no cover - compiled
    """The extra neighbour of ``v`` (or -1): an undirected extra edge in the paper's mode,
    the extra arc ``extra_src -> extra_dst`` (out-neighbour of ``extra_src``) when faithful."""
    if v == extra_src:
        return extra_dst
    if v == extra_dst and not faithful:
        return extra_src
    return -1


@numba.njit(cache=True, inline="always")
def _extra_in(v, extra_src, extra_dst, faithful):  # pragma: no cover - compiled
    if v == extra_dst:
        return extra_src
    if v == extra_src and not faithful:
        return extra_dst
    return -1


@numba.njit(cache=True)
def _mark(start, count, nbr, v, extra, mark, bit, on):  # pragma: no cover - compiled
    for s in range(start[v], start[v] + count[v]):
        mark[nbr[s]] = mark[nbr[s]] | bit if on else mark[nbr[s]] & ~bit
    if extra >= 0:
        mark[extra] = mark[extra] | bit if on else mark[extra] & ~bit


@numba.njit(cache=True)
def _count_marked(start, count, nbr, v, extra, mark, want, avoid, skip):  # pragma: no cover
    """Number of neighbours ``w != skip`` of ``v`` (plus ``extra``) whose marker has every
    bit of ``want`` and none of ``avoid``."""
    total = 0
    for s in range(start[v], start[v] + count[v]):
        w = nbr[s]
        if w != skip and (mark[w] & want) == want and (mark[w] & avoid) == 0:
            total += 1
    if extra >= 0 and extra != skip and (mark[extra] & want) == want and (mark[extra] & avoid) == 0:
        total += 1
    return total


@numba.njit(cache=True)
def pair_curvature(
    start, count, nbr, i, j, mark, faithful, extra_src, extra_dst
):  # pragma: no cover - compiled
    """Curvature of the pair ``(i, j)``: :func:`_pair_terms` without its 4-cycle tally."""
    return _pair_terms(start, count, nbr, i, j, mark, faithful, extra_src, extra_dst)[0]


@numba.njit(cache=True)
def _pair_terms(
    start, count, nbr, i, j, mark, faithful, extra_src, extra_dst
):  # pragma: no cover - compiled
    """Curvature of the pair ``(i, j)`` from neighbour lists ``nbr[start[v]:start[v] +
    count[v]]`` (each list holds every neighbour once, no self-loops).

    ``extra_src, extra_dst`` (or -1) add one edge that is not in the lists: the undirected
    edge ``{extra_src, extra_dst}`` for the paper's curvature, the single arc
    ``extra_src -> extra_dst`` for the official counting (its post-edit kernel
    ``_balanced_forman_post_delta`` adds one entry ``A[k, l]`` and reads the directed
    formula). ``mark`` is an int8 work array of zeros of length ``N``; it is left zeroed.
    Official kernel: ``A[i, j]`` is taken as 1 (the caller handles non-edges).

    Returns ``(value, cycles, largest, ties)``: the curvature and its 4-cycle tally (the
    number of neighbours with a count above 0, the largest count and how many neighbours
    have it; all 0 where the degrees alone give 0), which :func:`curvature_after_edit`
    updates.
    """
    out_i = _extra_out(i, extra_src, extra_dst, faithful)
    in_j = _extra_in(j, extra_src, extra_dst, faithful)
    # the official kernel reads the in-degree of i and the out-degree of j
    d_i = count[i] + (1 if _extra_in(i, extra_src, extra_dst, faithful) >= 0 else 0)
    d_j = count[j] + (1 if _extra_out(j, extra_src, extra_dst, faithful) >= 0 else 0)
    d_max, d_min = max(d_i, d_j), min(d_i, d_j)
    if _flat(d_min, faithful):
        return 0.0, 0, 0, 0
    _mark(start, count, nbr, i, out_i, mark, _IN_I, True)  # out-neighbours of i
    _mark(start, count, nbr, j, in_j, mark, _IN_J, True)  # in-neighbours of j
    value = _without_cycles(start, count, nbr, i, out_i, mark, d_max, d_min)
    cycles, largest, ties = _tally(
        start, count, nbr, i, j, out_i, in_j, mark, faithful, extra_src, extra_dst
    )
    _mark(start, count, nbr, i, out_i, mark, _IN_I, False)
    _mark(start, count, nbr, j, in_j, mark, _IN_J, False)
    return _with_cycles(value, cycles, largest, d_max), cycles, largest, ties


@numba.njit(cache=True)
def _tally(
    start, count, nbr, i, j, out_i, in_j, mark, faithful, extra_src, extra_dst
):  # pragma: no cover - compiled
    """The 4-cycle tally ``(cycles, largest, ties)`` of the pair ``(i, j)``: one count per
    neighbour of ``j`` (side 0) and of ``i`` (side 1), the extras included. ``mark`` holds both
    neighbourhoods; extras as in :func:`pair_curvature`."""
    cycles, largest, ties = 0, 0, 0
    for side in range(2):
        v = j if side == 0 else i
        extra_v = in_j if side == 0 else out_i
        for s in range(start[v], start[v] + count[v] + 1):
            k = nbr[s] if s < start[v] + count[v] else extra_v
            if k < 0:
                continue
            found = _cycles_through(
                start, count, nbr, side, k, i, j, mark, faithful, extra_src, extra_dst
            )
            cycles, largest, ties = _counted(cycles, largest, ties, found)
    return cycles, largest, ties


@numba.njit(cache=True, inline="always")
def _counted(cycles, largest, ties, found):  # pragma: no cover - compiled
    """The tally with the count ``found`` in it (one of 0 or less adds nothing)."""
    if found > 0:
        cycles += 1
        if found > largest:
            largest, ties = found, 1
        elif found == largest:
            ties += 1
    return cycles, largest, ties


@numba.njit(cache=True, inline="always")
def _uncounted(cycles, largest, ties, found):  # pragma: no cover - compiled
    """The tally with the count ``found`` taken out. When the last count equal to the
    largest goes, ``ties`` drops to 0 and ``largest`` is stale until a count as large comes."""
    if found > 0:
        cycles -= 1
        if found == largest:
            ties -= 1
    return cycles, largest, ties


@numba.njit(cache=True, inline="always")
def _flat(d_min, faithful):  # pragma: no cover - compiled
    """Whether the curvature is 0 by its degrees alone."""
    return d_min == 0 or (d_min == 1 and not faithful)


@numba.njit(cache=True, inline="always")
def _without_cycles(start, count, nbr, i, out_i, mark, d_max, d_min):  # pragma: no cover
    """The degree and triangle terms (``mark`` holds both neighbourhoods)."""
    triangles = _count_marked(start, count, nbr, i, out_i, mark, _IN_J, 0, -1)
    return 2.0 / d_max + 2.0 / d_min - 2.0 + (2.0 / d_max + 1.0 / d_min) * triangles


@numba.njit(cache=True, inline="always")
def _with_cycles(value, cycles, largest, d_max):  # pragma: no cover - compiled
    """``value`` plus the 4-cycle term (none without 4-cycles)."""
    if largest > 0:
        value += cycles / (d_max * largest)
    return value


@numba.njit(cache=True)
def _cycles_through(
    start, count, nbr, side, k, i, j, mark, faithful, extra_src, extra_dst
):  # pragma: no cover - compiled
    """The 4-cycles of the pair ``(i, j)`` through ``k``, a neighbour of ``j`` (``side`` 0)
    or of ``i`` (``side`` 1), as the curvature counts them; 0 or less where ``k`` adds no
    4-cycle. ``mark`` holds both neighbourhoods; extras as in :func:`pair_curvature`."""
    if faithful:
        # official: k in N_in(j) with (A^2)_ik - A_ik > 0, k in N_out(i) with (A^2)_kj - A_kj > 0
        if side == 0:  # paths i -> w -> k: w out-neighbour of i, in-neighbour of k
            in_k = _extra_in(k, extra_src, extra_dst, faithful)
            found = _count_marked(start, count, nbr, k, in_k, mark, _IN_I, 0, -1)
            return found - (1 if mark[k] & _IN_I else 0)
        out_k = _extra_out(k, extra_src, extra_dst, faithful)  # paths k -> w -> j
        found = _count_marked(start, count, nbr, k, out_k, mark, _IN_J, 0, -1)
        return found - (1 if mark[k] & _IN_J else 0)
    # paper: k in N(j) \ N(i) \ {i} with |N(k) & N(i) \ N(j) \ {j}| > 0 (cycles j-k-w-i);
    # side 1 mirrors it
    own, other = (_IN_J, _IN_I) if side == 0 else (_IN_I, _IN_J)
    if k == (i if side == 0 else j) or mark[k] & other:
        return 0
    extra_k = _extra_out(k, extra_src, extra_dst, faithful)
    return _count_marked(start, count, nbr, k, extra_k, mark, other, own, j if side == 0 else i)


@numba.njit(cache=True)
def curvature_with_each_candidate(
    start, count, nbr, i, j, faithful, extra_src, extra_dst
):  # pragma: no cover - compiled
    """:func:`pair_curvature` of ``(i, j)`` with each extra edge ``(extra_src[c],
    extra_dst[c])`` in turn: the same values, bit for bit, without recounting the pair for
    every candidate (SDRF scores every non-edge between ``N[i]`` and ``N[j]``; next to a hub
    that is tens of thousands of candidates).

    An extra edge that touches neither ``i`` nor ``j`` leaves the degrees, the triangles and
    both neighbourhoods as they are. It changes only the 4-cycle counts of its own two ends
    (where they are neighbours of ``i`` or ``j``), and those only upwards: a count gains the
    extra neighbour or stays. So the pair's number of counts above 0 and their largest follow
    from the pair's own and these two recounts. An extra edge at ``i`` or ``j`` is computed
    in full."""
    values = np.empty(extra_src.size)
    mark = np.zeros(start.size, dtype=np.int8)
    d_max, d_min = max(count[i], count[j]), min(count[i], count[j])
    _mark(start, count, nbr, i, -1, mark, _IN_I, True)
    _mark(start, count, nbr, j, -1, mark, _IN_J, True)
    cycles, largest, ties = _tally(start, count, nbr, i, j, -1, -1, mark, faithful, -1, -1)
    head = 0.0
    if not _flat(d_min, faithful):
        head = _without_cycles(start, count, nbr, i, -1, mark, d_max, d_min)
    for c in range(extra_src.size):
        a, b = extra_src[c], extra_dst[c]
        if a in (i, j) or b in (i, j) or _flat(d_min, faithful):
            values[c] = 0.0  # flat (its degrees are those of the pair); at i or j: below
            continue
        now_cycles, now_largest, _ = _tally_after_edit(
            start, count, nbr, i, j, mark, faithful, a, b, False, True, cycles, largest, ties
        )
        values[c] = _with_cycles(head, now_cycles, now_largest, d_max)
    _mark(start, count, nbr, i, -1, mark, _IN_I, False)
    _mark(start, count, nbr, j, -1, mark, _IN_J, False)
    for c in range(extra_src.size):
        a, b = extra_src[c], extra_dst[c]
        if a in (i, j) or b in (i, j):  # the degrees and neighbourhoods move
            values[c] = pair_curvature(start, count, nbr, i, j, mark, faithful, a, b)
    return values


@numba.njit(cache=True)
def _tally_after_edit(
    start, count, nbr, i, j, mark, faithful, a, b, both_ways, added, cycles, largest, ties
):  # pragma: no cover - compiled
    """The 4-cycle tally ``(cycles, largest, ties)`` of the pair ``(i, j)`` once the edge
    ``(a, b)``, which touches neither ``i`` nor ``j``, is added (``added``) or removed, from
    its tally before. Only the counts through ``a`` and ``b`` change (where they are
    neighbours of ``j``, side 0, or of ``i``, side 1): each is counted without and with the
    edge as an extra one, so the lists must lack it (those before an addition, after a
    removal). ``both_ways``: the edge is edited in both directions (an edit of the graph);
    otherwise, when faithful, as the one arc ``a -> b`` (the official post-edit kernel).
    ``mark`` holds both neighbourhoods. After a removal, ``ties`` 0 with ``cycles`` above 0
    means that every count equal to the largest fell: the new largest is unknown."""
    for side in range(2):
        entry = _IN_J if side == 0 else _IN_I
        for e, f in ((a, b), (b, a)):
            if mark[e] & entry:
                # side 0 reads the in-neighbours of e, side 1 its out-neighbours
                arc_src, arc_dst = (a, b) if not both_ways else ((f, e) if side == 0 else (e, f))
                without = _cycles_through(start, count, nbr, side, e, i, j, mark, faithful, -1, -1)
                with_edge = _cycles_through(
                    start, count, nbr, side, e, i, j, mark, faithful, arc_src, arc_dst
                )
                old, new = (without, with_edge) if added else (with_edge, without)
                cycles, largest, ties = _uncounted(cycles, largest, ties, old)
                cycles, largest, ties = _counted(cycles, largest, ties, new)
    return cycles, largest, ties


@numba.njit(cache=True)
def _pair_after_edit(
    start, count, nbr, i, j, mark, faithful, a, b, added, cycles, largest, ties
):  # pragma: no cover - compiled
    """:func:`_pair_terms` of ``(i, j)`` once the edge ``{a, b}`` (touching neither) is
    added or removed, from the pair's tally before; the lists lack the edge (those before an
    addition, after a removal). Where a removal leaves the largest count unknown, the pair is
    counted again in full (on the lists after it)."""
    d_max, d_min = max(count[i], count[j]), min(count[i], count[j])
    if _flat(d_min, faithful):
        return 0.0, cycles, largest, ties
    _mark(start, count, nbr, i, -1, mark, _IN_I, True)
    _mark(start, count, nbr, j, -1, mark, _IN_J, True)
    head = _without_cycles(start, count, nbr, i, -1, mark, d_max, d_min)
    cycles, largest, ties = _tally_after_edit(
        start, count, nbr, i, j, mark, faithful, a, b, True, added, cycles, largest, ties
    )
    _mark(start, count, nbr, i, -1, mark, _IN_I, False)
    _mark(start, count, nbr, j, -1, mark, _IN_J, False)
    if cycles == 0:
        largest = 0
    elif ties == 0:
        return _pair_terms(start, count, nbr, i, j, mark, faithful, -1, -1)
    return _with_cycles(head, cycles, largest, d_max), cycles, largest, ties


#: Below this many pairs the pair kernels run on one thread: starting the thread pool costs
#: more than the work (and much more on a loaded machine).
_SERIAL_BELOW = 4096


def curvature_of_pairs(
    start: np.ndarray,
    count: np.ndarray,
    nbr: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    faithful: bool,
    extra_src: np.ndarray,
    extra_dst: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """:func:`_pair_terms` of the pairs ``(src[e], dst[e])``, each with the extra edge
    ``(extra_src[e], extra_dst[e])`` (-1 for none): the values, then the three arrays of their
    4-cycle tallies (``cycles, largest, ties``)."""
    none = np.zeros(src.size, dtype=np.int64)
    tally = (none, none, none)
    return _run_pairs(start, count, nbr, src, dst, faithful, extra_src, extra_dst, tally, 0)


def curvature_after_edit(
    start: np.ndarray,
    count: np.ndarray,
    nbr: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    faithful: bool,
    edge: tuple[int, int],
    added: bool,
    tally: tuple[np.ndarray, ...],
) -> tuple[np.ndarray, ...]:
    """The values and 4-cycle tallies of the pairs ``(src[e], dst[e])`` once ``edge`` is
    added (``added``) or removed, from their tallies before (the three arrays that
    :func:`curvature_of_pairs` returned). The lists must lack the edge: those before an
    addition, after a removal. No pair may touch an end of ``edge`` (its degrees, triangles
    and neighbourhoods would move): those are counted again in full. The same values, bit for
    bit, in ``O(deg i + deg j + deg a + deg b)`` per pair instead of the 4-cycles through
    every neighbour; a pair whose every largest count a removal lowers is counted in full."""
    a = np.full(src.size, edge[0], dtype=np.int64)
    b = np.full(src.size, edge[1], dtype=np.int64)
    return _run_pairs(start, count, nbr, src, dst, faithful, a, b, tally, 1 if added else -1)


@keeps_torch_threads
def _run_pairs(
    start: np.ndarray,
    count: np.ndarray,
    nbr: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    faithful: bool,
    extra_src: np.ndarray,
    extra_dst: np.ndarray,
    tally: tuple[np.ndarray, ...],
    edit: int,
) -> tuple[np.ndarray, ...]:
    kernel = _pairs_serial if src.size < _SERIAL_BELOW else _pairs_parallel
    cycles, largest, ties = tally
    return kernel(
        start, count, nbr, src, dst, faithful, extra_src, extra_dst, cycles, largest, ties, edit
    )


@numba.njit(parallel=True, cache=True)
def _pairs_parallel(
    start, count, nbr, src, dst, faithful, extra_src, extra_dst, cycles, largest, ties, edit
):  # pragma: no cover - compiled
    out = _empty_terms(src.size)
    chunks = min(src.size, 16)
    for c in numba.prange(chunks):
        _pairs_range(
            start, count, nbr, src, dst, faithful, extra_src, extra_dst, cycles, largest, ties,
            edit, c * src.size // chunks, (c + 1) * src.size // chunks, out,
        )  # fmt: skip
    return out


@numba.njit(cache=True)
def _pairs_serial(
    start, count, nbr, src, dst, faithful, extra_src, extra_dst, cycles, largest, ties, edit
):  # pragma: no cover - compiled
    out = _empty_terms(src.size)
    _pairs_range(
        start, count, nbr, src, dst, faithful, extra_src, extra_dst, cycles, largest, ties,
        edit, 0, src.size, out,
    )  # fmt: skip
    return out


@numba.njit(cache=True)
def _empty_terms(size):  # pragma: no cover - compiled
    """Room for ``size`` values and tallies ``(cycles, largest, ties)``."""
    return (
        np.empty(size),
        np.empty(size, np.int64),
        np.empty(size, np.int64),
        np.empty(size, np.int64),
    )


@numba.njit(cache=True)
def _pairs_range(
    start,
    count,
    nbr,
    src,
    dst,
    faithful,
    extra_src,
    extra_dst,
    cycles,
    largest,
    ties,
    edit,
    lo,
    hi,
    out,
):  # pragma: no cover - compiled
    """Pairs ``lo .. hi - 1`` into ``out = (values, cycles, largest, ties)``: in full
    (``edit`` 0), or from their tallies after the edge of ``extra_*`` is added (``edit`` 1)
    or removed (``edit`` -1)."""
    mark = np.zeros(start.size, dtype=np.int8)
    values, new_cycles, new_largest, new_ties = out
    for e in range(lo, hi):
        if edit == 0:
            terms = _pair_terms(
                start, count, nbr, src[e], dst[e], mark, faithful, extra_src[e], extra_dst[e]
            )
        else:
            terms = _pair_after_edit(
                start, count, nbr, src[e], dst[e], mark, faithful, extra_src[e], extra_dst[e],
                edit > 0, cycles[e], largest[e], ties[e],
            )  # fmt: skip
        values[e], new_cycles[e], new_largest[e], new_ties[e] = terms
