"""rewirekit auto: the rule learned from leaderboard rows, leave-one-dataset-out folds that
never see the held-out rows, selection blind to test accuracy, held-back evaluation."""

import sqlite3
from dataclasses import replace

import numpy as np
import pytest
import torch

import rewirekit
from rewirekit import RewireError
from rewirekit.bench.auto import (
    FEATURES,
    PROFILES_FILE,
    DatasetProfile,
    ShortlistRule,
    auto,
    diagnose_dataset,
    diagnosis_features,
    evaluate,
    leave_one_dataset_out,
    load_profiles,
    profiles_from_leaderboard,
    profiles_from_records,
    save_profiles,
)
from rewirekit.bench.leaderboard import Protocol
from rewirekit.bench.presets import tuned_preset_name
from rewirekit.bench.runner import DatasetSpec
from rewirekit.bench.store import ResultStore, RunKey, RunRecord, params_hash
from rewirekit.datasets import csbm_key
from rewirekit.diagnostics import diagnose

PROTOCOL = Protocol(trials=1, num_splits=3, seeds=(0, 1))
BASE = [0.60, 0.62, 0.58]


def _cell(dataset, method, shift, params=None):
    """Rows of one trial of ``method`` on every split and seed, test accuracy BASE + shift."""
    params = params or {}
    preset = tuned_preset_name("fair", {"lr": 0.01})
    return [
        RunRecord(
            RunKey(dataset, "dense", s, method, params_hash(params), "gcn", preset, seed),
            params,
            BASE[s] + shift,
            0.5,
            0.1,
            1.0,
            10,
            {},
        )
        for s in range(PROTOCOL.num_splits)
        for seed in PROTOCOL.seeds
    ]


def _features(homophily):
    return {name: homophily if name == "masked_edge_homophily" else 0.5 for name in FEATURES}


def _leaderboard_rows():
    """Three datasets: on the heterophilous 'het' m1 wins, on the homophilous 'hom' m2, on
    'mid' both lose a little."""
    rows = []
    gains = {"het": (0.08, -0.02), "hom": (-0.03, 0.05), "mid": (-0.01, -0.01)}
    for dataset, (g1, g2) in gains.items():
        rows += _cell(dataset, "none", 0.0)
        rows += _cell(dataset, "m1", g1, {"add": 1})
        rows += _cell(dataset, "m2", g2, {"add": 2})
    features = {"het": _features(0.1), "hom": _features(0.9), "mid": _features(0.5)}
    return rows, features


def test_the_rule_learned_from_rows_picks_what_won_on_the_nearest_dataset():
    rows, features = _leaderboard_rows()
    profiles = profiles_from_leaderboard(rows, features)
    assert [p.dataset for p in profiles] == ["het", "hom", "mid"]
    assert profiles[0].gains == pytest.approx({"m1": 8.0, "m2": -2.0})  # points, paired
    rule = ShortlistRule(tuple(profiles))
    near_het = rule.rank(_features(0.2))
    assert [s.method for s in near_het] == ["m1", "m2"]
    assert near_het[0].evidence[0][0] == "het" and near_het[0].predicted_gain == pytest.approx(8)
    assert [s.method for s in rule.rank(_features(0.85))] == ["m2", "m1"]
    assert [s.method for s in rule.rank(_features(0.85), methods=["m1"])] == ["m1"]
    # two neighbours average their gains: het (0.2 away) and mid (0.2 away) for h = 0.3
    both = ShortlistRule(tuple(profiles), neighbours=2).rank(_features(0.3))
    assert both[0].method == "m1" and both[0].predicted_gain == pytest.approx((8 - 1) / 2)


def test_features_constant_over_the_profiles_do_not_count():
    rows, features = _leaderboard_rows()
    rule = ShortlistRule(tuple(profiles_from_leaderboard(rows, features)))
    assert list(rule.scale()) == ["masked_edge_homophily"]
    query = {**_features(0.9), "spectral_gap": 100.0, "label_nmi": float("nan")}
    assert rule.distances(query)[0][0].dataset == "hom"


