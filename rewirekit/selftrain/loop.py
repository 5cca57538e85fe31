"""The self-training loop shared by every pseudo-labelling method.

Round 0 trains the teacher on the labelled nodes. Each later round: the method looks at the
teacher's outputs and picks nodes with pseudo-labels (:meth:`SelfTrainingMethod.select`, where
calibration and scoring happen); they join the labelled set for good (a pseudo-label is never
revised); a new model is trained from scratch on training labels plus all pseudo-labels; it
becomes the next teacher unless the method keeps the first one (``update_teacher``). The loop
stops after ``rounds`` rounds, or earlier when no node is left to label or the method picks none.

The reported model is the round with the highest validation accuracy among the self-trained
rounds 1, 2, ... (the first on ties; BANGS's "early stopped by valid acc"); round 0 only when
no round ran. Validation nodes are never pseudo-labelled unless the method says
``label_validation`` (BANGS's official code does; they still select the model then).

With a ``checkpoint`` file the loop saves its state after every round (pseudo-labels, the
teacher's outputs, the random stream, the records) and a later call continues after the last
saved round: a run can be stopped and resumed, or continued to more ``rounds``, and gives what
one uninterrupted run gives. Methods keep no state between rounds, so the loop's is enough.
"""

from __future__ import annotations

import dataclasses
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch_geometric.data import Data

from rewirekit.bench.training import TrainConfig, TrainResult, train_node_classifier
from rewirekit.errors import RewireError


@dataclass(frozen=True)
class SelectionContext:
    """What a method sees when it picks pseudo-labels.

    Attributes:
        data: the graph (``x``, ``y``, ``edge_index``, optional ``edge_weight``).
        logits: the teacher's eval-mode outputs, ``[N, C]``.
        known_labels: ``[N]``: true labels on training nodes, pseudo-labels on pseudo-labelled
            nodes, ``-1`` elsewhere.
        train_index, val_index: the training and validation nodes.
        labelled: boolean ``[N]``: training or pseudo-labelled.
        eligible: boolean ``[N]``: nodes the method may pick.
        round: 1-based round number.
        generator: the loop's random stream (seeded), for every random choice of the method.
        seed: the run's seed, for methods that need an integer seed.
    """

    data: Data
    logits: Tensor
    known_labels: Tensor
    train_index: Tensor
    val_index: Tensor
    labelled: Tensor
    eligible: Tensor
    round: int
    generator: torch.Generator
    seed: int

    @property
    def num_pseudo_labelled(self) -> int:
        return int(self.labelled.sum()) - self.train_index.numel()


@dataclass(frozen=True)
class Selection:
    """Nodes to pseudo-label (``index``, a subset of the eligible nodes) and their classes."""

    index: Tensor
    labels: Tensor


@dataclass(frozen=True)
class RoundRecord:
    """One round: accuracies of its model, pseudo-labels so far and how many are right."""

    round: int
    test_acc: float
    val_acc: float
    num_pseudo_labelled: int
    pseudo_label_acc: float
    epochs: int
    train_seconds: float


@dataclass(frozen=True)
class SelfTrainResult:
    """Outcome of a self-training run.

    Attributes:
        test_acc, val_acc: of the reported round (see the module docstring).
        chosen_round: that round.
        rounds: every round, round 0 (the teacher trained on the labels alone) first.
        pseudo_labels: ``[N]``: the pseudo-label of each pseudo-labelled node, ``-1`` elsewhere.
    """

    test_acc: float
    val_acc: float
    chosen_round: int
    rounds: list[RoundRecord]
    pseudo_labels: Tensor


class SelfTrainingMethod(ABC):
    """A pseudo-labelling method: hyperparameters in the constructor, a selection rule in
    :meth:`select`. The loop itself is :func:`self_train` (or :meth:`fit`)."""

    name: str
    rounds: int

    @property
    def update_teacher(self) -> bool:
        """Whether each round's model becomes the next round's teacher."""
        return True

    @property
    def label_validation(self) -> bool:
        """Whether validation nodes may be pseudo-labelled."""
        return False

    @abstractmethod
    def select(self, context: SelectionContext) -> Selection:
        """The nodes to pseudo-label this round (none ends the loop)."""

    def fit(
        self,
        data: Data,
        train_mask: Tensor,
        val_mask: Tensor,
        test_mask: Tensor,
        model: str,
        config: TrainConfig,
        *,
        seed: int,
        teacher: TrainResult | None = None,
        checkpoint: str | os.PathLike[str] | None = None,
    ) -> SelfTrainResult:
        """Self-train ``model`` on ``data``; see :func:`self_train`."""
        return self_train(
            data,
            train_mask,
            val_mask,
            test_mask,
            model,
            config,
            self,
            seed=seed,
            teacher=teacher,
            checkpoint=checkpoint,
        )

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{self.__class__.__name__}({params})"


def round_seed(seed: int, round_: int) -> int:
    """Training seed of round ``round_ >= 1`` (round 0 trains with ``seed`` itself, so the
    teacher is the very model a plain run with ``seed`` trains)."""
    return int(np.random.SeedSequence([seed, round_]).generate_state(1)[0])


