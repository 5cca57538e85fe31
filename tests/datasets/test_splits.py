"""Split presets: exact sizes per rule, determinism, shipped masks, largest component."""

import os
import subprocess
import sys

import pytest
import torch
from torch_geometric.data import Data

from rewirekit.datasets import (
    GENERATOR_SPLITS,
    SPLIT_PRESETS,
    ClassBalancedSplit,
    SplitChoice,
    available_offline,
    choose_split_preset,
    get_split_preset,
    held_out_classes,
    list_datasets,
    list_split_presets,
    load,
    majority_class_accuracy,
    single_class_split,
)
from rewirekit.errors import RewireError

RANDOM_PRESETS = ["sparse", "dense", "stratified", "comfy"]


def toy(class_sizes=(250, 250, 250, 250), seed=0) -> Data:
    """A ring over shuffled labels: connected, so ``comfy`` keeps every node."""
    gen = torch.Generator().manual_seed(seed)
    y = torch.repeat_interleave(torch.arange(len(class_sizes)), torch.tensor(class_sizes))
    y = y[torch.randperm(y.numel(), generator=gen)]
    ring = torch.arange(y.numel())
    edge_index = torch.stack([ring, (ring + 1) % y.numel()])
    return Data(
        x=torch.randn(y.numel(), 3, generator=gen),
        y=y,
        edge_index=torch.cat([edge_index, edge_index.flip(0)], dim=1),
    )


def sizes(masks):
    return [int(mask.sum()) for mask in masks]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("dense", [600, 200, 200]),  # 4 classes x round(0.6 * 1000 / 4) = 150, round(0.2 * 1000)
        ("sparse", [24, 25, 951]),  # 4 classes x round(0.025 * 1000 / 4) = 6, round(25)
        ("stratified", [600, 200, 200]),  # 4 classes x (rest, round(0.2 * 250), round(0.2 * 250))
        ("comfy", [600, 200, 200]),  # rest, round(0.2 * 1000), round(0.2 * 1000)
        ("borf", [600, 200, 200]),  # rest, ceil(0.25 * 800), ceil(0.2 * 1000)
    ],
)
def test_random_presets_have_exact_sizes_and_partition_the_nodes(name, expected):
    preset = get_split_preset(name)
    data = preset.prepare(toy())
    for split_id in range(3):
        masks = preset.split(data, split_id, key="toy")
        assert all(mask.dtype == torch.bool and mask.shape == (1000,) for mask in masks)
        assert sizes(masks) == expected
        assert torch.equal(torch.stack(masks).sum(0), torch.ones(1000, dtype=torch.long))


def test_borf_split_rounds_the_held_out_parts_up_as_sklearn_does():
    """Texas' 183 nodes: train_test_split(test_size=0.2) holds out ceil(36.6) = 37, then
    test_size=0.25 of the other 146 holds out ceil(36.5) = 37 for validation."""
    preset = get_split_preset("borf")
    data = toy(class_sizes=(100, 83))
    masks = [preset.split(data, i, key="toy") for i in range(2)]
    assert [sizes(m) for m in masks] == [[109, 37, 37]] * 2
    assert not torch.equal(masks[0][2], masks[1][2])  # each split draws its own test set
    assert preset.prepare(data) is data  # the whole graph: no largest component


def test_jdr_rule_balances_training_classes_and_keeps_small_classes_whole():
    data = toy(class_sizes=(10, 90))  # round(0.6 * 100 / 2) = 30 > 10
    train, val, test = get_split_preset("dense").split(data, 0, key="imbalanced")
    assert data.y[train].bincount().tolist() == [10, 30]
    assert sizes((train, val, test)) == [40, 20, 40]


def test_a_split_that_leaves_one_class_to_validation_and_test_is_reported():
    dense = get_split_preset("dense")
    # round(0.6 * 100 / 2) = 30 > 20: class 0 trains whole; validation and test keep class 1.
    problem = single_class_split(dense, toy(class_sizes=(20, 80)), "mines", num_splits=3)
    assert problem is not None
    assert "'dense' split 0 of 'mines'" in problem and "class 1 only" in problem
    assert single_class_split(dense, toy(class_sizes=(50, 50)), "even", num_splits=3) is None


