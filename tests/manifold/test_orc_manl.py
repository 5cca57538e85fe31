"""ORC-ManL: thresholds, local scales, both curvature modes against an independent reference,
the validation rule against scipy's shortest paths, and the end-to-end behaviour."""

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from rewirekit import RewireError
from rewirekit.manifold import KnnGraph, knn_graph, make_manifold, orc_manl, removal_rates
from rewirekit.manifold.labels import edge_labels
from rewirekit.manifold.orc_manl import (
    KEPT,
    REMOVED,
    SKIPPED,
    VALIDATED,
    curvature_threshold,
    distance_factor,
    edge_scale,
)


def _matrix(graph, lengths):
    n = graph.num_nodes
    return csr_matrix(
        (np.r_[lengths, lengths], (np.r_[graph.src, graph.dst], np.r_[graph.dst, graph.src])),
        shape=(n, n),
    )


def _bridged_cliques() -> KnnGraph:
    """Two unit-length K5s and node 10 joined to one node of each."""
    src, dst = [], []
    for base in (0, 5):
        for i in range(5):
            for j in range(i + 1, 5):
                src.append(base + i)
                dst.append(base + j)
    src, dst = np.r_[src, 0, 5], np.r_[dst, 10, 10]
    return KnnGraph.from_pairs(11, src, dst, np.ones(src.size))


def test_thresholds_are_the_papers():
    assert curvature_threshold(0.8) == pytest.approx(-0.2)
    assert distance_factor(0.01) == pytest.approx(9.972, abs=1e-3)
    assert distance_factor(1e-5) == pytest.approx(318.5, abs=0.1)


def test_edge_scale_clean_and_faithful():
    # node 0: edges of length 1, 2, 3; node 1: edges 1, 4; node 2: 2; node 3: 3, 4 ...
    g = KnnGraph.from_pairs(4, [0, 0, 0, 1], [1, 2, 3, 3], [1.0, 2.0, 3.0, 4.0])
    clean = edge_scale(g, k=2)  # per node: 0 -> 1.5, 1 -> 2.5, 2 -> 2, 3 -> 3.5
    assert clean.tolist() == [2.5, 2.0, 3.5, 3.5]
    faithful = edge_scale(g, k=2, skip_nearest=True)  # 0 -> 2.5, 1 -> 4, 2 -> 2, 3 -> 4
    assert faithful.tolist() == [4.0, 2.5, 4.0, 4.0]


@pytest.mark.parametrize("faithful", [False, True])
def test_curvature_matches_an_optimal_transport_reference(faithful):
    ot = pytest.importorskip("ot")
    points = np.random.default_rng(3).normal(size=(60, 2))
    graph = knn_graph(points, 5)
    result = orc_manl(graph, k=5, faithful=faithful)
    scale = result.scale
    assert np.array_equal(scale, edge_scale(graph, 5, skip_nearest=faithful))
    matrix = _matrix(graph, scale)
    ground = dijkstra(matrix)
    neighbours = [matrix[i].indices for i in range(graph.num_nodes)]
    for e in range(graph.num_edges):
        x, y = graph.src[e], graph.dst[e]
        support_x = neighbours[x][neighbours[x] != y] if faithful else neighbours[x]
        support_y = neighbours[y]
        mu = np.full(support_x.size, 1 / support_x.size)
        nu = np.full(support_y.size, 1 / support_y.size)
        w1 = ot.emd2(mu, nu, ground[np.ix_(support_x, support_y)])
        expected = 1 - w1 / (scale[e] if faithful else ground[x, y])
        assert result.curvature[e] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("faithful", [False, True])
