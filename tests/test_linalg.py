"""Dense and truncated decompositions against numpy's, in the caller's dtype."""
import numpy as np
import pytest
import scipy.sparse as sp
import torch

from rewirekit.linalg import (dense_eigh, dense_svd, extreme_eigenpairs,
                              largest_magnitude_eigenpairs, top_singular_triplets)


def _symmetric(n, seed):
    a = np.random.default_rng(seed).standard_normal((n, n))
    return (a + a.T) / 2


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
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(x.numpy(), compute_uv=False)[:3],
                               rtol=1e-8)
