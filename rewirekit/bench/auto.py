"""``rewirekit auto``: which rewiring, if any, helps on this graph, and by how much.

The process, on the fair protocol of :mod:`rewirekit.bench.leaderboard` (class-balanced
random 60/20/20 splits, or 60/20/20 within every class where those leave validation one
class: :func:`~rewirekit.bench.leaderboard.protocol_split`; the ``fair`` training preset;
the same Optuna budget for every method):

1. **Diagnose** the graph (:func:`~rewirekit.diagnostics.diagnose`, labels read on the
   training nodes of split 0 only) and keep the rule's features, :data:`FEATURES`:
   edge homophily among training nodes, the spectral gap, the NMI of communities with the
   training labels, feature–label alignment (1-nearest-neighbour agreement of cosine
   feature similarity), and the Ollivier–Ricci median curvature and share of edges below
   −0.5.
2. **Short-list** methods by a rule learned from leaderboard rows (:class:`ShortlistRule`):
   each leaderboard dataset is a :class:`DatasetProfile` (its features and, per method, the
   leaderboard's paired test gain over ``none`` in points). The features are z-scored with
   the mean and standard deviation of the profiles (a feature constant over them is
   dropped), the ``neighbours`` nearest profiles in Euclidean distance are found, and each
   method is scored by its mean gain on them. The best ``shortlist`` methods are tuned.
   This is nearest-neighbour transfer, as in algorithm selection by meta-learning (Brazdil,
   Soares & da Costa, "Ranking learning algorithms", Machine Learning 2003): nothing in the
   rule names a dataset or a method. A profile of the dataset being diagnosed (the same key)
   is never used.
3. **Tune** ``none`` and the short-listed methods with the same budget
   (:func:`~rewirekit.bench.tuning.tune`: ``trials`` Optuna trials over the method's search
   space plus the model's, each scored by its mean validation accuracy over splits
   ``0 .. num_splits-1`` at training seed 0). Test accuracy plays no part.
4. **Choose** the candidate of best validation accuracy; ``none`` is one, and wins ties, so
   ``auto`` may answer "do not rewire". Its validation gain is its validation accuracy minus
   that of the tuned ``none``.

:func:`evaluate` then measures the choice on held-back splits (ids from ``num_splits`` on),
which selection never used: the paired test difference with the tuned ``none``, with its
95% bootstrap CI (:func:`~rewirekit.bench.stats.paired_comparison`).

The rule's profiles ship with the package (:data:`PROFILES_FILE`, written by
``python benchmarks/auto_lodo.py`` from the committed leaderboard rows, ``docs/leaderboard.csv.gz``)
or are built from any leaderboard's rows (:func:`profiles_from_records`).
"""

from __future__ import annotations

import hashlib
import json
import math
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch_geometric.data import Data

from rewirekit.bench.leaderboard import (
    BASELINE,
    SPLIT_PRESET,
    TRAINING_PRESET,
    Protocol,
    dataset_splits,
    leaderboard,
    protocol_split,
)
from rewirekit.bench.leases import LeaseHeld
from rewirekit.bench.presets import model_space, tuned_preset_name
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, Progress, run_benchmark
from rewirekit.bench.stats import PairedComparison, Summary, paired_comparison, summarize
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.bench.tuning import split_params, trial_value, tune
from rewirekit.datasets import (
    USER_GRAPH,
    DatasetUnavailable,
    get_split_preset,
    standardize,
)
from rewirekit.diagnostics import GraphDiagnostics, diagnose
from rewirekit.errors import RewireError
from rewirekit.methods import Rewirer, get_method, list_methods, method_class
from rewirekit.models import MODELS

#: The diagnosis features the rule compares datasets by (fields of
#: :class:`~rewirekit.diagnostics.GraphDiagnostics`); each reads labels of training nodes
#: only, or none.
FEATURES = (
    "masked_edge_homophily",
    "spectral_gap",
    "label_nmi",
    "feature_label_alignment",
    "orc_median",
    "orc_below_minus_half",
)
#: The rule's profiles of the committed leaderboard (``python benchmarks/auto_lodo.py``).
PROFILES_FILE = Path(__file__).with_name("auto_profiles.json")


# -- the rule ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class DatasetProfile:
    """One leaderboard dataset as the rule sees it.

    Attributes:
        dataset: the key of its leaderboard rows.
        model: the model of its cells.
        features: the :data:`FEATURES` of its diagnosis.
        gains: per method with a leaderboard cell, the mean paired test difference with
            ``none`` (points of accuracy; ``none`` itself is not listed).
    """

    dataset: str
    model: str
    features: dict[str, float]
    gains: dict[str, float]


