"""Baselines for graph self-training; both run in the loop of :mod:`rewirekit.selftrain.loop`
(teacher updated each round, validation nodes never pseudo-labelled).

* :class:`ConfidenceSelfTraining` ("ST"; Li, Han & Wu, "Deeper Insights into Graph
  Convolutional Networks for Semi-Supervised Learning", AAAI 2018): pseudo-label the ``top_k``
  most confident nodes each round.
* :class:`M3S` (Sun, Lin & Zhu, "Multi-Stage Self-Supervised Learning for Graph Convolutional
  Networks on Graphs with Few Labeled Nodes", AAAI 2020): a confident prediction becomes a
  pseudo-label only if k-means clustering agrees with it.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.cluster import KMeans

from rewirekit.errors import RewireError
from rewirekit.selftrain.calibration import calibrate, check_calibration
from rewirekit.selftrain.loop import Selection, SelectionContext, SelfTrainingMethod


def _check_positive(label: str, value: object) -> None:
    if not isinstance(value, int) or value < 1:
        raise RewireError(f"{label} must be a positive integer, got {value!r}.")


def _check_threshold(value: float) -> None:
    if not 0.0 <= value < 1.0:
        raise RewireError(f"threshold must lie in [0, 1), got {value!r}.")


class ConfidenceSelfTraining(SelfTrainingMethod):
    """Confidence-based self-training: each round, the ``top_k`` eligible nodes of highest
    max-softmax confidence above ``threshold`` get the teacher's class (the BANGS code's
    ``--conf_pick``). ``calibration`` calibrates the teacher first (as in
    :class:`~rewirekit.selftrain.bangs.BANGS`; ``"none"`` by default, as in the original ST).

    Args:
        top_k: pseudo-labels per round.
        rounds: self-training rounds.
        threshold: minimum confidence of a pseudo-label.
        calibration: ``"none"``, ``"ts"`` or ``"gats"``.
    """

    name = "st"

    def __init__(
        self, top_k: int = 100, rounds: int = 20, threshold: float = 0.0, calibration: str = "none"
    ) -> None:
        _check_positive("top_k", top_k)
        _check_positive("rounds", rounds)
        _check_threshold(threshold)
        self.top_k = top_k
        self.rounds = rounds
        self.threshold = threshold
        self.calibration = check_calibration(calibration)

    def select(self, context: SelectionContext) -> Selection:
        train_index = context.train_index
        logits = calibrate(
            context.logits,
            context.data.y,
            context.data.edge_index,
            context.val_index,
            train_index,
            train_index,
            method=self.calibration,
            seed=context.seed + context.round,
        )
        confidence, predicted = logits.softmax(dim=1).max(dim=1)
        pool = (context.eligible & (confidence > self.threshold)).nonzero().view(-1)
        order = torch.sort(confidence[pool], descending=True, stable=True).indices
        chosen = pool[order[: self.top_k]]
        return Selection(chosen, predicted[chosen])


class M3S(SelfTrainingMethod):
    """Multi-stage self-supervised self-training with k-means label alignment.

    Each stage (round): cluster the teacher's outputs of the eligible nodes with k-means into
    ``clusters`` groups; give each cluster the class whose centroid (the mean output of the
    labelled nodes of that class, pseudo-labels included) is nearest to the cluster's centre in
    mean squared distance; a node whose confidence exceeds ``threshold`` is pseudo-labelled with
    its predicted class when that class equals its cluster's class.

    As in the BANGS repository's M3S baseline, the outputs clustered are the logits and every
    node passing both tests is labelled (no per-class cap). Not kept from it: fine-tuning the
    previous model in later stages (every round here trains from scratch, like the other
    methods), and its k-means (k-means++ from scikit-learn, seeded, instead of random rows).

    Args:
        rounds: number of stages.
        threshold: minimum max-softmax confidence (0.53 in the BANGS repository).
        clusters: number of k-means clusters (200 there; capped by the number of eligible
            nodes).
        kmeans_iterations: k-means iterations (20 there).
    """

    name = "m3s"

    def __init__(
        self,
        rounds: int = 5,
        threshold: float = 0.53,
        clusters: int = 200,
        kmeans_iterations: int = 20,
    ) -> None:
        _check_positive("rounds", rounds)
        _check_positive("clusters", clusters)
        _check_positive("kmeans_iterations", kmeans_iterations)
        _check_threshold(threshold)
        self.rounds = rounds
        self.threshold = threshold
        self.clusters = clusters
        self.kmeans_iterations = kmeans_iterations

    def select(self, context: SelectionContext) -> Selection:
        logits, known = context.logits, context.known_labels
        num_classes = logits.size(1)
        labelled = context.labelled.nonzero().view(-1)
        centroids = torch.zeros(num_classes, num_classes, dtype=logits.dtype).index_reduce_(
            0, known[labelled], logits[labelled], "mean", include_self=False
        )
        pool = context.eligible.nonzero().view(-1)
        points = logits[pool].double().numpy()
        kmeans = KMeans(
            n_clusters=min(self.clusters, pool.numel()),
            max_iter=self.kmeans_iterations,
            n_init=1,
            random_state=int(torch.randint(2**31 - 1, (1,), generator=context.generator)),
        ).fit(points)
        centres = torch.from_numpy(kmeans.cluster_centers_).to(logits.dtype)
        cluster_class = torch.cdist(centres, centroids).argmin(dim=1)
        agreed_class = cluster_class[torch.from_numpy(kmeans.labels_.astype(np.int64))]
        confidence, predicted = logits[pool].softmax(dim=1).max(dim=1)
        keep = (confidence > self.threshold) & (predicted == agreed_class)
        return Selection(pool[keep], predicted[keep])
