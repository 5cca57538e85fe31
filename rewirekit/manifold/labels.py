"""Ground-truth good/bad labels for kNN edges, and the two removal rates that score a pruning.

Saidi et al. (ICLR 2025), section 5: an edge of the kNN graph of a noisy sample is *bad*
(a shortcut) when it joins points far apart along the manifold. With piece ids that means
two different pieces. On a connected manifold, edge ``{i, j}`` is bad iff the geodesic
between the clean points of ``i`` and ``j`` -- the shortest path in the kNN graph (k = 20)
of the noise-free supersample -- exceeds ``label_scale`` times the longest kNN edge at
``i`` or ``j`` (scale 10; 12 for the S-curve, 20 for the Cassini oval). This is the rule of
the official ``get_edge_labels`` (piece ids when given, else the geodesic).
"""

from __future__ import annotations

import numpy as np

from rewirekit.errors import RewireError
from rewirekit.manifold.generators import ManifoldSample
from rewirekit.manifold.knn import KnnGraph, knn_graph
from rewirekit.manifold.paths import bounded_pair_distances

#: neighbours per point of the supersample graph that measures geodesics
GEODESIC_K = 20


def edge_labels(graph: KnnGraph, sample: ManifoldSample) -> np.ndarray:
    """``True`` for each good edge of ``graph`` (a kNN graph of ``sample.points``)."""
    if graph.num_nodes != sample.points.shape[0]:
        raise RewireError(
            f"the graph has {graph.num_nodes} nodes but the sample {sample.points.shape[0]}."
        )
    if sample.cluster is not None:
        return sample.cluster[graph.src] == sample.cluster[graph.dst]
    if sample.supersample is None or sample.subsample is None:
        raise RewireError("the sample has neither piece ids nor a supersample to label edges.")
    longest = np.zeros(graph.num_nodes)
    np.maximum.at(longest, graph.src, graph.length)
    np.maximum.at(longest, graph.dst, graph.length)
    limit = sample.label_scale * np.maximum(longest[graph.src], longest[graph.dst])
    dense = knn_graph(sample.supersample, GEODESIC_K)
    ends = sample.subsample
    geodesic = bounded_pair_distances(
        dense, ends[graph.src], ends[graph.dst], limit, points=sample.supersample
    )
    return np.isfinite(geodesic)


def removal_rates(good: np.ndarray, removed: np.ndarray) -> tuple[float, float]:
    """Percent of the good edges removed and percent of the bad edges removed
    (``nan`` where there are none of that kind)."""
    good, removed = np.asarray(good, dtype=bool), np.asarray(removed, dtype=bool)
    if good.shape != removed.shape:
        raise RewireError(f"labels {good.shape} and removals {removed.shape} must align.")
    bad = ~good
    rate_good = 100.0 * removed[good].mean() if good.any() else float("nan")
    rate_bad = 100.0 * removed[bad].mean() if bad.any() else float("nan")
    return float(rate_good), float(rate_bad)
