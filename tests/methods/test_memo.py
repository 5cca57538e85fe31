"""SDRF and BORF keep the curvature of the last input graph for the next call on it."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch
from torch_geometric.data import Data

import rewirekit
from methods.test_curvature import _data  # tests/ is on sys.path (rootdir)
from rewirekit.graph import edge_set
from rewirekit.methods.memo import LastGraphMemo, clear_all

PARAMS = {
    "sdrf": {"max_iter": 6, "tau": 5.0, "removal_bound": 0.3, "seed": 3},
    "borf": {"num_batches": 2, "batch_add": 3, "batch_remove": 2},
}


def _rewire(data: Data, method: str, **extra):
    out = rewirekit.rewire(data, method, **PARAMS[method], **extra)
    return out.edge_index, out.rewire_report.extra["start_curvature_reused"]


@pytest.mark.parametrize("method", ["sdrf", "borf"])
def test_a_second_call_on_the_same_graph_reuses_the_start_with_the_same_result(method):
    data = _data(nx.karate_club_graph())
    clear_all()
    first, first_reused = _rewire(data, method)
    second, second_reused = _rewire(data, method)
    assert (first_reused, second_reused) == (False, True)
    assert torch.equal(first, second)
    # a fresh copy of the graph is the same graph; the other mode is not the same count
    assert _rewire(data.clone(), method)[1]
    assert not _rewire(data, method, faithful=True)[1]
    clear_all()
    assert not _rewire(data, method)[1]


@pytest.mark.parametrize("method", ["sdrf", "borf"])
def test_another_graph_with_as_many_edges_is_counted_again(method):
    graph = nx.karate_club_graph()
    moved = graph.copy()
    moved.remove_edge(0, 1)
    moved.add_edge(16, 33)  # absent from the club graph
    assert moved.number_of_edges() == graph.number_of_edges()
    clear_all()
    _rewire(_data(graph), method)
    edges, reused = _rewire(_data(moved), method)
    assert not reused
    clear_all()
    assert torch.equal(edges, _rewire(_data(moved), method)[0])


def test_kept_arrays_are_read_only_and_tied_to_their_tag():
    memo = LastGraphMemo()
    edges = edge_set(_data(nx.path_graph(4)))
    calls = []

    def compute():
        calls.append(1)
        return (np.arange(3.0),)

    (value,), reused = memo.get(edges, "a", compute)
    assert not reused
    with pytest.raises(ValueError, match="read-only"):
        value[0] = 1.0
    assert memo.get(edges, "a", compute)[1]
    assert not memo.get(edges, "b", compute)[1]
    assert len(calls) == 2