def test_stratified_split_keeps_every_class_in_every_part_where_dense_cannot():
    data = toy(class_sizes=(20, 80))  # the minority class trains whole under 'dense'
    stratified = get_split_preset("stratified")
    for split_id in range(3):
        masks = stratified.split(data, split_id, key="mines")
        # class 0: round(0.2 * 20) = 4 to validation and 4 to test; class 1: 16 and 16.
        assert [data.y[mask].bincount().tolist() for mask in masks] == [
            [12, 48],
            [4, 16],
            [4, 16],
        ]
    assert list(held_out_classes(stratified, data, "mines", num_splits=1)) == [
        (0, "validation", [0, 1]),
        (0, "test", [0, 1]),
    ]
    assert list(held_out_classes(get_split_preset("dense"), data, "mines", num_splits=1)) == [
        (0, "validation", [1]),
        (0, "test", [1]),
    ]
    assert single_class_split(stratified, data, "mines", num_splits=3) is None
    assert single_class_split(get_split_preset("dense"), data, "mines", num_splits=3)
    tiny = toy(class_sizes=(3, 97))  # a class of three: one node in each part
    masks = stratified.split(tiny, 0, key="tiny")
    assert [int((tiny.y[mask] == 0).sum()) for mask in masks] == [1, 1, 1]


def test_majority_class_accuracy_is_the_best_constant_predictions_test_accuracy():
    stratified = get_split_preset("stratified")
    assert majority_class_accuracy(stratified, toy((80, 20)), "mines", 3) == pytest.approx(80.0)
    assert majority_class_accuracy(stratified, toy((20, 80)), "mines", 3) == pytest.approx(80.0)
    # dense trains on class 1 whole (its 20 nodes are under the quota of 30): test holds
    # class 0 only
    assert majority_class_accuracy(get_split_preset("dense"), toy((80, 20)), "mines", 2) == 100.0
    data = toy((50, 30, 20))
    test = data.y[stratified.split(data, 0, key="three")[2]]
    assert majority_class_accuracy(stratified, data, "three", 1) == pytest.approx(
        100.0 * (test == 0).double().mean().item()
    )


@pytest.mark.parametrize("name", RANDOM_PRESETS)
def test_random_splits_depend_only_on_key_preset_and_split_id(name):
    preset = get_split_preset(name)
    data = preset.prepare(toy())
    first = preset.split(data, 7, key="toy")
    again = preset.split(data, 7, key="toy")
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not torch.equal(first[0], preset.split(data, 8, key="toy")[0])
    assert not torch.equal(first[0], preset.split(data, 7, key="other")[0])


def test_the_preset_name_is_part_of_the_seed():
    data = toy()
    twin = ClassBalancedSplit("dense-twin", train_rate=0.6, val_rate=0.2)
    dense = get_split_preset("dense")
    assert not torch.equal(twin.split(data, 0, key="toy")[0], dense.split(data, 0, key="toy")[0])


