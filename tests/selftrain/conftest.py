"""A tiny two-block graph on which self-training runs in well under a second."""

import pytest
import torch
from torch_geometric.data import Data

from rewirekit.bench.training import TrainConfig
from rewirekit.datasets import csbm


@pytest.fixture(scope="module")
def graph():
    data = csbm(60, 8, phi=0.6, seed=3)
    data = Data(x=data.x.float(), y=data.y.long(), edge_index=data.edge_index)
    n = data.num_nodes
    order = torch.randperm(n, generator=torch.Generator().manual_seed(0))
    train, val = torch.zeros(n, dtype=torch.bool), torch.zeros(n, dtype=torch.bool)
    train[order[:8]] = True
    val[order[8:20]] = True
    return data, train, val, ~(train | val)


@pytest.fixture(scope="module")
def config():
    return TrainConfig(hidden=8, dropout=0.0, lr=0.05, max_epochs=15, early_stopping="none")
