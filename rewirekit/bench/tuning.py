"""Hyperparameter search for rewiring methods with Optuna, on validation accuracy.

Each evaluation benchmarks one parameter set over the first ``num_splits`` splits; its rows go
to the result store like any benchmark row, and the Optuna study lives in the same database
(Optuna's RDB storage on the store's URL: the same SQLite file, or the same PostgreSQL
database, see :func:`study_storage`). With a Ray backend each evaluation runs as a Ray task;
the trials of one study still run one after another (each proposal of the sampler depends on
every earlier result), so a leaderboard, whose cells are studies of their own, is what runs
side by side on a cluster. Selection sees validation accuracy only: the test accuracy of the
chosen parameter set is read from the store once the search is over
(:attr:`TuningResult.test_acc`).

No parameter set is evaluated twice. When the sampler (TPE) proposes a set the study has
already evaluated, or one the method refused, the proposal is told the stored outcome, marked
with the user attribute ``repeat_of`` (the number of the trial that evaluated it) and not
counted; in a finite search space the next trial then evaluates a set drawn at random from
those not yet tried, so a small grid is covered instead of resampled. The search stops at
``trials`` distinct evaluations, or earlier when a finite space has no untried set left.

A killed search resumes: the study is reloaded, a trial that was running is queued again
(its finished splits come back from the store) and the search continues until the study has
the requested number of distinct evaluations. One process searches a study at a time: the
search holds a lease on it in the store (:mod:`rewirekit.bench.leases`), and a second process
reaching a study in use stops with :class:`~rewirekit.bench.leases.LeaseHeld` instead of
corrupting it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import optuna
import sqlalchemy
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.trial import FrozenTrial, TrialState

from rewirekit.bench.backends import Backend, run_benchmarks
from rewirekit.bench.presets import tuned_preset_name
from rewirekit.bench.runner import (
    BenchmarkSpec,
    DatasetSpec,
    MethodSpec,
    Progress,
    training_label,
)
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.datasets import DatasetUnavailable
from rewirekit.errors import RewireError
from rewirekit.methods import list_methods, method_class
from rewirekit.search_space import Choice, Dimension, IntRange, SearchSpace, space_size

#: User attribute of a proposal that repeated an earlier trial's parameters (its number).
REPEAT_OF = "repeat_of"
#: User attribute of a trial whose parameters the method refused (the error message).
REJECTED = "rejected"
#: Prefix of the model's training hyperparameters among a trial's parameters.
MODEL_PREFIX = "model."


def to_optuna(space: SearchSpace) -> dict[str, BaseDistribution]:
    """The Optuna distribution of each dimension of ``space``."""
    return {name: _distribution(dim) for name, dim in space.items()}


def _distribution(dim: Dimension) -> BaseDistribution:
    if isinstance(dim, Choice):
        return CategoricalDistribution(dim.values)
    if isinstance(dim, IntRange):
        return IntDistribution(dim.low, dim.high, log=dim.log)
    return FloatDistribution(dim.low, dim.high, log=dim.log)


def tuning_space(method: str, model_space: SearchSpace | None = None) -> SearchSpace:
    """What a search over ``method`` samples: its declared
    :attr:`~rewirekit.methods.base.Rewirer.search_space`, plus ``model_space`` with each
    name prefixed by :data:`MODEL_PREFIX`."""
    space = dict(method_class(method).search_space)
    space.update({MODEL_PREFIX + name: dim for name, dim in (model_space or {}).items()})
    return space


def split_params(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A trial's parameters as ``(method parameters, model training hyperparameters)``."""
    method = {k: v for k, v in params.items() if not k.startswith(MODEL_PREFIX)}
    model = {k.removeprefix(MODEL_PREFIX): v for k, v in params.items() if k not in method}
    return method, model


@dataclass(frozen=True)
class TuningResult:
    """What a search found.

    Attributes:
        study: the Optuna study (all its trials, repeats and refusals included).
        trials: the distinct evaluated parameter sets, one trial each, in trial order; a
            trial's ``value`` is its mean validation accuracy over the splits.
        best: the trial chosen by validation accuracy (ties: the earliest).
        test_acc: mean test accuracy of ``best`` over the same splits, the only test figure.
        repeats: proposals that repeated an earlier trial and reused its outcome.
        rejected: parameter sets the method refused (``RewireError``), never counted.
        space_size: number of distinct parameter sets in the search space (``inf`` if any
            parameter is continuous).
        requested: the number of distinct evaluations asked for.
    """

    study: optuna.Study
    trials: list[FrozenTrial]
    best: FrozenTrial
    test_acc: float
    repeats: int
    rejected: int
    space_size: float
    requested: int

    @property
    def exhausted(self) -> bool:
        """Whether every parameter set of a finite space has been tried."""
        return len(self.trials) + self.rejected >= self.space_size

    @property
    def notes(self) -> list[str]:
        """What the search did besides evaluating, one sentence each: repeats reused, sets
        refused, and why fewer than ``requested`` sets were evaluated."""
        notes = []
        if self.repeats:
            notes.append(
                f"{_count(self.repeats, 'proposal')} repeated an evaluated parameter set: "
                "the stored value was reused and the trial not counted."
            )
        if self.rejected:
            notes.append(f"{_count(self.rejected, 'parameter set')} refused by the method.")
        evaluated = len(self.trials)
        if evaluated < self.requested and self.exhausted:
            notes.append(
                f"the search space is exhausted: all {int(self.space_size)} parameter sets "
                f"are tried, so {evaluated} of the {self.requested} requested trials were "
                "evaluated."
            )
        elif evaluated < self.requested:
            notes.append(
                f"only {evaluated} of the {self.requested} requested trials were evaluated: "
                "the method refused too many parameter sets; run again to continue."
            )
        return notes


