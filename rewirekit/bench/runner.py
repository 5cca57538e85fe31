"""Run a grid of (dataset × model × method × split × seed) and keep every row in the store.

A run is resumable: rows already in the :class:`~rewirekit.bench.store.ResultStore`
are skipped, and a dataset is neither loaded nor rewired when all its rows exist.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import torch
from torch_geometric.data import Data

from rewirekit.bench.presets import get_training_preset
from rewirekit.bench.store import ResultStore, RunKey, RunRecord, package_versions, params_hash
from rewirekit.bench.training import TrainConfig, train_node_classifier
from rewirekit.datasets import (
    USER_GRAPH,
    canonical_name,
    csbm,
    csbm_key,
    get_split_preset,
    graph_key,
    is_graph_path,
    load,
    parse_csbm_key,
    read_graph,
    standardize,
)
from rewirekit.datasets.files import FORMATS_HELP
from rewirekit.errors import RewireError
from rewirekit.methods import get_method, method_class
from rewirekit.selftrain import get_self_trainer


@dataclass(frozen=True)
class MethodSpec:
    """A method name with its parameters, e.g. ``MethodSpec("random", {"add": 50})``."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The name with its parameters, ``name(key=value,...)``, as stored in keys."""
        return f"{self.name}({self._args})" if self.params else self.name

    @property
    def argument(self) -> str:
        """The command-line form, ``name`` or ``name:key=value,...``."""
        return f"{self.name}:{self._args}" if self.params else self.name

    @property
    def _args(self) -> str:
        return ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))

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
        """A dataset from :func:`rewirekit.datasets.load` (RewireError if the name is unknown).

        It is loaded as PyG builds it; :func:`run_benchmark` decides its direction."""
        key = canonical_name(name)
        return cls(key, lambda: load(key, undirected=False), key)

    @classmethod
    def from_file(cls, path: str | Path, *, undirected: bool = False) -> DatasetSpec:
        """Your own graph, read by :func:`rewirekit.datasets.read_graph` (``undirected``
        symmetrises a directed one). Its rows are stored under
        :func:`~rewirekit.datasets.graph_key`, which changes with the file's content."""
        path = Path(path)
        return cls(graph_key(path), partial(read_graph, path, undirected=undirected), USER_GRAPH)

    @classmethod
    def csbm(cls, *, num_nodes: int, num_features: int, phi: float, seed: int) -> DatasetSpec:
        """A :func:`rewirekit.datasets.csbm` graph, stored under its
        :func:`~rewirekit.datasets.csbm_key`."""
        graph = partial(csbm, num_nodes=num_nodes, num_features=num_features, phi=phi, seed=seed)
        params = {"num_nodes": num_nodes, "num_features": num_features, "phi": float(phi)}
        return cls(
            csbm_key(num_nodes, num_features, phi, seed), graph, "csbm", {**params, "seed": seed}
        )

    @classmethod
    def from_key(cls, key: str) -> DatasetSpec | None:
        """The dataset whose rows carry ``key``: a dataset name or a cSBM key; ``None`` for a
        graph read from a file (its key names the content, not the path)."""
        params = parse_csbm_key(key)
        if params is not None:
            return cls.csbm(**params)
        try:
            return cls.named(key)
        except RewireError:
            return None

    @classmethod
    def from_argument(cls, text: str, *, undirected: bool = False) -> DatasetSpec:
        """A ``--dataset`` argument: a dataset name, or the path of a graph file (see
        :func:`~rewirekit.datasets.is_graph_path`)."""
        if is_graph_path(text):
            return cls.from_file(text, undirected=undirected)
        try:
            return cls.named(text)
        except RewireError as err:
            raise RewireError(
                f"{err} Or give the path of your own graph: {FORMATS_HELP}."
            ) from None


@dataclass(frozen=True)
class BenchmarkSpec:
    """The grid of one benchmark: split ids ``first_split .. first_split + num_splits - 1``
    (``num_splits=None`` takes the split preset's number).

    ``selftrain`` (a name from :func:`rewirekit.selftrain.list_self_trainers` with its
    parameters) trains every run by self-training on the rewired graph instead of once; its
    label joins the training preset in the stored key (``"bangs+st(top_k=70)"``), so
    self-trained rows never mix with plain ones.
    """

    datasets: list[DatasetSpec]
    methods: list[MethodSpec]
    models: list[str]
    split_preset: str
    training_preset: str
    num_splits: int | None = None
    seeds: tuple[int, ...] = (0,)
    selftrain: MethodSpec | None = None
    first_split: int = 0

    @property
    def runs(self) -> int:
        """Training runs in the grid (splits default to the split preset's number)."""
        splits = self.num_splits or get_split_preset(self.split_preset).num_splits
        return len(self.datasets) * len(self.models) * len(self.methods) * splits * len(self.seeds)

    @property
    def training_label(self) -> str:
        """The training preset as stored in each row's key, self-training included."""
        return training_label(self.training_preset, self.selftrain)


