"""Hyperparameter search for rewiring methods with Optuna, on validation accuracy.

Each trial benchmarks one parameter setting over the first ``num_splits`` splits; its rows go
to the result store like any benchmark row, and the Optuna study lives in the same SQLite
file. A killed search resumes: the study is reloaded, a trial that was running is queued
again (its finished splits come back from the store) and the search continues until the
study has the requested number of complete trials.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import optuna
from optuna.trial import TrialState

from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, Progress, run_benchmark
from rewirekit.bench.store import ResultStore
from rewirekit.errors import RewireError

SearchSpace = Callable[[optuna.Trial], dict[str, Any]]


def _jdr_space(trial: optuna.Trial) -> dict[str, Any]:
    """The JDR paper's search space (Linkerhägner et al., ICLR 2025, appendix): K ∈ [1, 30],
    L_A, L_X ∈ [1, 100], η_A, η_X1 ∈ (0, 0.5), η_X2 ∈ (0, 1), ordering by λ or |λ|."""
    return {
        "num_iterations": trial.suggest_int("num_iterations", 1, 30),
        "rank_a": trial.suggest_int("rank_a", 1, 100),
        "rank_x": trial.suggest_int("rank_x", 1, 100),
        "eta_a": trial.suggest_float("eta_a", 0.0, 0.5),
        "eta_x1": trial.suggest_float("eta_x1", 0.0, 0.5),
        "eta_x2": trial.suggest_float("eta_x2", 0.0, 1.0),
        "abs_ordering": trial.suggest_categorical("abs_ordering", [False, True]),
    }


def _budget_space(*budgets: str) -> SearchSpace:
    """Edge budgets from the ComFy paper's grid {0, 10, 50, 100, 500, 1000}."""

    def space(trial: optuna.Trial) -> dict[str, Any]:
        return {b: trial.suggest_categorical(b, [0, 10, 50, 100, 500, 1000]) for b in budgets}

    return space


SEARCH_SPACES: dict[str, SearchSpace] = {
    "jdr": _jdr_space,
    "random": _budget_space("add", "delete"),
    "feast": _budget_space("add", "delete"),
    "comfy": _budget_space("add", "delete"),
}


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
    seed: int = 0,
    progress: Progress | None = None,
) -> optuna.Study:
    """Run (or resume) an Optuna search until the study has ``trials`` complete trials.

    The objective is the mean validation accuracy over splits ``0 .. num_splits-1``; each
    trial's mean test accuracy is kept as the user attribute ``test_acc``. Parameter
    settings that the method rejects (``RewireError``) fail the trial, not the search.
    """
    if method not in SEARCH_SPACES:
        raise RewireError(
            f"no search space for method {method!r}; tunable methods: "
            f"{', '.join(sorted(SEARCH_SPACES))}."
        )
    if trials < 1 or num_splits < 1:
        raise RewireError("tuning needs at least one trial and one split.")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    name = f"{method}|{dataset.key}|{split_preset}|{training_preset}|{model}|{num_splits}"
    storage = optuna.storages.RDBStorage(f"sqlite:///{store.path}")
    study = optuna.create_study(
        study_name=name,
        storage=storage,
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=seed),
        load_if_exists=True,
    )
    _requeue_interrupted(study, storage)
    space = SEARCH_SPACES[method]

    def objective(trial: optuna.Trial) -> float:
        spec = BenchmarkSpec(
            datasets=[dataset],
            methods=[MethodSpec(method, space(trial))],
            models=[model],
            split_preset=split_preset,
            training_preset=training_preset,
            num_splits=num_splits,
        )
        records = run_benchmark(spec, store)
        trial.set_user_attr("test_acc", float(np.mean([r.test_acc for r in records])))
        if progress is not None:
            progress.advance(f"trial {trial.number}")
        return float(np.mean([r.val_acc for r in records]))

    def complete() -> int:
        return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))

    if progress is not None:
        progress.start(trials)
        for _ in range(min(complete(), trials)):
            progress.advance("stored trial")
    attempts = 0  # rejected settings fail their trial; give up after 3x the trial count
    while complete() < trials and attempts < 3 * trials:
        missing = trials - complete()
        attempts += missing
        study.optimize(objective, n_trials=missing, catch=(RewireError,))
    return study


def _requeue_interrupted(study: optuna.Study, storage: optuna.storages.BaseStorage) -> None:
    """Trials left RUNNING by a killed process are marked failed and queued again.

    (One search process per study: a trial another live process is running would be
    queued twice.)
    """
    study_id = storage.get_study_id_from_name(study.study_name)
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        trial_id = storage.get_trial_id_from_study_id_trial_number(study_id, trial.number)
        storage.set_trial_state_values(trial_id, TrialState.FAIL)
        study.enqueue_trial(trial.params, skip_if_exists=True)
