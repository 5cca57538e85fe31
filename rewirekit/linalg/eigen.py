"""Truncated eigen- and singular-value decompositions (ARPACK through scipy, block Krylov).

Dense ``eigh``/``svd`` cost ``O(N³)`` whatever the number of wanted vectors; when only
``k ≪ N`` extreme pairs are needed, ARPACK's Lanczos iteration costs about
``O(k)`` products with the matrix plus ``O(N k²)`` for orthogonalisation, and only
needs the matrix as an operator (e.g. :class:`~rewirekit.linalg.lowrank.SparsePlusLowRank`).
Starting vectors come from a seeded generator, so results are reproducible.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg
import torch
from scipy.sparse.linalg import LinearOperator, aslinearoperator, eigsh, svds

from rewirekit.linalg.threads import single_threaded_blas

#: Relative accuracy asked of ARPACK (residual ``‖A v − λ v‖ ≤ tol · |λ|``).
ARPACK_TOL = 1e-10

#: Dense SVD is used when at least this fraction of the singular triplets is wanted.
DENSE_SVD_FRACTION = 0.05


def dense_eigh(matrix: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """All eigenpairs of a dense symmetric matrix, ascending, in its dtype.

    LAPACK's divide-and-conquer ``syevd`` through scipy: on the CPUs we measured it is
    about 1.4× faster than ``torch.linalg.eigh`` (the same algorithm in torch's MKL
    build), with equal results up to rounding. A row-major matrix is passed as its
    transpose, the same symmetric matrix in LAPACK's column-major order, which saves the
    transposing copy the call would otherwise make: LAPACK reads the lower triangle of
    that view, i.e. only the *upper* triangle of a row-major matrix (which
    :mod:`rewirekit.linalg.symmetric` relies on).
    """
    array = matrix.numpy()
    if array.flags.c_contiguous:
        array = array.T
    lam, vectors = scipy.linalg.eigh(array, driver="evd", check_finite=False)
    return torch.from_numpy(lam), torch.from_numpy(vectors)


def dense_svd(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Thin SVD ``(u, s, vh)`` of a dense matrix, descending, in its dtype: LAPACK's
    ``gesdd`` through scipy (about 1.3× faster than ``torch.linalg.svd`` here)."""
    u, s, vh = scipy.linalg.svd(
        x.numpy(), full_matrices=False, check_finite=False, lapack_driver="gesdd"
    )
    return torch.from_numpy(u), torch.from_numpy(s), torch.from_numpy(vh)