def training_label(training_preset: str, selftrain: MethodSpec | None) -> str:
    """The training of a row's key: the preset, then ``+`` and the self-training's label when
    every run is self-trained (``"fair+bangs(top_k=70)"``)."""
    if selftrain is None:
        return training_preset
    return f"{training_preset}+{selftrain.label}"


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
    interleave: bool = False,
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

    ``interleave=True`` rewires every cell first and then trains their missing rows in
    turn, one row of each cell at a time, so that methods compared on the same splits
    complete their pairs as the run goes (a run stopped early leaves paired rows; the
    rewired graphs of all cells are held at once).
    """
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    split_preset, training, num_splits = _check(spec)
    cells = [(d, model, m) for d in spec.datasets for model in spec.models for m in spec.methods]
    runs_per_cell = num_splits * len(spec.seeds)
    if progress is not None:
        progress.start(len(cells) * runs_per_cell)
    versions = package_versions()
    prepared: dict[tuple[str, bool], Data] = {}
    all_keys: list[list[RunKey]] = []
    pending: list[tuple[str, Iterator[RunRecord]]] = []
    for dataset, model, method in cells:
        keys = _cell_keys(spec, dataset, model, method, num_splits)
        missing = [k for k in keys if k not in store]
        if progress is not None:
            for _ in range(len(keys) - len(missing)):
                progress.advance(f"{dataset.key} {model} {method.label} (stored)")
        if missing:
            undirected = _undirected(dataset, method, training)
            if (dataset.key, undirected) not in prepared:
                prepared[dataset.key, undirected] = _prepared(dataset, undirected, split_preset)
            rows = _run_cell(
                prepared[dataset.key, undirected],
                dataset,
                model,
                method,
                missing,
                split_preset,
                training,
                versions,
                spec.selftrain,
            )
            cell = (f"{dataset.key} {model} {method.label}", rows)
            if interleave:
                pending.append(cell)
            else:
                _store_rows([cell], store, progress)
        all_keys.append(keys)
    _store_rows(pending, store, progress)
    return stored_rows(store, [k for keys in all_keys for k in keys])


@dataclass(frozen=True)
class CellTask:
    """The missing runs of one (dataset, model, method) cell, with all a worker needs to run
    them on its own (:func:`run_cell`): the dataset spec loads the graph where it runs."""

    dataset: DatasetSpec
    model: str
    method: MethodSpec
    keys: tuple[RunKey, ...]
    split_preset: str
    training_preset: str
    selftrain: MethodSpec | None = None

    @property
    def label(self) -> str:
        return f"{self.dataset.key} {self.model} {self.method.label}"


def plan_cells(spec: BenchmarkSpec, store: ResultStore) -> tuple[list[RunKey], list[CellTask]]:
    """Every run key of ``spec`` and, for each cell with runs missing from ``store``, the
    task that runs them (checked as :func:`run_benchmark` checks them, before any work)."""
    _, _, num_splits = _check(spec)
    keys, tasks = [], []
    for dataset in spec.datasets:
        for model in spec.models:
            for method in spec.methods:
                cell = _cell_keys(spec, dataset, model, method, num_splits)
                keys += cell
                missing = tuple(k for k in cell if k not in store)
                if missing:
                    tasks.append(
                        CellTask(
                            dataset,
                            model,
                            method,
                            missing,
                            spec.split_preset,
                            spec.training_preset,
                            spec.selftrain,
                        )
                    )
    return keys, tasks


def run_cell(task: CellTask, store: ResultStore) -> int:
    """Load, prepare and rewire the cell's graph and train its runs that are still missing
    from ``store``, storing each row as it finishes (as :func:`run_benchmark` does); return
    how many rows this call wrote. A task run again after a crash resumes."""
    missing = [k for k in task.keys if k not in store]
    if not missing:
        return 0
    split_preset = get_split_preset(task.split_preset)
    training = get_training_preset(task.training_preset)
    undirected = _undirected(task.dataset, task.method, training)
    rows = _run_cell(
        _prepared(task.dataset, undirected, split_preset),
        task.dataset,
        task.model,
        task.method,
        missing,
        split_preset,
        training,
        package_versions(),
        task.selftrain,
    )
    return sum(store.put(record) for record in rows)


def stored_rows(store: ResultStore, keys: list[RunKey]) -> list[RunRecord]:
    """The stored rows of ``keys``, in their order (keys not stored are left out)."""
    return [r for k in keys for r in store.records(**_as_filter(k))]


def _check(spec: BenchmarkSpec) -> tuple[Any, Any, int]:
    """The split preset, training preset and number of splits of ``spec``; fails fast on
    bad method and self-training parameters."""
    split_preset = get_split_preset(spec.split_preset)
    training = get_training_preset(spec.training_preset)
    num_splits = spec.num_splits or split_preset.num_splits
    if num_splits < 1 or spec.first_split < 0:
        raise RewireError(
            f"need at least one split and a first split id >= 0, got {num_splits} splits "
            f"from {spec.first_split}."
        )
    for method in spec.methods:
        get_method(method.name, **method.params)  # fail fast on bad parameters
    if spec.selftrain is not None:
        get_self_trainer(spec.selftrain.name, **spec.selftrain.params)
    return split_preset, training, num_splits


def _cell_keys(
    spec: BenchmarkSpec, dataset: DatasetSpec, model: str, method: MethodSpec, num_splits: int
) -> list[RunKey]:
    return [
        RunKey(
            dataset.key,
            get_split_preset(spec.split_preset).name,
            split_id,
            method.name,
            method.params_hash,
            model,
            spec.training_label,
            seed,
        )
        for split_id in range(spec.first_split, spec.first_split + num_splits)
        for seed in spec.seeds
    ]


def _store_rows(
    cells: list[tuple[str, Iterator[RunRecord]]], store: ResultStore, progress: Progress | None
) -> None:
    """Store the rows of ``cells`` (description, rows), taking one row of each in turn."""
    active = list(cells)
    while active:
        for description, rows in list(active):
            record = next(rows, None)
            if record is None:
                active.remove((description, rows))
                continue
            store.put(record)
            if progress is not None:
                progress.advance(description)


def method_input(
    dataset: DatasetSpec, model: str, method: MethodSpec, split_preset: str, training_preset: str
) -> Data:
    """The graph one cell of a benchmark hands its method: ``dataset`` standardised and
    prepared by the split and training presets exactly as :func:`run_benchmark` prepares it
    (features row-normalised where the training preset says so)."""
    split = get_split_preset(split_preset)
    training = get_training_preset(training_preset)
    data = _prepared(dataset, _undirected(dataset, method, training), split)
    return _method_input(data, dataset, model, method, training)


def rewire_cell(
    dataset: DatasetSpec, model: str, method: MethodSpec, split_preset: str, training_preset: str
) -> Data:
    """The graph one cell of a benchmark trains on: :func:`method_input` rewired by
    ``method`` (the result carries its ``rewire_report``). The runner rewires a cell once for
    all its splits, so this is the graph behind every row of the cell."""
    data = method_input(dataset, model, method, split_preset, training_preset)
    return get_method(method.name, **method.params)(data)


def _undirected(dataset: DatasetSpec, method: MethodSpec, training: Any) -> bool:
    """Whether the cell's graph is made undirected: unless the training preset keeps the
    dataset directed and the method accepts directed input."""
    return not (
        training.keeps_direction(dataset.preset_name)
        and method_class(method.name).supports_directed
    )


def _prepared(dataset: DatasetSpec, undirected: bool, split_preset: Any) -> Data:
    return split_preset.prepare(standardize(dataset.load(), undirected=undirected))


def _method_input(
    data: Data, dataset: DatasetSpec, model: str, method: MethodSpec, training: Any
) -> Data:
    """The prepared graph as the training preset hands it to the method."""
    rewired = training.rewired_settings(method.name)
    return training.prepare(data, dataset.preset_name, model, rewired=rewired)


def _run_cell(
    data: Data,
    dataset: DatasetSpec,
    model: str,
    method: MethodSpec,
    keys: list[RunKey],
    split_preset: Any,
    training: Any,
    versions: dict[str, str],
    selftrain: MethodSpec | None,
) -> Iterator[RunRecord]:
    """Rewire ``data`` now; return the training runs of ``keys`` as a lazy iterator."""
    rewired = training.rewired_settings(method.name)
    data = _method_input(data, dataset, model, method, training)
    start = time.perf_counter()
    data = get_method(method.name, **method.params)(data)
    rewire_seconds = time.perf_counter() - start
    report = data.rewire_report.compact()
    config = training.config(dataset.preset_name, model, rewired=rewired, split=split_preset.name)
    return _train_rows(
        data,
        dataset,
        model,
        method,
        keys,
        split_preset,
        config,
        rewire_seconds,
        versions,
        selftrain,
        report,
    )


def _train_rows(
    data: Data,
    dataset: DatasetSpec,
    model: str,
    method: MethodSpec,
    keys: list[RunKey],
    split_preset: Any,
    config: TrainConfig,
    rewire_seconds: float,
    versions: dict[str, str],
    selftrain: MethodSpec | None,
    report: dict[str, Any],
) -> Iterator[RunRecord]:
    for key in keys:
        train_mask, val_mask, test_mask = split_preset.split(data, key.split_id, dataset.key)
        masks = (train_mask, val_mask, test_mask)
        seed = 1000 * key.seed + key.split_id
        if selftrain is None:
            result = train_node_classifier(data, *masks, model, config, seed=seed)
            test_acc, val_acc = result.test_acc, result.val_acc
            train_seconds, epochs = result.seconds, result.epochs_run
        else:
            trainer = get_self_trainer(selftrain.name, **selftrain.params)
            outcome = trainer.fit(data, *masks, model, config, seed=seed)
            test_acc, val_acc = outcome.test_acc, outcome.val_acc
            train_seconds = sum(r.train_seconds for r in outcome.rounds)
            epochs = sum(r.epochs for r in outcome.rounds)
        yield RunRecord(
            key,
            method.params,
            test_acc,
            val_acc,
            rewire_seconds,
            train_seconds,
            epochs,
            versions,
            report,
        )


def _as_filter(key: RunKey) -> dict[str, Any]:
    return {f: getattr(key, f) for f in key.__dataclass_fields__}
