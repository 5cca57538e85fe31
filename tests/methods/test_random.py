import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

import rewirekit
from rewirekit.testing.graphs import medium, weighted


def _pairs(data: Data) -> set[tuple[int, int]]:
    ei = data.edge_index
    return {(u, v) for u, v in ei.t().tolist() if u < v}


def test_exact_counts_and_disjoint_edits():
    data = medium()
    out = rewirekit.rewire(data, "random", add=7, delete=5, seed=2)
    old, new = _pairs(data), _pairs(out)
    assert len(new - old) == 7 and len(old - new) == 5
    report = out.rewire_report
    assert (report.edges_added, report.edges_removed) == (7, 5)


def test_added_edges_get_unit_weight_and_kept_edges_keep_theirs():
    data = weighted()
    out = rewirekit.rewire(data, "random", add=2, delete=1, seed=0)
    before = {
        tuple(e): w
        for e, w in zip(data.edge_index.t().tolist(), data.edge_weight.tolist(), strict=True)
    }
    for e, w in zip(out.edge_index.t().tolist(), out.edge_weight.tolist(), strict=True):
        assert w == pytest.approx(before.get(tuple(e), 1.0))


def test_different_seeds_differ():
    data = medium()
    a = rewirekit.rewire(data, "random", add=10, seed=0)
    b = rewirekit.rewire(data, "random", add=10, seed=1)
    assert not torch.equal(a.edge_index, b.edge_index)


def test_rejection_path_on_a_large_sparse_graph():
    n = 50_000  # n(n-1)/2 > 4M possible pairs: non-edges are rejection-sampled
    ring = torch.arange(n)
    data = Data(edge_index=to_undirected(torch.stack([ring, (ring + 1) % n])), num_nodes=n)
    out = rewirekit.rewire(data, "random", add=2000, delete=100, seed=0)
    old, new = _pairs(data), _pairs(out)
    assert len(new - old) == 2000 and len(old - new) == 100
    assert all(u != v for u, v in new)


def test_complete_graph_cannot_gain_edges():
    ei = torch.combinations(torch.arange(5)).t()
    data = Data(edge_index=to_undirected(ei), num_nodes=5)
    with pytest.raises(rewirekit.RewireError, match="non-edges"):
        rewirekit.rewire(data, "random", add=1)