def test_leave_one_dataset_out_never_learns_from_the_held_out_rows():
    rows, features = _leaderboard_rows()
    folds = leave_one_dataset_out(rows, features)
    assert [held.dataset for held, _ in folds] == ["het", "hom", "mid"]
    for held, train in folds:
        assert held.dataset not in {p.dataset for p in train} and len(train) == 2
    # poison every row of 'het': its own profile changes, the profiles its fold learns from
    # do not
    poisoned = [
        replace(r, test_acc=1.0 - r.test_acc) if r.key.dataset == "het" else r for r in rows
    ]
    again = leave_one_dataset_out(poisoned, features)
    assert again[0][0].gains != folds[0][0].gains
    assert again[0][1] == folds[0][1]


def test_the_shipped_profiles_cover_the_committed_leaderboard():
    profiles = load_profiles(PROFILES_FILE)
    assert {p.dataset for p in profiles} >= {"texas", "cornell", "wisconsin"}
    assert all(set(p.features) == set(FEATURES) and p.model == "gcn" for p in profiles)


def test_saved_profiles_load_back_into_a_new_folder(tmp_path):
    rows, features = _leaderboard_rows()
    profiles = profiles_from_leaderboard(rows, features)
    path = save_profiles(profiles, tmp_path / "new" / "profiles.json", "test rows")
    assert load_profiles(path) == profiles


