"""Graph conversions and validation shared by every method.

Edges are handled internally as *pairs* ``(u, v)`` of int64 numpy arrays. For an
undirected graph each edge appears once with ``u < v``; for a directed graph each
ordered pair appears once. A pair is identified by the scalar key ``u * n + v``,
which makes set operations (membership, difference) sorted-array operations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import torch
from torch import Tensor
from torch_geometric.data import Data

from rewirekit.errors import RewireError


@dataclass(frozen=True)
class EdgeSet:
    """A coalesced edge set in pair form.

    Attributes:
        num_nodes: number of nodes ``n``.
        src, dst: int64 arrays of equal length; ``src < dst`` when undirected.
        weight: float array of per-pair weights, or ``None`` if unweighted.
        self_loops: node ids carrying a self-loop (kept aside, never rewired).
        self_loop_weight: their weights, or ``None``.
        directed: whether pairs are ordered.
    """

    num_nodes: int
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray | None
    self_loops: np.ndarray
    self_loop_weight: np.ndarray | None
    directed: bool

    @property
    def num_pairs(self) -> int:
        return int(self.src.size)

    @property
    def keys(self) -> np.ndarray:
        """Sorted scalar keys ``src * n + dst`` (pairs are stored in key order)."""
        return pair_keys(self.src, self.dst, self.num_nodes)

    @property
    def max_pairs(self) -> int:
        """Number of possible non-loop pairs: ``n(n-1)/2`` undirected, ``n(n-1)`` directed."""
        n = self.num_nodes
        return n * (n - 1) if self.directed else n * (n - 1) // 2


def pair_keys(src: np.ndarray, dst: np.ndarray, num_nodes: int) -> np.ndarray:
    return src.astype(np.int64) * num_nodes + dst.astype(np.int64)


def sorted_contains(sorted_keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Membership of ``queries`` in the sorted array ``sorted_keys``, by binary search."""
    if sorted_keys.size == 0:
        return np.zeros(queries.shape, dtype=bool)
    pos = np.searchsorted(sorted_keys, queries).clip(max=sorted_keys.size - 1)
    return sorted_keys[pos] == queries


