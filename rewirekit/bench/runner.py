"""Run a grid of (dataset × model × method × split × seed) and keep every row in the store.

A run is resumable: rows already in the :class:`~rewirekit.bench.store.ResultStore`
are skipped, and a dataset is neither loaded nor rewired when all its rows exist.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch
from torch_geometric.data import Data

from rewirekit.bench.presets import get_training_preset
from rewirekit.bench.store import ResultStore, RunKey, RunRecord, package_versions, params_hash
from rewirekit.bench.training import train_node_classifier
from rewirekit.datasets import canonical_name, get_split_preset, load, standardize
from rewirekit.errors import RewireError
from rewirekit.methods import get_method, method_class


@dataclass(frozen=True)
class MethodSpec:
    """A method name with its parameters, e.g. ``MethodSpec("random", {"add": 50})``."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        args = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{self.name}({args})" if args else self.name

    @property
    def params_hash(self) -> str:
        return params_hash(self.params)


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset to benchmark on.

    Attributes:
        key: the name stored with each row (includes generator parameters for synthetic data).
        load: builds the graph; called at most once per run, and only if rows are missing.
        preset_name: the name the training preset looks up per-dataset settings under.
        params: the generator parameters of a synthetic dataset (the cSBM's ``phi``, size and
            seed); empty for a loaded one.
    """

    key: str
    load: Callable[[], Data]
    preset_name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def named(cls, name: str) -> DatasetSpec:
        """A dataset from :func:`rewirekit.datasets.load` (RewireError if the name is unknown)."""
        key = canonical_name(name)
        return cls(key, lambda: load(key), key)


@dataclass(frozen=True)
class BenchmarkSpec:
    """The grid of one benchmark. ``num_splits=None`` takes the split preset's default."""

    datasets: list[DatasetSpec]
    methods: list[MethodSpec]
    models: list[str]
    split_preset: str
    training_preset: str
    num_splits: int | None = None
    seeds: tuple[int, ...] = (0,)


class Progress(Protocol):
    """What the runner tells a progress display."""

    def start(self, total: int) -> None: ...

    def advance(self, description: str) -> None: ...


def run_benchmark(
    spec: BenchmarkSpec,
    store: ResultStore,
    progress: Progress | None = None,
    *,
    num_threads: int | None = 1,
) -> list[RunRecord]:
    """Run every missing row of ``spec`` into ``store``; return all rows of ``spec``.

    Graphs are standardised (:func:`~rewirekit.datasets.standardize`): undirected without
    self-loops, except where the training preset keeps a dataset directed, as its paper did,
    and the method accepts directed input.

    The training seed of a run is ``1000 * seed + split_id``, so each split trains from
    its own initialisation and the whole grid is reproducible.

    ``num_threads`` sets ``torch.set_num_threads`` (``None`` leaves it). One thread is the
    default: full-batch training of benchmark-sized graphs gains little from more, and
    oversubscribed cores slow it down several-fold.
    """
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    split_preset = get_split_preset(spec.split_preset)
    training = get_training_preset(spec.training_preset)
    num_splits = spec.num_splits or split_preset.num_splits
    if num_splits < 1:
        raise RewireError(f"need at least one split, got {num_splits}.")
    for method in spec.methods:
        get_method(method.name, **method.params)  # fail fast on bad parameters
    cells = [(d, model, m) for d in spec.datasets for model in spec.models for m in spec.methods]
    runs_per_cell = num_splits * len(spec.seeds)
    if progress is not None:
        progress.start(len(cells) * runs_per_cell)
    versions = package_versions()
    records: list[RunRecord] = []
    prepared: dict[tuple[str, bool], Data] = {}
    for dataset, model, method in cells:
        keys = [
            RunKey(
                dataset.key,
                split_preset.name,
                split_id,
                method.name,
                method.params_hash,
                model,
                spec.training_preset,
                seed,
            )
            for split_id in range(num_splits)
            for seed in spec.seeds
        ]
        missing = [k for k in keys if k not in store]
        if progress is not None:
            for _ in range(len(keys) - len(missing)):
                progress.advance(f"{dataset.key} {model} {method.label} (stored)")
        if missing:
            undirected = not (
                training.keeps_direction(dataset.preset_name)
                and method_class(method.name).supports_directed
            )
            if (dataset.key, undirected) not in prepared:
                graph = standardize(dataset.load(), undirected=undirected)
                prepared[dataset.key, undirected] = split_preset.prepare(graph)
            for record in _run_cell(
                prepared[dataset.key, undirected],
                dataset,
                model,
                method,
                missing,
                split_preset,
                training,
                versions,
            ):
                store.put(record)
                if progress is not None:
                    progress.advance(f"{dataset.key} {model} {method.label}")
        records.extend(r for k in keys for r in store.records(**_as_filter(k)))
    return records


def _run_cell(
    data: Data,
    dataset: DatasetSpec,
    model: str,
    method: MethodSpec,
    keys: list[RunKey],
    split_preset: Any,
    training: Any,
    versions: dict[str, str],
) -> Iterator[RunRecord]:
    rewired = method.name != "none"
    data = training.prepare(data, dataset.preset_name, model, rewired=rewired)
    start = time.perf_counter()
    data = get_method(method.name, **method.params)(data)
    rewire_seconds = time.perf_counter() - start
    report = data.rewire_report.compact()
    config = training.config(dataset.preset_name, model, rewired=rewired, split=split_preset.name)
    for key in keys:
        train_mask, val_mask, test_mask = split_preset.split(data, key.split_id, dataset.key)
        result = train_node_classifier(
            data,
            train_mask,
            val_mask,
            test_mask,
            model,
            config,
            seed=1000 * key.seed + key.split_id,
        )
        yield RunRecord(
            key,
            method.params,
            result.test_acc,
            result.val_acc,
            rewire_seconds,
            result.seconds,
            result.epochs_run,
            versions,
            report,
        )


def _as_filter(key: RunKey) -> dict[str, Any]:
    return {f: getattr(key, f) for f in key.__dataclass_fields__}