def tune(
    method: str,
    dataset: DatasetSpec,
    store: ResultStore,
    *,
    trials: int,
    model: str,
    split_preset: str,
    training_preset: str,
    num_splits: int,
    seeds: tuple[int, ...] = (0,),
    model_space: SearchSpace | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    backend: Backend | None = None,
    selftrain: MethodSpec | None = None,
) -> TuningResult:
    """Run (or resume) an Optuna search until ``trials`` distinct parameter sets are evaluated.

    The search space is the method's :attr:`~rewirekit.methods.base.Rewirer.search_space`,
    plus, with ``model_space``, the model's training hyperparameters (see
    :func:`tuning_space`; they replace the training preset's values through
    :func:`~rewirekit.bench.presets.tuned_preset_name`, so their rows are stored apart).

    The objective is the mean validation accuracy over splits ``0 .. num_splits-1`` and the
    training ``seeds``; each evaluation runs in this process or on ``backend``, and is
    self-trained by ``selftrain`` after the rewiring when given (a study of its own). Fewer
    than ``trials`` sets are evaluated when a finite space runs out
    (:attr:`TuningResult.exhausted`) or when the method refuses ``3 * trials`` proposals in
    one call. Parameter sets the method refuses (``RewireError``) fail their trial, not the
    search.

    Raises:
        RewireError: for a method without a search space, fewer than one trial or split, or
            when no parameter set could be evaluated.
        LeaseHeld: when another live process is searching the same study (or took it over
            after this one stalled past the lease's lapse).
    """
    space = tuning_space(method, model_space)
    if not space:
        tunable = [m for m in list_methods() if method_class(m).search_space]
        raise RewireError(
            f"no search space for method {method!r} (and no model space given); tunable "
            f"methods: {', '.join(tunable)}."
        )
    if trials < 1 or num_splits < 1 or not seeds:
        raise RewireError("tuning needs at least one trial, one split and one seed.")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    training = training_label(training_preset, selftrain)
    name = f"{method}|{dataset.key}|{split_preset}|{training}|{model}|{num_splits}"
    if model_space or seeds != (0,):
        name += f"|model={sorted(model_space or {})}|seeds={list(seeds)}"

    def evaluate(params: dict[str, Any]) -> list[RunRecord]:
        method_params, model_params = split_params(params)
        spec = BenchmarkSpec(
            datasets=[dataset],
            methods=[MethodSpec(method, method_params)],
            models=[model],
            split_preset=split_preset,
            training_preset=tuned_preset_name(training_preset, model_params),
            num_splits=num_splits,
            seeds=seeds,
            selftrain=selftrain,
        )
        return run_benchmarks([spec], store, backend=backend)

    with store.lease(f"optuna study {name}") as lease:
        storage = study_storage(store)
        study = optuna.create_study(
            study_name=name,
            storage=storage,
            direction="maximize",
            sampler=optuna.samplers.TPESampler(seed=seed),
            load_if_exists=True,
        )
        _requeue_interrupted(study, storage)
        distributions = to_optuna(space)

        tried = {_key(t.params): t for t in _outcomes(study)}  # evaluated or refused
        evaluated = sum(t.state == TrialState.COMPLETE for t in tried.values())
        if progress is not None:
            progress.start(trials)
            for _ in range(min(evaluated, trials)):
                progress.advance("stored trial")
        refused_now = 0
        while evaluated < trials and len(tried) < space_size(space) and refused_now < 3 * trials:
            trial = study.ask(distributions)
            earlier = tried.get(_key(trial.params))
            if earlier is not None:
                _tell_repeat(study, trial, earlier)
                _enqueue_untried(study, distributions, space, tried, seed=(seed, trial.number))
                continue
            try:
                records = evaluate(trial.params)
            except DatasetUnavailable:
                raise
            except RewireError as err:
                lease.check()
                trial.set_user_attr(REJECTED, str(err))
                tried[_key(trial.params)] = study.tell(trial, state=TrialState.FAIL)
                refused_now += 1
                continue
            lease.check()  # an evaluation takes minutes: tell nothing once the lease is gone
            value = float(np.mean([r.val_acc for r in records]))
            tried[_key(trial.params)] = study.tell(trial, value)
            evaluated += 1
            if progress is not None:
                progress.advance(f"trial {trial.number}")
    done = [t for t in tried.values() if t.state == TrialState.COMPLETE]
    if not done:
        refusals = [t.user_attrs[REJECTED] for t in tried.values()]
        last = f" The last refusal: {refusals[-1]}" if refusals else ""
        raise RewireError(
            f"no parameter set of {method!r} could be evaluated on {dataset.key!r}.{last}"
        )
    done.sort(key=lambda t: t.number)
    best = max(done, key=trial_value)  # max keeps the first of equal values
    all_trials = study.get_trials(deepcopy=False)
    return TuningResult(
        study=study,
        trials=done,
        best=best,
        test_acc=float(np.mean([r.test_acc for r in evaluate(best.params)])),
        repeats=sum(REPEAT_OF in t.user_attrs for t in all_trials),
        rejected=len(tried) - len(done),
        space_size=space_size(space),
        requested=trials,
    )


