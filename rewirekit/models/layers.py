"""Message-passing layers that PyTorch Geometric does not ship in the form rewirekit needs.

Both layers honour edge weights, so graphs produced by weighted rewirers (JDR, DIGL) are used
as they are: a weight ``w_ji`` on edge ``j -> i`` scales the message from ``j`` to ``i``.
"""
from __future__ import annotations

import warnings
import weakref

import torch
from torch import Tensor
from torch.nn import Linear, Module, Parameter
from torch_geometric.nn import MessagePassing
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import scatter, to_torch_csr_tensor

from rewirekit.errors import RewireError


class NormalizedAdjacency:
    r"""The GCN propagation matrix :math:`\hat{A} = \tilde{D}^{-1/2}(A + I)\tilde{D}^{-1/2}`
    as a sparse CSR matrix (rows are targets), cached for the graph it was last built from.

    Full-batch training calls a model hundreds of times on one graph; normalising once and
    multiplying with a CSR matrix is several times faster on CPU than message passing. The
    cache holds weak references to the ``edge_index``/``edge_weight`` tensors and rebuilds
    the matrix whenever it is called with other tensors.
    """

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._matrix: Tensor | None = None

    def __call__(self, edge_index: Tensor, edge_weight: Tensor | None, num_nodes: int,
                 dtype: torch.dtype) -> Tensor:
        if not self._is_cached(edge_index, edge_weight, num_nodes, dtype):
            index, norm = gcn_norm(edge_index, edge_weight, num_nodes=num_nodes, dtype=dtype)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
                warnings.filterwarnings("ignore", message="Sparse invariant checks")
                self._matrix = to_torch_csr_tensor(index.flip(0), norm, size=(num_nodes, num_nodes))
            self._key = (weakref.ref(edge_index),
                         None if edge_weight is None else weakref.ref(edge_weight),
                         num_nodes, dtype)
        return self._matrix

    def _is_cached(self, edge_index: Tensor, edge_weight: Tensor | None, num_nodes: int,
                   dtype: torch.dtype) -> bool:
        if self._key is None:
            return False
        index_ref, weight_ref, cached_nodes, cached_dtype = self._key
        same_weight = weight_ref is None if edge_weight is None else (
            weight_ref is not None and weight_ref() is edge_weight)
        return (index_ref() is edge_index and same_weight and cached_nodes == num_nodes
                and cached_dtype == dtype)


class GPRProp(Module):
    r"""Generalized PageRank propagation of GPR-GNN (Chien et al., "Adaptive Universal
    Generalized PageRank Graph Neural Network", ICLR 2021, https://arxiv.org/abs/2006.07988).

    .. math::
        Z = \sum_{k=0}^{K} \gamma_k \hat{A}^k H, \qquad
        \hat{A} = \tilde{D}^{-1/2} (A + I) \tilde{D}^{-1/2},

    where ``A`` carries the edge weights, self-loops of weight one are added to nodes that have
    none (PyG's :func:`gcn_norm`), and the learnable coefficients start from the personalised
    PageRank values :math:`\gamma_k = \alpha (1 - \alpha)^k` for ``k < K`` and
    :math:`\gamma_K = (1 - \alpha)^K` ("PPR" initialisation, the paper's and JDR's default).

    Args:
        K: number of propagation steps (the filter order).
        alpha: teleport probability of the PPR initialisation, in ``[0, 1]``.
    """

    def __init__(self, K: int, alpha: float) -> None:
        super().__init__()
        if not isinstance(K, int) or isinstance(K, bool) or K < 1:
            raise RewireError(f"GPRGNN needs K >= 1 propagation steps, got K={K!r}; "
                              "pass an integer such as K=10.")
        if not 0.0 <= float(alpha) <= 1.0:
            raise RewireError(f"GPRGNN's alpha is a teleport probability in [0, 1], got {alpha!r}; "
                              "pass e.g. alpha=0.1.")
        self.K = K
        self.alpha = float(alpha)
        self.temp = Parameter(torch.empty(K + 1))
        self.adjacency = NormalizedAdjacency()
        self.reset_parameters()

    def reset_parameters(self) -> None:
        steps = torch.arange(self.K + 1, dtype=torch.float64)
        gamma = self.alpha * (1.0 - self.alpha) ** steps
        gamma[-1] = (1.0 - self.alpha) ** self.K
        with torch.no_grad():
            self.temp.copy_(gamma)

    def forward(self, x: Tensor, edge_index: Tensor, edge_weight: Tensor | None = None) -> Tensor:
        adjacency = self.adjacency(edge_index, edge_weight, x.size(0), x.dtype)
        out = self.temp[0] * x
        for k in range(1, self.K + 1):
            x = adjacency @ x
            out = out + self.temp[k] * x
        return out

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(K={self.K}, alpha={self.alpha})"


class WeightedSAGEConv(MessagePassing):
    r"""GraphSAGE layer with a *weighted* mean aggregator (Hamilton et al., "Inductive
    Representation Learning on Large Graphs", NeurIPS 2017, https://arxiv.org/abs/1706.02216).

    .. math::
        h_i' = W_1 h_i + W_2 \frac{\sum_{j \in N(i)} w_{ji} h_j}{\sum_{j \in N(i)} |w_{ji}|} + b

    With unit weights this is PyG's :class:`~torch_geometric.nn.conv.SAGEConv` with mean
    aggregation (which ignores edge weights). Dividing by :math:`\sum |w_{ji}|` keeps the
    aggregate a bounded average when a rewirer emits negative weights; for non-negative weights
    it is exactly the weighted mean. Nodes without in-edges aggregate to zero.
    """

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__(aggr="add")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.lin_neighbors = Linear(in_channels, out_channels, bias=False)
        self.lin_root = Linear(in_channels, out_channels, bias=True)

    def reset_parameters(self) -> None:
        self.lin_neighbors.reset_parameters()
        self.lin_root.reset_parameters()

    def forward(self, x: Tensor, edge_index: Tensor, edge_weight: Tensor | None = None) -> Tensor:
        if edge_weight is None:
            edge_weight = torch.ones(edge_index.size(1), dtype=x.dtype, device=x.device)
        total = scatter(edge_weight.abs(), edge_index[1], dim=0, dim_size=x.size(0), reduce="sum")
        # W_2 is linear, so it is applied before aggregating: the messages are then only
        # ``out_channels`` wide.
        neighbors = self.propagate(edge_index, x=self.lin_neighbors(x), edge_weight=edge_weight)
        return neighbors / total.clamp_min(1e-12).unsqueeze(-1) + self.lin_root(x)

    def message(self, x_j: Tensor, edge_weight: Tensor) -> Tensor:
        return edge_weight.view(-1, 1) * x_j

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.in_channels}, {self.out_channels})"