def test_the_diagnosis_reads_only_the_training_labels():
    spec = DatasetSpec.csbm(num_nodes=120, num_features=8, phi=0.3, seed=0)
    _, data = diagnose_dataset(spec)
    mask = torch.zeros(data.num_nodes, dtype=torch.bool)
    mask[: data.num_nodes // 2] = True
    keep = diagnosis_features(diagnose(data, mask))
    outside = data.clone()  # new labels outside the mask: the features do not move
    outside.y[~mask] = torch.randint(
        0, 2, (int((~mask).sum()),), generator=torch.Generator().manual_seed(0)
    )
    assert not torch.equal(outside.y, data.y)
    assert diagnosis_features(diagnose(outside, mask)) == keep
    inside = data.clone()  # new labels inside it: they do
    inside.y[: data.num_nodes // 4] = 1 - inside.y[: data.num_nodes // 4]
    assert diagnosis_features(diagnose(inside, mask)) != keep


def _tiny():
    return DatasetSpec.csbm(num_nodes=100, num_features=10, phi=0.6, seed=1)


def _tiny_profiles():
    gains = {"feast": 3.0, "random": 1.0, "fosr": -2.0}
    return [DatasetProfile("elsewhere", "gcn", dict.fromkeys(FEATURES, 0.5), gains)]


def test_auto_chooses_on_validation_alone_and_evaluates_on_held_back_splits(tmp_path):
    path = tmp_path / "auto.db"
    kwargs = dict(trials=2, num_splits=2, profiles=_tiny_profiles())
    with ResultStore(path) as store:
        rewirer, found = auto(_tiny(), store=store, **kwargs)
        selection_rows = list(store.records())
    assert [c.method for c in found.candidates] == ["none", "feast", "random"]
    assert [s.method for s in found.shortlist] == ["feast", "random"]
    assert found.nearest == (("elsewhere", 0.0),)
    assert {r.key.split_id for r in selection_rows} == {0, 1}
    assert {r.key.seed for r in selection_rows} == {0}
    vals = [c.val_acc for c in found.candidates]
    assert len(set(vals)) > 1  # the poisoning below could change a test-read choice
    assert found.choice.val_acc == max(vals)
    assert found.val_gain == pytest.approx(found.choice.val_acc - vals[0])
    assert rewirer.name == found.choice.method and rewirer.get_params().items() >= (
        found.choice.params.items()
    )
    # poison every stored test accuracy: the best on validation is now the worst on test;
    # a resumed auto reads the same rows and must choose the same
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE results SET test_acc = 1.0 - val_acc")
    with ResultStore(path) as store:
        _, again = auto(_tiny(), store=store, **kwargs)
        assert again.candidates == found.candidates and again.choice == found.choice
        assert len(list(store.records())) == len(selection_rows)  # nothing retrained
        result = evaluate(_tiny(), found, num_splits=2, seeds=(0, 1), store=store)
        held = [r for r in store.records() if r.key.split_id >= 2]
    assert result.split_ids == (2, 3) and result.paired.n == 4
    assert {(r.key.split_id, r.key.seed) for r in held} == {(s, e) for s in (2, 3) for e in (0, 1)}
    diffs = [
        100 * (a.test_acc - b.test_acc)
        for a in held
        for b in held
        if a.key.method == found.choice.method
        and b.key.method == "none"
        and (a.key.split_id, a.key.seed) == (b.key.split_id, b.key.seed)
    ]
    if found.choice.method != "none":
        assert result.paired.mean_diff == pytest.approx(np.mean(diffs))
    # held-back splits may start later (after a leaderboard's), never among the selection's
    with ResultStore(path) as store:
        later = evaluate(_tiny(), found, num_splits=2, seeds=(0,), store=store, first_split=5)
        assert later.split_ids == (5, 6)
        assert {r.key.split_id for r in store.records()} == {0, 1, 2, 3, 5, 6}
        with pytest.raises(RewireError, match="after the 2 selection splits"):
            evaluate(_tiny(), found, num_splits=2, store=store, first_split=1)


def test_auto_takes_a_graph_in_memory_and_refuses_without_profiles():
    data = _tiny().load()
    rewirer, found = rewirekit.auto(data, trials=1, num_splits=2, profiles=_tiny_profiles())
    assert found.dataset.startswith("graph@") and isinstance(rewirer, rewirekit.Rewirer)
    with pytest.raises(RewireError, match="no leaderboard profiles of model 'gprgnn'"):
        auto(data, model="gprgnn", profiles=_tiny_profiles())
    # a dataset never learns from its own profile
    own = [DatasetProfile(found.dataset, "gcn", dict.fromkeys(FEATURES, 0.5), {"feast": 1.0})]
    with pytest.raises(RewireError, match="other than"):
        auto(data, profiles=own)


def test_auto_splits_within_classes_where_the_dense_rule_leaves_validation_one_class():
    data = _tiny().load()
    data.y = (torch.arange(data.num_nodes) < data.num_nodes // 10).long()  # 10% in class 1
    with ResultStore(":memory:") as store:
        _, found = auto(data, trials=1, num_splits=2, profiles=_tiny_profiles(), store=store)
        assert found.split_preset == "stratified"
        assert {r.key.split_preset for r in store.records()} == {"stratified"}
    data.y = (torch.arange(data.num_nodes) < 1).long()  # one node in class 1: no split scores
    with pytest.raises(RewireError, match="'stratified' split 0 .* class 0 only"):
        auto(data, trials=1, num_splits=2, profiles=_tiny_profiles())


def test_profiles_are_built_from_rows_by_diagnosing_each_dataset_again():
    key = csbm_key(60, 8, 0.5, 0)
    rows = _cell(key, "none", 0.0) + _cell(key, "m1", 0.04, {"add": 1})
    (profile,) = profiles_from_records(rows)
    spec = DatasetSpec.csbm(num_nodes=60, num_features=8, phi=0.5, seed=0)
    assert profile.features == diagnosis_features(diagnose_dataset(spec)[0])
    assert profile.gains == pytest.approx({"m1": 4.0})
    file_rows = [replace(r, key=replace(r.key, dataset="mine@0123456789")) for r in rows]
    with pytest.raises(RewireError, match="rows come from a graph file"):
        profiles_from_records(file_rows)
