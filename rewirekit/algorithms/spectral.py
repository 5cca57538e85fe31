"""The Fiedler pair of a graph's normalised Laplacian with self-loops (spectral gap)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import torch
from scipy.sparse.linalg import LinearOperator

from rewirekit.linalg import dense_eigh, largest_eigenpair

#: Graphs up to this many nodes use a dense symmetric eigensolver; larger ones ARPACK.
DENSE_EIGEN_BELOW = 400
#: ARPACK relative tolerance for the Fiedler pair.
EIGEN_TOL = 1e-10
#: Seed of ARPACK's starting vector when no warm start is given.
EIGEN_SEED = 0


def fiedler_pair(
    n: int, src: np.ndarray, dst: np.ndarray, v0: np.ndarray | None = None
) -> tuple[float, np.ndarray, np.ndarray]:
    """Second-smallest eigenpair of ``L = I − D^{-1/2}(A + I)D^{-1/2}`` (self-loops added,
    unweighted; ``D`` the degrees of ``A + I``).

    ``λ₁`` is the spectral gap that ProxyAdd/ProxyDelete (Jamadandi, Rubio-Madrigal,
    Burkholz, NeurIPS 2024) and FoSR (Karhadkar, Banerjee, Montúfar, ICLR 2023) act on;
    it is 0 exactly when the graph is disconnected (Chung, *Spectral Graph Theory*, 1997).

    Solved as the largest eigenpair of ``M = D^{-1/2}(A + I)D^{-1/2}`` with its known top
    eigenvector ``√d`` (eigenvalue 1) projected out: dense ``eigh``
    (:func:`rewirekit.linalg.dense_eigh`) below :data:`DENSE_EIGEN_BELOW` nodes, ARPACK
    (:func:`rewirekit.linalg.largest_eigenpair`) above, started from ``v0`` (a warm start)
    or from a vector seeded with :data:`EIGEN_SEED`.

    Args:
        n: number of nodes.
        src, dst: the undirected edges, each pair once, without self-loops.
        v0: optional ARPACK starting vector.

    Returns:
        ``(λ₁, f, d)``: the eigenvalue, a unit eigenvector and the degrees of ``A + I``.

    Example::

        >>> edges = edge_set(data)
        >>> gap, fiedler_vector, _ = fiedler_pair(edges.num_nodes, edges.src, edges.dst)
    """
    deg = (np.bincount(src, minlength=n) + np.bincount(dst, minlength=n) + 1).astype(np.float64)
    if n < 2:
        return 0.0, np.ones(n), deg
    inv_sqrt = 1.0 / np.sqrt(deg)
    rows = np.concatenate([src, dst, np.arange(n)])
    cols = np.concatenate([dst, src, np.arange(n)])
    m = sp.csr_matrix((inv_sqrt[rows] * inv_sqrt[cols], (rows, cols)), shape=(n, n))
    top = np.sqrt(deg) / np.linalg.norm(np.sqrt(deg))
    if n < DENSE_EIGEN_BELOW:
        dense = m.toarray()
        dense -= 2.0 * np.outer(top, top)  # moves the known eigenvalue 1 to −1
        w, v = dense_eigh(torch.from_numpy(dense))
        return float(1.0 - w[-1]), v[:, -1].numpy(), deg

    def deflated(x: np.ndarray) -> np.ndarray:
        x = x - top * (top @ x)
        y = m @ x
        return y - top * (top @ y)

    op = LinearOperator((n, n), matvec=deflated, dtype=np.float64)
    if v0 is None:
        v0 = np.random.default_rng(EIGEN_SEED).standard_normal(n)
    v0 = v0 - top * (top @ v0)
    if not np.any(v0):
        v0 = np.random.default_rng(EIGEN_SEED).standard_normal(n)
    mu, f = largest_eigenpair(op, v0, tol=EIGEN_TOL)
    return 1.0 - mu, f, deg
