"""Full-batch training of a node classifier, with the early-stopping rules of the papers.

Two stopping rules are implemented exactly as in the official JDR code (``src/train_model.py``),
which inherited them from the GPR-GNN and DIGL code bases:

* ``"gprgnn"``: from epoch ``patience + 1`` on (0-based), stop as soon as the validation loss
  exceeds the mean of the ``patience`` validation losses before it.
* ``"digl"``: stop after ``patience`` consecutive epochs without improvement of the criterion
  (validation loss decreasing, or validation accuracy increasing when ``criterion="acc"``).
* ``"none"``: train for ``max_epochs`` (ComFy: 100 epochs).

``improvement_factor`` > 1 makes "improvement" relative, as the BORF code
(hieubkvn123/revisiting-gnn-curvature, ``experiments/node_classification.py``,
``stopping_threshold``) defines it: with ``criterion="acc"``, an epoch improves only if its
validation accuracy exceeds ``improvement_factor`` times the accuracy of the last epoch that
improved. ``lr_plateau_patience`` adds that code's scheduler: PyTorch's
:class:`~torch.optim.lr_scheduler.ReduceLROnPlateau` with its defaults (factor 0.1, relative
threshold 1e-4), stepped on the training loss of every epoch.

The reported accuracies come from the *best* epoch (lowest validation loss, or highest
validation accuracy with ``criterion="acc"``; the first such epoch on ties), or from the *last*
epoch (``eval_at="last"``, ComFy). Accuracies are fractions in ``[0, 1]``.

The JDR code permutes the node order once before training ("random_sort"). Full-batch training
is permutation-equivariant, so this changes nothing but which nodes a given split seed draws;
splits here come from the split presets, so the permutation is not replicated.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import Tensor
from torch_geometric.data import Data

from rewirekit.errors import RewireError
from rewirekit.models import NodeClassifier, build_model

EarlyStopping = Literal["gprgnn", "digl", "none"]
# Features with at most this share of non-zeros are multiplied as a sparse CSR matrix.
SPARSE_FEATURES_MAX_DENSITY = 0.05


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides how a model is trained. Defaults are the JDR code's defaults.

    Attributes:
        lr: Adam learning rate.
        weight_decay: L2 penalty (Adam's ``weight_decay``).
        weight_decay_first_layer_only: decay only ``model.first_layer`` (DIGL/JDR type "digl").
        hidden: hidden width passed to the model.
        dropout: dropout probability passed to the model.
        model_params: further model hyperparameters, e.g. ``{"K": 10, "alpha": 0.1}``.
        max_epochs: upper bound on training epochs.
        early_stopping: ``"gprgnn"``, ``"digl"`` or ``"none"`` (see the module docstring).
        patience: window (``"gprgnn"``) or patience (``"digl"``) in epochs.
        criterion: what defines the best epoch: ``"loss"`` (validation loss) or ``"acc"``.
        improvement_factor: with ``criterion="acc"``, an epoch improves only when its
            validation accuracy exceeds this multiple of the last improving epoch's (1: any
            gain).
        lr_plateau_patience: if set, multiply the learning rate by 0.1 after this many
            epochs without a lower training loss (``ReduceLROnPlateau``); None: constant.
        eval_at: report the ``"best"`` epoch or the ``"last"`` one.
        normalize_features: row-normalise features before training (and before rewiring).
        source: where these values come from, for reports (e.g. ``"jdr: cora/gcn_denoise"``).
    """

    lr: float = 0.01
    weight_decay: float = 5e-4
    weight_decay_first_layer_only: bool = False
    hidden: int = 64
    dropout: float = 0.5
    model_params: dict[str, Any] = field(default_factory=dict, hash=False)
    max_epochs: int = 10_000
    early_stopping: EarlyStopping = "gprgnn"
    patience: int = 200
    criterion: Literal["loss", "acc"] = "loss"
    improvement_factor: float = 1.0
    lr_plateau_patience: int | None = None
    eval_at: Literal["best", "last"] = "best"
    normalize_features: bool = False
    source: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "model_params", dict(self.model_params))
        if not self.lr > 0:
            raise RewireError(f"lr must be positive, got {self.lr!r}.")
        if not self.weight_decay >= 0:
            raise RewireError(f"weight_decay must be >= 0, got {self.weight_decay!r}.")
        if self.max_epochs < 1:
            raise RewireError(f"max_epochs must be >= 1, got {self.max_epochs!r}.")
        if self.early_stopping not in ("gprgnn", "digl", "none"):
            raise RewireError(
                f"early_stopping must be 'gprgnn', 'digl' or 'none', got {self.early_stopping!r}."
            )
        if self.early_stopping != "none" and self.patience < 1:
            raise RewireError(
                f"early stopping {self.early_stopping!r} needs patience >= 1, got "
                f"{self.patience!r}; or set early_stopping='none'."
            )
        if self.criterion not in ("loss", "acc"):
            raise RewireError(f"criterion must be 'loss' or 'acc', got {self.criterion!r}.")
        if not self.improvement_factor >= 1:
            raise RewireError(f"improvement_factor must be >= 1, got {self.improvement_factor!r}.")
        if self.improvement_factor != 1 and self.criterion != "acc":
            raise RewireError(
                "improvement_factor applies to criterion='acc' only; set criterion='acc' or "
                "improvement_factor=1."
            )
        if self.lr_plateau_patience is not None and self.lr_plateau_patience < 0:
            raise RewireError(
                f"lr_plateau_patience must be >= 0 or None, got {self.lr_plateau_patience!r}."
            )
        if self.eval_at not in ("best", "last"):
            raise RewireError(f"eval_at must be 'best' or 'last', got {self.eval_at!r}.")


