"""The self-training loop with BANGS, ST and M3S: determinism, what may be labelled, errors."""

import dataclasses

import pytest
import torch

from rewirekit.bench.training import train_node_classifier
from rewirekit.errors import RewireError
from rewirekit.selftrain import (
    BANGS,
    M3S,
    ConfidenceSelfTraining,
    get_self_trainer,
    list_self_trainers,
)

SMALL = {"top_k": 6, "candidates": 10, "samples_per_node": 20, "rounds": 2}
FAST_GATS = {"calibration_epochs": 20, "calibration_patience": 5}


def _accuracies(result):
    return [(r.round, r.test_acc, r.val_acc, r.num_pseudo_labelled) for r in result.rounds]


def _fit(method, graph, config, seed=7, **kwargs):
    data, train, val, test = graph
    return method.fit(data, train, val, test, "gcn", config, seed=seed, **kwargs)


def test_bangs_is_deterministic_under_a_seed(graph, config):
    first = _fit(BANGS(**SMALL, **FAST_GATS), graph, config)
    second = _fit(BANGS(**SMALL, **FAST_GATS), graph, config)
    assert torch.equal(first.pseudo_labels, second.pseudo_labels)
    assert _accuracies(first) == _accuracies(second)
    assert int((first.pseudo_labels >= 0).sum()) == 12  # two rounds of top_k = 6
    other = _fit(BANGS(**SMALL, **FAST_GATS), graph, config, seed=8)
    assert not torch.equal(first.pseudo_labels, other.pseudo_labels)


def test_default_mode_never_labels_validation_nodes(graph, config):
    data, train, val, _ = graph
    result = _fit(
        BANGS(top_k=10, candidates=20, samples_per_node=10, rounds=5, **FAST_GATS), graph, config
    )
    labelled = result.pseudo_labels >= 0
    assert not bool((labelled & val).any())
    assert not bool((labelled & train).any())
    # 60 nodes - 8 train - 12 val = 40 eligible: four rounds of 10 exhaust them, round 5 stops
    assert int(labelled.sum()) == 40 and len(result.rounds) == 5


def test_faithful_mode_labels_validation_nodes_from_the_first_teacher(graph, config):
    data, train, val, test = graph
    teacher = train_node_classifier(data, train, val, test, "gcn", config, seed=7, keep_logits=True)
    method = BANGS(
        top_k=13, candidates=26, samples_per_node=10, rounds=4, faithful=True, **FAST_GATS
    )
    result = _fit(method, graph, config, teacher=teacher)
    labelled = result.pseudo_labels >= 0
    assert int(labelled.sum()) == 52  # every non-training node, validation ones included
    assert bool((labelled & val).any())
    # never updated: every pseudo-label is the first teacher's (calibration keeps the argmax)
    assert torch.equal(result.pseudo_labels[labelled], teacher.logits.argmax(1)[labelled])
    assert result.rounds[0].test_acc == teacher.test_acc


def test_reported_round_has_the_best_validation_accuracy(graph, config):
    result = _fit(ConfidenceSelfTraining(top_k=5, rounds=3), graph, config)
    self_trained = result.rounds[1:]
    best = max(r.val_acc for r in self_trained)
    assert result.val_acc == best
    assert result.chosen_round == next(r.round for r in self_trained if r.val_acc == best)


def test_st_labels_the_most_confident_eligible_nodes(graph, config):
    data, train, val, test = graph
    teacher = train_node_classifier(data, train, val, test, "gcn", config, seed=7, keep_logits=True)
    result = _fit(ConfidenceSelfTraining(top_k=5, rounds=1), graph, config, teacher=teacher)
    confidence = teacher.logits.softmax(1).max(1).values
    confidence[train | val] = -1.0
    expected = torch.sort(confidence, descending=True, stable=True).indices[:5]
    assert sorted((result.pseudo_labels >= 0).nonzero().view(-1).tolist()) == sorted(
        expected.tolist()
    )


def test_m3s_keeps_only_confident_nodes_its_clusters_agree_with(graph, config):
    data, train, val, _ = graph
    result = _fit(M3S(rounds=2, threshold=0.6, clusters=6), graph, config)
    labelled = result.pseudo_labels >= 0
    assert 0 < int(labelled.sum()) < 52
    assert not bool((labelled & (train | val)).any())
    again = _fit(M3S(rounds=2, threshold=0.6, clusters=6), graph, config)
    assert torch.equal(result.pseudo_labels, again.pseudo_labels)


