"""Cosine similarity of node features, and the most similar node pairs, block by block.

Similarity-guided rewiring (FeaSt, ComFy) needs the ``k`` most similar *non-adjacent*
node pairs among a set of candidate pairs. The full ``N × N`` similarity matrix is
never formed: rows are processed in blocks of at most :data:`BLOCK_ENTRIES` entries
(:data:`SPARSE_BLOCK_ENTRIES` for sparse features), existing edges are masked in each
block, self-pairs and pairs below the diagonal are dropped from its candidates, and a
running top-``k`` is kept.
Memory is ``O(block + k)`` whatever ``N``.

Conventions:

* Cosine similarity of rows ``x_u, x_v`` is ``x_u·x_v / (‖x_u‖ ‖x_v‖)``; a row of norm 0
  has similarity 0 with every node (including itself).
* Similarities are computed in float32 (the dtype the reference implementations use).
* Ties in similarity are broken by the canonical pair key ``min(u, v)·N + max(u, v)``,
  smallest first, so results do not depend on the block size.
* Sparse features (at most :data:`SPARSE_BELOW_DENSITY` of the entries non-zero, e.g.
  bag-of-words) are kept as a CSR matrix by :func:`normalized_rows`, and every product
  ``X_rows X_colsᵀ`` is then a sparse-times-dense product costing ``O(nnz(X_rows)·|cols|)``
  instead of ``O(|rows|·|cols|·F)``. Both paths compute the same float32 values up to
  rounding (the order of the float32 sums differs), with the same tie-breaking.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import scipy.sparse as sp
import torch

#: Entries of one block of the similarity matrix (float32: 32 MiB; a few temporaries exist).
BLOCK_ENTRIES = 8 * 2**20
#: The same for sparse features: smaller blocks stay in cache during the sparse product,
#: skip more of the lower triangle and tighten the running top-k threshold sooner.
SPARSE_BLOCK_ENTRIES = 2**20
#: Feature matrices with at most this fraction of non-zero entries take the sparse path.
#: A sparse-times-dense product runs at a few percent of the speed of a dense one per
#: multiply-add, so below about 3 % non-zeros it is the faster one.
SPARSE_BELOW_DENSITY = 0.03

#: Unit feature rows: a dense float32 array or a float32 CSR matrix.
UnitRows: TypeAlias = "np.ndarray | sp.csr_array"


def normalized_rows(x: torch.Tensor | np.ndarray, sparse: bool | None = None) -> UnitRows:
    """Rows scaled to unit Euclidean norm (float32); rows of norm 0 stay 0.

    Norms are computed in float64. ``sparse=None`` picks the representation by density:
    a CSR matrix if at most :data:`SPARSE_BELOW_DENSITY` of the entries are non-zero,
    else a dense array (computed a block of rows at a time, no float64 copy of ``x``).
    """
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    x = np.asarray(x).reshape(x.shape[0], -1)
    if sparse is None:
        sparse = bool(np.count_nonzero(x != 0) <= SPARSE_BELOW_DENSITY * x.size)
    return _normalized_sparse(x) if sparse else _normalized_dense(x)


def _normalized_dense(x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=np.float32)
    step = max(1, BLOCK_ENTRIES // max(x.shape[1], 1))
    for start in range(0, x.shape[0], step):
        block = x[start : start + step].astype(np.float64)
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        out[start : start + step] = block / np.where(norms > 0, norms, 1.0)
    return out


def _normalized_sparse(x: np.ndarray) -> sp.csr_array:
    """CSR of ``x`` with its non-zero entries divided by their row's float64 norm."""
    n, f = x.shape
    flat = np.flatnonzero(x != 0)  # row-major: column indices sorted inside each row
    row, col = flat // f, flat % f
    values = x.ravel()[flat].astype(np.float64)
    norms = np.sqrt(np.bincount(row, weights=values * values, minlength=n))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=n))])
    return sp.csr_array(((values / norms[row]).astype(np.float32), col, indptr), shape=x.shape)