def test_verdicts_follow_the_validation_rule(faithful):
    sample = make_manifold("circles", n_points=500, seed=0)
    graph = knn_graph(sample.points, 10)
    result = orc_manl(graph, k=10, lda=0.01, faithful=faithful, points=sample.points)
    candidate = result.curvature < curvature_threshold(0.8)
    assert np.array_equal(result.candidates, candidate)
    rest = np.flatnonzero(~candidate)
    detour = dijkstra(_matrix(graph.subgraph(~candidate), graph.length[rest]))
    limit = distance_factor(0.01) * result.scale
    far = detour[graph.src, graph.dst] > limit
    checked = candidate & (result.verdict != SKIPPED)
    assert np.array_equal(result.verdict[checked] == REMOVED, far[checked])
    assert set(np.unique(result.verdict[checked])) <= {VALIDATED, REMOVED}
    kept = (result.verdict == KEPT) | (result.verdict == VALIDATED)
    pairs = set(zip(graph.src[kept].tolist(), graph.dst[kept].tolist(), strict=True))
    pairs |= set(map(tuple, result.reattached.T.tolist()))
    assert pairs == set(zip(result.graph.src.tolist(), result.graph.dst.tolist(), strict=True))


def test_isolated_endpoint_clean_removes_faithful_skips():
    graph = _bridged_cliques()
    clean = orc_manl(graph, k=4)
    bridge = graph.dst == 10
    assert (clean.curvature[bridge] < -0.2).all() and (clean.curvature[~bridge] > 0).all()
    assert (clean.verdict[bridge] == REMOVED).all() and (clean.verdict[~bridge] == KEPT).all()
    assert clean.reattached.tolist() == [[0], [10]]  # the shortest edge; tie: smaller id
    assert clean.graph.num_edges == graph.num_edges - 1
    faithful = orc_manl(graph, k=4, faithful=True)
    assert (faithful.verdict[bridge] == SKIPPED).all()
    assert not faithful.shortcuts.any() and faithful.dropped.sum() == 2
    without = orc_manl(graph, k=4, reattach=False)
    assert without.reattached.shape == (2, 0) and without.graph.degree()[10] == 0


def test_faithful_curvature_depends_on_orientation():
    graph = _bridged_cliques()
    relabel = np.arange(11)[::-1]  # reversed ids: the smaller end of every edge changes
    flipped = KnnGraph.from_pairs(11, relabel[graph.src], relabel[graph.dst], graph.length)

    def by_pair(g, values, ids):
        ends = zip(ids[g.src].tolist(), ids[g.dst].tolist(), strict=True)
        return {frozenset(e): v for e, v in zip(ends, values, strict=True)}

    same, back = np.arange(11), relabel  # relabel is its own inverse
    for faithful, equal in ((False, True), (True, False)):
        here = by_pair(graph, orc_manl(graph, k=4, faithful=faithful).curvature, same)
        there = by_pair(flipped, orc_manl(flipped, k=4, faithful=faithful).curvature, back)
        assert np.allclose([here[e] for e in here], [there[e] for e in here]) == equal


def test_circles_end_to_end_removes_the_shortcuts():
    sample = make_manifold("circles", n_points=800, seed=0)
    graph = knn_graph(sample.points, 20)
    good = edge_labels(graph, sample)
    assert (~good).sum() > 5
    result = orc_manl(sample.points, k=20)
    assert result.input.num_edges == graph.num_edges
    rate_good, rate_bad = removal_rates(good, result.shortcuts)
    assert rate_bad == 100.0 and rate_good < 1.0
    assert removal_rates(good, result.candidates)[0] > rate_good  # validation saves good edges
    assert result.params == dict(k=20, delta=0.8, lda=0.01, reattach=True, faithful=False)


@pytest.mark.parametrize(
    "kwargs", [dict(delta=0.0), dict(delta=1.5), dict(lda=0.0), dict(lda=1.0), dict(k=0)]
)
def test_bad_parameters_raise(kwargs):
    with pytest.raises(RewireError):
        orc_manl(np.random.default_rng(0).normal(size=(30, 2)), **kwargs)


def test_graph_without_edges_raises():
    with pytest.raises(RewireError, match="no edges"):
        orc_manl(KnnGraph.from_pairs(3, [], [], []))
