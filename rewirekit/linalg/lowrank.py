"""Symmetric matrices stored as sparse plus low rank, ``S + Q M Qᵀ``.

Spectral rewirings update a sparse adjacency matrix by low-rank terms
(``A + Ṽ Λ Ṽᵀ − V Λ Vᵀ``). Kept as factors, such an iterate costs
``O(nnz + N q)`` memory instead of ``O(N²)``, multiplies blocks of vectors in
``O(nnz b + N q b)``, and yields any block of its columns on demand.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
import torch
from numpy.typing import DTypeLike
from scipy.sparse.linalg import LinearOperator

from rewirekit.linalg.threads import blas_thread_count, blas_threads


class SparsePlusLowRank:
    """The symmetric ``N×N`` matrix ``S + Q M Qᵀ``.

    ``S`` is a symmetric scipy sparse matrix, ``Q`` an ``N×q`` matrix with orthonormal
    columns and ``M`` a symmetric ``q×q`` matrix. :meth:`add` folds a further low-rank term
    ``Y C Yᵀ`` into ``Q`` and ``M``, extending ``Q`` only by the directions of ``Y`` that
    it does not already span, so ``q`` is the rank of all updates together.

    Args:
        sparse: the symmetric sparse part ``S`` (converted to float64 CSR).
    """

    def __init__(self, sparse: sp.spmatrix) -> None:
        self.sparse = sp.csr_matrix(sparse, dtype=np.float64, copy=True)
        self.sparse.sum_duplicates()  # canonical: at most one stored entry per position
        n = self.sparse.shape[0]
        self.basis: np.ndarray = np.zeros((n, 0))
        self.core: np.ndarray = np.zeros((0, 0))

    @property
    def shape(self) -> tuple[int, int]:
        return self.sparse.shape

    @property
    def rank(self) -> int:
        """``q``, the number of columns of ``Q``."""
        return self.basis.shape[1]

    def matmat(self, x: np.ndarray) -> np.ndarray:
        """``(S + Q M Qᵀ) x`` for a vector or a block of column vectors ``x``."""
        out = self.sparse @ x
        if self.rank:
            out += self.basis @ (self.core @ (self.basis.T @ x))
        return out

    def operator(
        self, dtype: DTypeLike = np.float64, low_rank_threads: int | None = None
    ) -> LinearOperator:
        """This matrix as a float64 scipy ``LinearOperator`` (for ``eigsh``) whose products
        are computed in ``dtype``: ``float32`` halves the memory traffic of the low-rank
        part (the bottleneck of Lanczos iterations) at a relative error of about ``1e-7``.

        The low-rank products run on ``low_rank_threads`` BLAS threads (default: as many as
        BLAS uses when the operator is made), also inside ARPACK's one-thread limit: they
        stream the ``N×q`` factor, which more cores read faster (at N = 169,343 and
        q = 768 in float32, a Lanczos step takes 46.6 ms with them on two threads against
        55.0 ms on one; ``benchmarks/lowrank_threads.py``).
        """
        threads = blas_thread_count() if low_rank_threads is None else low_rank_threads
        sparse, basis, core = self.sparse, self.basis, self.core
        if dtype != np.float64:
            sparse, basis, core = sparse.astype(dtype), basis.astype(dtype), core.astype(dtype)

        def matmat(x: np.ndarray) -> np.ndarray:
            x = x.astype(dtype, copy=False)
            out = sparse @ x
            if basis.shape[1]:
                with blas_threads(threads):
                    out += basis @ (core @ (basis.T @ x))
            return out.astype(np.float64, copy=False)

        return LinearOperator(
            self.shape,
            matvec=matmat,
            matmat=matmat,
            rmatvec=matmat,
            rmatmat=matmat,
            dtype=np.float64,
        )

    def block_product(self, dtype: DTypeLike = np.float32) -> Callable[[np.ndarray], np.ndarray]:
        """``X ↦ (S + Q M Qᵀ) X`` for ``N × b`` blocks, in ``dtype`` from input to output (for
        block solvers; :meth:`operator` is ARPACK's float64 interface).

        The sparse part is a torch CSR product, which uses torch's threads: on two threads it
        is about twice as fast as scipy's for ``b = 128`` at N = 169,343. The low-rank part
        is two BLAS products with the factors, converted once.
        """
        with warnings.catch_warnings():  # torch flags sparse CSR tensors as beta
            warnings.simplefilter("ignore", UserWarning)
            sparse = torch.sparse_csr_tensor(
                torch.from_numpy(self.sparse.indptr.astype(np.int64)),
                torch.from_numpy(self.sparse.indices.astype(np.int64)),
                torch.from_numpy(self.sparse.data.astype(dtype)),
                self.shape,
            )
        basis, core = self.basis.astype(dtype), self.core.astype(dtype)

        def product(x: np.ndarray) -> np.ndarray:
            x = np.ascontiguousarray(x, dtype=dtype)
            out = (sparse @ torch.from_numpy(x)).numpy()
            if basis.shape[1]:
                out += basis @ (core @ (basis.T @ x))
            return out

        return product

    def add(self, factors: np.ndarray, core: np.ndarray, rtol: float = 1e-12) -> None:
        """Add ``Y C Yᵀ`` (``Y = factors``, ``N×p``; ``C = core``, symmetric ``p×p``).

        ``Y`` is split into its part in the span of ``Q`` and the rest (two passes of
        block Gram–Schmidt); the rest's directions with singular value above
        ``rtol · max(1, ‖Y‖₂)`` extend ``Q``. The dropped part has norm at most that bound.
        """
        coef = self.basis.T @ factors
        rest = factors - self.basis @ coef
        again = self.basis.T @ rest
        rest -= self.basis @ again
        coef += again
        left, svals, right = np.linalg.svd(rest, full_matrices=False)
        scale = max(1.0, float(np.linalg.norm(factors, 2))) if factors.size else 1.0
        keep = svals > rtol * scale
        coef = np.vstack([coef, svals[keep, None] * right[keep]])
        q = self.rank
        core_new = np.zeros((coef.shape[0],) * 2)
        core_new[:q, :q] = self.core
        core_new += coef @ core @ coef.T
        self.core = 0.5 * (core_new + core_new.T)
        self.basis = np.hstack([self.basis, left[:, keep]])

    def row_reader(self, dtype: DTypeLike = np.float64) -> Callable[[int, int], np.ndarray]:
        """A function ``(start, stop) -> rows`` returning rows ``start .. stop - 1`` (equal
        to the columns) as a dense array, the low-rank part computed in ``dtype``.

        ``float32`` halves the cost of reading all ``N`` rows (``2 N² q`` flops) at a
        relative rounding error of about ``1e-7``; the factors are converted once. Each
        block is the product of the factors, with the sparse rows added in place.
        """
        left = (self.basis @ self.core).astype(dtype)
        right = np.ascontiguousarray(self.basis.T, dtype=dtype)
        n = self.shape[0]

        def read(start: int, stop: int) -> np.ndarray:
            block = left[start:stop] @ right if self.rank else np.zeros((stop - start, n), dtype)
            sparse = self.sparse[start:stop]
            local = np.repeat(np.arange(stop - start), np.diff(sparse.indptr))
            block[local, sparse.indices] += sparse.data.astype(dtype)
            return block

        return read