def extreme_eigenpairs(
    operator: LinearOperator,
    n_low: int,
    n_high: int,
    rng: np.random.Generator,
    tol: float = ARPACK_TOL,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_low`` smallest and ``n_high`` largest eigenpairs of a symmetric operator.

    Returns:
        ``(values, vectors)``: the ``n_low`` smallest eigenvalues in ascending order
        followed by the ``n_high`` largest in ascending order, and the matching
        eigenvectors as columns of an ``N × (n_low + n_high)`` array.
    """
    n = operator.shape[0]
    values: list[np.ndarray] = [np.zeros(0)]
    vectors: list[np.ndarray] = [np.zeros((n, 0))]
    for count, which in ((n_low, "SA"), (n_high, "LA")):
        if count:
            w, v = _eigsh(operator, count, which, rng.standard_normal(n), tol)
            order = np.argsort(w, kind="stable")
            values.append(w[order])
            vectors.append(v[:, order])
    return np.concatenate(values), np.hstack(vectors)


def largest_magnitude_eigenpairs(
    operator: LinearOperator, count: int, rng: np.random.Generator, tol: float = ARPACK_TOL
) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` eigenpairs of largest ``|λ|``, ordered by ``(|λ|, λ)`` ascending."""
    w, v = _eigsh(operator, count, "LM", rng.standard_normal(operator.shape[0]), tol)
    order = np.lexsort((w, np.abs(w)))
    return w[order], v[:, order]


def largest_eigenpair(
    operator: LinearOperator, start: np.ndarray, tol: float = ARPACK_TOL
) -> tuple[float, np.ndarray]:
    """The algebraically largest eigenpair of a symmetric operator, by ARPACK from ``start``.

    A warm start (the solution for a slightly different operator, as in greedy rewiring)
    cuts the Lanczos iterations; ``start`` must not be orthogonal to the wanted vector.
    """
    w, v = _eigsh(operator, 1, "LA", start, tol)
    return float(w[0]), v[:, 0]


def _eigsh(
    operator: LinearOperator, count: int, which: str, start: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """``scipy.sparse.linalg.eigsh`` from ``start``. ARPACK cannot start on the zero
    matrix (it maps every start to 0); its eigenpairs are 0 and the first unit vectors."""
    n = operator.shape[0]
    if not np.any(aslinearoperator(operator).matvec(start)):
        return np.zeros(count), np.eye(n, count)
    with single_threaded_blas():
        return eigsh(operator, k=count, which=which, v0=start, tol=tol)


def block_krylov_ritz_pairs(
    matmat: Callable[[np.ndarray], np.ndarray],
    start: np.ndarray,
    passes: int,
    select: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    r"""Approximate eigenpairs of a symmetric operator from a block Krylov space.

    Randomized block Krylov iteration (Musco and Musco, "Randomized Block Krylov Methods for
    Stronger and Faster Approximate Singular Value Decomposition", NeurIPS 2015) for a
    symmetric :math:`\tilde A`. An orthonormal basis :math:`K` of
    :math:`\mathrm{span}[X, \tilde A X, \dots, \tilde A^p X]` is built block by block, each
    block orthogonalised against all earlier ones. Rayleigh–Ritz then gives the pairs:
    :math:`K^\top \tilde A K = Y \Theta Y^\top`, Ritz vectors :math:`K Y`.

    The work is fixed: ``p + 1`` block products and ``O(N (p b)²)`` for the basis, whatever
    the spectrum. So is the accuracy it buys. Extreme, well-separated pairs are accurate;
    pairs inside a cluster of eigenvalues are not resolved. Unlike ARPACK, it does not
    iterate to a tolerance.

    Args:
        matmat: ``X ↦ Ã X`` for an ``N × b`` block.
        start: ``N × b`` starting block: random, or earlier Ritz vectors as a warm start.
            Its dtype is the working precision of the basis.
        passes: ``p``, the number of products beyond the first.
        select: maps the ascending Ritz values to the indices of the pairs to return.

    Returns:
        ``(values, vectors)`` of the selected pairs, in the order of ``select``'s indices.
    """
    n, width = start.shape
    dtype = start.dtype
    basis = np.empty((n, (passes + 1) * width), dtype)
    products = np.empty_like(basis)
    filled = 0
    block = _orthonormal_columns(start, basis[:, :0])
    for step in range(passes + 1):
        if not block.shape[1]:  # the space is invariant: nothing new to add
            break
        stop = filled + block.shape[1]
        basis[:, filled:stop] = block
        products[:, filled:stop] = matmat(block)
        filled = stop
        if step < passes:
            block = _orthonormal_columns(
                products[:, filled - block.shape[1] : filled], basis[:, :filled]
            )
    basis, products = basis[:, :filled], products[:, :filled]
    projected = (basis.T @ products).astype(np.float64)
    values, coefficients = np.linalg.eigh(0.5 * (projected + projected.T))
    chosen = np.asarray(select(values))
    return values[chosen], basis @ coefficients[:, chosen].astype(dtype)


def _orthonormal_columns(block: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the part of ``block`` orthogonal to the orthonormal ``basis``.

    Two rounds of block Gram–Schmidt, each followed by orthonormalisation through the Gram
    matrix's eigendecomposition. Directions below ``sqrt(eps)`` of the block's largest column
    norm are dropped, so a block already in the span yields no columns.
    """
    dtype = block.dtype
    largest = float(np.linalg.norm(block, axis=0).max(initial=0.0))
    floor = np.sqrt(np.finfo(dtype).eps) * max(largest, np.finfo(np.float64).tiny)
    for _ in range(2):
        if basis.shape[1]:
            block = block - basis @ (basis.T @ block)
        gram = (block.T @ block).astype(np.float64)
        values, vectors = np.linalg.eigh(0.5 * (gram + gram.T))
        keep = values > floor**2
        block = block @ (vectors[:, keep] / np.sqrt(values[keep])).astype(dtype)
        floor = np.sqrt(np.finfo(dtype).eps)
    return block


def top_singular_triplets(
    x: torch.Tensor, count: int, rng: np.random.Generator, tol: float = ARPACK_TOL
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The ``count`` largest singular triplets of a dense matrix, in descending order.

    Uses a dense thin SVD when ``count`` is a sizeable fraction of ``min(x.shape)``
    (see :data:`DENSE_SVD_FRACTION`), ARPACK's ``svds`` otherwise.

    Returns:
        ``(u, s, vh)`` with ``u`` of shape ``N × count``, ``s`` of length ``count``
        and ``vh`` of shape ``count × F``, in the dtype of ``x`` (``count`` is capped at
        ``min(x.shape)``).
    """
    rank_bound = min(x.shape)
    count = min(count, rank_bound)
    if count >= DENSE_SVD_FRACTION * rank_bound or count >= rank_bound - 1 or not torch.any(x):
        u, s, vh = dense_svd(x)
        return u[:, :count], s[:count], vh[:count]
    matrix = x.numpy()
    with single_threaded_blas():
        u, s, vh = svds(matrix, k=count, v0=rng.standard_normal(rank_bound), tol=tol)
    order = np.argsort(-s, kind="stable")
    u, s, vh = (
        torch.from_numpy(np.ascontiguousarray(a)).to(x.dtype)
        for a in (u[:, order], s[order], vh[order])
    )
    return u, s, vh
