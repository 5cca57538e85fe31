"""Per-column top-k selection of large dense matrices, computed block by block.

A rewiring that keeps "the k largest entries of each column" of a dense N×N score
matrix only ever needs one block of columns at a time. The functions here take the
columns as rows of a ``(b, N)`` block (row ``r`` of the block is column ``start + r``
of the matrix), so each selection runs over contiguous memory, and a block provider
can build the block on the fly (e.g. from a sparse-plus-low-rank factorisation)
without the N×N matrix ever existing.

Ties are broken deterministically: among equal values at the cut-off, the lowest
row indices are kept.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

#: Memory budget of one block of columns, in bytes (a few temporaries of this size exist).
BLOCK_BYTES = 256 * 2**20


def select_block(
    block: np.ndarray,
    start: int,
    *,
    top_k: int = 0,
    threshold: float | None = None,
    skip_diagonal: bool = False,
    positive: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Select entries of the columns ``start .. start + b - 1`` given as the rows of ``block``.

    Keeps, in each column, the ``top_k`` largest entries (``top_k > 0``) or every entry
    ``>= threshold`` (``top_k == 0``). Exact zeros are never kept (they are not edges).

    Args:
        block: ``(b, N)`` array; ``block[r, i]`` is the matrix entry ``(i, start + r)``.
            It is modified in place.
        start: index of the column held by ``block[0]``.
        top_k: number of entries to keep per column; ``0`` selects by ``threshold``.
        threshold: lower bound used when ``top_k == 0``.
        skip_diagonal: never keep the diagonal entry ``(start + r, start + r)``.
        positive: consider only strictly positive entries.

    Returns:
        ``(rows, cols, values)``: matrix row index ``i``, column index ``j`` and value of
        every kept entry.
    """
    b, n = block.shape
    if skip_diagonal:
        local = np.arange(b)
        block[local, start + local] = -np.inf
    if 0 < top_k < n:
        r, i = _top_k_entries(block, top_k)
    else:
        if top_k == 0 and threshold is None:
            raise ValueError("select_block needs top_k > 0 or a threshold")
        r, i = np.nonzero(block >= threshold if top_k == 0 else np.isfinite(block))
    values = block[r, i]
    keep = np.isfinite(values) & ((values > 0) if positive else (values != 0))
    return i[keep], r[keep] + start, values[keep]


def _top_k_entries(block: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(r, i)``: the ``k`` largest entries of each row ``r`` of ``block``, by ascending ``i``
    within each row; ties at the cut keep the lowest indices.

    One ``torch.topk`` finds the candidates and one comparison pass finds the rows whose
    cut value is tied with entries left out; only those rows are resolved by index.
    """
    table = torch.from_numpy(block)
    values, index = torch.topk(table, k, dim=1, sorted=False)
    kth = values.min(dim=1, keepdim=True).values.numpy()
    tied = np.flatnonzero((block >= kth).sum(axis=1) > k)  # numpy's count: 8x torch's here
    for row in tied:  # rare: equal values straddle the cut
        above = np.flatnonzero(block[row] > kth[row])
        at_cut = np.flatnonzero(block[row] == kth[row])[: k - above.size]
        index[row] = torch.from_numpy(np.concatenate([above, at_cut]))
    chosen = index.sort(dim=1).values.numpy()
    return np.repeat(np.arange(block.shape[0]), k), chosen.ravel()


def blocked_select(
    columns: Callable[[int, int], np.ndarray], n: int, *, block_size: int | None = None, **select
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run :func:`select_block` over all ``n`` columns, ``block_size`` columns at a time.

    Args:
        columns: ``columns(start, stop)`` returns columns ``start .. stop - 1`` as the rows
            of a fresh ``(stop - start, n)`` float array.
        n: number of columns (and rows) of the matrix.
        block_size: columns per block; by default as many as fit in :data:`BLOCK_BYTES`.
        **select: keyword arguments of :func:`select_block`.

    Returns:
        ``(rows, cols, values)`` of all kept entries, ordered by column.
    """
    if block_size is None:
        block_size = max(1, min(n, BLOCK_BYTES // (8 * max(n, 1))))
    parts = [
        select_block(columns(start, min(start + block_size, n)), start, **select)
        for start in range(0, n, block_size)
    ]
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    rows, cols, values = (np.concatenate(p) for p in zip(*parts, strict=True))
    return rows.astype(np.int64), cols.astype(np.int64), values
