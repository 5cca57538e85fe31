"""Connectivity-safe deletions against the sequential greedy walk they replace."""

import networkx as nx
import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

from rewirekit.algorithms import removable_in_order
from rewirekit.graph import EdgeSet, edge_set


def _sequential_removable(edges: EdgeSet, order: np.ndarray) -> list[int]:
    """The greedy walk itself: delete unless the number of components grows."""
    graph = nx.Graph()
    graph.add_nodes_from(range(edges.num_nodes))
    graph.add_edges_from(zip(edges.src.tolist(), edges.dst.tolist(), strict=True))
    base = nx.number_connected_components(graph)
    deleted = []
    for pos in order.tolist():
        pair = (int(edges.src[pos]), int(edges.dst[pos]))
        graph.remove_edge(*pair)
        if nx.number_connected_components(graph) == base:
            deleted.append(pos)
        else:
            graph.add_edge(*pair)
    return deleted


@pytest.mark.parametrize("seed", range(4))
def test_removable_in_order_equals_the_sequential_walk(seed):
    rng = np.random.default_rng(seed)
    n = 25
    raw = torch.from_numpy(rng.integers(0, n, (2, 40)))
    raw = raw[:, raw[0] != raw[1]]
    edges = edge_set(Data(edge_index=to_undirected(raw, num_nodes=n), num_nodes=n))
    candidates = rng.permutation(edges.num_pairs)[: rng.integers(5, edges.num_pairs)]
    got = removable_in_order(edges, candidates).tolist()
    assert got == _sequential_removable(edges, candidates)
    assert removable_in_order(edges, candidates[:0]).size == 0
