"""Message-passing layers that PyTorch Geometric does not ship in the form rewirekit needs.

Every layer honours edge weights, so graphs produced by weighted rewirers (JDR, DIGL) are used
as they are: a weight ``w_ji`` on edge ``j -> i`` scales the message from ``j`` to ``i``.

Full-batch training multiplies the same sparse matrices (the normalised adjacency, sparse
bag-of-words features) hundreds of times: :class:`SparseOperator` keeps such a matrix with
its transpose, so neither the forward nor the backward product converts it again.
"""

from __future__ import annotations

import copy
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor
from torch.nn import Linear, Module, Parameter
from torch_geometric.nn import MessagePassing
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.nn.dense.linear import Linear as PygLinear
from torch_geometric.nn.inits import zeros
from torch_geometric.utils import scatter, to_torch_csr_tensor

from rewirekit.errors import RewireError


class _CsrProduct(torch.autograd.Function):
    """``M @ H`` for a constant CSR matrix ``M``; the gradient is ``Mᵀ @ dH`` with a stored
    ``Mᵀ`` (torch's own backward transposes and re-sorts ``M`` on every call, which made
    that conversion most of the training time of GPR-GNN)."""

    @staticmethod
    def forward(ctx: Any, matrix: Tensor, transposed: Tensor, dense: Tensor) -> Tensor:
        ctx.transposed = transposed
        return matrix @ dense

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, Tensor | None]:
        return None, None, ctx.transposed @ grad if ctx.needs_input_grad[2] else None


class SparseOperator:
    """A constant sparse CSR matrix ``M`` with its transpose built once, so that products
    ``M @ H`` are differentiable in ``H`` without converting ``M`` again (see
    :class:`_CsrProduct`). ``with_values`` swaps the stored values in both orders at once
    (dropout on sparse features)."""

    def __init__(self, matrix: Tensor) -> None:
        positions = torch.arange(matrix.values().numel(), dtype=torch.float64)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
            order = _csr(matrix, positions).t().to_sparse_csr()
        self.matrix = matrix
        self._order = order.values().long()  # transposed.values() == matrix.values()[_order]
        self.transposed = _csr(order, matrix.values()[self._order])

    def values(self) -> Tensor:
        return self.matrix.values()

    def with_values(self, values: Tensor) -> SparseOperator:
        """The same sparsity pattern with other stored values."""
        out = copy.copy(self)
        out.matrix = _csr(self.matrix, values)
        out.transposed = _csr(self.transposed, values[self._order])
        return out

    def __matmul__(self, dense: Tensor) -> Tensor:
        return _CsrProduct.apply(self.matrix, self.transposed, dense)


def _csr(pattern: Tensor, values: Tensor) -> Tensor:
    """A CSR tensor with the index arrays of ``pattern`` and the given values."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
        return torch.sparse_csr_tensor(
            pattern.crow_indices(),
            pattern.col_indices(),
            values,
            pattern.size(),
            check_invariants=False,
        )


class _IdentityCache:
    """Remembers one value built from a set of tensors, by their identity (weak references,
    so the tensors can still be freed); another set of tensors rebuilds it."""

    def __init__(self) -> None:
        self._refs: tuple | None = None
        self._extra: tuple = ()
        self._value: Any = None

    def get(
        self, tensors: tuple[Tensor | None, ...], extra: tuple, build: Callable[[], Any]
    ) -> Any:
        refs = self._refs
        hit = (
            refs is not None
            and extra == self._extra
            and len(refs) == len(tensors)
            and all(
                r is None if t is None else (r is not None and r() is t)
                for r, t in zip(refs, tensors, strict=True)
            )
        )
        if not hit:
            self._value = build()
            self._refs = tuple(None if t is None else weakref.ref(t) for t in tensors)
            self._extra = extra
        return self._value


class NormalizedAdjacency:
    r"""The GCN propagation matrix :math:`\hat{A} = \tilde{D}^{-1/2}(A + I)\tilde{D}^{-1/2}`
    as a :class:`SparseOperator` (rows are targets), cached for the graph it was last built
    from.

    Full-batch training calls a model hundreds of times on one graph; normalising once and
    multiplying with a CSR matrix is several times faster on CPU than message passing. The
    cache holds weak references to the ``edge_index``/``edge_weight`` tensors and rebuilds
    the matrix whenever it is called with other tensors.
    """

    def __init__(self) -> None:
        self._cache = _IdentityCache()

    def __call__(
        self, edge_index: Tensor, edge_weight: Tensor | None, num_nodes: int, dtype: torch.dtype
    ) -> SparseOperator:
        def build() -> SparseOperator:
            index, norm = gcn_norm(edge_index, edge_weight, num_nodes=num_nodes, dtype=dtype)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
                warnings.filterwarnings("ignore", message="Sparse invariant checks")
                return SparseOperator(
                    to_torch_csr_tensor(index.flip(0), norm, size=(num_nodes, num_nodes))
                )

        return self._cache.get((edge_index, edge_weight), (num_nodes, dtype), build)


class SparseFeatures:
    """Wraps sparse CSR features in a :class:`SparseOperator`, once per feature tensor."""

    def __init__(self) -> None:
        self._cache = _IdentityCache()

    def __call__(self, x: Tensor | SparseOperator) -> Tensor | SparseOperator:
        if not isinstance(x, Tensor) or x.layout != torch.sparse_csr:
            return x
        return self._cache.get((x,), (), lambda: SparseOperator(x))


def linear(x: Tensor | SparseOperator, layer: Linear) -> Tensor:
    """``layer(x)`` that also takes a :class:`SparseOperator`: ``x @ Wᵀ + b``."""
    if not isinstance(x, SparseOperator):
        return layer(x)
    out = x @ layer.weight.T
    return out if layer.bias is None else out + layer.bias


class GraphConvolution(Module):
    r"""One GCN layer, :math:`\hat{A} X W + b`, with :math:`\hat{A}` given as a
    :class:`SparseOperator` (Kipf & Welling, ICLR 2017). Its parameters and their
    initialisation (Glorot weight, zero bias) are those of PyG's ``GCNConv``.
    """

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.lin = PygLinear(in_channels, out_channels, bias=False, weight_initializer="glorot")
        self.bias = Parameter(torch.empty(out_channels))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        self.lin.reset_parameters()
        zeros(self.bias)

    def forward(self, x: Tensor | SparseOperator, adjacency: SparseOperator) -> Tensor:
        return adjacency @ linear(x, self.lin) + self.bias

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.in_channels}, {self.out_channels})"


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
            raise RewireError(
                f"GPRGNN needs K >= 1 propagation steps, got K={K!r}; pass an integer such as K=10."
            )
        if not 0.0 <= float(alpha) <= 1.0:
            raise RewireError(
                f"GPRGNN's alpha is a teleport probability in [0, 1], got {alpha!r}; "
                "pass e.g. alpha=0.1."
            )
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