def study_storage(store: ResultStore) -> optuna.storages.RDBStorage:
    """Optuna's RDB storage in the store's own database (its tables beside ``results``).
    SQLite waits up to 30 s for another writer's lock, as the store does; on PostgreSQL a
    connection lasts one storage call (no pool), so studies left behind in a long-lived Ray
    worker hold no connections."""
    kwargs: dict[str, Any] = {"connect_args": {"timeout": 30.0}}
    if store.dialect != "sqlite":
        kwargs = {"poolclass": sqlalchemy.pool.NullPool}
    return optuna.storages.RDBStorage(store.url, engine_kwargs=kwargs)


def trial_value(trial: FrozenTrial) -> float:
    """The objective value of a complete trial: its mean validation accuracy."""
    if trial.value is None:
        raise RewireError(f"trial {trial.number} has no value; it is {trial.state.name}.")
    return trial.value


def _outcomes(study: optuna.Study) -> Iterator[FrozenTrial]:
    """Trials that evaluated their parameters or had them refused (not repeats, and not
    trials of a killed process, which failed without a refusal)."""
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.FAIL)):
        refused = t.state == TrialState.FAIL and REJECTED in t.user_attrs
        if REPEAT_OF not in t.user_attrs and (t.state == TrialState.COMPLETE or refused):
            yield t


def _tell_repeat(study: optuna.Study, trial: optuna.Trial, earlier: FrozenTrial) -> None:
    """Close a proposal that repeats ``earlier`` with ``earlier``'s outcome, marked."""
    trial.set_user_attr(REPEAT_OF, earlier.number)
    if earlier.state == TrialState.COMPLETE:
        study.tell(trial, earlier.value)
    else:
        study.tell(trial, state=TrialState.FAIL)


def _enqueue_untried(
    study: optuna.Study,
    distributions: dict[str, BaseDistribution],
    space: SearchSpace,
    tried: dict[tuple[Hashable, ...], FrozenTrial],
    seed: tuple[int, int],
) -> None:
    """In a finite space, queue one parameter set not tried yet, drawn uniformly (seeded)."""
    if math.isinf(space_size(space)):
        return
    grid = itertools.product(
        *([(name, v) for v in _values(d)] for name, d in distributions.items())
    )
    untried = [dict(point) for point in grid if _key(dict(point)) not in tried]
    if untried:
        study.enqueue_trial(untried[np.random.default_rng(seed).integers(len(untried))])


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _key(params: dict[str, Any]) -> tuple[Hashable, ...]:
    return tuple(sorted(params.items()))


def _values(distribution: BaseDistribution) -> list[Any]:
    """All values of a discrete distribution (a log-scaled integer one has step 1)."""
    if isinstance(distribution, CategoricalDistribution):
        return list(distribution.choices)
    if isinstance(distribution, IntDistribution):
        return list(range(distribution.low, distribution.high + 1, distribution.step))
    raise RewireError(f"{distribution!r} has no finite list of values.")


def _requeue_interrupted(study: optuna.Study, storage: optuna.storages.BaseStorage) -> None:
    """Trials left RUNNING by a killed process are marked failed and queued again (the
    caller holds the study's lease, so no live process is running them)."""
    study_id = storage.get_study_id_from_name(study.study_name)
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        trial_id = storage.get_trial_id_from_study_id_trial_number(study_id, trial.number)
        storage.set_trial_state_values(trial_id, TrialState.FAIL)
        study.enqueue_trial(trial.params)