@dataclass(frozen=True)
class TrainResult:
    """Outcome of one training run.

    Attributes:
        test_acc: test accuracy (fraction) of the evaluated epoch.
        val_acc: validation accuracy (fraction) of the evaluated epoch.
        best_epoch: 0-based index of the evaluated epoch (the last one with ``eval_at="last"``).
        epochs_run: number of epochs trained.
        seconds: wall-clock time of the training loop.
        logits: the evaluated epoch's eval-mode outputs for every node (``[N, C]``), kept only
            with ``keep_logits=True`` (self-training reads the teacher's predictions from it).
    """

    test_acc: float
    val_acc: float
    best_epoch: int
    epochs_run: int
    seconds: float
    logits: Tensor | None = None


class _Tracker:
    """Best-epoch bookkeeping and the stopping rule of a :class:`TrainConfig`."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.best_loss = math.inf
        self.best_acc = -math.inf
        self.best = (0.0, 0.0, 0)  # (test_acc, val_acc, epoch) of the best epoch
        self.bad_epochs = 0
        self.val_losses: list[float] = []

    def update(self, epoch: int, val_loss: float, val_acc: float, test_acc: float) -> bool:
        """Record one epoch; return True when training should stop."""
        cfg = self.config
        if cfg.criterion == "acc":
            improved = val_acc > self.best_acc * cfg.improvement_factor
        else:
            improved = val_loss < self.best_loss
        if improved:
            self.best_loss, self.best_acc = val_loss, val_acc
            self.best = (test_acc, val_acc, epoch)
            self.bad_epochs = 0
        elif cfg.early_stopping == "digl":
            self.bad_epochs += 1
            if self.bad_epochs == cfg.patience:
                return True
        if cfg.early_stopping == "gprgnn":
            self.val_losses.append(val_loss)
            if epoch > cfg.patience:
                window = self.val_losses[-cfg.patience - 1 : -1]
                return val_loss > sum(window) / cfg.patience
        return False


def train_node_classifier(
    data: Data,
    train_mask: Tensor,
    val_mask: Tensor,
    test_mask: Tensor,
    model: str,
    config: TrainConfig,
    *,
    seed: int,
    train_labels: Tensor | None = None,
    keep_logits: bool = False,
) -> TrainResult:
    """Train ``model`` on ``data`` full-batch with Adam and cross-entropy; evaluate every epoch.

    ``data.edge_weight`` is used when present. The run is deterministic given ``seed``
    (initialisation and dropout draw from ``torch.manual_seed(seed)`` inside a forked RNG, so
    the caller's global RNG state is left untouched). Features are used as given (apply the
    preset's ``prepare`` first); mostly-zero features are multiplied as a sparse matrix.

    Weight decay: on all parameters, or on ``model.first_layer`` only when
    ``config.weight_decay_first_layer_only``; never on ``model.no_weight_decay()`` parameters
    (GPRGNN's coefficients), as in the official code.

    Args:
        data: graph with ``x`` (float), ``y`` (class indices), ``edge_index``, optional
            ``edge_weight``.
        train_mask, val_mask, test_mask: boolean node masks (non-empty).
        model: a name from :func:`rewirekit.models.list_models`.
        config: training settings, usually from a training preset.
        seed: seed of this run.
        train_labels: the classes to fit on the training nodes (``[N]``, read at
            ``train_mask``), e.g. pseudo-labels; ``data.y`` by default. Validation and test
            accuracies always use ``data.y``.
        keep_logits: return the evaluated epoch's outputs in :attr:`TrainResult.logits`.
    """
    x, y, edge_index, edge_weight = _graph_tensors(data)
    train_idx, val_idx, test_idx = (
        _mask_index(mask, name, y)
        for mask, name in (
            (train_mask, "train_mask"),
            (val_mask, "val_mask"),
            (test_mask, "test_mask"),
        )
    )
    y_train, y_val, y_test = y[train_idx], y[val_idx], y[test_idx]
    if train_labels is not None:
        y_train = _train_targets(train_labels, train_idx, y)
    kept: Tensor | None = None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = build_model(
            model,
            x.size(1),
            int(y.max()) + 1,
            hidden=config.hidden,
            dropout=config.dropout,
            **config.model_params,
        )
        optimizer = torch.optim.Adam(_param_groups(net, config), lr=config.lr)
        scheduler = None
        if config.lr_plateau_patience is not None:
            scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
                optimizer, patience=config.lr_plateau_patience
            )
        tracker = _Tracker(config)
        start = time.perf_counter()
        for epoch in range(config.max_epochs):
            net.train()
            optimizer.zero_grad()
            loss = F.cross_entropy(net(x, edge_index, edge_weight)[train_idx], y_train)
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step(loss.item())
            if not _evaluates(config, epoch):
                continue

            net.eval()
            with torch.no_grad():
                logits = net(x, edge_index, edge_weight)
                val_logits = logits[val_idx]
                stats = torch.stack(
                    [
                        F.cross_entropy(val_logits, y_val),
                        (val_logits.argmax(-1) == y_val).sum(),
                        (logits[test_idx].argmax(-1) == y_test).sum(),
                    ]
                )
            val_loss, val_correct, test_correct = stats.tolist()  # the epoch's only sync
            val_acc, test_acc = val_correct / y_val.numel(), test_correct / y_test.numel()
            stop = tracker.update(epoch, val_loss, val_acc, test_acc)
            if keep_logits and (config.eval_at == "last" or tracker.best[2] == epoch):
                kept = logits
            if stop:
                break
        seconds = time.perf_counter() - start
    if config.eval_at == "last":
        return TrainResult(test_acc, val_acc, epoch, epoch + 1, seconds, kept)
    best_test, best_val, best_epoch = tracker.best
    return TrainResult(best_test, best_val, best_epoch, epoch + 1, seconds, kept)


def _evaluates(config: TrainConfig, epoch: int) -> bool:
    """Whether an epoch must be evaluated: always, unless only the last epoch is reported
    and nothing stops early (ComFy's fixed 100 epochs evaluate once)."""
    watches_every_epoch = config.eval_at == "best" or config.early_stopping != "none"
    return watches_every_epoch or epoch == config.max_epochs - 1


def _param_groups(net: NodeClassifier, config: TrainConfig) -> list[dict[str, Any]]:
    exempt = {id(p) for name, p in net.named_parameters() if name in net.no_weight_decay()}
    source = net.first_layer if config.weight_decay_first_layer_only else net
    decayed = [p for p in source.parameters() if id(p) not in exempt]
    decayed_ids = {id(p) for p in decayed}
    rest = [p for p in net.parameters() if id(p) not in decayed_ids]
    groups = [
        {"params": decayed, "weight_decay": config.weight_decay},
        {"params": rest, "weight_decay": 0.0},
    ]
    return [group for group in groups if group["params"]]


def _graph_tensors(data: Data) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
    for key in ("x", "y", "edge_index"):
        if getattr(data, key, None) is None:
            raise RewireError(
                f"data has no {key!r}; node classification needs x, y and edge_index."
            )
    x, y = data.x, data.y
    if not x.is_floating_point():
        raise RewireError(
            f"data.x must be a float tensor, got {x.dtype}; convert with data.x = data.x.float()."
        )
    if y.dim() != 1 or y.is_floating_point() or y.size(0) != x.size(0):
        raise RewireError(
            f"data.y must hold one integer class per node (shape [{x.size(0)}]), "
            f"got dtype {y.dtype} and shape {list(y.shape)}."
        )
    edge_weight = getattr(data, "edge_weight", None)
    if edge_weight is not None:
        edge_weight = edge_weight.to(x.dtype)
    return _sparse_if_mostly_zero(x), y, data.edge_index, edge_weight


def _sparse_if_mostly_zero(x: Tensor) -> Tensor:
    """Bag-of-words features are mostly zeros; as a CSR matrix the first layer's product gives
    the same result (up to float rounding) several times faster on CPU."""
    if x.layout != torch.strided or x.dim() != 2:
        return x
    if int(torch.count_nonzero(x)) > SPARSE_FEATURES_MAX_DENSITY * x.numel():
        return x
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
        return x.to_sparse_csr()


def _train_targets(train_labels: Tensor, train_idx: Tensor, y: Tensor) -> Tensor:
    if train_labels.shape != y.shape or train_labels.is_floating_point():
        raise RewireError(
            f"train_labels must hold one integer class per node (shape [{y.size(0)}]), got "
            f"dtype {train_labels.dtype} and shape {list(train_labels.shape)}."
        )
    targets = train_labels[train_idx]
    if bool((targets < 0).any()) or bool((targets > y.max()).any()):
        raise RewireError(
            "train_labels holds a class outside 0..max(data.y) on a training node; label "
            "every training node with one of the dataset's classes."
        )
    return targets


def _mask_index(mask: Tensor, name: str, y: Tensor) -> Tensor:
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool or mask.shape != y.shape:
        raise RewireError(
            f"{name} must be a boolean tensor of shape [{y.size(0)}] (one entry "
            f"per node); got {getattr(mask, 'dtype', type(mask))} with shape "
            f"{list(getattr(mask, 'shape', []))}."
        )
    index = mask.nonzero().view(-1)
    if index.numel() == 0:
        raise RewireError(f"{name} selects no node; every split part needs at least one node.")
    if bool((y[index] < 0).any()):
        raise RewireError(
            f"{name} selects nodes without a label (y < 0); drop them from the split."
        )
    return index
