"""Node classifiers for the benchmark: GCN, GPRGNN, GAT, GraphSAGE and an MLP baseline.

Every model has the same call, ``model(x, edge_index, edge_weight=None) -> logits`` (raw scores,
no softmax), and every graph model uses the edge weights; how each one does it is stated in its
docstring. ``x`` may be dense or a sparse CSR matrix (bag-of-words features). The architectures
follow the official JDR code (Linkerhägner et al., ICLR 2025), which itself follows the GPR-GNN
code: two layers, hidden width 64, dropout 0.5.

Two hooks let a training loop build the optimiser the way the papers do:

* ``first_layer``: the module whose parameters get weight decay when decay is restricted to the
  first layer (DIGL's and JDR's ``weight_decay_type: digl`` for GCN).
* ``no_weight_decay()``: names of parameters that never get weight decay (GPRGNN's filter
  coefficients, as in the GPR-GNN and JDR code).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from itertools import pairwise
from typing import Any, TypeAlias

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.nn import GATConv
from torch_geometric.nn.inits import reset

from rewirekit.errors import RewireError
from rewirekit.models.dropout import dropout
from rewirekit.models.layers import (
    GPRProp,
    GraphConvolution,
    NormalizedAdjacency,
    SparseFeatures,
    SparseOperator,
    WeightedSAGEConv,
    linear,
)
from rewirekit.registry import Registry

#: What a layer stack propagates over: ``edge_index`` (with the edge weights alongside), or
#: a prebuilt propagation matrix (GCN's normalised adjacency).
Graph: TypeAlias = Tensor | SparseOperator


def feature_dropout(
    x: Tensor | SparseOperator, p: float, training: bool
) -> Tensor | SparseOperator:
    """Dropout that also accepts sparse CSR features, as a tensor or a
    :class:`~rewirekit.models.layers.SparseOperator` (it drops stored values only, which for
    a matrix product is the same as dropping entries of the dense matrix)."""
    if isinstance(x, SparseOperator):
        if not training or p == 0.0:
            return x
        return x.with_values(dropout(x.values(), p, True))
    if x.layout == torch.sparse_csr:
        if not training or p == 0.0:
            return x
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
            return torch.sparse_csr_tensor(
                x.crow_indices(),
                x.col_indices(),
                dropout(x.values(), p, True),
                x.size(),
                check_invariants=False,
            )
    return dropout(x, p, training)


def _check_width(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise RewireError(f"{name} must be a positive integer, got {value!r}; pass e.g. {name}=64.")
    return value


def _check_dropout(name: str, value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 <= value < 1.0:
        raise RewireError(
            f"{name} is a probability in [0, 1), got {value!r}; pass e.g. {name}=0.5."
        )
    return float(value)


class NodeClassifier(nn.Module):
    """Common contract of the benchmark models (see the module docstring)."""

    @property
    def first_layer(self) -> nn.Module:
        raise NotImplementedError

    def no_weight_decay(self) -> set[str]:
        """Names (as in ``named_parameters()``) of parameters exempt from weight decay."""
        return set()


class _LayerStack(NodeClassifier):
    """Layers applied in turn, with an activation and dropout between consecutive layers."""

    def __init__(
        self,
        layers: list[nn.Module],
        dropout: float,
        input_dropout: bool = False,
        activation: Callable[[Tensor], Tensor] = F.relu,
    ) -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.dropout = dropout
        self.input_dropout = input_dropout
        self.activation = activation

    @property
    def first_layer(self) -> nn.Module:
        return self.layers[0]

    def reset_parameters(self) -> None:
        reset(self.layers)  # PyG's helper: each layer's own reset_parameters

    def forward(self, x: Tensor, edge_index: Tensor, edge_weight: Tensor | None = None) -> Tensor:
        return self._stack(x, edge_index, edge_weight)

    def _stack(
        self, x: Tensor | SparseOperator, graph: Graph, edge_weight: Tensor | None
    ) -> Tensor:
        """The layers in turn; ``graph`` is what :meth:`_apply_layer` reads (``edge_index``,
        or the normalised adjacency that :class:`GCN` builds once)."""
        if self.input_dropout:
            x = feature_dropout(x, self.dropout, self.training)
        h = self._apply_layer(self.layers[0], x, graph, edge_weight)
        for layer in self.layers[1:]:
            h = dropout(self.activation(h), self.dropout, self.training)
            h = self._apply_layer(layer, h, graph, edge_weight)
        return h

    def _apply_layer(
        self,
        layer: nn.Module,
        x: Tensor | SparseOperator,
        graph: Graph,
        edge_weight: Tensor | None,
    ) -> Tensor:
        return layer(x, graph, edge_weight)


def _widths(
    in_channels: int, hidden: int, out_channels: int, num_layers: int
) -> list[tuple[int, int]]:
    sizes = [in_channels] + [hidden] * (num_layers - 1) + [out_channels]
    return list(pairwise(sizes))


class GCN(_LayerStack):
    r"""Graph convolutional network (Kipf & Welling, ICLR 2017, https://arxiv.org/abs/1609.02907).

    Each layer computes :math:`\hat{A} H W + b` with
    :math:`\hat{A} = \tilde{D}^{-1/2} (A + I) \tilde{D}^{-1/2}`; ``A`` holds the edge weights
    (as PyG's :class:`~torch_geometric.nn.conv.GCNConv` with ``edge_weight``, whose
    initialisation it shares: :class:`~rewirekit.models.layers.GraphConvolution`). ReLU and
    dropout sit between layers; there is no input dropout (as in the JDR code's ``GCN_Net``
    and in ComFy's ``SimpleGCN``).

    Args:
        in_channels: number of input features.
        out_channels: number of classes.
        hidden: width of the hidden layers.
        num_layers: number of graph convolutions.
        dropout: dropout probability between layers.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        hidden: int = 64,
        num_layers: int = 2,
        dropout: float = 0.5,
    ) -> None:
        _check_width("hidden", hidden)
        _check_width("num_layers", num_layers)
        super().__init__(
            [
                GraphConvolution(a, b)
                for a, b in _widths(in_channels, hidden, out_channels, num_layers)
            ],
            _check_dropout("dropout", dropout),
        )
        self.adjacency = NormalizedAdjacency()
        self.features = SparseFeatures()

    def forward(self, x: Tensor, edge_index: Tensor, edge_weight: Tensor | None = None) -> Tensor:
        # the normalised CSR matrix is built once per graph, not on every call
        adjacency = self.adjacency(edge_index, edge_weight, x.size(0), x.dtype)
        return self._stack(self.features(x), adjacency, None)

    def _apply_layer(
        self,
        layer: nn.Module,
        x: Tensor | SparseOperator,
        graph: Graph,
        edge_weight: Tensor | None,
    ) -> Tensor:
        return layer(x, graph)


class GraphSAGE(_LayerStack):
    r"""GraphSAGE with a weighted mean aggregator (Hamilton et al., NeurIPS 2017).

    Each layer is a :class:`~rewirekit.models.layers.WeightedSAGEConv`:
    :math:`h_i' = W_1 h_i + W_2 \sum_j w_{ji} h_j / \sum_j |w_{ji}|`; ReLU and dropout between
    layers. PyG's ``SAGEConv`` ignores edge weights, hence the custom layer.

    Args: as for :class:`GCN`.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        hidden: int = 64,
        num_layers: int = 2,
        dropout: float = 0.5,
    ) -> None:
        _check_width("hidden", hidden)
        _check_width("num_layers", num_layers)
        super().__init__(
            [
                WeightedSAGEConv(a, b)
                for a, b in _widths(in_channels, hidden, out_channels, num_layers)
            ],
            _check_dropout("dropout", dropout),
        )


class GAT(_LayerStack):
    r"""Graph attention network (Veličković et al., ICLR 2018, https://arxiv.org/abs/1710.10903).

    Edge weights enter the attention scores as a one-dimensional edge feature (PyG's
    :class:`~torch_geometric.nn.conv.GATConv` with ``edge_dim=1``):
    :math:`e_{ij} = \mathrm{LeakyReLU}(a^\top [W h_i \,\|\, W h_j \,\|\, W_e w_{ij}])`. They change
    *which neighbours are attended to*; they do not scale messages. Self-loops receive the mean
    weight of a node's incoming edges. Input dropout, ELU and dropout between layers, attention
    dropout inside each layer, as in the JDR code's ``GAT_Net``.

    Args:
        in_channels: number of input features.
        out_channels: number of classes.
        hidden: width *per head* of the hidden layers (the concatenation is ``hidden * heads``).
        num_layers: number of attention layers.
        dropout: dropout probability on features and attention coefficients.
        heads: attention heads of the hidden layers (concatenated).
        output_heads: attention heads of the last layer (averaged).
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        hidden: int = 64,
        num_layers: int = 2,
        dropout: float = 0.5,
        heads: int = 8,
        output_heads: int = 1,
    ) -> None:
        _check_width("hidden", hidden)
        _check_width("num_layers", num_layers)
        _check_width("heads", heads)
        _check_width("output_heads", output_heads)
        dropout = _check_dropout("dropout", dropout)
        layers: list[nn.Module] = []
        width = in_channels
        for _ in range(num_layers - 1):
            layers.append(GATConv(width, hidden, heads=heads, dropout=dropout, edge_dim=1))
            width = hidden * heads
        layers.append(
            GATConv(
                width, out_channels, heads=output_heads, concat=False, dropout=dropout, edge_dim=1
            )
        )
        super().__init__(layers, dropout, input_dropout=True, activation=F.elu)

    def _apply_layer(
        self,
        layer: nn.Module,
        x: Tensor | SparseOperator,
        graph: Graph,
        edge_weight: Tensor | None,
    ) -> Tensor:
        edge_attr = None if edge_weight is None else edge_weight.view(-1, 1)
        return layer(x, graph, edge_attr)


class MLP(_LayerStack):
    """Multi-layer perceptron: linear layers with ReLU and dropout between them.

    It ignores ``edge_index`` and ``edge_weight`` by definition: it is the baseline that shows
    what the graph (original or rewired) adds over the features alone. A feature-denoising
    method such as JDR still changes its input through ``x``.

    Args: as for :class:`GCN`.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        hidden: int = 64,
        num_layers: int = 2,
        dropout: float = 0.5,
    ) -> None:
        _check_width("hidden", hidden)
        _check_width("num_layers", num_layers)
        super().__init__(
            [nn.Linear(a, b) for a, b in _widths(in_channels, hidden, out_channels, num_layers)],
            _check_dropout("dropout", dropout),
        )

    def _apply_layer(
        self,
        layer: nn.Module,
        x: Tensor | SparseOperator,
        graph: Graph,
        edge_weight: Tensor | None,
    ) -> Tensor:
        return layer(x)


class GPRGNN(NodeClassifier):
    r"""GPR-GNN (Chien et al., ICLR 2021, https://arxiv.org/abs/2006.07988).

    An MLP predicts per-node class scores :math:`H`, then
    :class:`~rewirekit.models.layers.GPRProp` propagates them with learnable generalized
    PageRank weights: :math:`Z = \sum_{k=0}^{K} \gamma_k \hat{A}^k H`, where :math:`\hat{A}` is
    the symmetrically normalised adjacency *with the edge weights*. As in the official code:
    dropout on the input and the hidden layer, dropout ``dprate`` before propagation, and no
    weight decay on the coefficients :math:`\gamma`.

    Args:
        in_channels: number of input features.
        out_channels: number of classes.
        hidden: width of the hidden layer.
        dropout: dropout probability of the MLP.
        K: propagation steps.
        alpha: PPR initialisation of :math:`\gamma`.
        dprate: dropout probability right before propagation.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        *,
        hidden: int = 64,
        dropout: float = 0.5,
        K: int = 10,
        alpha: float = 0.1,
        dprate: float = 0.5,
    ) -> None:
        super().__init__()
        self.lin1 = nn.Linear(in_channels, _check_width("hidden", hidden))
        self.lin2 = nn.Linear(hidden, out_channels)
        self.prop = GPRProp(K, alpha)
        self.features = SparseFeatures()
        self.dropout = _check_dropout("dropout", dropout)
        self.dprate = _check_dropout("dprate", dprate)

    @property
    def first_layer(self) -> nn.Module:
        return self.lin1

    def no_weight_decay(self) -> set[str]:
        return {"prop.temp"}

    def reset_parameters(self) -> None:
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()
        self.prop.reset_parameters()

    def forward(self, x: Tensor, edge_index: Tensor, edge_weight: Tensor | None = None) -> Tensor:
        h = feature_dropout(self.features(x), self.dropout, self.training)
        h = dropout(F.relu(linear(h, self.lin1)), self.dropout, self.training)
        h = dropout(self.lin2(h), self.dprate, self.training)
        return self.prop(h, edge_index, edge_weight)


MODELS: Registry[type[NodeClassifier]] = Registry(
    "model",
    {
        "gcn": GCN,
        "gprgnn": GPRGNN,
        "mlp": MLP,
        "gat": GAT,
        "sage": GraphSAGE,
    }.items(),
)


def list_models() -> list[str]:
    """Names accepted by :func:`build_model`."""
    return list(MODELS)


def model_hparams(name: str) -> dict[str, Any]:
    """The hyperparameters ``name`` accepts, with their defaults."""
    signature = inspect.signature(_lookup(name))
    return {
        p.name: p.default
        for p in signature.parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def build_model(name: str, in_channels: int, out_channels: int, **hparams: Any) -> NodeClassifier:
    """Build the model called ``name`` (see :data:`MODELS`).

    Example:
        >>> model = build_model("gprgnn", 1433, 7, hidden=64, K=10, alpha=0.1)
        >>> logits = model(x, edge_index, edge_weight)        # doctest: +SKIP

    Raises:
        RewireError: unknown model, unknown hyperparameter or invalid value.
    """
    accepted = model_hparams(name)
    unknown = sorted(set(hparams) - set(accepted))
    if unknown:
        raise RewireError(
            f"model {name!r} has no hyperparameter(s) {', '.join(unknown)}; "
            f"it accepts: {', '.join(accepted)}."
        )
    _check_width("in_channels", in_channels)
    _check_width("out_channels", out_channels)
    return _lookup(name)(in_channels, out_channels, **hparams)


def _lookup(name: str) -> type[NodeClassifier]:
    return MODELS[name]
