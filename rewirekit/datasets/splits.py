"""Train/validation/test split presets that reproduce the protocols of the papers we compare.

========== ==================================================================================
preset     rule
========== ==================================================================================
sparse     JDR sparse split: class-balanced 2.5% train, 2.5% validation, rest test (100 splits)
dense      JDR dense split: class-balanced 60% train, 20% validation, rest test (100 splits)
stratified 20% of every class to validation, 20% to test, the rest to training (100 splits)
geom-gcn   the 10 fixed splits shipped with the data (``[N, 10]`` masks)
comfy      ComFy: largest connected component, then uniform 60/20/20 (100 splits)
borf       BORF: uniform 60/20/20 of the whole graph, sklearn's rounding (300 splits)
public     the Planetoid public split (20 labels per class, 500 validation, 1000 test)
========== ==================================================================================

Which preset a benchmark uses when none is named: :func:`choose_split_preset` (the
dataset's own fixed splits where it ships them, else ``dense``; ``sparse`` on the cSBM).

Random splits are a pure function of ``(key, preset name, split_id)``, where ``key`` is
normally the dataset name: the seed is a SHA-256 digest of the three, so the same split id
gives the same masks on every machine and Python process, and different methods evaluated
on the same split id are paired.

Usage::

    preset = get_split_preset("comfy")
    data = preset.prepare(load("cora"))
    for i in range(preset.num_splits):
        train, val, test = preset.split(data, i, key="cora")
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import connected_components
from torch import Tensor
from torch_geometric.data import Data

from rewirekit.datasets.files import USER_GRAPH
from rewirekit.datasets.loaders import dataset_info
from rewirekit.errors import RewireError
from rewirekit.registry import Registry

Masks = tuple[Tensor, Tensor, Tensor]


class SplitPreset(ABC):
    """A named split protocol.

    Attributes:
        name: preset name, as accepted by :func:`get_split_preset`.
        num_splits: number of splits the protocol evaluates (split ids ``0..num_splits-1``).
    """

    name: str
    num_splits: int

    def prepare(self, data: Data) -> Data:
        """Preprocess ``data`` as the protocol requires before splitting (default: unchanged)."""
        return data

    @abstractmethod
    def split(self, data: Data, split_id: int, key: str) -> Masks:
        """Boolean ``[N]`` masks ``(train, val, test)`` of split ``split_id``.

        Args:
            data: the graph, after :meth:`prepare`.
            split_id: index of the split, ``>= 0``.
            key: dataset name; random splits are seeded from ``(key, name, split_id)``.
        """


@dataclass(frozen=True)
class ClassBalancedSplit(SplitPreset):
    """Random split with a class-balanced training set: the rule of the JDR code.

    Linkerhägner et al., "Joint Denoising of Features and Graph Structure" (JDR), reuse
    ``random_planetoid_splits`` of GPRGNN (Chien et al., ICLR 2021): with ``N`` nodes and
    ``C = max(y) + 1`` classes, each class contributes ``round(train_rate·N/C)`` random
    nodes to the training set (all of its nodes if it is smaller), then
    ``round(val_rate·N)`` of the remaining nodes, drawn uniformly, form the validation set
    and all others the test set. Train and validation may thus fall short of the nominal
    rates on imbalanced data, exactly as in the official code (which uses Python's
    ``round``, as here). Only the random generator differs: ours is seeded per split.
    """

    name: str
    train_rate: float
    val_rate: float
    num_splits: int = 100

    def split(self, data: Data, split_id: int, key: str) -> Masks:
        y = _labels(data, self.name)
        rng = _split_rng(key, self.name, split_id)
        counts = np.bincount(y)
        per_class = int(round(self.train_rate * y.size / counts.size))
        num_val = int(round(self.val_rate * y.size))
        perm = rng.permutation(y.size)
        by_class = perm[np.argsort(y[perm], kind="stable")]  # classes in turn, shuffled within
        rank = np.arange(y.size) - np.repeat(np.cumsum(counts) - counts, counts)
        rest = rng.permutation(by_class[rank >= per_class])
        return _to_masks(y.size, by_class[rank < per_class], rest[:num_val], rest[num_val:])


@dataclass(frozen=True)
class StratifiedSplit(SplitPreset):
    """Random split within every class: each part keeps the class proportions of the graph.

    A class of ``n_c`` nodes gives ``round(val_rate·n_c)`` random nodes to validation,
    ``round(test_rate·n_c)`` to test and the rest to training, so every class with at least
    three nodes is trained, validated and tested. This is the split that scores imbalanced
    data where :class:`ClassBalancedSplit` cannot: on Minesweeper and Tolokers (two classes,
    20% and 22% minority) the class-balanced rule trains on the whole minority class and
    leaves validation and test one class only. Platonov et al. ("A critical look at the
    evaluation of GNNs under heterophily", ICLR 2023) ship such stratified splits, 50/25/25.
    """

    name: str
    val_rate: float = 0.2
    test_rate: float = 0.2
    num_splits: int = 100

    def split(self, data: Data, split_id: int, key: str) -> Masks:
        y = _labels(data, self.name)
        rng = _split_rng(key, self.name, split_id)
        parts: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] = ([], [], [])
        for label in np.unique(y):
            members = rng.permutation(np.flatnonzero(y == label))
            num_val = int(round(self.val_rate * members.size))
            num_test = int(round(self.test_rate * members.size))
            parts[0].append(members[num_val + num_test :])
            parts[1].append(members[:num_val])
            parts[2].append(members[num_val : num_val + num_test])
        train, val, test = (np.concatenate(part) for part in parts)
        return _to_masks(y.size, train, val, test)


@dataclass(frozen=True)
class LargestComponentSplit(SplitPreset):
    """Largest connected component, then a uniform random split: the rule of the ComFy code.

    Rubio-Madrigal et al., "GNNs Getting ComFy" (ICLR 2025), apply PyG's
    ``LargestConnectedComponents`` and ``RandomNodeSplit(split="train_rest", num_val=0.2,
    num_test=0.2)``: on the ``N`` nodes of the component, ``round(val_rate·N)`` random nodes
    form the validation set, the next ``round(test_rate·N)`` the test set, the rest the
    training set. Labels play no part. :meth:`prepare` must be called first.
    """

    name: str
    val_rate: float = 0.2
    test_rate: float = 0.2
    num_splits: int = 100

    def prepare(self, data: Data) -> Data:
        """Keep the largest (weakly) connected component; see :func:`largest_component`."""
        return largest_component(data)

    def split(self, data: Data, split_id: int, key: str) -> Masks:
        if "node_map" not in data:
            raise RewireError(
                f"the {self.name!r} split is defined on the largest connected "
                f"component; call get_split_preset({self.name!r}).prepare(data) "
                "first and split the data it returns."
            )
        num_nodes = data.num_nodes
        num_val = int(round(self.val_rate * num_nodes))
        num_test = int(round(self.test_rate * num_nodes))
        perm = _split_rng(key, self.name, split_id).permutation(num_nodes)
        return _to_masks(
            num_nodes,
            perm[num_val + num_test :],
            perm[:num_val],
            perm[num_val : num_val + num_test],
        )


@dataclass(frozen=True)
class UniformSplit(SplitPreset):
    """A uniform random split of all nodes, as two calls of scikit-learn's
    ``train_test_split``: the rule of the BORF code (Nguyen et al., ICML 2023;
    hieubkvn123/revisiting-gnn-curvature, ``experiments/node_classification.py``).

    ``ceil(test_rate·N)`` random nodes form the test set; of the other ``M`` nodes,
    ``ceil(val_rate / (1 − test_rate) · M)`` form the validation set and the rest the
    training set (sklearn rounds the held-out part up). Labels play no part. The official
    code draws unseeded splits; ours are seeded per split. ``num_splits`` is 300: the
    official runs 100 trials of 3 splits each.
    """

    name: str
    val_rate: float = 0.2
    test_rate: float = 0.2
    num_splits: int = 300

    def split(self, data: Data, split_id: int, key: str) -> Masks:
        num_nodes = data.num_nodes
        num_test = int(np.ceil(self.test_rate * num_nodes))
        num_val = int(np.ceil(self.val_rate / (1 - self.test_rate) * (num_nodes - num_test)))
        perm = _split_rng(key, self.name, split_id).permutation(num_nodes)
        return _to_masks(
            num_nodes,
            perm[num_test + num_val :],
            perm[num_test : num_test + num_val],
            perm[:num_test],
        )


@dataclass(frozen=True)
class ShippedSplit(SplitPreset):
    """The fixed splits stored on the data as ``train_mask``, ``val_mask``, ``test_mask``.

    ``mask_dim=2`` reads column ``split_id`` of ``[N, S]`` masks (the geom-gcn / yandex
    splits); ``mask_dim=1`` reads the single split of ``[N]`` masks (Planetoid public).
    """

    name: str
    num_splits: int
    mask_dim: int
    hint: str

    def split(self, data: Data, split_id: int, key: str) -> Masks:
        masks = [data.get(f"{part}_mask") for part in ("train", "val", "test")]
        if any(mask is None or mask.dim() != self.mask_dim for mask in masks):
            raise RewireError(f"{key!r} has no {self.name!r} split: {self.hint}")
        masks = [mask.reshape(mask.size(0), -1) for mask in masks]
        _check_split_id(split_id, limit=masks[0].size(1))
        return tuple(mask[:, split_id].bool().clone() for mask in masks)


def largest_component(data: Data) -> Data:
    """The subgraph induced by the largest weakly connected component of ``data``.

    Nodes keep their relative order; ties between equally large components go to the one
    holding the smallest node id. Node-level attributes (``x``, ``y``, masks) are subset
    and ``node_map`` holds the original id of each kept node (composed with an existing
    ``node_map``).
    """
    num_nodes = data.num_nodes
    row, col = data.edge_index.cpu().numpy()
    adj = sp.coo_matrix(
        (np.ones(row.size, dtype=np.int8), (row, col)), shape=(num_nodes, num_nodes)
    )
    _, component = connected_components(adj, directed=True, connection="weak")
    subset = torch.from_numpy(np.flatnonzero(component == np.bincount(component).argmax()))
    out = data.subgraph(subset)
    out.node_map = data.node_map[subset] if "node_map" in data else subset
    return out


SPLIT_PRESETS: Registry[SplitPreset] = Registry(
    "split preset",
    [
        (preset.name, preset)
        for preset in (
            ClassBalancedSplit("sparse", train_rate=0.025, val_rate=0.025),
            ClassBalancedSplit("dense", train_rate=0.6, val_rate=0.2),
            StratifiedSplit("stratified"),
            ShippedSplit(
                "geom-gcn",
                num_splits=10,
                mask_dim=2,
                hint="it needs the 10 fixed splits as [N, 10] train/val/test masks, which only "
                "datasets with has_fixed_splits=True in list_datasets() ship; use a random "
                "preset ('dense', 'sparse', 'comfy') instead.",
            ),
            LargestComponentSplit("comfy"),
            UniformSplit("borf"),
            ShippedSplit(
                "public",
                num_splits=1,
                mask_dim=1,
                hint="it needs the Planetoid public split as [N] train/val/test masks, which only "
                "cora, citeseer and pubmed ship; use a random preset ('dense', 'sparse', "
                "'comfy') instead.",
            ),
        )
    ],
)


def single_class_split(preset: SplitPreset, data: Data, key: str, num_splits: int) -> str | None:
    """Why splits ``0..num_splits-1`` of ``preset`` cannot score a classifier, or ``None``.

    A validation or test set that holds one class only (or no node) rewards a model that never
    predicts the other classes: its accuracy measures nothing. JDR's class-balanced rule
    (:class:`ClassBalancedSplit`) does this on imbalanced data: a class with at most
    ``round(train_rate·N/C)`` nodes goes to training whole, and with two classes (Minesweeper,
    Tolokers) validation and test keep only the other one.
    """
    for split_id, part, present in held_out_classes(preset, data, key, num_splits):
        if len(present) < 2:
            held = f"class {present[0]} only" if present else "no node"
            return (
                f"the {preset.name!r} split {split_id} of {key!r} holds in its {part} set "
                f"{held}; accuracy there would measure nothing"
            )
    return None


def held_out_classes(
    preset: SplitPreset, data: Data, key: str, num_splits: int
) -> Iterator[tuple[int, str, list[int]]]:
    """``(split_id, part, classes)`` for the ``"validation"`` and the ``"test"`` set of each
    split ``0..num_splits-1`` of ``preset``: the classes (sorted) that set holds."""
    for split_id in range(num_splits):
        _, val, test = preset.split(data, split_id, key)
        for part, mask in (("validation", val), ("test", test)):
            yield split_id, part, data.y[mask].unique().tolist()


def majority_class_accuracy(preset: SplitPreset, data: Data, key: str, num_splits: int) -> float:
    """Share (percent, mean over splits ``0..num_splits-1`` of ``preset``) of each test set's
    most frequent class: the test accuracy of the best constant prediction, the floor a
    model's accuracy is read against (80% on Minesweeper's ``stratified`` splits)."""
    hits = []
    for split_id in range(num_splits):
        test = data.y[preset.split(data, split_id, key)[2]]
        hits.append(test.bincount().max().item() / test.numel())
    return 100.0 * sum(hits) / len(hits)


def get_split_preset(name: str) -> SplitPreset:
    """The split preset called ``name`` (case-insensitive; ``_`` and ``-`` are equivalent)."""
    return SPLIT_PRESETS[name]


def list_split_presets() -> list[str]:
    """Names of all split presets."""
    return list(SPLIT_PRESETS)


@dataclass(frozen=True)
class SplitChoice:
    """The split preset a benchmark runs on, and why.

    Attributes:
        preset: canonical preset name (a key of :data:`SPLIT_PRESETS`).
        reason: why this preset, in a few words, e.g. ``"the 10 fixed splits it ships"``.
    """

    preset: str
    reason: str


#: Split preset of each synthetic generator, by the name its benchmark rows carry.
GENERATOR_SPLITS: dict[str, SplitChoice] = {
    "csbm": SplitChoice("sparse", "the JDR paper's cSBM protocol, 2.5/2.5/95"),
}


def choose_split_preset(dataset: str, requested: str | None = None) -> SplitChoice:
    """The split preset to evaluate ``dataset`` on: ``requested`` if given, else its default.

    The default fits the data rather than a paper: a dataset that ships fixed splits
    (``has_fixed_splits`` in :func:`~rewirekit.datasets.list_datasets`: the geom-gcn sets and
    the yandex ones) is evaluated on them (``geom-gcn``, the ``[N, 10]`` masks), every other
    one on ``dense``, class-balanced random 60/20/20, so that no dataset trains on a handful
    of labels by accident (``sparse`` leaves 5 training nodes on Texas). A synthetic
    generator keeps its paper's protocol (:data:`GENERATOR_SPLITS`), and a graph read from a
    file (:data:`~rewirekit.datasets.files.USER_GRAPH`) is split dense. The paper presets stay
    available through ``requested``.

    Args:
        dataset: a dataset name accepted by :func:`~rewirekit.datasets.load`, a key of
            :data:`GENERATOR_SPLITS`, or :data:`~rewirekit.datasets.files.USER_GRAPH`.
        requested: a preset name (see :func:`get_split_preset`), or ``None`` for the default.

    Raises:
        RewireError: for an unknown preset or dataset name.
    """
    if requested is not None:
        return SplitChoice(get_split_preset(requested).name, "as requested")
    if dataset in GENERATOR_SPLITS:
        return GENERATOR_SPLITS[dataset]
    if dataset == USER_GRAPH:
        return SplitChoice("dense", "a graph read from a file: class-balanced random 60/20/20")
    if dataset_info(dataset).has_fixed_splits:
        shipped = SPLIT_PRESETS["geom-gcn"].num_splits
        return SplitChoice("geom-gcn", f"the {shipped} fixed splits the dataset ships")
    return SplitChoice("dense", "no fixed splits shipped: class-balanced random 60/20/20")


def _split_rng(key: str, preset: str, split_id: int) -> np.random.Generator:
    """Generator seeded by a stable digest of ``(key, preset, split_id)``."""
    _check_split_id(split_id)
    digest = hashlib.sha256(f"{key}\x1f{preset}\x1f{split_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _check_split_id(split_id: int, limit: int | None = None) -> None:
    is_index = isinstance(split_id, (int, np.integer)) and not isinstance(split_id, bool)
    if not is_index or split_id < 0 or (limit is not None and split_id >= limit):
        bound = f"in [0, {limit})" if limit is not None else ">= 0"
        raise RewireError(f"split_id must be an integer {bound}, got {split_id!r}.")


def _labels(data: Data, preset: str) -> np.ndarray:
    y = data.get("y")
    if y is None or y.dim() != 1 or y.is_floating_point() or (y.numel() and y.min() < 0):
        raise RewireError(
            f"the {preset!r} split balances classes and needs non-negative integer "
            "labels data.y of shape [N]; set data.y or use the 'comfy' preset."
        )
    return y.cpu().numpy()


def _to_masks(num_nodes: int, train: np.ndarray, val: np.ndarray, test: np.ndarray) -> Masks:
    def mask(index: np.ndarray) -> Tensor:
        out = torch.zeros(num_nodes, dtype=torch.bool)
        out[torch.from_numpy(index)] = True
        return out

    return mask(train), mask(val), mask(test)
