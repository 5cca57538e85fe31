"""Point clouds -> kNN graphs -> ORC-ManL pruning, with generators that know the true edges."""

from rewirekit.manifold.baselines import (
    prune_bisection,
    prune_curvature,
    prune_density,
    prune_distance,
    prune_two_mst,
)
from rewirekit.manifold.generators import MANIFOLDS, ManifoldSample, make_manifold
from rewirekit.manifold.knn import KnnGraph, knn_graph
from rewirekit.manifold.labels import edge_labels, removal_rates
from rewirekit.manifold.orc_manl import OrcManlResult, orc_manl
from rewirekit.manifold.paths import bounded_pair_distances

__all__ = [
    "MANIFOLDS",
    "KnnGraph",
    "ManifoldSample",
    "OrcManlResult",
    "bounded_pair_distances",
    "edge_labels",
    "knn_graph",
    "make_manifold",
    "orc_manl",
    "prune_bisection",
    "prune_curvature",
    "prune_density",
    "prune_distance",
    "prune_two_mst",
    "removal_rates",
]
