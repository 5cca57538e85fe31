"""The Fiedler pair against a dense eigendecomposition of the normalised Laplacian."""

import numpy as np
import pytest

from rewirekit.algorithms import fiedler_pair
from rewirekit.algorithms.spectral import DENSE_EIGEN_BELOW


def _ring_with_chords(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    u, v = np.arange(n), (np.arange(n) + 1) % n
    a, b = rng.integers(0, n, (2, n // 3))
    lo, hi = np.minimum(np.r_[u, a], np.r_[v, b]), np.maximum(np.r_[u, a], np.r_[v, b])
    keys = np.unique((lo * n + hi)[lo != hi])
    return keys // n, keys % n


@pytest.mark.parametrize("n", [30, DENSE_EIGEN_BELOW + 50])  # the dense and the ARPACK path
def test_fiedler_pair_solves_the_normalised_laplacian(n):
    src, dst = _ring_with_chords(n, seed=n)
    lam, f, deg = fiedler_pair(n, src, dst)
    adjacency = np.eye(n)
    adjacency[src, dst] = adjacency[dst, src] = 1.0
    np.testing.assert_array_equal(deg, adjacency.sum(1))
    laplacian = np.eye(n) - adjacency / np.sqrt(np.outer(deg, deg))
    assert lam == pytest.approx(np.linalg.eigvalsh(laplacian)[1], abs=1e-8)
    assert np.linalg.norm(laplacian @ f - lam * f) < 1e-6
    assert np.linalg.norm(f) == pytest.approx(1.0)


def test_disconnected_graphs_have_gap_zero():
    lam, _, _ = fiedler_pair(6, np.array([0, 1, 3, 4]), np.array([1, 2, 4, 5]))
    assert lam == pytest.approx(0.0, abs=1e-10)
    assert fiedler_pair(1, np.zeros(0, np.int64), np.zeros(0, np.int64))[0] == 0.0
