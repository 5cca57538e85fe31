"""The fair leaderboard: every method under one protocol, paired against the unrewired graph.

The protocol, the same for every (dataset, model, method) cell:

* **Splits**: class-balanced random 60/20/20 (the ``dense`` preset), the same split ids for
  every method, ``num_splits`` of them, each trained with every seed of ``seeds``. Where
  those splits leave a validation or test set one class only (there accuracy measures
  nothing: :func:`~rewirekit.datasets.single_class_split`), the dataset is split 60/20/20
  within every class instead (``stratified``); see :func:`protocol_split`.
* **Training**: the ``fair`` preset (:class:`~rewirekit.bench.presets.FairPreset`), whose
  hyperparameters are tuned together with the method's; with ``Protocol.selftrain`` every
  run, ``none``'s included, is then self-trained on the rewired graph (BANGS, ST or M3S).
  Such rows carry the self-training in their key and form a leaderboard of their own.
* **Tuning**: ``trials`` Optuna trials (TPE) for every method, ``none`` included, over the
  method's :attr:`~rewirekit.methods.base.Rewirer.search_space` plus the model's
  (:func:`~rewirekit.bench.presets.model_space`); a trial's score is its mean validation
  accuracy over the splits with the first seed. The parameter set with the best score is
  chosen (:func:`choose`) and trained with the remaining seeds. Test accuracy is read only
  for the chosen set.
* **Output**: per cell the test accuracy and its paired difference with ``none`` (same
  splits and seeds) with a 95% bootstrap CI; per method its wins, ties and losses against
  ``none`` (a win: the CI lies above zero) and its average rank; per model a Friedman test
  over the datasets with the Nemenyi critical difference (Demšar, "Statistical Comparisons of
  Classifiers over Multiple Data Sets", JMLR 2006).

Everything reported is computed from the stored rows alone (:func:`leaderboard`), so a
leaderboard is rebuilt from its CSV export without running anything; only the floor each
cell is read against, the accuracy of a constant prediction
(:func:`constant_prediction_floors`), reads the datasets' labels.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial

import numpy as np
from scipy import stats
from torch_geometric.data import Data

from rewirekit.bench.backends import Backend, LocalBackend
from rewirekit.bench.leases import LeaseHeld
from rewirekit.bench.presets import TunedPreset, get_training_preset, model_space
from rewirekit.bench.runner import (
    BenchmarkSpec,
    DatasetSpec,
    MethodSpec,
    Progress,
    run_benchmark,
    training_label,
)
from rewirekit.bench.stats import PairedComparison, Summary, paired_comparison, summarize
from rewirekit.bench.store import ResultStore, RunKey, RunRecord
from rewirekit.bench.tuning import study_storage, tune
from rewirekit.datasets import (
    available_offline,
    get_split_preset,
    majority_class_accuracy,
    single_class_split,
    standardize,
)
from rewirekit.errors import RewireError
from rewirekit.methods import method_class

#: The split preset of the protocol: class-balanced random 60/20/20.
SPLIT_PRESET = "dense"
#: The protocol's split of a dataset that :data:`SPLIT_PRESET` leaves one class to validate
#: or test: 60/20/20 within every class.
FALLBACK_SPLIT_PRESET = "stratified"
#: The training preset whose tuned variants the protocol trains with.
TRAINING_PRESET = "fair"
#: The method every other one is paired against.
BASELINE = "none"
#: Significance level of the Friedman test and the Nemenyi critical difference.
ALPHA = 0.05


@dataclass(frozen=True)
class Protocol:
    """The budget of a leaderboard, the same for every cell, and the training's
    self-training (``None``: plain training)."""

    trials: int = 20
    num_splits: int = 10
    seeds: tuple[int, ...] = (0, 1)
    sampler_seed: int = 0
    selftrain: MethodSpec | None = None

    @classmethod
    def of(
        cls,
        records: Iterable[RunRecord],
        sampler_seed: int = 0,
        selftrain: MethodSpec | None = None,
    ) -> Protocol:
        """The protocol the fair rows of ``records`` (self-trained by ``selftrain``) were
        run under: their splits and seeds, and as trials the most parameter sets evaluated
        in one cell (a cell whose space ran out, or whose method refused sets, has fewer)."""
        fair = [r for r in records if is_leaderboard_row(r.key, selftrain)]
        if not fair:
            training = training_label(TRAINING_PRESET, selftrain)
            raise RewireError(
                f"no rows of the fair protocol ({training}) to build a leaderboard from."
            )
        seeds = tuple(sorted({r.key.seed for r in fair}))
        trials: dict[tuple[str, str, str], set[tuple[str, str]]] = defaultdict(set)
        for r in fair:
            if r.key.seed == seeds[0]:
                trial = (r.key.params_hash, r.key.training_preset)
                trials[r.key.dataset, r.key.model, r.key.method].add(trial)
        return cls(
            trials=max(len(t) for t in trials.values()),
            num_splits=max(r.key.split_id for r in fair) + 1,
            seeds=seeds,
            sampler_seed=sampler_seed,
            selftrain=selftrain,
        )

    def pairs(self) -> list[tuple[int, int]]:
        """Every run of a cell, as (split id, seed): the units of the paired comparisons."""
        return [(s, seed) for s in range(self.num_splits) for seed in self.seeds]

    def __post_init__(self) -> None:
        if self.trials < 1 or self.num_splits < 2 or not self.seeds:
            raise RewireError(
                "a leaderboard needs at least one trial, two splits (for paired intervals) "
                f"and one seed; got trials={self.trials}, splits={self.num_splits}, "
                f"seeds={self.seeds}."
            )


@dataclass(frozen=True)
class Skipped:
    """A cell that did not run, and why."""

    dataset: str
    model: str
    method: str
    reason: str


def protocol_split(data: Data, key: str, num_splits: int) -> str:
    """The split preset the protocol evaluates ``data`` (called ``key``) on.

    :data:`SPLIT_PRESET`, the class-balanced rule of the JDR and GPRGNN code, unless one of
    its splits ``0..num_splits-1`` leaves a validation or test set one class only: then
    :data:`FALLBACK_SPLIT_PRESET`, which keeps every class in every part (on imbalanced
    two-class data such as Minesweeper and Tolokers the class-balanced rule trains on the
    whole minority class).

    Raises:
        RewireError: when neither preset gives every validation and test set two classes.
    """
    problems = []
    for name in (SPLIT_PRESET, FALLBACK_SPLIT_PRESET):
        preset = get_split_preset(name)
        problem = single_class_split(preset, preset.prepare(data), key, num_splits)
        if problem is None:
            return name
        problems.append(problem)
    raise RewireError("; ".join(problems))


def run_leaderboard(
    datasets: Sequence[DatasetSpec],
    models: Sequence[str],
    methods: Sequence[str],
    store: ResultStore,
    protocol: Protocol,
    progress: Progress | None = None,
    backend: Backend | None = None,
) -> list[Skipped]:
    """Run (or resume) every cell of the grid into ``store``; return the cells skipped.

    A method is skipped on a dataset it cannot run on
    (:meth:`~rewirekit.methods.base.Rewirer.unmet_needs`, e.g. node positions it needs), and
    where it refuses every parameter set it is offered. A whole dataset is skipped where the
    protocol cannot split it (:func:`protocol_split`). ``none`` runs first in every
    (dataset, model), as every other cell is paired with it.

    In this process the progress counts trials. On a Ray ``backend`` every cell (its study
    and its remaining seeds) is one task, the cells run side by side and the progress counts
    cells.
    """
    order = [BASELINE] + [m for m in methods if m != BASELINE]
    grid: list[Skipped | tuple[DatasetSpec, str, str, str]] = []
    for dataset in datasets:
        data = dataset.load()
        try:
            split, unsplittable = protocol_split(data, dataset.key, protocol.num_splits), None
        except RewireError as err:
            split, unsplittable = SPLIT_PRESET, str(err)
        for model in models:
            for method in order:
                unmet = unsplittable or method_class(method).unmet_needs(data)
                grid.append(
                    (dataset, model, method, split)
                    if unmet is None
                    else Skipped(dataset.key, model, method, unmet)
                )
    cells = [c for c in grid if not isinstance(c, Skipped)]
    local = backend is None or isinstance(backend, LocalBackend)
    if not local and progress is not None:
        progress.start(len(cells))
    if not local:
        study_storage(store)  # Optuna's tables exist before the workers open the storage
    outcomes = iter(
        (backend or LocalBackend()).map(
            partial(_try_cell, protocol, progress if local else None),
            store,
            cells,
            None if local else progress,
            describe=lambda c: f"{c[0].key} {c[1]} {c[2]}",
        )
    )
    found = [c if isinstance(c, Skipped) else next(outcomes) for c in grid]
    return [s for s in found if s is not None]


def _try_cell(
    protocol: Protocol,
    progress: Progress | None,
    store: ResultStore,
    cell: tuple[DatasetSpec, str, str, str],
) -> Skipped | None:
    """Run one cell on its split preset; a method that refuses every parameter set is
    skipped (not ``none``). A cell another process is tuning stops the run."""
    dataset, model, method, split = cell
    try:
        _run_cell(dataset, model, method, split, store, protocol, progress)
    except RewireError as err:
        if method == BASELINE or isinstance(err, LeaseHeld):
            raise
        return Skipped(dataset.key, model, method, str(err))
    return None


def _run_cell(
    dataset: DatasetSpec,
    model: str,
    method: str,
    split: str,
    store: ResultStore,
    protocol: Protocol,
    progress: Progress | None,
) -> None:
    first, *rest = protocol.seeds
    tune(
        method,
        dataset,
        store,
        trials=protocol.trials,
        model=model,
        split_preset=split,
        training_preset=TRAINING_PRESET,
        num_splits=protocol.num_splits,
        seeds=(first,),
        model_space=model_space(model),
        seed=protocol.sampler_seed,
        progress=progress,
        selftrain=protocol.selftrain,
    )
    rows = store.records(dataset=dataset.key, model=model, method=method)
    cell = [r for r in rows if is_leaderboard_row(r.key, protocol.selftrain)]
    chosen = choose(cell, protocol.num_splits, first, protocol.selftrain)
    if rest:
        spec = BenchmarkSpec(
            datasets=[dataset],
            methods=[MethodSpec(method, chosen.params)],
            models=[model],
            split_preset=split,
            training_preset=chosen.preset,
            num_splits=protocol.num_splits,
            seeds=tuple(rest),
            selftrain=protocol.selftrain,
        )
        run_benchmark(spec, store)


def is_leaderboard_row(key: RunKey, selftrain: MethodSpec | None = None) -> bool:
    """Whether a stored row is one of the fair protocol's: one of its splits, and as
    training the ``fair`` preset (tuned or not) self-trained by ``selftrain`` (``None``: not
    at all)."""
    suffix = training_label("", selftrain)
    label = key.training_preset
    splits = (SPLIT_PRESET, FALLBACK_SPLIT_PRESET)
    if key.split_preset not in splits or not label.endswith(suffix):
        return False
    preset = label[: len(label) - len(suffix)]
    tuned = preset.startswith(TRAINING_PRESET + "{") and preset.endswith("}")
    return preset == TRAINING_PRESET or tuned


# -- selection ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Selection:
    """The parameter set chosen for a cell: the method's parameters and the training preset
    (with the tuned model hyperparameters), by mean validation accuracy."""

    params: dict
    params_hash: str
    training_preset: str
    val_acc: float
    trials: int
    selftrain: MethodSpec | None = None

    @property
    def preset(self) -> str:
        """The training preset, without the self-training that ``training_preset`` (the
        rows' key) names after it."""
        suffix = training_label("", self.selftrain)
        return self.training_preset[: len(self.training_preset) - len(suffix)]

    @property
    def model_params(self) -> dict:
        """The tuned model hyperparameters (read back from the training preset's name)."""
        preset = get_training_preset(self.preset)
        return dict(preset.overrides) if isinstance(preset, TunedPreset) else {}


def choose(
    records: Iterable[RunRecord],
    num_splits: int,
    seed: int,
    selftrain: MethodSpec | None = None,
) -> Selection:
    """The trial with the best mean validation accuracy over splits ``0..num_splits-1`` at
    training seed ``seed``, among the trials with all of those rows (all self-trained by
    ``selftrain``). Ties go to the smaller ``(params hash, training preset)``, so the choice
    depends on the rows alone."""
    trials: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.key.seed == seed and r.key.split_id < num_splits:
            trials[r.key.params_hash, r.key.training_preset].append(r)
    complete = {k: rows for k, rows in trials.items() if len(rows) == num_splits}
    if not complete:
        raise RewireError(
            f"no trial has all {num_splits} splits at seed {seed}; run the leaderboard to "
            "complete it."
        )
    scores = {k: float(np.mean([r.val_acc for r in rows])) for k, rows in complete.items()}
    best = min(scores, key=lambda k: (-scores[k], k))
    rows = complete[best]
    return Selection(rows[0].params, best[0], best[1], scores[best], len(complete), selftrain)


# -- the tables --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One (dataset, model, method): the chosen parameters and their test accuracy (percent).

    Attributes:
        paired: the paired comparison with ``none`` (``None`` for ``none`` itself).
        rewire_seconds: mean rewiring time of the chosen parameter set.
        no_edits: the chosen parameter set of a method other than ``none`` left the graph
            and the features as they were on every run (its stored rewire reports say so;
            say, a budget of 0 from a paper's grid): the cell then measures ``none``'s
            graph under other model hyperparameters.
        accuracies: the test accuracy of each run, in the order of the protocol's
            :meth:`~Protocol.pairs`.
    """

    dataset: str
    model: str
    method: str
    choice: Selection
    test: Summary
    paired: PairedComparison | None
    rewire_seconds: float
    no_edits: bool = False
    accuracies: tuple[float, ...] = ()

    @property
    def verdict(self) -> str:
        """``"win"``, ``"loss"`` or ``"tie"`` against ``none``: see :func:`verdict`."""
        return verdict(self.paired)


def verdict(paired: PairedComparison | None) -> str:
    """``"win"``, ``"loss"`` or ``"tie"``: whether the 95% CI of the paired difference lies
    above zero, below it, or covers it (a tie without a comparison)."""
    if paired is None or paired.ci_low <= 0 <= paired.ci_high:
        return "tie"
    return "win" if paired.ci_low > 0 else "loss"


@dataclass(frozen=True)
class MethodStanding:
    """A method on one model over the datasets: verdicts against ``none`` and average rank
    (rank 1 = the best test accuracy on a dataset; ties share the mean rank)."""

    model: str
    method: str
    wins: int
    ties: int
    losses: int
    average_rank: float


@dataclass(frozen=True)
class Friedman:
    """Friedman test over the datasets (blocks) of one model, and the Nemenyi critical
    difference of average ranks at level :data:`ALPHA` (Demšar 2006, section 3.2.2):
    ``CD = q_α √(k(k+1) / (6N))`` with ``q_α`` the studentized range quantile over ``√2``.

    Only methods with a cell on every dataset take part (``methods``, in ``ranks`` order)."""

    model: str
    datasets: list[str]
    methods: list[str]
    ranks: list[float]
    statistic: float
    p_value: float
    critical_difference: float


@dataclass(frozen=True)
class Leaderboard:
    """The tables of a leaderboard; ``splits`` maps each dataset to its split preset."""

    cells: list[Cell]
    standings: list[MethodStanding]
    friedman: list[Friedman]
    missing: list[Skipped]
    protocol: Protocol
    splits: dict[str, str]


def leaderboard(records: Iterable[RunRecord], protocol: Protocol) -> Leaderboard:
    """The leaderboard of the stored rows (only the rows of the fair protocol, self-trained
    as ``protocol.selftrain`` says, are read).

    The grid is what the rows hold: every dataset, model and method with a row. A cell of
    that grid without a complete chosen parameter set is listed in
    :attr:`Leaderboard.missing`.

    Raises:
        RewireError: when a dataset has rows under two split presets (see
            :func:`dataset_splits`).
    """
    fair = [r for r in records if is_leaderboard_row(r.key, protocol.selftrain)]
    splits = dataset_splits(fair, protocol.selftrain)
    by_cell: dict[tuple[str, str, str], list[RunRecord]] = defaultdict(list)
    for r in fair:
        by_cell[r.key.dataset, r.key.model, r.key.method].append(r)
    datasets = sorted({k[0] for k in by_cell})
    models = sorted({k[1] for k in by_cell})
    methods = _method_order({k[2] for k in by_cell})
    pairs = protocol.pairs()
    chosen: dict[tuple[str, str, str], tuple[Selection, dict]] = {}
    missing = []
    for key in ((d, mo, me) for d in datasets for mo in models for me in methods):
        rows = by_cell.get(key, [])
        try:
            choice = choose(rows, protocol.num_splits, protocol.seeds[0], protocol.selftrain)
        except RewireError:
            missing.append(Skipped(*key, _missing_reason(key[2])))
            continue
        picked = {
            (r.key.split_id, r.key.seed): r
            for r in rows
            if (r.key.params_hash, r.key.training_preset)
            == (choice.params_hash, choice.training_preset)
        }
        if not set(pairs) <= set(picked):
            missing.append(Skipped(*key, "the chosen parameter set lacks some seeds: resume"))
            continue
        chosen[key] = (choice, picked)
    cells = []
    for (dataset, model, method), (choice, picked) in chosen.items():
        accs = np.array([100 * picked[p].test_acc for p in pairs])
        base = chosen.get((dataset, model, BASELINE))
        paired = None
        if method != BASELINE and base is not None:
            paired = paired_comparison(accs, [100 * base[1][p].test_acc for p in pairs])
        seconds = float(np.mean([picked[p].rewire_seconds for p in pairs]))
        no_edits = method != BASELINE and all(_unchanged(picked[p].rewire_report) for p in pairs)
        cells.append(
            Cell(
                dataset,
                model,
                method,
                choice,
                summarize(accs),
                paired,
                seconds,
                no_edits,
                tuple(accs.tolist()),
            )
        )
    friedman = [_friedman(cells, model, datasets) for model in models]
    standings = _standings(cells, models, methods, friedman)
    return Leaderboard(
        cells,
        standings,
        [f for f in friedman if f is not None],
        missing,
        protocol,
        splits,
    )


def dataset_splits(
    records: Iterable[RunRecord], selftrain: MethodSpec | None = None
) -> dict[str, str]:
    """The split preset of each dataset's rows of the fair protocol (self-trained by
    ``selftrain``).

    Raises:
        RewireError: when a dataset has such rows under two presets (say, rows of the
            ``dense`` split beside the ``stratified`` ones that replaced them).
    """
    found: dict[str, set[str]] = defaultdict(set)
    for r in records:
        if is_leaderboard_row(r.key, selftrain):
            found[r.key.dataset].add(r.key.split_preset)
    mixed = {d: sorted(names) for d, names in found.items() if len(names) > 1}
    if mixed:
        raise RewireError(
            "a leaderboard evaluates a dataset on one split preset; the rows of "
            + ", ".join(f"{d!r} come under {' and '.join(n)}" for d, n in sorted(mixed.items()))
            + ". Keep the rows of the preset the protocol chooses (rewirekit.bench.leaderboard"
            ".protocol_split)."
        )
    return {dataset: names.pop() for dataset, names in found.items()}


def constant_prediction_floors(board: Leaderboard) -> dict[str, float]:
    """The test accuracy (percent) of the best constant prediction on each dataset of
    ``board``: :func:`~rewirekit.datasets.majority_class_accuracy` over the protocol's splits
    of the dataset's split preset, the floor its cells are read against.

    Computed from the labels, so only for datasets at hand without a download: a cSBM
    (generated from its key) and a named dataset in the offline folder (``REWIREKIT_DATA``).
    A graph read from a file, or a named dataset not in that folder, has no entry."""
    floors = {}
    for key, preset_name in sorted(board.splits.items()):
        spec = DatasetSpec.from_key(key)
        if spec is None or (not spec.params and not available_offline(key)):
            continue
        floors[key] = _constant_prediction_floor(key, preset_name, board.protocol.num_splits)
    return floors


@cache
def _constant_prediction_floor(key: str, preset_name: str, num_splits: int) -> float:
    """One dataset's floor; kept, since the Markdown page and the HTML page of one
    ``rewirekit leaderboard`` both read it and it loads the dataset."""
    spec = DatasetSpec.from_key(key)
    assert spec is not None
    preset = get_split_preset(preset_name)
    data = preset.prepare(standardize(spec.load()))
    return majority_class_accuracy(preset, data, key, num_splits)


@dataclass(frozen=True)
class TrainingComparison:
    """One cell trained two ways: self-trained against plain, each with its own tuned
    choice, paired by split and seed (``paired``: self-trained − plain, in points)."""

    dataset: str
    model: str
    method: str
    plain: Summary
    selftrained: Summary
    paired: PairedComparison

    @property
    def verdict(self) -> str:
        """Whether self-training wins, loses or ties (:func:`verdict`)."""
        return verdict(self.paired)


def compare_training(selftrained: Leaderboard, plain: Leaderboard) -> list[TrainingComparison]:
    """Each cell of the self-trained leaderboard against the same cell of the plain one
    (cells of only one of them are left out): does self-training add to the method?

    Raises:
        RewireError: when the two were not run on the same splits and seeds.
    """
    if selftrained.protocol.pairs() != plain.protocol.pairs():
        raise RewireError(
            "the self-trained and the plain leaderboard were run on other splits or seeds "
            f"({selftrained.protocol.num_splits} splits x seeds {selftrained.protocol.seeds} "
            f"against {plain.protocol.num_splits} x {plain.protocol.seeds}); run both alike."
        )
    by_key = {(c.dataset, c.model, c.method): c for c in plain.cells}
    out = []
    for cell in selftrained.cells:
        other = by_key.get((cell.dataset, cell.model, cell.method))
        if other is not None:
            paired = paired_comparison(cell.accuracies, other.accuracies)
            out.append(
                TrainingComparison(
                    cell.dataset, cell.model, cell.method, other.test, cell.test, paired
                )
            )
    return out


def _unchanged(report: dict | None) -> bool:
    """Whether a stored rewire report says the graph and the features came back as they
    were (no report, from an older row: not known, so not claimed)."""
    return (
        report is not None
        and report.get("edges_added") == 0
        and report.get("edges_removed") == 0
        and report.get("features_changed") is False
    )


def _method_order(methods: set[str]) -> list[str]:
    return sorted(methods, key=lambda m: (m != BASELINE, m))


def _missing_reason(method: str) -> str:
    cls = method_class(method)
    if cls.needs_positions:
        return "needs node positions (data.pos), which the dataset lacks"
    return "no complete rows: not run yet, or every parameter set was refused"


def _friedman(cells: list[Cell], model: str, datasets: Sequence[str]) -> Friedman | None:
    acc = {(c.dataset, c.method): c.test.mean for c in cells if c.model == model}
    on = [d for d in datasets if any((d, m) in acc for m in {c.method for c in cells})]
    methods = _method_order({m for _, m in acc if all((d, m) in acc for d in on)})
    if len(methods) < 3 or len(on) < 2:
        return None  # the test needs three methods and two datasets
    table = np.array([[acc[d, m] for m in methods] for d in on])
    ranks = np.mean([stats.rankdata(-row) for row in table], axis=0)
    if np.all(table == table[:, :1]):
        statistic, p_value = 0.0, 1.0
    else:
        result = stats.friedmanchisquare(*table.T)
        statistic, p_value = float(result.statistic), float(result.pvalue)
    k, n = len(methods), len(on)
    q = stats.studentized_range.ppf(1 - ALPHA, k, np.inf) / math.sqrt(2)
    cd = float(q * math.sqrt(k * (k + 1) / (6 * n)))
    return Friedman(model, list(on), methods, [float(r) for r in ranks], statistic, p_value, cd)


def _standings(
    cells: list[Cell],
    models: Sequence[str],
    methods: Sequence[str],
    friedman: list[Friedman | None],
) -> list[MethodStanding]:
    ranks = {
        (f.model, m): r
        for f in friedman
        if f is not None
        for m, r in zip(f.methods, f.ranks, strict=True)
    }
    standings = []
    for model in models:
        for method in methods:
            verdicts = [c.verdict for c in cells if (c.model, c.method) == (model, method)]
            if not verdicts:
                continue
            standings.append(
                MethodStanding(
                    model,
                    method,
                    verdicts.count("win"),
                    verdicts.count("tie"),
                    verdicts.count("loss"),
                    ranks.get((model, method), math.nan),
                )
            )
    return standings


def describe_params(choice: Selection) -> str:
    """The chosen method parameters and model hyperparameters, compactly."""

    def fmt(values: dict) -> str:
        return ", ".join(
            f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items()
        )

    method = fmt(choice.params) or "—"
    return f"{method}; {fmt(choice.model_params)}"