@dataclass(frozen=True)
class Suggestion:
    """A short-listed method and why: its mean gain on the nearest profiles.

    Attributes:
        evidence: ``(dataset, distance, gain)`` for each nearest profile with a cell of the
            method, nearest first.
    """

    method: str
    predicted_gain: float
    evidence: tuple[tuple[str, float, float], ...]

    @property
    def why(self) -> str:
        """The evidence in words, e.g. ``"+9.84 on texas (distance 0.41)"``."""
        return "; ".join(f"{g:+.2f} on {d} (distance {dist:.2f})" for d, dist, g in self.evidence)


@dataclass(frozen=True)
class ShortlistRule:
    """Nearest leaderboard datasets in z-scored diagnosis space, methods ranked by their
    mean leaderboard gain there (see the module docstring).

    Attributes:
        profiles: the leaderboard datasets the rule learns from.
        neighbours: how many nearest profiles vote.
        features: the features compared.
    """

    profiles: tuple[DatasetProfile, ...]
    neighbours: int = 1
    features: tuple[str, ...] = FEATURES

    def __post_init__(self) -> None:
        if not self.profiles:
            raise RewireError(
                "the rule has no leaderboard profiles to learn from; run a leaderboard "
                "(rewirekit leaderboard) and pass its rows."
            )
        if self.neighbours < 1:
            raise RewireError(f"neighbours must be >= 1, got {self.neighbours}.")

    def scale(self) -> dict[str, tuple[float, float]]:
        """``(mean, std)`` of each feature over the profiles; features that are constant
        or missing (NaN) on some profile are left out."""
        out = {}
        for name in self.features:
            values = np.array([p.features.get(name, math.nan) for p in self.profiles], float)
            if np.isfinite(values).all() and values.std() > 0:
                out[name] = (float(values.mean()), float(values.std()))
        return out

    def distances(self, features: Mapping[str, float]) -> list[tuple[DatasetProfile, float]]:
        """Every profile with its distance to ``features``, nearest first (ties: by key).
        Features NaN in ``features`` are left out of the distance."""
        scale = {k: v for k, v in self.scale().items() if math.isfinite(features.get(k, math.nan))}
        out = []
        for p in self.profiles:
            z = [(features[k] - p.features[k]) / std for k, (_, std) in scale.items()]
            out.append((p, float(np.sqrt(np.sum(np.square(z))))))
        return sorted(out, key=lambda item: (item[1], item[0].dataset))

    def rank(
        self, features: Mapping[str, float], methods: Iterable[str] | None = None
    ) -> list[Suggestion]:
        """Methods other than ``none`` (only ``methods`` if given) by their mean gain on the
        ``neighbours`` nearest profiles, best first (ties: by name); a method without a cell
        on any of them is not ranked."""
        nearest = self.distances(features)[: self.neighbours]
        allowed = None if methods is None else set(methods)
        names = sorted({m for p, _ in nearest for m in p.gains} - {BASELINE})
        out = []
        for method in names:
            if allowed is not None and method not in allowed:
                continue
            evidence = tuple(
                (p.dataset, d, p.gains[method]) for p, d in nearest if method in p.gains
            )
            gain = float(np.mean([g for _, _, g in evidence]))
            out.append(Suggestion(method, gain, evidence))
        return sorted(out, key=lambda s: (-s.predicted_gain, s.method))


def profiles_from_leaderboard(
    records: Iterable[RunRecord], features: Mapping[str, Mapping[str, float]]
) -> list[DatasetProfile]:
    """One profile per (dataset, model) of the leaderboard of ``records`` with a ``none``
    cell: the gains of its cells (:func:`~rewirekit.bench.leaderboard.leaderboard`) and
    ``features[dataset]``."""
    rows = list(records)
    board = leaderboard(rows, Protocol.of(rows))
    gains: dict[tuple[str, str], dict[str, float]] = {}
    for cell in board.cells:
        if cell.method == BASELINE:
            gains.setdefault((cell.dataset, cell.model), {})
        elif cell.paired is not None:
            gains.setdefault((cell.dataset, cell.model), {})[cell.method] = cell.paired.mean_diff
    return [
        DatasetProfile(dataset, model, dict(features[dataset]), g)
        for (dataset, model), g in sorted(gains.items())
    ]


