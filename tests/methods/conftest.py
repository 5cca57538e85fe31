"""Small graphs that exercise every rule of the method contract."""

from __future__ import annotations

import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected


def _features(n: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(n, 4, generator=torch.Generator().manual_seed(seed))


def _labels(n: int) -> torch.Tensor:
    return torch.arange(n) % 2


def tiny() -> Data:
    ei = to_undirected(torch.tensor([[0, 1, 2, 3, 0], [1, 2, 3, 4, 2]]))
    return Data(x=_features(5), y=_labels(5), edge_index=ei)


def disconnected() -> Data:
    ei = to_undirected(torch.tensor([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]]))
    return Data(x=_features(8), y=_labels(8), edge_index=ei, num_nodes=8)


def isolated_nodes() -> Data:
    ei = to_undirected(torch.tensor([[0, 1, 2], [1, 2, 3]]))
    return Data(x=_features(10), y=_labels(10), edge_index=ei)


def weighted() -> Data:
    ei = torch.tensor([[0, 1, 2, 3, 0, 2], [1, 2, 3, 0, 2, 4]])
    w = torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5, 3.0])
    ei, w = to_undirected(ei, w)
    return Data(x=_features(6), y=_labels(6), edge_index=ei, edge_weight=w)


def with_self_loops_and_duplicates() -> Data:
    ei = torch.tensor([[0, 1, 1, 2, 3, 3, 1, 2], [1, 0, 2, 1, 3, 4, 0, 2]])
    ei = torch.cat([ei, torch.tensor([[4], [3]])], dim=1)
    return Data(x=_features(6), y=_labels(6), edge_index=ei)


def edgeless() -> Data:
    return Data(x=_features(4), y=_labels(4), edge_index=torch.zeros(2, 0, dtype=torch.long))


def directed() -> Data:
    ei = torch.tensor([[0, 1, 2, 3, 0], [1, 2, 3, 0, 3]])
    return Data(x=_features(5), y=_labels(5), edge_index=ei)


def medium(seed: int = 0) -> Data:
    g = torch.Generator().manual_seed(seed)
    ei = torch.randint(0, 60, (2, 150), generator=g)
    ei = to_undirected(ei[:, ei[0] != ei[1]], num_nodes=60)
    return Data(x=_features(60, seed), y=_labels(60), edge_index=ei)


VALID_GRAPHS = {
    f.__name__: f
    for f in (
        tiny,
        disconnected,
        isolated_nodes,
        weighted,
        with_self_loops_and_duplicates,
        edgeless,
        directed,
        medium,
    )
}


@pytest.fixture(params=sorted(VALID_GRAPHS))
def graph(request) -> Data:
    return VALID_GRAPHS[request.param]()
