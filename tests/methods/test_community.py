"""Louvain wrapper, connectivity-safe deletions and ComMa."""

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import connected_components
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

import rewirekit
from rewirekit import RewireError
from rewirekit.graph import EdgeSet, edge_set
from rewirekit.methods.community import (
    detect_communities,
    removable_in_order,
    sample_community_non_edges,
)


def _graph(pairs, n):
    ei = to_undirected(torch.tensor(pairs, dtype=torch.long).t(), num_nodes=n)
    return Data(
        x=torch.randn(n, 3, generator=torch.Generator().manual_seed(0)), edge_index=ei, num_nodes=n
    )


def _pairs(data):
    return {(u, v) for u, v in data.edge_index.t().tolist() if u < v}


def _components(n, pairs):
    pairs = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    m = sp.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    return connected_components(m, directed=False)[0]


def _cliques(k=3, size=5):
    """``k`` cliques of ``size`` nodes minus one edge each, joined in a chain by single edges."""
    pairs = []
    for c in range(k):
        nodes = range(c * size, (c + 1) * size)
        missing = (c * size, c * size + 1)
        pairs += [(u, v) for u in nodes for v in nodes if u < v and (u, v) != missing]
        if c:
            pairs.append((c * size - 1, c * size))
    return _graph(pairs, k * size)


@pytest.mark.parametrize("algorithm", ["louvain", "leiden"])
def test_community_labels_are_canonical_and_seeded(algorithm):
    data = _cliques()
    labels = detect_communities(edge_set(data), seed=0, algorithm=algorithm)
    assert labels.tolist() == [0] * 5 + [1] * 5 + [2] * 5
    isolated = Data(edge_index=torch.zeros(2, 0, dtype=torch.long), num_nodes=4)
    assert detect_communities(edge_set(isolated), seed=0, algorithm=algorithm).tolist() == [
        0,
        1,
        2,
        3,
    ]
    medium = _graph(
        torch.randint(0, 80, (2, 200), generator=torch.Generator().manual_seed(3)).t().tolist(), 80
    )
    a = detect_communities(edge_set(medium), seed=5, algorithm=algorithm)
    assert np.array_equal(a, detect_communities(edge_set(medium), seed=5, algorithm=algorithm))
    first = [np.flatnonzero(a == c)[0] for c in range(a.max() + 1)]
    assert first == sorted(first)


def test_leiden_leaves_the_global_random_state_alone():
    import random

    random.seed(1)
    expected = random.random()
    random.seed(1)
    detect_communities(edge_set(_cliques()), seed=0, algorithm="leiden")
    assert random.random() == expected


def test_default_is_leiden_and_unknown_algorithms_are_refused():
    medium = edge_set(
        _graph(
            torch.randint(0, 300, (2, 1500), generator=torch.Generator().manual_seed(4))
            .t()
            .tolist(),
            300,
        )
    )
    leiden = detect_communities(medium, algorithm="leiden")
    assert np.array_equal(detect_communities(medium), leiden)
    assert not np.array_equal(detect_communities(medium, algorithm="louvain"), leiden)
    with pytest.raises(RewireError, match="communities"):
        detect_communities(medium, algorithm="infomap")


def _sequential_removable(edges: EdgeSet, order):
    """The greedy walk itself: delete unless the number of components grows."""
    pairs = set(zip(edges.src.tolist(), edges.dst.tolist()))
    base = _components(edges.num_nodes, pairs)
    kept = []
    for pos in order:
        pair = (int(edges.src[pos]), int(edges.dst[pos]))
        if _components(edges.num_nodes, pairs - {pair}) == base:
            pairs.discard(pair)
            kept.append(pos)
    return kept


@pytest.mark.parametrize("seed", range(4))
def test_removable_in_order_equals_the_sequential_walk(seed):
    rng = np.random.default_rng(seed)
    n = 25
    raw = rng.integers(0, n, (2, 40))
    data = _graph(raw[:, raw[0] != raw[1]].T.tolist(), n)
    edges = edge_set(data)
    candidates = rng.permutation(edges.num_pairs)[: rng.integers(5, edges.num_pairs)]
    got = removable_in_order(edges, candidates).tolist()
    assert got == _sequential_removable(edges, candidates)


