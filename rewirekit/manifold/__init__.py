"""Point clouds -> kNN graphs -> ORC-ManL pruning, with generators that know the true edges."""

from rewirekit.manifold.knn import KnnGraph, knn_graph
from rewirekit.manifold.paths import bounded_pair_distances

__all__ = ["KnnGraph", "bounded_pair_distances", "knn_graph"]