def test_bad_input_is_refused(graph, config):
    data, train, val, test = graph
    with pytest.raises(RewireError, match="above the number of candidates"):
        BANGS(top_k=100, candidates=50)
    with pytest.raises(RewireError, match="unknown calibration"):
        BANGS(calibration="platt")
    with pytest.raises(RewireError, match="top_k must be a positive integer"):
        ConfidenceSelfTraining(top_k=0)
    with pytest.raises(RewireError, match="needs labelled nodes"):
        BANGS(**SMALL).fit(data, torch.zeros_like(train), val, test, "gcn", config, seed=0)
    with pytest.raises(RewireError, match="unknown self-training method 'dr-gst'"):
        get_self_trainer("dr-gst")
    with pytest.raises(RewireError, match="bad parameters"):
        get_self_trainer("st", budget=3)
    assert list_self_trainers() == ["bangs", "st", "m3s"]
    assert isinstance(get_self_trainer("BANGS", top_k=5), BANGS)


def test_each_student_fits_true_labels_on_training_nodes_and_pseudo_labels_on_picks(
    graph, config, monkeypatch
):
    """What every retraining sees: the training and pseudo-labelled nodes as its training
    mask, the true class on training nodes and the teacher's class on picked nodes, and the
    validation and test masks unchanged (a misaligned index or mask fails here)."""
    from rewirekit.selftrain import loop

    data, train, val, test = graph
    calls = []

    def recording(data_, train_mask, val_mask, test_mask, *args, **kwargs):
        calls.append((train_mask.clone(), val_mask, test_mask, kwargs.get("train_labels")))
        return train_node_classifier(data_, train_mask, val_mask, test_mask, *args, **kwargs)

    teacher = train_node_classifier(data, train, val, test, "gcn", config, seed=7, keep_logits=True)
    # a teacher whose classes are shifted by one: its pseudo-labels are wrong, so a student
    # given the true labels of the picked nodes is told apart from one given pseudo-labels
    teacher = dataclasses.replace(teacher, logits=teacher.logits.roll(1, dims=1))
    monkeypatch.setattr(loop, "train_node_classifier", recording)
    result = _fit(ConfidenceSelfTraining(top_k=5, rounds=2), graph, config, teacher=teacher)
    assert len(calls) == 2
    first_picks = teacher.logits.softmax(1).max(1).values.masked_fill(train | val, -1.0)
    first_picks = torch.sort(first_picks, descending=True, stable=True).indices[:5]
    picked = result.pseudo_labels >= 0
    assert torch.equal(calls[0][0], train | _mask(first_picks, train))
    assert torch.equal(calls[1][0], train | picked)
    for train_mask, val_mask, test_mask, labels in calls:
        assert val_mask is val and test_mask is test
        assert torch.equal(labels[train], data.y[train])
        extra = train_mask & ~train
        assert torch.equal(labels[extra], result.pseudo_labels[extra])
        assert not torch.equal(labels[extra], data.y[extra])
    assert torch.equal(result.pseudo_labels[first_picks], teacher.logits.argmax(1)[first_picks])


def _mask(index, like):
    mask = torch.zeros_like(like)
    mask[index] = True
    return mask


def test_a_checkpointed_run_resumed_to_more_rounds_equals_one_uninterrupted_run(
    graph, config, tmp_path
):
    params = {**SMALL, **FAST_GATS, "rounds": 3}
    whole = _fit(BANGS(**params), graph, config)
    path = tmp_path / "bangs.pt"
    first = _fit(BANGS(**{**params, "rounds": 1}), graph, config, checkpoint=path)
    assert [r.round for r in first.rounds] == [0, 1]
    resumed = _fit(BANGS(**params), graph, config, checkpoint=path)
    assert torch.equal(resumed.pseudo_labels, whole.pseudo_labels)
    assert _accuracies(resumed) == _accuracies(whole)
    assert resumed.chosen_round == whole.chosen_round
    again = _fit(BANGS(**params), graph, config, checkpoint=path)  # nothing left to run
    assert _accuracies(again) == _accuracies(whole)
    with pytest.raises(RewireError, match="another run"):
        _fit(BANGS(**params), graph, config, seed=8, checkpoint=path)
    with pytest.raises(RewireError, match="another run"):
        _fit(BANGS(**{**params, "top_k": 5}), graph, config, checkpoint=path)
