"""Uniform non-edge sampling, unrestricted and inside/between communities."""

from collections import Counter

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

from rewirekit import RewireError
from rewirekit.algorithms import sample_non_edges
from rewirekit.algorithms.sampling import ENUMERATE_BELOW
from rewirekit.graph import EdgeSet, edge_set


def _path(n: int = 4) -> EdgeSet:
    """Path 0-1-...-(n-1)."""
    ring = torch.arange(n - 1)
    ei = to_undirected(torch.stack([ring, ring + 1]))
    return edge_set(Data(edge_index=ei, num_nodes=n))


def _ring(n: int, directed: bool = False) -> EdgeSet:
    ring = torch.arange(n)
    ei = torch.stack([ring, (ring + 1) % n])
    return edge_set(Data(edge_index=ei if directed else to_undirected(ei), num_nodes=n))


def _counts(edges, draws, **kwargs):
    counts: Counter = Counter()
    for seed in range(draws):
        src, dst = sample_non_edges(edges, 1, np.random.default_rng(seed), **kwargs)
        counts[(int(src[0]), int(dst[0]))] += 1
    return counts


def test_non_edge_sampling_is_uniform_on_a_small_graph():
    # path 0-1-2-3: non-edges {0,2}, {0,3}, {1,3}; each must be drawn about 1/3 of the time
    counts = _counts(_path(), 600)
    assert set(counts) == {(0, 2), (0, 3), (1, 3)}
    assert all(150 < c < 250 for c in counts.values())


def test_community_sampling_is_uniform_on_a_small_graph():
    # path 0-1-2-3, communities {0,1,2}, {3}: free inside pairs are {0,2} only;
    # free between pairs {0,3}, {1,3} each about half the time
    edges, labels = _path(), np.array([0, 0, 0, 1])
    counts = _counts(edges, 300, communities=labels, inside=False)
    assert set(counts) == {(0, 3), (1, 3)} and all(100 < c < 200 for c in counts.values())
    src, dst = sample_non_edges(edges, 1, np.random.default_rng(0), communities=labels)
    assert (int(src[0]), int(dst[0])) == (0, 2)


def test_directed_graphs_get_ordered_pairs():
    edges = _ring(3, directed=True)  # 0→1→2→0: free ordered pairs (1,0), (2,1), (0,2)
    src, dst = sample_non_edges(edges, 3, np.random.default_rng(0))
    assert sorted(zip(src.tolist(), dst.tolist(), strict=True)) == [(0, 2), (1, 0), (2, 1)]
    inside = sample_non_edges(edges, 1, np.random.default_rng(0), communities=np.array([0, 0, 1]))
    assert (int(inside[0][0]), int(inside[1][0])) == (1, 0)


@pytest.mark.parametrize("inside", [None, True, False])
def test_rejection_sampling_on_a_large_graph(inside):
    n = 6000  # 18M pairs, 9M inside the two communities: above the enumeration limit
    assert n * (n - 1) // 4 > ENUMERATE_BELOW
    edges = _ring(n)
    labels = (np.arange(n) >= n // 2).astype(np.int64)
    kwargs = {} if inside is None else {"communities": labels, "inside": inside}
    src, dst = sample_non_edges(edges, 3000, np.random.default_rng(0), **kwargs)
    keys = src * n + dst
    assert np.unique(keys).size == 3000 and np.all(src < dst)
    assert not np.isin(keys, edges.keys).any()
    if inside is not None:
        assert np.all((labels[src] == labels[dst]) == inside)
    again = sample_non_edges(edges, 3000, np.random.default_rng(0), **kwargs)
    assert np.array_equal(again[0], src) and np.array_equal(again[1], dst)


def test_budgets_beyond_the_eligible_non_edges_are_refused():
    edges, labels = _path(), np.array([0, 0, 0, 1])
    with pytest.raises(RewireError, match="only 3 non-edges; lower the add budget"):
        sample_non_edges(edges, 4, np.random.default_rng(0))
    with pytest.raises(RewireError, match="2 edges inside communities: .* only 1 "):
        sample_non_edges(edges, 2, np.random.default_rng(0), communities=labels)
    empty = sample_non_edges(edges, 0, np.random.default_rng(0), communities=labels)
    assert empty[0].size == empty[1].size == 0
