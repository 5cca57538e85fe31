import math

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from rewirekit import RewireError
from rewirekit.bench.presets import get_training_preset, model_space
from rewirekit.bench.runner import DatasetSpec
from rewirekit.bench.store import ResultStore
from rewirekit.bench.tuning import REJECTED, REPEAT_OF, to_optuna, tune, tuning_space
from rewirekit.datasets import csbm
from rewirekit.methods import FeaSt, RandomRewirer
from rewirekit.search_space import COMFY_BUDGETS, Choice, space_size

DATASET = DatasetSpec("csbm-tune", lambda: csbm(150, 30, phi=0.5, seed=3), "csbm")
OPTIONS = dict(model="gcn", split_preset="dense", training_preset="comfy", num_splits=2)
#: A 2 x 2 grid for "random": small enough to exhaust in a test.
SMALL = {"add": Choice((0, 10)), "delete": Choice((0, 5))}


def _complete(study: optuna.Study) -> list:
    return study.get_trials(states=(TrialState.COMPLETE,))


def _params(trials) -> list[tuple]:
    return [tuple(sorted(t.params.items())) for t in trials]


@pytest.fixture
def small_space(monkeypatch):
    monkeypatch.setattr(RandomRewirer, "search_space", SMALL)


def test_trials_go_to_the_store_and_the_search_resumes(tmp_path):
    with ResultStore(tmp_path / "t.db") as store:
        result = tune("random", DATASET, store, trials=2, **OPTIONS)
        assert len(result.trials) == 2 and len(store) == 4  # two splits per parameter set
        # A killed process leaves a RUNNING trial behind: it is queued again on resume.
        interrupted = result.study.ask(to_optuna(tuning_space("random")))
        resumed = tune("random", DATASET, store, trials=4, **OPTIONS)
    assert len(resumed.trials) == 4 and _params(resumed.trials)[:2] == _params(result.trials)
    assert interrupted.params in [t.params for t in resumed.trials]
    assert not resumed.study.get_trials(states=(TrialState.RUNNING,))
    assert all(0 <= t.value <= 1 for t in resumed.trials)
    assert all("test_acc" not in t.user_attrs for t in resumed.study.trials)


def test_no_parameter_set_is_evaluated_twice_and_a_small_space_runs_out(tmp_path, small_space):
    with ResultStore(tmp_path / "t.db") as store:
        result = tune("random", DATASET, store, trials=6, **OPTIONS)
        assert len(store) == 4 * 2  # four parameter sets, two splits each
        again = tune("random", DATASET, store, trials=6, **OPTIONS)  # resumed: nothing to do
    assert space_size(SMALL) == 4 and result.exhausted
    assert (
        "the search space is exhausted: all 4 parameter sets are tried, so 4 of the 6"
        in (result.notes[-1])
    )
    evaluated = _params(result.trials)
    assert len(evaluated) == 4 and len(set(evaluated)) == 4
    assert result.repeats == sum(REPEAT_OF in t.user_attrs for t in result.study.trials)
    assert len(result.study.trials) == 4 + result.repeats
    assert len(again.study.trials) == len(result.study.trials)
    assert _params(again.trials) == evaluated


def test_a_repeated_proposal_reuses_the_stored_value_and_is_not_counted(tmp_path, small_space):
    with ResultStore(tmp_path / "t.db") as store:
        first = tune("random", DATASET, store, trials=1, **OPTIONS)
        first.study.enqueue_trial(first.trials[0].params)  # the sampler proposes it again
        result = tune("random", DATASET, store, trials=2, **OPTIONS)
    repeat = result.study.trials[1]
    assert repeat.user_attrs[REPEAT_OF] == 0 and repeat.params == first.trials[0].params
    assert repeat.value == first.trials[0].value
    assert len(result.trials) == 2 and result.repeats == 1
    assert result.notes == [
        "1 proposal repeated an evaluated parameter set: the stored value was reused and the "
        "trial not counted."
    ]
    assert len(set(_params(result.trials))) == 2


def test_the_chosen_trial_is_the_best_on_validation_and_its_test_is_from_the_store(tmp_path):
    with ResultStore(tmp_path / "t.db") as store:
        result = tune("random", DATASET, store, trials=3, **OPTIONS)
        rows = [
            r
            for r in store.records(dataset=DATASET.key)
            if r.params == result.best.params and r.key.method == "random"
        ]
    assert result.best.value == max(t.value for t in result.trials)
    assert result.best is min(
        (t for t in result.trials if t.value == result.best.value), key=lambda t: t.number
    )
    assert len(rows) == 2 and result.test_acc == pytest.approx(np.mean([r.test_acc for r in rows]))


def test_refused_parameter_sets_are_not_counted_nor_retried(tmp_path, monkeypatch):
    space = {"delete": Choice((10, 10**7))}  # 10**7: more than the edges
    monkeypatch.setattr(RandomRewirer, "search_space", space)
    with ResultStore(tmp_path / "t.db") as store:
        result = tune("random", DATASET, store, trials=3, **OPTIONS)
    assert [t.params for t in result.trials] == [{"delete": 10}]
    assert result.rejected == 1 and result.exhausted
    assert result.notes[0] == "1 parameter set refused by the method."
    refused = [t for t in result.study.trials if REJECTED in t.user_attrs]
    assert len(refused) == 1 and refused[0].state == TrialState.FAIL


def test_a_continuous_space_is_infinite():
    assert math.isinf(space_size(tuning_space("jdr")))
    assert space_size(FeaSt.search_space) == len(COMFY_BUDGETS.values) ** 2


def test_unknown_method_has_no_search_space(tmp_path):
    with ResultStore(tmp_path / "t.db") as store, pytest.raises(RewireError, match="search"):
        tune("none", DATASET, store, trials=1, **OPTIONS)


def test_the_model_space_is_tuned_with_the_method_and_stored_apart(tmp_path):
    space = {"lr": Choice((0.01, 0.05)), "hidden": Choice((16,))}
    fair = dict(OPTIONS, training_preset="fair", seeds=(0, 1))
    with ResultStore(tmp_path / "t.db") as store:
        result = tune("none", DATASET, store, trials=2, model_space=space, **fair)
        rows = list(store.records())
    assert len(result.trials) == 2 and result.exhausted  # the 2 x 1 grid of the model
    presets = {r.key.training_preset for r in rows}
    assert presets == {'fair{"hidden":16,"lr":0.01}', 'fair{"hidden":16,"lr":0.05}'}
    assert len({(r.key.split_id, r.key.seed) for r in rows}) == 4  # 2 splits x 2 seeds
    config = get_training_preset('fair{"hidden":16,"lr":0.05}').config("texas", "gcn")
    assert (config.lr, config.hidden, config.early_stopping) == (0.05, 16, "digl")


def test_gprgnn_tunes_its_teleport_on_top_of_the_training_space():
    assert set(model_space("gprgnn")) == set(model_space("gcn")) | {"alpha"}
    config = get_training_preset('fair{"alpha":0.9}').config("texas", "gprgnn")
    assert config.model_params["alpha"] == 0.9
    with pytest.raises(RewireError, match="no setting"):
        get_training_preset('fair{"alpha":0.9}').config("texas", "gcn")