def test_random_splits_are_stable_across_processes():
    script = (
        "import torch; from torch_geometric.data import Data; "
        "from rewirekit.datasets import get_split_preset; "
        "data = Data(y=torch.arange(1000) % 4, num_nodes=1000); "
        "print(get_split_preset('dense').split(data, 3, key='cora')[0].nonzero().view(-1)"
        "[:12].tolist())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_geom_gcn_preset_reads_the_shipped_masks():
    data = toy()
    gen = torch.Generator().manual_seed(1)
    for part in ("train", "val", "test"):
        data[f"{part}_mask"] = torch.rand(1000, 10, generator=gen) < 0.5
    preset = get_split_preset("geom-gcn")
    assert preset.num_splits == 10 and preset.prepare(data) is data
    train, val, test = preset.split(data, 3, key="toy")
    assert torch.equal(train, data.train_mask[:, 3]) and torch.equal(test, data.test_mask[:, 3])
    with pytest.raises(RewireError, match=r"split_id must be an integer in \[0, 10\)"):
        preset.split(data, 10, key="toy")


@pytest.mark.parametrize(
    "name, masks",
    [("geom-gcn", None), ("geom-gcn", (1000,)), ("public", None), ("public", (1000, 10))],
)
def test_shipped_presets_refuse_data_without_their_masks(name, masks):
    data = toy()
    if masks is not None:
        for part in ("train", "val", "test"):
            data[f"{part}_mask"] = torch.zeros(masks, dtype=torch.bool)
    with pytest.raises(RewireError, match=f"'toy' has no '{name}' split.*random preset"):
        get_split_preset(name).split(data, 0, key="toy")


@pytest.mark.parametrize("name, expected", [("texas", "geom-gcn"), ("cora", "public")])
def test_shipped_presets_on_real_data(name, expected, tmp_path_factory):
    if not available_offline(name):
        pytest.skip(f"{name} is not in $REWIREKIT_DATA")
    data = load(name, cache_dir=tmp_path_factory.getbasetemp() / "split-cache")
    masks = get_split_preset(expected).split(data, 0, key=name)
    assert torch.equal(
        masks[0], data.train_mask if data.train_mask.dim() == 1 else data.train_mask[:, 0]
    )
    if name == "cora":
        assert sizes(masks) == [140, 500, 1000]


def test_comfy_keeps_the_largest_component_in_original_order():
    # components {1, 3, 5, 7, 9} (a directed path, so only weakly connected), {0, 2}, {4, 6, 8}
    edge_index = torch.tensor([[1, 3, 5, 7, 0, 4, 6], [3, 5, 7, 9, 2, 6, 8]])
    masks = torch.arange(10).view(-1, 1).repeat(1, 10) % 2 == 1
    data = Data(
        x=torch.arange(10.0).view(-1, 1),
        y=torch.arange(10) % 3,
        edge_index=edge_index,
        train_mask=masks,
        val_mask=~masks,
        test_mask=masks,
    )
    preset = get_split_preset("comfy")
    out = preset.prepare(data)
    assert out.node_map.tolist() == [1, 3, 5, 7, 9]
    assert out.x.view(-1).tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    assert out.y.tolist() == [1, 0, 2, 1, 0]
    assert out.edge_index.tolist() == [[0, 1, 2, 3], [1, 2, 3, 4]]
    assert out.train_mask.shape == (5, 10) and bool(out.train_mask.all())
    assert sizes(preset.split(out, 0, key="toy")) == [3, 1, 1]
    assert preset.prepare(out).node_map.tolist() == [1, 3, 5, 7, 9]  # composes


def test_comfy_split_requires_prepare():
    with pytest.raises(RewireError, match=r"call get_split_preset\('comfy'\).prepare"):
        get_split_preset("comfy").split(toy(), 0, key="toy")


def test_class_balanced_presets_need_integer_labels():
    data = toy()
    data.y = data.y.float()
    with pytest.raises(RewireError, match="integer labels"):
        get_split_preset("dense").split(data, 0, key="toy")


def test_preset_registry():
    assert list_split_presets() == [
        "sparse",
        "dense",
        "stratified",
        "geom-gcn",
        "comfy",
        "borf",
        "public",
    ]
    assert {name: preset.num_splits for name, preset in SPLIT_PRESETS.items()} == {
        "sparse": 100,
        "dense": 100,
        "stratified": 100,
        "geom-gcn": 10,
        "comfy": 100,
        "borf": 300,
        "public": 1,
    }
    assert get_split_preset("GEOM_GCN") is SPLIT_PRESETS["geom-gcn"]
    with pytest.raises(RewireError, match="unknown split preset 'random'.*sparse, dense"):
        get_split_preset("random")
    with pytest.raises(RewireError, match="split_id"):
        get_split_preset("dense").split(toy(), -1, key="toy")


@pytest.mark.parametrize(
    "dataset, preset",
    [
        ("texas", "geom-gcn"),  # geom-gcn's 10 fixed splits
        ("Actor", "geom-gcn"),
        ("chameleon_filtered", "geom-gcn"),  # yandex's own splits
        ("minesweeper", "geom-gcn"),
        ("cora", "dense"),  # the Planetoid public split is not a fixed 60/20/20 one
        ("computers", "dense"),
        ("csbm", "sparse"),  # the JDR paper's cSBM protocol
    ],
)
def test_default_split_fits_the_data(dataset, preset):
    choice = choose_split_preset(dataset)
    assert choice.preset == preset and choice.reason
    assert choice.preset == GENERATOR_SPLITS.get(dataset, choice).preset


def test_default_split_follows_the_shipped_splits_of_every_dataset():
    for info in list_datasets():
        expected = "geom-gcn" if info.has_fixed_splits else "dense"
        assert choose_split_preset(info.name).preset == expected, info.name


def test_a_requested_split_preset_wins_and_is_checked():
    assert choose_split_preset("texas", "Sparse") == SplitChoice("sparse", "as requested")
    assert choose_split_preset("csbm", "dense").preset == "dense"
    with pytest.raises(RewireError, match="unknown split preset"):
        choose_split_preset("texas", "random")
    with pytest.raises(RewireError, match="unknown dataset"):
        choose_split_preset("not-a-dataset")


def test_the_default_split_runs_on_real_data(tmp_path_factory):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    data = load("texas", cache_dir=tmp_path_factory.getbasetemp() / "split-cache")
    preset = get_split_preset(choose_split_preset("texas").preset)
    train, val, test = preset.split(preset.prepare(data), 0, key="texas")
    assert int(train.sum()) > 80  # 60% of 183 nodes, not sparse's 5
    assert torch.equal(train, data.train_mask[:, 0])
