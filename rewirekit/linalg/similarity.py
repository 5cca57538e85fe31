"""Cosine similarity of node features, and the most similar node pairs, block by block.

Similarity-guided rewiring (FeaSt, ComFy) needs the ``k`` most similar *non-adjacent*
node pairs among a set of candidate pairs. The full ``N × N`` similarity matrix is
never formed: rows are processed in blocks of at most :data:`BLOCK_ENTRIES` entries,
existing edges and self-pairs are masked in each block, and a running top-``k`` is kept.
Memory is ``O(block + k)`` whatever ``N``.

Conventions:

* Cosine similarity of rows ``x_u, x_v`` is ``x_u·x_v / (‖x_u‖ ‖x_v‖)``; a row of norm 0
  has similarity 0 with every node (including itself).
* Similarities are computed in float32 (the dtype the reference implementations use).
* Ties in similarity are broken by the canonical pair key ``min(u, v)·N + max(u, v)``,
  smallest first, so results do not depend on the block size.
"""
from __future__ import annotations

import numpy as np
import torch

#: Entries of one block of the similarity matrix (float32: 32 MiB; a few temporaries exist).
BLOCK_ENTRIES = 8 * 2**20


def normalized_rows(x: torch.Tensor | np.ndarray) -> np.ndarray:
    """Rows scaled to unit Euclidean norm (float32); rows of norm 0 stay 0.

    Norms are computed in float64, a block of rows at a time (no float64 copy of ``x``).
    """
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    x = np.asarray(x).reshape(x.shape[0], -1)
    out = np.empty(x.shape, dtype=np.float32)
    step = max(1, BLOCK_ENTRIES // max(x.shape[1], 1))
    for start in range(0, x.shape[0], step):
        block = x[start:start + step].astype(np.float64)
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        out[start:start + step] = block / np.where(norms > 0, norms, 1.0)
    return out


def pair_similarity(xn: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Cosine similarity of the pairs ``(src[i], dst[i])`` given unit rows ``xn`` (float32).

    Computed in chunks, so memory stays ``O(chunk · F)``.
    """
    out = np.empty(src.size, dtype=np.float32)
    chunk = max(1, BLOCK_ENTRIES // max(xn.shape[1], 1))
    for start in range(0, src.size, chunk):
        s, d = src[start:start + chunk], dst[start:start + chunk]
        out[start:start + chunk] = np.einsum("ij,ij->i", xn[s], xn[d])
    return out


def top_similar_pairs(xn: np.ndarray, rows: np.ndarray, cols: np.ndarray, count: int, *,
                      above: float = -np.inf, exclude_row: np.ndarray | None = None,
                      exclude_col: np.ndarray | None = None, triangle: bool = False,
                      block_entries: int = BLOCK_ENTRIES
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``count`` most similar pairs ``(rows[p], cols[q])`` with similarity ``> above``.

    The candidate pairs are the entries of the ``len(rows) × len(cols)`` similarity block
    ``S[p, q] = sim(rows[p], cols[q])``, minus the excluded positions. Rows are processed
    in blocks of about ``block_entries`` entries; only the running best ``count`` survive,
    and once there are ``count`` of them, only entries that reach the worst of them are
    looked at in later blocks.

    Args:
        xn: unit feature rows (see :func:`normalized_rows`), float32, ``N × F``.
        rows, cols: node ids (int64). With ``triangle=True`` they must be the same sorted
            array and only ``q > p`` is a candidate (each unordered pair once, no self-pair).
            Otherwise they must be disjoint sets.
        count: number of pairs wanted (fewer are returned if fewer qualify).
        above: strict lower bound on the similarity of a returned pair.
        exclude_row, exclude_col: positions ``(p, q)`` that are not candidates (e.g. edges).
        triangle: see ``rows, cols``.
        block_entries: entries per block (tests use small blocks).

    Returns:
        ``(u, v, sim)``: canonical pairs (``u < v``) and their similarity, ordered by
        similarity descending, ties by ``(u, v)`` ascending.
    """
    n_nodes = xn.shape[0]
    best_key = np.zeros(0, dtype=np.int64)
    best_sim = np.zeros(0, dtype=np.float32)
    if count <= 0 or rows.size == 0 or cols.size == 0:
        return _split(best_key, best_sim, n_nodes)
    if exclude_row is None:
        exclude_row = exclude_col = np.zeros(0, dtype=np.int64)
    ex_order = np.argsort(exclude_row, kind="stable")
    ex_row, ex_col = exclude_row[ex_order], exclude_col[ex_order]
    step = max(1, block_entries // cols.size)
    all_nodes = cols.size == n_nodes and cols[0] == 0 and cols[-1] == n_nodes - 1
    col_feats = xn if all_nodes else xn[cols]  # sorted distinct ids: all_nodes means arange
    for start in range(0, rows.size, step):
        stop = min(start + step, rows.size)
        first_col = start + 1 if triangle else 0  # columns left of the diagonal never count
        if first_col >= cols.size:
            break
        block = xn[rows[start:stop]] @ col_feats[first_col:].T
        if triangle:  # mask q <= p inside the block
            p = np.arange(start, stop)[:, None]
            q = np.arange(first_col, cols.size)[None, :]
            block[q <= p] = -np.inf
        lo, hi = np.searchsorted(ex_row, [start, stop])
        if hi > lo:
            qcol = ex_col[lo:hi] - first_col
            ok = qcol >= 0
            block[ex_row[lo:hi][ok] - start, qcol[ok]] = -np.inf
        flat = block.ravel()
        if best_sim.size == count:  # full: only values that reach the current count-th count
            hits = np.flatnonzero((flat > above) & (flat >= best_sim[-1]))
        else:
            hits = np.flatnonzero(flat > above)
        if hits.size == 0:
            continue
        values = flat[hits]
        if hits.size > count:  # keep everything tied with the count-th largest value
            kth = np.partition(values, hits.size - count)[hits.size - count]
            keep = values >= kth
            hits, values = hits[keep], values[keep]
        width = cols.size - first_col
        u = rows[start + hits // width]
        v = cols[first_col + hits % width]
        keys = np.minimum(u, v) * n_nodes + np.maximum(u, v)
        best_key = np.concatenate([best_key, keys])
        best_sim = np.concatenate([best_sim, values])
        order = np.lexsort((best_key, -best_sim))[:count]
        best_key, best_sim = best_key[order], best_sim[order]
    return _split(best_key, best_sim, n_nodes)


def _split(keys: np.ndarray, sims: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return keys // max(n, 1), keys % max(n, 1), sims


__all__ = ["normalized_rows", "pair_similarity", "top_similar_pairs", "BLOCK_ENTRIES"]
