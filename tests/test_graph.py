"""Edge-set conversions against PyG's coalesce, on unsorted, duplicated, looped input."""

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import coalesce, to_undirected

from rewirekit import RewireError
from rewirekit.graph import edge_set, symmetric_csr, to_edge_index, validate_data


def _random_graph(seed, n=40, m=150, weighted=True, undirected=True):
    g = torch.Generator().manual_seed(seed)
    edge_index = torch.randint(0, n, (2, m), generator=g)
    weight = torch.rand(m, generator=g) + 0.5 if weighted else None
    if undirected:
        edge_index, weight = to_undirected(edge_index, weight, num_nodes=n)
    perm = torch.randperm(edge_index.size(1), generator=g)  # unsorted input
    dup = perm[:10]  # duplicates, in both directions
    edge_index = torch.cat(
        [edge_index[:, perm], edge_index[:, dup], edge_index[:, dup].flip(0)], dim=1
    )
    if weight is not None:
        weight = torch.cat([weight[perm], weight[dup], weight[dup]])
    return Data(edge_index=edge_index, edge_weight=weight, num_nodes=n)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("undirected", [True, False])
def test_round_trip_equals_pyg_coalesce(seed, weighted, undirected):
    data = _random_graph(seed, weighted=weighted, undirected=undirected)
    edges = edge_set(data)
    assert edges.directed is not undirected
    edge_index, weight = to_edge_index(edges)
    reduce = "sum" if weighted else "max"
    values = data.edge_weight if weighted else torch.ones(data.edge_index.size(1))
    want_index, want_weight = coalesce(data.edge_index, values, data.num_nodes, reduce=reduce)
    assert torch.equal(edge_index, want_index)
    if weighted:
        torch.testing.assert_close(weight, want_weight.float())
    else:
        assert weight is None


def test_asymmetric_weights_make_a_directed_graph():
    data = Data(
        edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]),
        edge_weight=torch.tensor([1.0, 1.0, 2.0, 3.0]),
        num_nodes=3,
    )
    assert edge_set(data).directed
    data.edge_weight = torch.tensor([1.0, 1.0, 2.0, 2.0])
    assert not edge_set(data).directed


def test_symmetric_csr_rows_are_ascending_and_map_back_to_pairs():
    edges = edge_set(_random_graph(5, weighted=False))
    indptr, columns, slot_pair = symmetric_csr(edges)
    rows = np.repeat(np.arange(edges.num_nodes), np.diff(indptr))
    keys = rows * edges.num_nodes + columns
    assert np.all(keys[1:] > keys[:-1])
    src = np.concatenate([edges.src, edges.self_loops])
    dst = np.concatenate([edges.dst, edges.self_loops])
    lo, hi = np.minimum(rows, columns), np.maximum(rows, columns)
    assert np.array_equal(src[slot_pair], lo) and np.array_equal(dst[slot_pair], hi)


def test_non_finite_values_are_refused_even_when_the_sum_overflows():
    x = torch.full((3, 2), 3e38)
    validate_data(Data(x=x, edge_index=torch.zeros(2, 0, dtype=torch.long)))  # sum is inf
    x[1, 1] = float("nan")
    with pytest.raises(RewireError, match="NaN"):
        validate_data(Data(x=x, edge_index=torch.zeros(2, 0, dtype=torch.long)))