def pair_similarity(xn: UnitRows, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Cosine similarity of the pairs ``(src[i], dst[i])`` given unit rows ``xn`` (float32).

    Computed in chunks, so memory stays ``O(chunk · F)`` (dense) or ``O(chunk · nnz/N)``
    (sparse: the rows of a pair are multiplied entrywise and summed).
    """
    out = np.empty(src.size, dtype=np.float32)
    row_width = xn.shape[1] if isinstance(xn, np.ndarray) else xn.nnz / max(xn.shape[0], 1)
    chunk = max(1, int(BLOCK_ENTRIES // max(row_width, 1)))
    for start in range(0, src.size, chunk):
        s, d = src[start : start + chunk], dst[start : start + chunk]
        if isinstance(xn, np.ndarray):
            out[start : start + chunk] = np.einsum("ij,ij->i", xn[s], xn[d])
        else:
            out[start : start + chunk] = xn[s].multiply(xn[d]).sum(axis=1)
    return out


def top_similar_pairs(
    xn: UnitRows,
    rows: np.ndarray,
    cols: np.ndarray,
    count: int,
    *,
    above: float = -np.inf,
    exclude_row: np.ndarray | None = None,
    exclude_col: np.ndarray | None = None,
    triangle: bool = False,
    block_entries: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``count`` most similar pairs ``(rows[p], cols[q])`` with similarity ``> above``.

    The candidate pairs are the entries of the ``len(rows) × len(cols)`` similarity block
    ``S[p, q] = sim(rows[p], cols[q])``, minus the excluded positions. Rows are processed
    in blocks of about ``block_entries`` entries; only the running best ``count`` survive,
    and once there are ``count`` of them, only entries that reach the worst of them are
    looked at in later blocks.

    Args:
        xn: unit feature rows (see :func:`normalized_rows`), float32, ``N × F``, dense or CSR.
        rows, cols: node ids (int64). With ``triangle=True`` they must be the same sorted
            array and only ``q > p`` is a candidate (each unordered pair once, no self-pair).
            Otherwise they must be disjoint sets.
        count: number of pairs wanted (fewer are returned if fewer qualify).
        above: strict lower bound on the similarity of a returned pair.
        exclude_row, exclude_col: positions ``(p, q)`` that are not candidates (e.g. edges).
        triangle: see ``rows, cols``.
        block_entries: entries per block; default :data:`BLOCK_ENTRIES` (dense ``xn``) or
            :data:`SPARSE_BLOCK_ENTRIES` (sparse ``xn``); tests use small blocks.

    Returns:
        ``(u, v, sim)``: canonical pairs (``u < v``) and their similarity, ordered by
        similarity descending, ties by ``(u, v)`` ascending.
    """
    n_nodes = xn.shape[0]
    best_key = np.zeros(0, dtype=np.int64)
    best_sim = np.zeros(0, dtype=np.float32)
    if count <= 0 or rows.size == 0 or cols.size == 0:
        return _split(best_key, best_sim, n_nodes)
    if (exclude_row is None) != (exclude_col is None):
        raise ValueError("exclude_row and exclude_col are given together or not at all")
    if exclude_row is None or exclude_col is None:
        exclude_row = exclude_col = np.zeros(0, dtype=np.int64)
    ex_order = np.argsort(exclude_row, kind="stable")
    ex_row, ex_col = exclude_row[ex_order], exclude_col[ex_order]
    if block_entries is None:
        block_entries = BLOCK_ENTRIES if isinstance(xn, np.ndarray) else SPARSE_BLOCK_ENTRIES
    step = max(1, block_entries // cols.size)
    col_feats = _column_features(xn, cols)
    for start in range(0, rows.size, step):
        stop = min(start + step, rows.size)
        first_col = start + 1 if triangle else 0  # columns left of the diagonal never count
        if first_col >= cols.size:
            break
        block = _similarity_block(xn, rows[start:stop], col_feats, first_col)
        lo, hi = np.searchsorted(ex_row, [start, stop])
        if hi > lo:
            qcol = ex_col[lo:hi] - first_col
            ok = qcol >= 0
            block[ex_row[lo:hi][ok] - start, qcol[ok]] = -np.inf
        floor = block > above
        if best_sim.size == count:  # full: only values that reach the current count-th count
            floor &= block >= best_sim[-1]
        p, q = np.divmod(np.flatnonzero(floor), floor.shape[1])
        if triangle:  # inside the block, only q > p (positions in rows / cols) counts
            keep = q + first_col > p + start
            p, q = p[keep], q[keep]
        if p.size == 0:
            continue
        values = block[p, q]
        if p.size > count:  # keep everything tied with the count-th largest value
            kth = np.partition(values, p.size - count)[p.size - count]
            keep = values >= kth
            p, q, values = p[keep], q[keep], values[keep]
        u, v = rows[start + p], cols[first_col + q]
        keys = np.minimum(u, v) * n_nodes + np.maximum(u, v)
        best_key = np.concatenate([best_key, keys])
        best_sim = np.concatenate([best_sim, values])
        order = np.lexsort((best_key, -best_sim))[:count]
        best_key, best_sim = best_key[order], best_sim[order]
    return _split(best_key, best_sim, n_nodes)


def _column_features(xn: UnitRows, cols: np.ndarray) -> np.ndarray:
    """The unit rows of ``cols``, as the right factor of a block product: ``xn[cols]``
    (``|cols| × F``) when dense, its transpose as a dense C-ordered ``F × |cols|`` array
    when sparse (the layout a sparse-times-dense product streams through)."""
    all_nodes = cols.size == xn.shape[0] and cols[0] == 0 and cols[-1] == xn.shape[0] - 1
    if isinstance(xn, np.ndarray):
        return xn if all_nodes else xn[cols]  # sorted distinct ids: all_nodes means arange
    part = (xn if all_nodes else xn[cols]).tocoo()
    out = np.zeros((xn.shape[1], cols.size), dtype=np.float32)
    out[part.col, part.row] = part.data
    return out


def _similarity_block(
    xn: UnitRows, row_ids: np.ndarray, col_feats: np.ndarray, first_col: int
) -> np.ndarray:
    """``S[p, q] = x_{row_ids[p]} · x_{cols[first_col + q]}`` (see :func:`_column_features`).

    Sparse rows: the product over all columns and a view of the last ones, unless the
    dropped columns would cost more multiply-adds (``nnz · first_col``) than copying the
    kept part of ``col_feats`` (``F · kept``), which the product needs contiguous.
    """
    if isinstance(xn, np.ndarray):
        return xn[row_ids] @ col_feats[first_col:].T
    part = xn[row_ids]
    kept = col_feats.shape[1] - first_col
    if part.nnz * first_col > col_feats.shape[0] * kept:
        return part @ col_feats[:, first_col:]
    return (part @ col_feats)[:, first_col:]


def _split(keys: np.ndarray, sims: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return keys // max(n, 1), keys % max(n, 1), sims


__all__ = [
    "normalized_rows",
    "pair_similarity",
    "top_similar_pairs",
    "BLOCK_ENTRIES",
    "SPARSE_BLOCK_ENTRIES",
    "SPARSE_BELOW_DENSITY",
]
