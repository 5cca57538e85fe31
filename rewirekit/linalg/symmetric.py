"""Dense symmetric matrices kept by their upper triangle, updated with BLAS ``syrk``.

A symmetric rank-``k`` product ``B Bᵀ`` costs ``N² k`` multiply-adds with ``syrk``, which
computes one triangle, against ``2 N² k`` for the general product ``B Cᵀ``. A row-major
``N×N`` matrix is LAPACK's column-major view of its transpose, so the *upper* triangle of
the row-major matrix is the *lower* triangle LAPACK's ``syrk`` writes and ``syevd`` reads
(:func:`rewirekit.linalg.dense_eigh`): a matrix can be updated and decomposed repeatedly
with its lower triangle never written, and made whole once at the end with
:func:`fill_lower_triangle`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg.blas
import torch


def symmetric_rank_update(
    matrix: torch.Tensor, columns: torch.Tensor, weights: torch.Tensor, beta: float
) -> None:
    r"""``M ← β M + B diag(w) Bᵀ`` on the upper triangle of the row-major ``matrix``, in place.

    ``B`` is ``columns`` (``N×k``) and ``w`` is ``weights`` (``k``, any signs): the product
    runs as two ``syrk`` calls, ``+B₊B₊ᵀ`` and ``−B₋B₋ᵀ`` with
    :math:`B_\pm = B_{:,\pm w>0}\,\mathrm{diag}\sqrt{|w|}`. The strict lower triangle of
    ``matrix`` is left as it was (see :func:`fill_lower_triangle`).
    """
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or not matrix.is_contiguous():
        raise ValueError(f"need a square row-major matrix, got shape {tuple(matrix.shape)}")
    target = matrix.numpy().T  # column-major view: its lower triangle is matrix's upper one
    rows, w = columns.numpy().T, weights.numpy()  # rows: contiguous for column-major columns
    syrk = scipy.linalg.blas.get_blas_funcs("syrk", (target,))
    for sign in (1.0, -1.0):
        chosen = np.flatnonzero(sign * w > 0)
        if not chosen.size:
            continue
        scaled = np.take(rows, chosen, axis=0)  # one copy, row-major: its .T is column-major
        scaled *= np.sqrt(sign * w[chosen]).astype(scaled.dtype)[:, None]
        syrk(sign, scaled.T, beta=beta, c=target, trans=0, lower=1, overwrite_c=1)
        beta = 1.0
    if beta != 1.0:  # no column had a non-zero weight
        matrix.mul_(beta)


def fill_lower_triangle(matrix: torch.Tensor, tile: int = 512) -> None:
    """Copy the upper triangle of a square ``matrix`` onto its lower one, in place, tile by
    tile so that reading the transpose stays in cache."""
    n = matrix.shape[0]
    for i in range(0, n, tile):
        diagonal = matrix[i : i + tile, i : i + tile]
        diagonal.copy_(torch.triu(diagonal) + torch.triu(diagonal, 1).T)
        for j in range(i + tile, n, tile):
            matrix[j : j + tile, i : i + tile] = matrix[i : i + tile, j : j + tile].T
