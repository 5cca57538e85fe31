"""GNN models for node classification; all take ``(x, edge_index, edge_weight=None)``."""

from rewirekit.models.gnn import (
    GAT,
    GCN,
    GPRGNN,
    MLP,
    MODELS,
    GraphSAGE,
    NodeClassifier,
    build_model,
    list_models,
    model_hparams,
)
from rewirekit.models.layers import GPRProp, WeightedSAGEConv

__all__ = [
    "build_model",
    "list_models",
    "model_hparams",
    "MODELS",
    "NodeClassifier",
    "GCN",
    "GPRGNN",
    "GAT",
    "GraphSAGE",
    "MLP",
    "GPRProp",
    "WeightedSAGEConv",
]
