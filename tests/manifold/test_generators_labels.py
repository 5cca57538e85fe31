"""The manifold generators, their edge labels and the removal rates."""

import numpy as np
import pytest

from rewirekit import RewireError
from rewirekit.manifold import MANIFOLDS, edge_labels, knn_graph, make_manifold, removal_rates
from rewirekit.manifold.generators import truncated_gaussian_noise


@pytest.mark.parametrize("name", sorted(MANIFOLDS))
def test_generators_are_seeded_and_shaped(name):
    first = make_manifold(name, n_points=300, seed=5)
    again = make_manifold(name, n_points=300, seed=5)
    other = make_manifold(name, n_points=300, seed=6)
    assert np.array_equal(first.points, again.points)
    assert not np.array_equal(first.points, other.points)
    n = first.points.shape[0]
    assert n in (300, 299) and first.points.shape[1] in (2, 3)  # 3 Gaussians: 3 * 99
    assert np.isfinite(first.points).all()
    if first.cluster is None:
        clean = first.supersample[first.subsample]
        assert first.supersample.shape[0] > n
    else:
        assert first.cluster.shape == (n,) and len(np.unique(first.cluster)) >= 2
        return
    noise = np.linalg.norm(first.points - clean, axis=1)
    assert noise.max() <= MANIFOLDS[name].threshold + 1e-12


def test_truncated_noise_respects_the_threshold_and_sigma():
    rng = np.random.default_rng(0)
    z = truncated_gaussian_noise((20000, 2), 0.2, 0.1925, rng)
    norms = np.linalg.norm(z, axis=1)
    assert norms.max() <= 0.1925
    # a 2-d Gaussian cut at radius r ~ σ: mean norm well below the uncut σ √(π/2)
    assert 0.09 < norms.mean() < 0.2 * np.sqrt(np.pi / 2)


def test_cluster_labels_mark_cross_cluster_edges_bad():
    sample = make_manifold("circles", n_points=400, seed=0, noise=0.2, noise_threshold=0.5)
    graph = knn_graph(sample.points, 10)
    good = edge_labels(graph, sample)
    cross = sample.cluster[graph.src] != sample.cluster[graph.dst]
    assert cross.any()
    assert np.array_equal(good, ~cross)


def test_geodesic_labels_catch_the_shortcut_across_the_s():
    sample = make_manifold("s_curve", n_points=800, seed=1, noise=0.4, noise_threshold=0.8)
    graph = knn_graph(sample.points, 10)
    good = edge_labels(graph, sample)
    assert 0 < (~good).sum() < 0.2 * good.size
    clean = sample.supersample[sample.subsample]
    # a bad edge joins clean points far apart; the good edges are mostly short on the curve
    gap = np.linalg.norm(clean[graph.src] - clean[graph.dst], axis=1)
    assert np.median(gap[~good]) > np.median(gap[good])


def test_noise_free_connected_sample_has_only_good_edges():
    sample = make_manifold("cassini", n_points=500, seed=2, noise=0.0, noise_threshold=0.1)
    graph = knn_graph(sample.points, 10)
    assert edge_labels(graph, sample).all()


def test_removal_rates():
    good = np.array([True, True, True, False, False])
    removed = np.array([True, False, False, True, True])
    assert removal_rates(good, removed) == pytest.approx((100 / 3, 100.0))
    rate_good, rate_bad = removal_rates(np.ones(3, dtype=bool), np.zeros(3, dtype=bool))
    assert rate_good == 0 and np.isnan(rate_bad)
    with pytest.raises(RewireError):
        removal_rates(good, removed[:3])


def test_unknown_manifold_lists_choices():
    with pytest.raises(RewireError, match="circles"):
        make_manifold("sphere")
