import optuna
import pytest
from optuna.trial import TrialState

from rewirekit import RewireError
from rewirekit.bench.runner import DatasetSpec
from rewirekit.bench.store import ResultStore
from rewirekit.bench.tuning import tune
from rewirekit.datasets import csbm

DATASET = DatasetSpec("csbm-tune", lambda: csbm(150, 30, phi=0.5, seed=3), "csbm")
OPTIONS = dict(model="gcn", split_preset="dense", training_preset="comfy", num_splits=2)


def _complete(study: optuna.Study) -> list:
    return study.get_trials(states=(TrialState.COMPLETE,))


def test_trials_go_to_the_store_and_the_search_resumes(tmp_path):
    with ResultStore(tmp_path / "t.db") as store:
        study = tune("random", DATASET, store, trials=2, **OPTIONS)
        assert len(_complete(study)) == 2
        rows = len(store)
        assert rows >= 2 and rows % 2 == 0  # two splits per distinct parameter setting
        # A killed process leaves a RUNNING trial behind: it is queued again on resume.
        grid = optuna.distributions.CategoricalDistribution([0, 10, 50, 100, 500, 1000])
        study.ask({"add": grid, "delete": grid})
        resumed = tune("random", DATASET, store, trials=4, **OPTIONS)
    assert len(_complete(resumed)) == 4
    assert not resumed.get_trials(states=(TrialState.RUNNING,))
    assert all(0 <= t.value <= 1 and "test_acc" in t.user_attrs for t in _complete(resumed))


def test_unknown_method_has_no_search_space(tmp_path):
    with ResultStore(tmp_path / "t.db") as store, pytest.raises(RewireError, match="search"):
        tune("none", DATASET, store, trials=1, **OPTIONS)