def test_higher_comma_adds_inside_and_deletes_between_communities():
    data = _cliques()
    labels = detect_communities(edge_set(data), seed=0)
    out = rewirekit.rewire(data, "comma", mode="higher", add=3, delete=2, seed=0)
    added, removed = _pairs(out) - _pairs(data), _pairs(data) - _pairs(out)
    assert len(added) == 3 and all(labels[u] == labels[v] for u, v in added)
    # the only inter-community edges are the two chain bridges: deleting one splits the graph
    assert removed == set() and out.rewire_report.extra["delete_shortfall"] == 2


def test_lower_comma_adds_between_and_deletes_inside_communities():
    data = _cliques()
    labels = detect_communities(edge_set(data), seed=0)
    out = rewirekit.rewire(data, "comma", mode="lower", add=4, delete=6, seed=1)
    added, removed = _pairs(out) - _pairs(data), _pairs(data) - _pairs(out)
    assert len(added) == 4 and all(labels[u] != labels[v] for u, v in added)
    assert len(removed) == 6 and all(labels[u] == labels[v] for u, v in removed)
    assert _components(15, _pairs(out)) == 1


def test_comma_deletions_never_split_components():
    data = _graph(
        torch.randint(0, 60, (2, 90), generator=torch.Generator().manual_seed(1)).t().tolist(), 60
    )
    before = _components(60, _pairs(data))
    for mode in ("higher", "lower"):
        labels = detect_communities(edge_set(data), seed=0)
        same = np.array([labels[u] == labels[v] for u, v in sorted(_pairs(data))])
        eligible = int((~same).sum() if mode == "higher" else same.sum())
        out = rewirekit.rewire(data, "comma", mode=mode, delete=eligible, seed=0)
        assert _components(60, _pairs(out)) == before
        report = out.rewire_report
        assert report.edges_removed + report.extra["delete_shortfall"] == eligible


def test_comma_budget_errors_name_the_budget():
    data = _cliques()
    with pytest.raises(RewireError, match="add"):  # 3 missing intra edges only
        rewirekit.rewire(data, "comma", mode="higher", add=4)
    with pytest.raises(RewireError, match="delete"):
        rewirekit.rewire(data, "comma", mode="higher", delete=3)
    with pytest.raises(RewireError, match="mode"):
        rewirekit.get_method("comma", mode="middle")


def test_comma_is_seeded():
    data = _graph(
        torch.randint(0, 60, (2, 150), generator=torch.Generator().manual_seed(2)).t().tolist(), 60
    )
    a = rewirekit.rewire(data, "comma", add=5, delete=5, seed=0)
    b = rewirekit.rewire(data, "comma", add=5, delete=5, seed=1)
    assert not torch.equal(a.edge_index, b.edge_index)


@pytest.mark.parametrize("inside", [True, False])
def test_community_sampling_by_rejection_on_a_large_graph(inside):
    n = 6000  # two communities of 3000: 9M pairs inside and 9M between, above the enumeration limit
    ring = np.arange(n)
    data = Data(
        edge_index=to_undirected(torch.from_numpy(np.stack([ring, (ring + 1) % n]))), num_nodes=n
    )
    edges = edge_set(data)
    labels = (np.arange(n) >= n // 2).astype(np.int64)
    u, v = sample_community_non_edges(edges, labels, 3000, inside, np.random.default_rng(0))
    keys = u * n + v
    assert np.unique(keys).size == 3000 and np.all(u < v)
    assert np.all((labels[u] == labels[v]) == inside)
    assert not np.isin(keys, edges.keys).any()


def test_community_sampling_is_uniform_on_a_small_graph():
    # path 0-1-2-3, communities {0,1,2}, {3}: free inside pairs are {0,2} only;
    # free between pairs {0,3}, {1,3} each about half the time.
    data = Data(edge_index=to_undirected(torch.tensor([[0, 1, 2], [1, 2, 3]])), num_nodes=4)
    edges, labels = edge_set(data), np.array([0, 0, 0, 1])
    got = {}
    for seed in range(300):
        u, v = sample_community_non_edges(edges, labels, 1, False, np.random.default_rng(seed))
        got[(int(u[0]), int(v[0]))] = got.get((int(u[0]), int(v[0])), 0) + 1
    assert set(got) == {(0, 3), (1, 3)} and all(100 < c < 200 for c in got.values())
    u, v = sample_community_non_edges(edges, labels, 1, True, np.random.default_rng(0))
    assert (int(u[0]), int(v[0])) == (0, 2)