def canonical_pairs(
    src: np.ndarray, dst: np.ndarray, directed: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Order each pair as ``(min, max)`` unless the graph is directed."""
    if directed:
        return src, dst
    return np.minimum(src, dst), np.maximum(src, dst)


def validate_data(data: Data) -> None:
    """Raise :class:`RewireError` unless ``data`` is a graph every method can read.

    Checks: at least one node, an integer ``edge_index`` of shape ``[2, E]`` with
    indices in range, a 1-d finite ``edge_weight`` of length ``E`` if present and
    finite node features if present.
    """
    if not isinstance(data, Data):
        raise RewireError(
            f"expected a torch_geometric.data.Data, got {type(data).__name__}; "
            "wrap your graph as Data(x=..., edge_index=...)."
        )
    num_nodes = data.num_nodes
    if not num_nodes:
        raise RewireError("the graph is empty (0 nodes); pass a graph with at least one node.")
    edge_index = data.edge_index
    if edge_index is None:
        raise RewireError(
            "data.edge_index is missing; set it to a [2, num_edges] int64 tensor "
            "(use an empty torch.zeros(2, 0, dtype=torch.long) for no edges)."
        )
    if not isinstance(edge_index, Tensor) or edge_index.dim() != 2 or edge_index.size(0) != 2:
        shape = (
            tuple(edge_index.shape) if isinstance(edge_index, Tensor) else type(edge_index).__name__
        )
        raise RewireError(
            f"data.edge_index must have shape [2, num_edges], got {shape}; "
            "transpose an [E, 2] edge list with .t().contiguous()."
        )
    if edge_index.dtype.is_floating_point or edge_index.dtype == torch.bool:
        raise RewireError(f"data.edge_index has dtype {edge_index.dtype}; convert it with .long().")
    if edge_index.numel() and (int(edge_index.min()) < 0 or int(edge_index.max()) >= num_nodes):
        raise RewireError(
            f"data.edge_index holds node ids outside [0, {num_nodes - 1}] "
            f"(min {int(edge_index.min())}, max {int(edge_index.max())}); "
            "fix the ids or set data.num_nodes to the true node count."
        )
    weight = data.edge_weight if "edge_weight" in data else None
    if weight is not None:
        if weight.dim() != 1 or weight.numel() != edge_index.size(1):
            raise RewireError(
                f"data.edge_weight must be 1-d with one value per edge "
                f"({edge_index.size(1)}), got shape {tuple(weight.shape)}."
            )
        if not _all_finite(weight):
            raise RewireError("data.edge_weight contains NaN or inf; clean the weights first.")
    x = data.x if "x" in data else None
    if x is not None and x.is_floating_point() and not _all_finite(x):
        raise RewireError(
            "data.x contains NaN or inf; impute or drop them first "
            "(e.g. data.x = torch.nan_to_num(data.x))."
        )


def _all_finite(values: Tensor) -> bool:
    """No NaN or inf in ``values``. A finite sum proves it (NaN and inf propagate through
    sums) at a fraction of the entrywise check's cost, which runs only if the sum is not
    finite (it may overflow)."""
    return bool(torch.isfinite(values.sum())) or bool(torch.isfinite(values).all())


def edge_set(data: Data, directed: bool | None = None) -> EdgeSet:
    """Read ``data`` into a coalesced :class:`EdgeSet`.

    Duplicate edges are merged (weights of duplicates are summed, as
    ``torch_geometric.utils.coalesce`` does; an unweighted duplicate counts once).
    ``directed=None`` detects it: the graph is undirected when every edge ``(u, v)`` has
    its reverse ``(v, u)`` with the same weight. Edges already sorted and unique, the usual
    case, are read without sorting.
    """
    n = data.num_nodes
    row, col = data.edge_index.cpu().numpy().astype(np.int64, copy=False)
    weight = data.edge_weight if "edge_weight" in data else None
    weighted = weight is not None
    values = (
        weight.detach().cpu().double().numpy()
        if weight is not None
        else np.ones(row.size, dtype=np.float64)
    )
    keys = row * n + col
    if keys.size > 1 and not np.all(keys[1:] > keys[:-1]):
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
        first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        values = np.add.reduceat(values, first) if weighted else values[first]
        keys = keys[first]
    row, col = keys // n, keys % n
    upper, lower = row < col, row > col
    if directed is None:
        directed = not _mirrored(
            keys[upper], values[upper], col[lower] * n + row[lower], values[lower]
        )
    keep = ~(row == col) if directed else upper  # keys are sorted: so is every subset
    loops = row == col
    return EdgeSet(
        num_nodes=n,
        src=row[keep],
        dst=col[keep],
        weight=values[keep] if weighted else None,
        self_loops=row[loops],
        self_loop_weight=values[loops] if weighted else None,
        directed=directed,
    )


def _mirrored(
    upper_keys: np.ndarray,
    upper_values: np.ndarray,
    lower_reversed: np.ndarray,
    lower_values: np.ndarray,
) -> bool:
    """Whether the edges below the diagonal, reversed, are those above it with equal values
    (``upper_keys`` sorted, ``lower_reversed`` the keys of the reversed lower edges)."""
    if upper_keys.size != lower_reversed.size:
        return False
    order = np.argsort(lower_reversed)
    return np.array_equal(lower_reversed[order], upper_keys) and np.array_equal(
        lower_values[order], upper_values
    )


def apply_edits(
    edges: EdgeSet,
    remove: np.ndarray,
    add_src: np.ndarray,
    add_dst: np.ndarray,
    add_weight: float | np.ndarray = 1.0,
) -> EdgeSet:
    """Return ``edges`` with the pairs at positions ``remove`` deleted and new pairs added.

    ``remove`` indexes ``edges.src``; added pairs must be canonical and absent.
    """
    keep = np.ones(edges.num_pairs, dtype=bool)
    keep[remove] = False
    src = np.concatenate([edges.src[keep], add_src.astype(np.int64)])
    dst = np.concatenate([edges.dst[keep], add_dst.astype(np.int64)])
    weight = None
    if edges.weight is not None:
        new_w = np.broadcast_to(np.asarray(add_weight, dtype=edges.weight.dtype), add_src.shape)
        weight = np.concatenate([edges.weight[keep], new_w])
    order = np.argsort(pair_keys(src, dst, edges.num_nodes))
    return EdgeSet(
        edges.num_nodes,
        src[order],
        dst[order],
        None if weight is None else weight[order],
        edges.self_loops,
        edges.self_loop_weight,
        edges.directed,
    )


def to_edge_index(edges: EdgeSet) -> tuple[Tensor, Tensor | None]:
    """Back to a sorted int64 ``edge_index`` (both directions if undirected) and weights."""
    if edges.directed:
        src = np.concatenate([edges.src, edges.self_loops])
        dst = np.concatenate([edges.dst, edges.self_loops])
        slot_pair = np.argsort(pair_keys(src, dst, edges.num_nodes))  # keys are unique
        src, dst = src[slot_pair], dst[slot_pair]
    else:
        indptr, dst, slot_pair = symmetric_csr(edges)
        src = np.repeat(np.arange(edges.num_nodes), np.diff(indptr))
    edge_index = torch.from_numpy(np.stack([src, dst]).astype(np.int64, copy=False))
    if edges.weight is None:
        return edge_index, None
    weight = np.concatenate([edges.weight, edges.self_loop_weight])[slot_pair]
    return edge_index, torch.from_numpy(weight.astype(np.float32))


def symmetric_csr(edges: EdgeSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both directions of an undirected edge set as CSR rows with ascending columns.

    Returns:
        ``(indptr, columns, slot_pair)``: row ``i`` holds ``columns[indptr[i]:indptr[i+1]]``;
        ``slot_pair`` maps each entry to its pair (``< num_pairs``) or, from
        ``num_pairs`` on, to its self-loop.
    """
    return _symmetric_csr(edges.num_nodes, edges.src, edges.dst, edges.self_loops)


@numba.njit(cache=True)
def _symmetric_csr(
    n: int, src: np.ndarray, dst: np.ndarray, loops: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    # counting sort of canonical pairs sorted by (src, dst): a row's lower neighbours come
    # first (pairs ending there, ascending in src), then its loop, then its upper neighbours
    degree = np.zeros(n + 1, dtype=np.int64)  # degree[v + 1]: slots of row v
    for i in range(src.size):
        degree[src[i] + 1] += 1
        degree[dst[i] + 1] += 1
    for node in loops:
        degree[node + 1] += 1
    indptr = np.cumsum(degree)
    fill = indptr[:-1].copy()
    columns = np.empty(indptr[-1], dtype=np.int64)
    slot_pair = np.empty(indptr[-1], dtype=np.int64)
    for i in range(src.size):
        columns[fill[dst[i]]], slot_pair[fill[dst[i]]] = src[i], i
        fill[dst[i]] += 1
    for j in range(loops.size):
        columns[fill[loops[j]]], slot_pair[fill[loops[j]]] = loops[j], src.size + j
        fill[loops[j]] += 1
    for i in range(src.size):
        columns[fill[src[i]]], slot_pair[fill[src[i]]] = dst[i], i
        fill[src[i]] += 1
    return indptr, columns, slot_pair
