"""The conformance suite's graphs: small, seeded, each exercising one rule of the contract.

Every builder returns a fresh :class:`~torch_geometric.data.Data` with 4-d features ``x``
and two-class labels ``y``. :data:`SUITE_GRAPHS` holds the valid inputs (names are those an
:class:`~rewirekit.methods.base.Example` may list in ``raises_on``); :data:`BAD_INPUTS`
the invalid ones every method must refuse with a :class:`~rewirekit.errors.RewireError`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected


def _features(n: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(n, 4, generator=torch.Generator().manual_seed(seed))


def _labels(n: int) -> torch.Tensor:
    return torch.arange(n) % 2


def tiny() -> Data:
    """5 nodes: the path 0-1-2-3-4 plus the chord 0-2 (5 undirected edges)."""
    ei = to_undirected(torch.tensor([[0, 1, 2, 3, 0], [1, 2, 3, 4, 2]]))
    return Data(x=_features(5), y=_labels(5), edge_index=ei)


def disconnected() -> Data:
    """8 nodes: two triangles and two isolated nodes."""
    ei = to_undirected(torch.tensor([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]]))
    return Data(x=_features(8), y=_labels(8), edge_index=ei, num_nodes=8)


def isolated_nodes() -> Data:
    """10 nodes: the path 0-1-2-3 and six isolated nodes."""
    ei = to_undirected(torch.tensor([[0, 1, 2], [1, 2, 3]]))
    return Data(x=_features(10), y=_labels(10), edge_index=ei)


def weighted() -> Data:
    """6 nodes, 6 undirected edges with distinct weights in ``edge_weight`` (node 5 isolated)."""
    ei = torch.tensor([[0, 1, 2, 3, 0, 2], [1, 2, 3, 0, 2, 4]])
    w = torch.tensor([0.5, 1.0, 2.0, 0.25, 1.5, 3.0])
    ei, w = to_undirected(ei, w)
    return Data(x=_features(6), y=_labels(6), edge_index=ei, edge_weight=w)


def with_self_loops_and_duplicates() -> Data:
    """6 nodes, 3 edges, unsorted, with self-loops (2-2, 3-3) and a duplicated edge (1-0)."""
    ei = torch.tensor([[0, 1, 1, 2, 3, 3, 1, 2], [1, 0, 2, 1, 3, 4, 0, 2]])
    ei = torch.cat([ei, torch.tensor([[4], [3]])], dim=1)
    return Data(x=_features(6), y=_labels(6), edge_index=ei)


def edgeless() -> Data:
    """4 nodes, no edges."""
    return Data(x=_features(4), y=_labels(4), edge_index=torch.zeros(2, 0, dtype=torch.long))


def directed() -> Data:
    """5 nodes, the directed cycle 0→1→2→3→0 plus 0→3 (node 4 isolated)."""
    ei = torch.tensor([[0, 1, 2, 3, 0], [1, 2, 3, 0, 3]])
    return Data(x=_features(5), y=_labels(5), edge_index=ei)


def medium(seed: int = 0) -> Data:
    """60 nodes, about 140 random undirected edges (150 seeded draws, self-pairs dropped)."""
    g = torch.Generator().manual_seed(seed)
    ei = torch.randint(0, 60, (2, 150), generator=g)
    ei = to_undirected(ei[:, ei[0] != ei[1]], num_nodes=60)
    return Data(x=_features(60, seed), y=_labels(60), edge_index=ei)


#: The valid inputs of the suite, by name.
SUITE_GRAPHS: dict[str, Callable[[], Data]] = {
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

#: Inputs that every method must refuse with a clear :class:`~rewirekit.errors.RewireError`.
BAD_INPUTS: dict[str, Callable[[], object]] = {
    "empty": lambda: Data(x=torch.zeros(0, 4), edge_index=torch.zeros(2, 0, dtype=torch.long)),
    "nan_features": lambda: Data(
        x=torch.tensor([[0.0], [float("nan")], [1.0]]), edge_index=torch.tensor([[0, 1], [1, 0]])
    ),
    "out_of_range": lambda: Data(x=torch.zeros(3, 2), edge_index=torch.tensor([[0, 5], [5, 0]])),
    "negative_index": lambda: Data(
        x=torch.zeros(3, 2), edge_index=torch.tensor([[0, -1], [-1, 0]])
    ),
    "float_index": lambda: Data(
        x=torch.zeros(3, 2), edge_index=torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    ),
    "wrong_shape": lambda: Data(x=torch.zeros(3, 2), edge_index=torch.tensor([0, 1, 2])),
    "nan_weight": lambda: Data(
        x=torch.zeros(3, 2),
        edge_index=torch.tensor([[0, 1], [1, 0]]),
        edge_weight=torch.tensor([1.0, float("nan")]),
    ),
    "not_data": lambda: {"edge_index": torch.tensor([[0], [1]])},
}