def profiles_from_records(records: Iterable[RunRecord], *, seed: int = 0) -> list[DatasetProfile]:
    """Profiles of the leaderboard of ``records``, each dataset diagnosed from its key
    (:meth:`DatasetSpec.from_key <rewirekit.bench.runner.DatasetSpec.from_key>`: a dataset
    name or a cSBM key; rows of graphs read from files cannot be diagnosed again and raise)."""
    rows = list(records)
    features = {}
    for key, split in sorted(dataset_splits(rows).items()):
        spec = DatasetSpec.from_key(key)
        if spec is None:
            raise RewireError(
                f"cannot diagnose {key!r} again: its rows come from a graph file; leave its "
                "rows out of the rule's leaderboard."
            )
        diagnosis = diagnose_dataset(spec, seed=seed, split_preset=split)[0]
        features[key] = diagnosis_features(diagnosis)
    return profiles_from_leaderboard(rows, features)


def save_profiles(profiles: Sequence[DatasetProfile], path: str | Path, source: str) -> Path:
    """Write ``profiles`` as JSON, with ``source`` (where they came from); the folder is
    created if missing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"source": source, "profiles": [asdict(p) for p in profiles]}
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def load_profiles(path: str | Path = PROFILES_FILE) -> list[DatasetProfile]:
    """Profiles written by :func:`save_profiles` (default: the packaged ones)."""
    body = json.loads(Path(path).read_text(encoding="utf-8"))
    return [DatasetProfile(**p) for p in body["profiles"]]


# -- diagnosis ---------------------------------------------------------------------------------
def diagnose_dataset(
    spec: DatasetSpec, *, seed: int = 0, split_preset: str = SPLIT_PRESET
) -> tuple[GraphDiagnostics, Data]:
    """The diagnosis of ``spec`` as the fair protocol trains on it (standardised, undirected)
    with labels read on the training nodes of split 0 of ``split_preset`` (the dataset's
    :func:`~rewirekit.bench.leaderboard.protocol_split`); and the prepared graph."""
    split = get_split_preset(split_preset)
    data = split.prepare(standardize(spec.load()))
    train_mask = split.split(data, 0, spec.key)[0]
    return diagnose(data, train_mask, seed=seed), data


def diagnosis_features(diagnosis: GraphDiagnostics) -> dict[str, float]:
    """The :data:`FEATURES` of a diagnosis."""
    values = diagnosis.to_dict()
    return {name: float(values[name]) for name in FEATURES}


# -- auto --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    """A tuned candidate: the parameters chosen by validation and their score.

    Attributes:
        params: the method's parameters.
        model_params: the tuned training hyperparameters of the model.
        val_acc: mean validation accuracy (percent) over the selection splits at seed 0.
        trials: distinct parameter sets evaluated.
    """

    method: str
    params: dict[str, Any]
    model_params: dict[str, Any]
    val_acc: float
    trials: int

    @property
    def training_preset(self) -> str:
        """The name of the tuned ``fair`` preset this candidate trains with."""
        return tuned_preset_name(TRAINING_PRESET, self.model_params)


@dataclass(frozen=True)
class AutoResult:
    """What :func:`auto` found.

    Attributes:
        dataset: the key of the graph's rows.
        model: the model tuned.
        diagnosis: the graph's diagnosis (labels of the training nodes of split 0).
        split_preset: the protocol's split of the graph
            (:func:`~rewirekit.bench.leaderboard.protocol_split`).
        nearest: the profiles the rule compared with, ``(dataset, distance)``, nearest first;
            the first ``neighbours`` of them voted.
        shortlist: the short-listed methods, best predicted first.
        candidates: ``none`` and the short-listed methods, tuned, in that order.
        skipped: short-listed methods that refused every parameter set, with the reason.
        choice: the candidate of best validation accuracy (``none`` on ties).
        num_splits: the selection splits (ids ``0 .. num_splits-1``).
        trials: the Optuna budget of every candidate.
    """

    dataset: str
    model: str
    diagnosis: GraphDiagnostics
    split_preset: str
    nearest: tuple[tuple[str, float], ...]
    neighbours: int
    shortlist: tuple[Suggestion, ...]
    candidates: tuple[Candidate, ...]
    skipped: tuple[tuple[str, str], ...]
    choice: Candidate
    num_splits: int
    trials: int

    @property
    def baseline(self) -> Candidate:
        """The tuned ``none``."""
        return self.candidates[0]

    @property
    def val_gain(self) -> float:
        """Validation accuracy of the choice minus that of the tuned ``none`` (points)."""
        return self.choice.val_acc - self.baseline.val_acc

    @property
    def rewirer(self) -> Rewirer:
        """The chosen method with its chosen parameters, ready to transform a graph."""
        return get_method(self.choice.method, **self.choice.params)


def auto(
    data: Data | DatasetSpec,
    *,
    model: str = "gcn",
    trials: int = 8,
    num_splits: int = 5,
    shortlist: int = 2,
    neighbours: int = 1,
    methods: Iterable[str] | None = None,
    profiles: Sequence[DatasetProfile] | None = None,
    store: ResultStore | None = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> tuple[Rewirer, AutoResult]:
    """Pick the rewiring for ``data`` (or none) by the process of the module docstring.

    Args:
        data: a labelled graph with features, or a dataset spec (a named dataset, a graph
            file, a cSBM); a ``Data`` is stored under a digest of its tensors.
        model: the GNN the rewiring is for (the profiles must hold cells of it).
        trials: Optuna trials for every candidate, ``none`` included.
        num_splits: selection splits (random 60/20/20; ids ``0 .. num_splits-1``).
        shortlist: how many methods the rule short-lists.
        neighbours: how many nearest leaderboard datasets vote.
        methods: consider only these methods (default: every registered one).
        profiles: the rule's leaderboard (default: :func:`load_profiles`).
        store: result store of the tuning rows and studies (default: a temporary one).
        seed: seed of the diagnosis' community detection and of the TPE sampler.

    Returns:
        The chosen :class:`~rewirekit.methods.base.Rewirer` with its parameters, and the
        :class:`AutoResult`.

    Raises:
        RewireError: without profiles of ``model``, for a graph the protocol cannot train, or
            one it cannot split (:func:`~rewirekit.bench.leaderboard.protocol_split`).
    """
    spec = data if isinstance(data, DatasetSpec) else data_spec(data)
    model = MODELS.canonical(model)
    if shortlist < 0 or trials < 1 or num_splits < 1:
        raise RewireError("auto needs shortlist >= 0, at least one trial and one split.")
    allowed = None if methods is None else [method_class(m).name for m in methods]
    usable = [
        p
        for p in (load_profiles() if profiles is None else profiles)
        if p.model == model and p.dataset != spec.key
    ]
    if not usable:
        raise RewireError(
            f"no leaderboard profiles of model {model!r} (other than {spec.key!r}); run "
            f"rewirekit leaderboard -m {model} and pass its rows."
        )
    try:
        split = protocol_split(spec.load(), spec.key, num_splits)
    except RewireError as err:
        raise RewireError(f"auto cannot choose on {spec.key!r}: {err}.") from None
    diagnosis, prepared = diagnose_dataset(spec, seed=seed, split_preset=split)
    rule = ShortlistRule(tuple(usable), neighbours=neighbours)
    features = diagnosis_features(diagnosis)
    runnable = [
        m for m in (allowed or list_methods()) if method_class(m).unmet_needs(prepared) is None
    ]
    picks = tuple(rule.rank(features, runnable)[:shortlist])
    if store is None:
        with tempfile.TemporaryDirectory() as scratch, ResultStore(Path(scratch) / "a.db") as db:
            tuned = _tune_all(spec, split, picks, model, trials, num_splits, db, seed, progress)
    else:
        tuned = _tune_all(spec, split, picks, model, trials, num_splits, store, seed, progress)
    candidates = [c for c in tuned if isinstance(c, Candidate)]
    choice = max(candidates, key=lambda c: c.val_acc)  # the first of equal values: none
    result = AutoResult(
        dataset=spec.key,
        model=model,
        diagnosis=diagnosis,
        split_preset=split,
        nearest=tuple((p.dataset, d) for p, d in rule.distances(features)),
        neighbours=neighbours,
        shortlist=picks,
        candidates=tuple(candidates),
        skipped=tuple(c for c in tuned if not isinstance(c, Candidate)),
        choice=choice,
        num_splits=num_splits,
        trials=trials,
    )
    return result.rewirer, result


def data_spec(data: Data) -> DatasetSpec:
    """A graph in memory as a dataset spec, stored under ``graph@<digest>`` of its
    ``edge_index``, ``x`` and ``y`` (so rows of another graph never mix with its rows)."""
    digest = hashlib.sha256()
    for name in ("edge_index", "x", "y"):
        value = data.get(name)
        if value is not None:
            digest.update(name.encode() + torch.as_tensor(value).cpu().numpy().tobytes())
    copy = data.clone()
    return DatasetSpec(f"graph@{digest.hexdigest()[:10]}", lambda: copy, USER_GRAPH)


def _tune_all(
    spec: DatasetSpec,
    split: str,
    picks: Sequence[Suggestion],
    model: str,
    trials: int,
    num_splits: int,
    store: ResultStore,
    seed: int,
    progress: Progress | None,
) -> list[Candidate | tuple[str, str]]:
    """Tune ``none`` and each pick; a pick the method refuses entirely comes back as
    ``(method, reason)``."""
    out: list[Candidate | tuple[str, str]] = []
    for method in [BASELINE, *(s.method for s in picks)]:
        try:
            result = tune(
                method,
                spec,
                store,
                trials=trials,
                model=model,
                split_preset=split,
                training_preset=TRAINING_PRESET,
                num_splits=num_splits,
                seeds=(0,),
                model_space=model_space(model),
                seed=seed,
                progress=progress,
            )
        except RewireError as err:
            if method == BASELINE or isinstance(err, (DatasetUnavailable, LeaseHeld)):
                raise
            out.append((method, str(err)))
            continue
        params, model_params = split_params(result.best.params)
        score = 100 * trial_value(result.best)
        out.append(Candidate(method, params, model_params, score, len(result.trials)))
    return out


# -- evaluation on held-back splits --------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation:
    """The choice against the tuned ``none`` on held-back splits, test accuracy in percent.

    Attributes:
        split_ids: the held-back splits (none of them used by selection).
        seeds: training seeds of each split.
        chosen, baseline: test accuracy of the choice and of ``none`` over the pairs.
        paired: the paired difference ``choice − none`` with its 95% bootstrap CI.
    """

    split_ids: tuple[int, ...]
    seeds: tuple[int, ...]
    chosen: Summary
    baseline: Summary
    paired: PairedComparison


def evaluate(
    data: Data | DatasetSpec,
    result: AutoResult,
    *,
    num_splits: int = 5,
    seeds: tuple[int, ...] = (0, 1),
    store: ResultStore | None = None,
    first_split: int | None = None,
) -> Evaluation:
    """Train the choice and the tuned ``none`` with their chosen parameters on the held-back
    splits ``first_split .. first_split + num_splits - 1`` and compare them, paired by
    (split, seed). ``first_split`` defaults to the first split after the selection splits
    (``result.num_splits``); it may not be earlier. With ``none`` chosen the difference is
    zero by construction."""
    spec = data if isinstance(data, DatasetSpec) else data_spec(data)
    if spec.key != result.dataset:
        raise RewireError(f"the result is for {result.dataset!r}, not {spec.key!r}.")
    if num_splits < 2:
        raise RewireError("a paired evaluation needs at least 2 held-back splits.")
    first = result.num_splits if first_split is None else first_split
    if first < result.num_splits:
        raise RewireError(
            f"held-back splits must come after the {result.num_splits} selection splits; "
            f"got first_split={first}."
        )
    held_back = tuple(range(first, first + num_splits))
    if store is None:
        with tempfile.TemporaryDirectory() as scratch, ResultStore(Path(scratch) / "e.db") as db:
            return _evaluate(spec, result, held_back, seeds, db)
    return _evaluate(spec, result, held_back, seeds, store)


def _evaluate(
    spec: DatasetSpec,
    result: AutoResult,
    held_back: tuple[int, ...],
    seeds: tuple[int, ...],
    store: ResultStore,
) -> Evaluation:
    accs = []
    for candidate in (result.choice, result.baseline):
        bench = BenchmarkSpec(
            datasets=[spec],
            methods=[MethodSpec(candidate.method, candidate.params)],
            models=[result.model],
            split_preset=result.split_preset,
            training_preset=candidate.training_preset,
            num_splits=len(held_back),
            first_split=held_back[0],
            seeds=seeds,
        )
        rows = {(r.key.split_id, r.key.seed): r.test_acc for r in run_benchmark(bench, store)}
        accs.append(np.array([100 * rows[s, seed] for s in held_back for seed in seeds]))
    chosen, baseline = accs
    return Evaluation(
        held_back,
        seeds,
        summarize(chosen),
        summarize(baseline),
        paired_comparison(chosen, baseline),
    )


# -- leave one dataset out ---------------------------------------------------------------------
def leave_one_dataset_out(
    records: Iterable[RunRecord],
    features: Mapping[str, Mapping[str, float]],
    model: str = "gcn",
) -> list[tuple[DatasetProfile, list[DatasetProfile]]]:
    """For each leaderboard dataset of ``model``: its profile, and the profiles the rule is
    fitted on when it is held out, built from the rows of the *other* datasets alone (the
    held-out dataset's rows are dropped before the leaderboard is computed)."""
    rows = [r for r in records if r.key.model == model]
    folds = []
    for held_out in profiles_from_leaderboard(rows, features):
        others = [r for r in rows if r.key.dataset != held_out.dataset]
        train = profiles_from_leaderboard(others, features)
        if any(p.dataset == held_out.dataset for p in train):
            raise AssertionError(f"fold {held_out.dataset!r} learns from its own rows")
        folds.append((held_out, train))
    return folds
