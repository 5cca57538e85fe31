"""BANGS: Banzhaf-value pseudo-label selection (Wang, Liu, Medya & Yu, "Game-theoretic
Pseudo-labeling for Graph Self-training" / BANGS, ICLR 2025; code: ``fangxin-wang/BANGS``).

Each round: calibrate the teacher (GATS), take the ``candidates`` most confident eligible nodes,
score each by its Banzhaf value in the game of
:class:`~rewirekit.selftrain.banzhaf.PropagationUtility` (MSR estimate from
``candidates * samples_per_node / top_k`` coalitions of at most ``top_k`` candidates), and
pseudo-label the ``top_k`` highest with the calibrated teacher's class.
"""

from __future__ import annotations

import torch

from rewirekit.errors import RewireError
from rewirekit.selftrain.banzhaf import (
    PropagationUtility,
    banzhaf_msr,
    candidate_set,
    normalized_adjacency,
    sample_coalitions,
)
from rewirekit.selftrain.calibration import calibrate, check_calibration
from rewirekit.selftrain.loop import Selection, SelectionContext, SelfTrainingMethod


class BANGS(SelfTrainingMethod):
    r"""Self-training with pseudo-labels chosen by their Banzhaf value.

    Defaults are the official ``main_node.py`` defaults (the official run scripts use
    ``rounds=40``, ``candidates=200``, ``samples_per_node=500``, ``top_k=100`` on Cora and 70
    on CiteSeer).

    Decisions, default mode (``faithful=False``):

    * **Teacher**: each round's model is the next round's teacher (the official teacher is
      trained once and never replaced, so every round relabels from the first model).
    * **Validation nodes** are never candidates: they select the model, so labelling them
      leaks the selection into training. Test nodes are candidates (transductive, unlabelled).
    * **Scores propagated** (``X``): the softmax of the calibrated logits; training rows the
      one-hot true labels, pseudo-labelled rows the one-hot pseudo-labels. Sources of both
      utility terms: the training and pseudo-labelled nodes.
    * **Training term**: the cross-entropy of the propagated distribution against the true
      labels of the training nodes.
    * **Propagation**: :math:`\hat A` with one self-loop per node, as the GCN.

    ``faithful=True`` keeps the official choices where they differ:

    * a teacher that is never updated; validation nodes among the candidates;
    * ``X`` = the calibrated logits through :math:`|\cdot|` and one global min-max scaling
      (``get_norm_logit``), training rows one-hot; the entropy terms propagate from the
      training nodes only and the training term from training + pseudo-labelled nodes;
    * the double softmax of the training term (``CrossEntropyLoss`` fed probabilities) with the
      softmax of the one-hot rows as target;
    * self-loops counted twice in :math:`\hat A` (the official graph has one added by DGL and
      one by the normalisation).

    Shared by both modes (from the official code): GATS fit on validation nodes with early
    stopping on training nodes; confidence = max softmax of the calibrated logits;
    :math:`\beta = (N - \#\text{pseudo} - K)/N`; the ``k_union`` rejection of coalitions of
    more than ``K`` candidates (the run scripts' setting). Not kept in either mode: the PPR
    branch (``--PageRank``; its ``~`` on index tensors zeros other rows than intended, so its
    utility is another function); the official fallback that, once a pick has confidence
    ≤ 1e-4, labels every remaining node — here a round with at most ``K`` eligible nodes labels
    all of them, and fewer eligible nodes than ``candidates`` shrink the candidate set.

    Args:
        top_k: ``K``, pseudo-labels per round.
        candidates: candidate-set size; ``None``: ``2K`` if ``K < 100`` else ``K + 100``.
        samples_per_node: ``t``; ``candidates * t / K`` coalitions are sampled.
        rounds: self-training rounds.
        calibration: ``"gats"`` (the paper), ``"ts"`` or ``"none"``.
        k_union: redraw coalitions larger than ``K``.
        faithful: the official choices listed above.
        gats_heads, gats_bias, gats_bfs_depth: GATS hyperparameters (2, 1, 2).
        calibration_lr, calibration_weight_decay, calibration_epochs, calibration_patience:
            the calibrator's fit (0.01, 5e-3, 2000, 100).
    """

    name = "bangs"

    def __init__(
        self,
        top_k: int = 100,
        candidates: int | None = None,
        samples_per_node: int = 100,
        rounds: int = 20,
        calibration: str = "gats",
        *,
        k_union: bool = True,
        faithful: bool = False,
        gats_heads: int = 2,
        gats_bias: float = 1.0,
        gats_bfs_depth: int = 2,
        calibration_lr: float = 0.01,
        calibration_weight_decay: float = 5e-3,
        calibration_epochs: int = 2000,
        calibration_patience: int = 100,
    ) -> None:
        for label, value in (
            ("top_k", top_k),
            ("samples_per_node", samples_per_node),
            ("rounds", rounds),
        ):
            if not isinstance(value, int) or value < 1:
                raise RewireError(f"{label} must be a positive integer, got {value!r}.")
        if candidates is None:
            candidates = 2 * top_k if top_k < 100 else top_k + 100
        if candidates < top_k:
            raise RewireError(
                f"top_k={top_k} is above the number of candidates ({candidates}); choose "
                "candidates >= top_k."
            )
        self.top_k = top_k
        self.candidates = candidates
        self.samples_per_node = samples_per_node
        self.rounds = rounds
        self.calibration = check_calibration(calibration)
        self.k_union = k_union
        self.faithful = faithful
        self.gats_heads = gats_heads
        self.gats_bias = gats_bias
        self.gats_bfs_depth = gats_bfs_depth
        self.calibration_lr = calibration_lr
        self.calibration_weight_decay = calibration_weight_decay
        self.calibration_epochs = calibration_epochs
        self.calibration_patience = calibration_patience

    @property
    def update_teacher(self) -> bool:
        return not self.faithful

    @property
    def label_validation(self) -> bool:
        return self.faithful

    def select(self, context: SelectionContext) -> Selection:
        data, train_index = context.data, context.train_index
        logits = calibrate(
            context.logits,
            data.y,
            data.edge_index,
            context.val_index,
            train_index,
            train_index,
            method=self.calibration,
            seed=context.seed + context.round,
            heads=self.gats_heads,
            bias=self.gats_bias,
            bfs_depth=self.gats_bfs_depth,
            lr=self.calibration_lr,
            weight_decay=self.calibration_weight_decay,
            max_epochs=self.calibration_epochs,
            patience=self.calibration_patience,
        )
        confidence, predicted = logits.softmax(dim=1).max(dim=1)
        pool = context.eligible.nonzero().view(-1)
        if pool.numel() <= self.top_k:
            return Selection(pool, predicted[pool])
        candidates = candidate_set(confidence, context.eligible, self.candidates)
        values = self.banzhaf_values(context, logits, candidates)
        order = torch.sort(values, descending=True, stable=True).indices[: self.top_k]
        chosen = candidates[order]
        return Selection(chosen, predicted[chosen])

    def banzhaf_values(
        self, context: SelectionContext, logits: torch.Tensor, candidates: torch.Tensor
    ) -> torch.Tensor:
        """MSR Banzhaf value of each candidate (same order as ``candidates``)."""
        data, known = context.data, context.known_labels
        num_nodes, num_classes = logits.shape
        train_index = context.train_index
        labelled = context.labelled.nonzero().view(-1)
        beta = (num_nodes - context.num_pseudo_labelled - self.top_k) / num_nodes
        adjacency = normalized_adjacency(
            data.edge_index,
            getattr(data, "edge_weight", None),
            num_nodes,
            double_self_loops=self.faithful,
            dtype=logits.dtype,
        )
        one_hot = torch.nn.functional.one_hot
        if self.faithful:
            scores = _min_max_abs(logits)
            scores[train_index] = one_hot(known[train_index], num_classes).to(scores.dtype)
            sources = train_index
        else:
            scores = logits.softmax(dim=1)
            scores[labelled] = one_hot(known[labelled], num_classes).to(scores.dtype)
            sources = labelled
        utility = PropagationUtility(
            adjacency,
            beta,
            scores,
            sources,
            labelled,
            train_index,
            known[train_index],
            candidates,
            faithful=self.faithful,
        )
        num_samples = int(candidates.numel() * self.samples_per_node / self.top_k)
        coalitions = sample_coalitions(
            candidates.numel(),
            max(num_samples, 1),
            max_size=self.top_k if self.k_union else None,
            generator=context.generator,
        )
        return banzhaf_msr(coalitions, utility(coalitions))


def _min_max_abs(logits: torch.Tensor) -> torch.Tensor:
    """The official ``get_norm_logit``: ``|z|`` scaled by one global min-max, with ``1e-4``
    added to the minimum."""
    absolute = logits.abs()
    low = absolute.min() + 1e-4
    return (absolute - low) / (absolute.max() - low)
