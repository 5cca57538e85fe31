"""Dense and truncated decompositions against numpy's, in the caller's dtype."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from rewirekit.linalg import (
    block_krylov_ritz_pairs,
    blocked_select,
    dense_eigh,
    dense_svd,
    extreme_eigenpairs,
    fill_lower_triangle,
    largest_magnitude_eigenpairs,
    symmetric_rank_update,
    top_singular_triplets,
)


def _symmetric(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return (a + a.T) / 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_krylov_ritz_pairs_are_exact_once_the_space_is_everything(dtype):
    a = _symmetric(50, 0)
    start = np.random.default_rng(1).standard_normal((50, 8)).astype(dtype)
    values, vectors = block_krylov_ritz_pairs(
        lambda x: a @ x, start, 10, lambda theta: np.arange(theta.size)
    )
    assert values.size == 50 and vectors.dtype == dtype  # 88 columns offered, 50 kept
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(values, np.linalg.eigvalsh(a), atol=tol)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(50), atol=tol)
    np.testing.assert_allclose(a @ vectors, vectors * values, atol=10 * tol)


def test_block_krylov_ritz_pairs_resolve_outliers_first_and_select():
    rng = np.random.default_rng(2)
    n = 2000
    q = np.linalg.qr(rng.standard_normal((n, 3)))[0]
    noise = sp.random(n, n, density=0.005, random_state=3)
    a = (noise + noise.T) * 0.5 + sp.csr_matrix(q @ np.diag([30.0, 20.0, -25.0]) @ q.T)
    values, vectors = block_krylov_ritz_pairs(
        lambda x: a @ x,
        rng.standard_normal((n, 6)),
        4,
        lambda theta: [0, theta.size - 2, theta.size - 1],
    )
    np.testing.assert_allclose(
        values,
        sorted(np.linalg.eigvalsh(a.toarray()))[:1] + sorted(np.linalg.eigvalsh(a.toarray()))[-2:],
        rtol=1e-6,
    )
    residual = np.linalg.norm(a @ vectors - vectors * values, axis=0)
    assert residual.max() < 1e-3 * 30


def test_block_krylov_ritz_pairs_stop_when_the_space_is_invariant():
    # rank-2 operator: span{X, AX} holds everything, later blocks add no columns
    u = np.linalg.qr(np.random.default_rng(4).standard_normal((100, 2)))[0]
    a = u @ np.diag([3.0, -1.0]) @ u.T
    start = np.random.default_rng(5).standard_normal((100, 3))
    values, vectors = block_krylov_ritz_pairs(
        lambda x: a @ x, start, 5, lambda theta: np.arange(theta.size)
    )
    assert values.size == 5 and np.all(np.isfinite(vectors))
    np.testing.assert_allclose(values, [-1.0, 0.0, 0.0, 0.0, 3.0], atol=1e-10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_dense_eigh_and_svd_decompose_in_the_input_dtype(dtype):
    a = torch.from_numpy(_symmetric(60, 0)).to(dtype)
    lam, vectors = dense_eigh(a)
    assert lam.dtype == vectors.dtype == dtype
    assert torch.all(lam[1:] >= lam[:-1])
    tol = 1e-4 if dtype == torch.float32 else 1e-10
    torch.testing.assert_close((vectors * lam) @ vectors.T, a, atol=tol, rtol=tol)
    x = torch.from_numpy(np.random.default_rng(1).standard_normal((50, 30))).to(dtype)
    u, s, vh = dense_svd(x)
    assert u.shape == (50, 30) and s.shape == (30,) and vh.shape == (30, 30)
    assert torch.all(s[1:] <= s[:-1])
    torch.testing.assert_close((u * s) @ vh, x, atol=tol, rtol=tol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("beta", [0.0, 1.0, 0.5])
def test_symmetric_rank_update_writes_the_upper_triangle_of_the_product(dtype, beta):
    rng = np.random.default_rng(3)
    start = torch.from_numpy(_symmetric(70, 2)).to(dtype)
    columns = torch.from_numpy(rng.standard_normal((70, 9))).to(dtype)
    weights = torch.from_numpy(np.array([2.0, -1.5, 0.0, 0.3, -0.2, 1.0, -3.0, 0.7, 0.0])).to(dtype)
    matrix = start.clone()
    symmetric_rank_update(matrix, columns, weights, beta)
    expected = beta * start + (columns * weights) @ columns.T
    tol = 1e-4 if dtype == torch.float32 else 1e-12
    torch.testing.assert_close(torch.triu(matrix), torch.triu(expected), atol=tol, rtol=tol)
    # the strict lower triangle is untouched, until fill_lower_triangle makes it whole
    assert torch.equal(torch.tril(matrix, -1), torch.tril(start, -1))
    fill_lower_triangle(matrix, tile=16)
    assert torch.equal(matrix, matrix.T)
    torch.testing.assert_close(matrix, expected, atol=tol, rtol=tol)
    # the decomposition reads the upper triangle: garbage below it changes nothing
    garbage = matrix.clone()
    garbage[torch.tril(torch.ones(70, 70, dtype=torch.bool), -1)] = 1e3
    assert torch.equal(dense_eigh(garbage)[0], dense_eigh(matrix)[0])


def test_symmetric_rank_update_rejects_a_non_square_or_strided_matrix():
    with pytest.raises(ValueError, match="square row-major"):
        symmetric_rank_update(torch.zeros(4, 5), torch.zeros(4, 1), torch.ones(1), 1.0)
    with pytest.raises(ValueError, match="square row-major"):
        symmetric_rank_update(torch.zeros(5, 5).T, torch.zeros(5, 1), torch.ones(1), 1.0)


def test_truncated_solvers_agree_with_dense_ones():
    rng = np.random.default_rng(2)
    a = _symmetric(80, 3)
    w = np.linalg.eigvalsh(a)
    lam, _ = extreme_eigenpairs(sp.csr_matrix(a), 2, 3, rng)
    np.testing.assert_allclose(lam, np.r_[w[:2], w[-3:]], rtol=1e-8)
    lam, _ = largest_magnitude_eigenpairs(sp.csr_matrix(a), 4, rng)
    want = w[np.argsort(np.abs(w))[-4:]]
    np.testing.assert_allclose(np.sort(lam), np.sort(want), rtol=1e-8)
    x = torch.from_numpy(rng.standard_normal((200, 120)))
    _, s, _ = top_singular_triplets(x, 3, rng)  # 3 < 5% of 120: the ARPACK path
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(x.numpy(), compute_uv=False)[:3], rtol=1e-8)


def _select_by_definition(matrix, top_k, threshold, skip_diagonal, positive):
    """Per column: candidates are the finite entries (positive ones if asked, the diagonal
    left out if asked); keep the ``top_k`` largest, ties to the lowest row, or those
    ``>= threshold``; never an exact zero."""
    kept = []
    for j in range(matrix.shape[1]):
        rows = [
            i
            for i in range(matrix.shape[0])
            if np.isfinite(matrix[i, j])
            and not (skip_diagonal and i == j)
            and (matrix[i, j] > 0 or not positive)
        ]
        if top_k:
            rows = sorted(rows, key=lambda i: (-matrix[i, j], i))[:top_k]
        else:
            rows = [i for i in rows if matrix[i, j] >= threshold]
        kept += [(j, i, matrix[i, j]) for i in sorted(rows) if matrix[i, j] != 0]
    return kept


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("skip_diagonal, positive", [(False, False), (True, False), (True, True)])
def test_blocked_select_follows_its_definition_with_ties(seed, skip_diagonal, positive):
    """Small integers make ties at the cut common; blocks of several sizes see every case."""
    rng = np.random.default_rng(seed)
    n = 13
    matrix = rng.integers(-2, 4, size=(n, n)).astype(np.float64)
    matrix[rng.random((n, n)) < 0.05] = -np.inf
    for top_k, threshold in ((1, None), (3, None), (5, None), (n - 1, None), (n, None), (0, 1.0)):
        expected = _select_by_definition(matrix, top_k, threshold, skip_diagonal, positive)
        for block_size in (1, 4, n):
            rows, cols, values = blocked_select(
                lambda a, b: matrix[:, a:b].T.copy(),
                n,
                block_size=block_size,
                top_k=top_k,
                threshold=threshold,
                skip_diagonal=skip_diagonal,
                positive=positive,
            )
            assert list(zip(cols.tolist(), rows.tolist(), values.tolist(), strict=True)) == expected


def test_arpack_runs_with_one_blas_thread(monkeypatch):
    """Threaded BLAS slows ARPACK's many small calls down (3.6x at N = 20,000), in the
    eigensolvers of :mod:`rewirekit.linalg` and in the Fiedler pair of the spectral methods."""
    from threadpoolctl import threadpool_info

    import rewirekit.linalg.eigen as eigen
    from rewirekit.algorithms import fiedler_pair
    from rewirekit.algorithms.spectral import DENSE_EIGEN_BELOW

    seen = []

    def spy(real):
        def call(*args, **kwargs):
            seen.append(
                [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
            )
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(eigen, "eigsh", spy(eigen.eigsh))
    monkeypatch.setattr(eigen, "svds", spy(eigen.svds))
    matrix = sp.csr_matrix(_symmetric(80, 3))
    extreme_eigenpairs(matrix, 2, 3, np.random.default_rng(0))
    top_singular_triplets(torch.from_numpy(_symmetric(120, 4)), 2, np.random.default_rng(0))
    n = DENSE_EIGEN_BELOW  # the ARPACK path of the Fiedler pair
    ring = np.arange(n)
    fiedler_pair(n, ring, (ring + 1) % n)
    assert len(seen) >= 4 and all(threads == [1] * len(threads) for threads in seen)


@pytest.mark.parametrize("low_rank_threads", [1, 2])
def test_low_rank_products_keep_their_threads_inside_arpack(low_rank_threads):
    """ARPACK runs on one BLAS thread; the operator's products with the ``N×q`` factor run
    on ``low_rank_threads`` (by default the caller's count) and give the same result."""
    from rewirekit.linalg import SparsePlusLowRank, single_threaded_blas
    from rewirekit.linalg.threads import blas_thread_count

    rng = np.random.default_rng(5)
    matrix = SparsePlusLowRank(sp.random(60, 60, density=0.1, random_state=5) + sp.eye(60))
    matrix.sparse = (matrix.sparse + matrix.sparse.T).tocsr()
    matrix.add(rng.standard_normal((60, 4)), np.diag([3.0, -1.0, 2.0, 0.5]))
    x = rng.standard_normal((60, 3))
    expected = matrix.matmat(x)
    seen = []

    class Spy(np.ndarray):  # records the BLAS threads of each product with the factor
        def __matmul__(self, other):
            seen.append(blas_thread_count())
            return np.asarray(self) @ other

    matrix.basis = matrix.basis.view(Spy)
    operator = matrix.operator(low_rank_threads=low_rank_threads)
    with single_threaded_blas():
        product = operator.matmat(x)
    np.testing.assert_allclose(product, expected, atol=1e-12)
    assert seen == [low_rank_threads] * 2  # Qᵀ x and Q (M Qᵀ x)


def _grid_edges(side):
    """Both directions of every edge of a ``side × side`` grid graph."""
    ids = np.arange(side * side).reshape(side, side)
    pairs = np.r_[
        np.c_[ids[:, :-1].ravel(), ids[:, 1:].ravel()], np.c_[ids[:-1].ravel(), ids[1:].ravel()]
    ]
    return np.c_[pairs.T, pairs[:, ::-1].T]


def _numba_entry_points():
    """A call of each function that launches numba ``prange`` kernels, on a 70 × 70 grid
    (above the pair kernels' serial threshold)."""
    from rewirekit.algorithms import Measures, balanced_forman, edge_wasserstein
    from rewirekit.algorithms import ollivier_ricci as orc
    from rewirekit.algorithms.balanced_forman import curvature_of_pairs
    from rewirekit.manifold import bounded_pair_distances, knn_graph

    side = 70
    edges, n = _grid_edges(side), side * side
    src, dst = edges
    adjacency = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    start, count = adjacency.indptr[:-1].astype(np.int64), np.diff(adjacency.indptr)
    nbr, none = adjacency.indices.astype(np.int64), np.full(src.size, -1, dtype=np.int64)
    points = np.random.default_rng(0).normal(size=(n, 3))
    point_masses = [
        Measures(np.arange(src.size + 1), ends.astype(np.int64), np.ones(src.size))
        for ends in (src, dst)
    ]
    return {
        "ollivier_ricci": lambda: orc(edges, n),
        "edge_wasserstein": lambda: edge_wasserstein(
            edges, n, np.ones(src.size), edges, *point_masses
        ),
        "balanced_forman": lambda: balanced_forman(edges, n),
        "curvature_of_pairs": lambda: curvature_of_pairs(
            start, count, nbr, src.astype(np.int64), dst.astype(np.int64), False, none, none
        ),
        "bounded_pair_distances": lambda: bounded_pair_distances(
            knn_graph(points, 5), src[:500], dst[:500], 10.0, points
        ),
    }


@pytest.mark.parametrize("entry", sorted(_numba_entry_points()))
def test_numba_kernels_leave_torch_on_its_thread_count(entry):
    """numba's OpenMP layer shares torch's libgomp, and the start of its thread pool (at the
    first parallel launch of a process, once torch has read its count) sets the runtime's
    thread count to numba's: torch, set to one thread, would train on two after a curvature
    rewiring. Each call runs in a fresh process, where it starts the pool."""
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here: its launches cannot change torch's count")
    script = (
        "import torch; torch.set_num_threads(1); assert torch.get_num_threads() == 1\n"
        "from test_linalg import _numba_entry_points\n"
        f"_numba_entry_points()[{entry!r}]()\n"
        "print(torch.get_num_threads())\n"
    )
    tests = str(Path(__file__).parent)
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tests, capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["1"]