def self_train(
    data: Data,
    train_mask: Tensor,
    val_mask: Tensor,
    test_mask: Tensor,
    model: str,
    config: TrainConfig,
    method: SelfTrainingMethod,
    *,
    seed: int,
    teacher: TrainResult | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
) -> SelfTrainResult:
    """Run the self-training loop of the module docstring.

    Same inputs and ``seed``: same pseudo-labels and accuracies. The selection draws from a
    ``torch.Generator`` seeded with ``seed``; round ``r`` trains with :func:`round_seed`.

    Args:
        data: graph with ``x``, ``y``, ``edge_index`` (features prepared as the training preset
            says).
        train_mask, val_mask, test_mask: boolean node masks.
        model: a model name from :func:`rewirekit.models.list_models`.
        config: training settings of every round.
        method: the pseudo-labelling method.
        seed: seed of the run.
        teacher: round 0 when it is already trained: the result of
            ``train_node_classifier(data, train_mask, val_mask, test_mask, model, config,
            seed=seed, keep_logits=True)`` (several methods can share one teacher).
        checkpoint: a file for the loop's state, rewritten (atomically) after every round; if
            it exists the run continues from it (``teacher`` is then not used). A file written
            by another run (graph size, seed, method parameters other than ``rounds``, model,
            settings or masks) is refused.
    """
    if train_mask.dtype != torch.bool or not bool(train_mask.any()):
        raise RewireError(
            "self-training needs labelled nodes: train_mask must be a boolean mask that "
            "selects at least one node."
        )
    y = data.y
    labelled = train_mask.clone()
    pseudo = torch.full_like(y, -1)
    train_index, val_index = train_mask.nonzero().view(-1), val_mask.nonzero().view(-1)
    generator = torch.Generator().manual_seed(seed)
    identity = _run_identity(data, method, model, config, seed, train_mask, val_mask, test_mask)
    saved = _load_checkpoint(checkpoint, identity) if checkpoint is not None else None
    if saved is not None:
        pseudo, labelled, teacher_logits = saved["pseudo"], saved["labelled"], saved["logits"]
        generator.set_state(saved["generator"])
        records = [RoundRecord(**record) for record in saved["records"]]
    elif teacher is None:
        teacher = train_node_classifier(
            data, train_mask, val_mask, test_mask, model, config, seed=seed, keep_logits=True
        )
    elif teacher.logits is None or teacher.logits.shape[0] != y.size(0):
        raise RewireError("teacher must be trained on data with keep_logits=True.")
    if saved is None:
        assert teacher is not None
        records = [
            RoundRecord(
                0,
                teacher.test_acc,
                teacher.val_acc,
                0,
                float("nan"),
                teacher.epochs_run,
                teacher.seconds,
            )
        ]
        teacher_logits = _logits(teacher.logits)
    for round_ in range(len(records), method.rounds + 1):
        eligible = ~labelled if method.label_validation else ~labelled & ~val_mask
        if not bool(eligible.any()):
            break
        known = torch.where(train_mask, y, pseudo)
        selection = method.select(
            SelectionContext(
                data,
                teacher_logits,
                known,
                train_index,
                val_index,
                labelled,
                eligible,
                round_,
                generator,
                seed,
            )
        )
        if selection.index.numel() == 0:
            break
        if not bool(eligible[selection.index].all()):
            raise RewireError(f"{method.name} picked a node that was not eligible.")
        pseudo[selection.index] = selection.labels
        labelled[selection.index] = True
        student = train_node_classifier(
            data,
            labelled,
            val_mask,
            test_mask,
            model,
            config,
            seed=round_seed(seed, round_),
            train_labels=torch.where(train_mask, y, pseudo),
            keep_logits=True,
        )
        picked = pseudo >= 0
        records.append(
            RoundRecord(
                round_,
                student.test_acc,
                student.val_acc,
                int(picked.sum()),
                float((pseudo[picked] == y[picked]).float().mean()),
                student.epochs_run,
                student.seconds,
            )
        )
        if method.update_teacher:
            teacher_logits = _logits(student.logits)
        if checkpoint is not None:
            _save_checkpoint(
                checkpoint,
                {
                    "identity": identity,
                    "pseudo": pseudo,
                    "labelled": labelled,
                    "logits": teacher_logits,
                    "generator": generator.get_state(),
                    "records": [dataclasses.asdict(record) for record in records],
                },
            )
    chosen = max(records[1:] or records, key=lambda r: r.val_acc)
    return SelfTrainResult(chosen.test_acc, chosen.val_acc, chosen.round, records, pseudo)


def _run_identity(
    data: Data,
    method: SelfTrainingMethod,
    model: str,
    config: TrainConfig,
    seed: int,
    *masks: Tensor,
) -> str:
    """What a checkpoint must match: everything that decides the rounds but their number."""
    params = {k: v for k, v in sorted(vars(method).items()) if k != "rounds"}
    nodes = [mask.nonzero().view(-1).tolist() for mask in masks]
    shape = (data.num_nodes, data.edge_index.size(1), tuple(data.x.shape))
    return repr((shape, type(method).__name__, params, model, config, seed, nodes))


def _load_checkpoint(path: str | os.PathLike[str], identity: str) -> dict[str, Any] | None:
    if not Path(path).exists():
        return None
    state = torch.load(path, weights_only=True)
    if state.get("identity") != identity:
        raise RewireError(
            f"checkpoint {os.fspath(path)} was written by another run (seed, method, model, "
            "settings or split); remove it or pass another file."
        )
    return state


def _save_checkpoint(path: str | os.PathLike[str], state: dict[str, Any]) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    torch.save(state, partial)
    os.replace(partial, target)


def _logits(logits: Tensor | None) -> Tensor:
    assert logits is not None  # train_node_classifier(keep_logits=True) always sets them
    return logits
