"""Seeded, canonical modularity communities (Leiden and Louvain)."""

import random

import networkx as nx
import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import from_networkx, to_undirected

from rewirekit import RewireError
from rewirekit.algorithms import detect_communities
from rewirekit.graph import EdgeSet, edge_set


def _edges(graph: nx.Graph) -> EdgeSet:
    data = from_networkx(graph)
    return edge_set(Data(edge_index=data.edge_index, num_nodes=graph.number_of_nodes()))


def _random_edges(n: int, m: int, seed: int) -> EdgeSet:
    raw = torch.randint(0, n, (2, m), generator=torch.Generator().manual_seed(seed))
    raw = raw[:, raw[0] != raw[1]]
    return edge_set(Data(edge_index=to_undirected(raw, num_nodes=n), num_nodes=n))


@pytest.mark.parametrize("algorithm", ["louvain", "leiden"])
def test_community_labels_are_canonical_and_seeded(algorithm):
    cliques = _edges(nx.ring_of_cliques(3, 5))  # nodes 0-4, 5-9, 10-14
    labels = detect_communities(cliques, seed=0, algorithm=algorithm)
    assert labels.tolist() == [0] * 5 + [1] * 5 + [2] * 5
    isolated = edge_set(Data(edge_index=torch.zeros(2, 0, dtype=torch.long), num_nodes=4))
    assert detect_communities(isolated, seed=0, algorithm=algorithm).tolist() == [0, 1, 2, 3]
    medium = _random_edges(80, 200, seed=3)
    a = detect_communities(medium, seed=5, algorithm=algorithm)
    assert np.array_equal(a, detect_communities(medium, seed=5, algorithm=algorithm))
    first = [np.flatnonzero(a == c)[0] for c in range(a.max() + 1)]
    assert first == sorted(first)


def test_leiden_leaves_the_global_random_state_alone():
    random.seed(1)
    expected = random.random()
    random.seed(1)
    detect_communities(_edges(nx.ring_of_cliques(3, 5)), seed=0, algorithm="leiden")
    assert random.random() == expected


def test_default_is_leiden_and_unknown_algorithms_are_refused():
    medium = _random_edges(300, 1500, seed=4)
    leiden = detect_communities(medium, algorithm="leiden")
    assert np.array_equal(detect_communities(medium), leiden)
    assert not np.array_equal(detect_communities(medium, algorithm="louvain"), leiden)
    with pytest.raises(RewireError, match="communities"):
        detect_communities(medium, algorithm="infomap")
