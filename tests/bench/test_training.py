from dataclasses import replace

import pytest
import torch
from torch_geometric.data import Data

from rewirekit.bench import (
    TrainConfig,
    get_training_preset,
    list_training_presets,
    train_node_classifier,
)
from rewirekit.bench.training import _param_groups, _Tracker
from rewirekit.errors import RewireError
from rewirekit.methods import get_method
from rewirekit.models import build_model

FAST = TrainConfig(max_epochs=300, patience=30)


def _clusters(num_classes=3, size=30, seed=0, signal=1.5):
    """Dense clusters (one per class), few edges between them, class-informative features."""
    gen = torch.Generator().manual_seed(seed)
    y = torch.arange(num_classes).repeat_interleave(size)
    n = y.numel()
    p = torch.where(y[:, None] == y[None, :], 0.3, 0.01)
    upper = torch.triu(torch.rand(n, n, generator=gen) < p, diagonal=1)
    edge_index = (upper | upper.t()).nonzero().t()
    means = signal * torch.eye(num_classes, 8)
    x = means[y] + torch.randn(n, 8, generator=gen)
    order = torch.randperm(n, generator=gen)
    masks = [torch.zeros(n, dtype=torch.bool) for _ in range(3)]
    for mask, part in zip(
        masks, (order[: n // 2], order[n // 2 : 3 * n // 4], order[3 * n // 4 :]), strict=True
    ):
        mask[part] = True
    return Data(x=x, y=y, edge_index=edge_index), masks


@pytest.fixture(scope="module")
def clusters():
    return _clusters()


def test_gcn_learns_the_clusters(clusters):
    data, masks = clusters
    result = train_node_classifier(data, *masks, "gcn", FAST, seed=0)
    assert result.test_acc >= 0.9
    assert 0.0 <= result.val_acc <= 1.0
    assert result.best_epoch < result.epochs_run <= FAST.max_epochs
    assert result.seconds > 0


@pytest.mark.parametrize("model", ["gprgnn", "sage", "mlp"])
def test_other_models_train(clusters, model):
    data, masks = clusters
    config = replace(FAST, max_epochs=60, early_stopping="none")
    assert train_node_classifier(data, *masks, model, config, seed=0).test_acc > 0.5


def test_same_seed_same_result(clusters):
    data, masks = clusters
    data = data.clone()
    gen = torch.Generator().manual_seed(1)
    data.edge_weight = torch.rand(data.edge_index.size(1), generator=gen)
    config = replace(FAST, max_epochs=40, early_stopping="none")
    runs = [train_node_classifier(data, *masks, "gprgnn", config, seed=3) for _ in range(2)]
    assert [replace(r, seconds=0.0) for r in runs[:1]] == [replace(runs[1], seconds=0.0)]


def test_global_rng_untouched(clusters):
    data, masks = clusters
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    train_node_classifier(data, *masks, "gcn", replace(FAST, max_epochs=3), seed=0)
    assert torch.equal(torch.rand(3), expected)


def test_edge_weights_are_used():
    data, masks = _clusters(signal=0.4)  # the features alone hardly tell the classes apart
    faint = data.clone()
    faint.edge_weight = torch.full((data.edge_index.size(1),), 1e-4)  # next to self-loops of 1
    config = replace(FAST, max_epochs=100, early_stopping="none")
    with_graph = train_node_classifier(data, *masks, "gcn", config, seed=0).test_acc
    without = train_node_classifier(faint, *masks, "gcn", config, seed=0).test_acc
    assert with_graph > without + 0.2


@pytest.mark.parametrize("kind", ["gprgnn", "digl"])
def test_early_stopping_stops(clusters, kind):
    data, masks = clusters
    config = replace(FAST, max_epochs=2000, early_stopping=kind, patience=20, lr=0.05)
    result = train_node_classifier(data, *masks, "gcn", config, seed=0)
    assert result.epochs_run < 2000
    if kind == "digl":
        assert result.epochs_run == result.best_epoch + 1 + 20


def test_comfy_preset_runs_exactly_100_epochs(clusters):
    data, masks = clusters
    config = get_training_preset("comfy").config("cora", "gcn")
    result = train_node_classifier(data, *masks, "gcn", config, seed=0)
    assert (result.epochs_run, result.best_epoch) == (100, 99)


def _feed(config, losses, accs=None, tests=None):
    tracker = _Tracker(config)
    accs = accs or [0.0] * len(losses)
    tests = tests or list(range(len(losses)))
    for epoch, (loss, acc, test) in enumerate(zip(losses, accs, tests, strict=True)):
        if tracker.update(epoch, loss, acc, test):
            return epoch, tracker.best
    return None, tracker.best


def test_gprgnn_rule_compares_with_the_mean_of_the_previous_window():
    config = TrainConfig(early_stopping="gprgnn", patience=3)
    # epochs 0..3 are never checked; epoch 4 compares 2.0 with mean(4, 3, 2) = 3 -> go on;
    # epoch 5 compares 2.5 with mean(3, 2, 2) = 2.33 -> stop.
    stop, best = _feed(config, [5.0, 4.0, 3.0, 2.0, 2.0, 2.5, 1.0])
    assert stop == 5
    assert best == (3, 0.0, 3)  # first epoch with the lowest loss


def test_gprgnn_rule_waits_for_a_full_window():
    config = TrainConfig(early_stopping="gprgnn", patience=3)
    stop, _ = _feed(config, [1.0, 9.0, 9.0, 9.0, 0.5, 0.4])
    assert stop is None


def test_digl_rule_on_accuracy_reports_the_best_accuracy_epoch():
    config = TrainConfig(early_stopping="digl", patience=2, criterion="acc")
    stop, best = _feed(
        config, [1.0] * 6, accs=[0.5, 0.7, 0.7, 0.6, 0.9, 0.9], tests=[10, 11, 12, 13, 14, 15]
    )
    assert stop == 3  # epochs 2 and 3 do not improve on 0.7
    assert best == (11, 0.7, 1)


def test_a_relative_improvement_factor_needs_a_one_percent_gain():
    """The BORF code's rule: a gain counts when it beats 1.01 times the accuracy of the last
    epoch that counted; training stops once more than 100 (here: patience - 1 = 2) epochs in
    a row did not count."""
    config = TrainConfig(
        early_stopping="digl", patience=3, criterion="acc", improvement_factor=1.01
    )
    # 0.500 counts; 0.504 < 0.505 and 0.5049 do not (no reset); 0.506 > 0.505 counts; then
    # 0.51 < 0.51106, 0.511 < 0.51106, 0.4 do not: the third stops training.
    accs = [0.5, 0.504, 0.5049, 0.506, 0.51, 0.511, 0.4, 0.9]
    stop, best = _feed(config, [1.0] * len(accs), accs=accs)
    assert stop == 6
    assert best == (3, 0.506, 3)
    # without the factor, 0.504 and 0.5049 count and the run goes on to the 0.9
    stop, _ = _feed(replace(config, improvement_factor=1.0), [1.0] * len(accs), accs=accs)
    assert stop is None


def test_the_plateau_scheduler_divides_the_learning_rate_by_ten(clusters):
    """lr_plateau_patience=0 cuts the learning rate tenfold after every epoch whose
    training loss is not lower (lr 0.5 oscillates), so the run ends elsewhere than at a
    constant learning rate."""
    data, masks = clusters
    base = TrainConfig(lr=0.5, max_epochs=40, early_stopping="none", eval_at="last", dropout=0)
    fixed = train_node_classifier(data, *masks, "gcn", base, seed=0)
    cut = train_node_classifier(data, *masks, "gcn", replace(base, lr_plateau_patience=0), seed=0)
    assert fixed.test_acc != cut.test_acc or fixed.val_acc != cut.val_acc
    with pytest.raises(RewireError, match="lr_plateau_patience"):
        TrainConfig(lr_plateau_patience=-1)


def test_no_early_stopping_runs_to_the_end():
    stop, best = _feed(TrainConfig(early_stopping="none"), [3.0, 1.0, 2.0, 5.0])
    assert stop is None and best[2] == 1


def test_weight_decay_groups():
    gcn = build_model("gcn", 4, 2)
    groups = _param_groups(gcn, TrainConfig(weight_decay=0.05, weight_decay_first_layer_only=True))
    assert {id(p) for p in groups[0]["params"]} == {id(p) for p in gcn.layers[0].parameters()}
    assert [g["weight_decay"] for g in groups] == [0.05, 0.0]
    gpr = build_model("gprgnn", 4, 2)
    groups = _param_groups(gpr, TrainConfig())
    undecayed = [p for g in groups if g["weight_decay"] == 0.0 for p in g["params"]]
    assert len(undecayed) == 1 and undecayed[0] is gpr.prop.temp
    assert len(_param_groups(gcn, TrainConfig())) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"lr": 0.0},
        {"weight_decay": -1.0},
        {"max_epochs": 0},
        {"early_stopping": "patience"},
        {"patience": 0},
        {"criterion": "f1"},
        {"eval_at": "middle"},
        {"improvement_factor": 0.5},
        {"improvement_factor": 1.01},  # criterion "loss"
    ],
)
def test_bad_config_raises(change):
    with pytest.raises(RewireError):
        TrainConfig(**change)


def test_bad_inputs_raise(clusters):
    data, (train, val, test) = clusters
    with pytest.raises(RewireError, match="boolean"):
        train_node_classifier(data, train.long(), val, test, "gcn", FAST, seed=0)
    with pytest.raises(RewireError, match="selects no node"):
        train_node_classifier(data, train, torch.zeros_like(val), test, "gcn", FAST, seed=0)
    with pytest.raises(RewireError, match="float"):
        train_node_classifier(
            Data(x=data.x.long(), y=data.y, edge_index=data.edge_index),
            train,
            val,
            test,
            "gcn",
            FAST,
            seed=0,
        )
    with pytest.raises(RewireError, match="unknown model"):
        train_node_classifier(data, train, val, test, "gin", FAST, seed=0)


# --- presets -------------------------------------------------------------------------------


def test_preset_registry():
    assert list_training_presets() == ["jdr", "comfy", "bangs", "borf", "fair"]
    with pytest.raises(RewireError, match="jdr, comfy, bangs, borf, fair"):
        get_training_preset("fair2")
    assert get_training_preset(" JDR ") is get_training_preset("jdr")  # the registry's rule
    with pytest.raises(RewireError, match="cannot read the tuned training preset"):
        get_training_preset("fair{lr:1}")


def test_jdr_defaults_and_cora_overrides():
    jdr = get_training_preset("jdr")
    gcn = jdr.config("Cora", "gcn")
    assert (gcn.lr, gcn.weight_decay, gcn.weight_decay_first_layer_only) == (0.01, 0.05, True)
    assert (gcn.hidden, gcn.dropout, gcn.max_epochs) == (64, 0.5, 10_000)
    assert (gcn.early_stopping, gcn.patience, gcn.criterion, gcn.eval_at) == (
        "gprgnn",
        200,
        "loss",
        "best",
    )
    assert not gcn.normalize_features and gcn.model_params == {}
    gpr = jdr.config("cora", "gprgnn")
    assert gpr.model_params == {"K": 10, "alpha": 0.1, "dprate": 0.5}
    assert gpr.normalize_features and gpr.weight_decay == 5e-4


@pytest.mark.parametrize(
    "dataset, model, expected",
    [
        (
            "chameleon",
            "gcn",
            dict(
                lr=0.05,
                weight_decay=0.0,
                early_stopping="digl",
                criterion="acc",
                normalize_features=True,
            ),
        ),
        (
            "squirrel",
            "gcn",
            dict(
                lr=0.05,
                weight_decay=0.0,
                early_stopping="digl",
                criterion="acc",
                normalize_features=True,
            ),
        ),
        ("actor", "gcn", dict(early_stopping="digl", criterion="acc", normalize_features=False)),
        ("film", "gprgnn", dict(weight_decay=0.0, normalize_features=True, alpha=0.9)),
        ("photo", "gprgnn", dict(weight_decay=0.0, alpha=0.5)),
        ("texas", "gcn", dict(lr=0.05, normalize_features=True)),
        ("cornell", "gprgnn", dict(lr=0.05, normalize_features=True, alpha=0.9)),
        ("citeseer", "gcn", dict(normalize_features=True)),
        ("pubmed", "gprgnn", dict(lr=0.05, alpha=0.2, normalize_features=True)),
    ],
)
def test_jdr_dataset_overrides(dataset, model, expected):
    config = get_training_preset("jdr").config(dataset, model)
    got = {**vars(config), **config.model_params}
    assert {k: got[k] for k in expected} == expected


def test_jdr_sections_follow_the_official_naming():
    jdr = get_training_preset("jdr")
    assert jdr.section("cora", "gcn", split="dense") == "gcn"
    assert jdr.section("cora", "gcn", rewired=True, split="dense") == "gcn_denoise_dense"
    assert jdr.section("cora", "gprgnn", rewired=True) == "gprgnn_denoise_gprgnn"
    assert jdr.section("cora", "gprgnn", rewired=True, tuned_with="gcn") == "gprgnn_denoise"
    assert (
        jdr.section("chameleon", "gprgnn", rewired=True, split="dense") == "gprgnn_denoise_gprgnn"
    )
    assert jdr.section("cora", "sage", rewired=True) == "sage_denoise"
    with pytest.raises(RewireError):
        jdr.section("cora", "gcn", rewired=True, tuned_with="gat")


def test_jdr_rewired_sections_have_their_own_training_settings():
    jdr = get_training_preset("jdr")
    assert not jdr.config("cora", "gprgnn", rewired=True).normalize_features
    assert jdr.config("cora", "gprgnn", rewired=True).weight_decay == 0.05
    chameleon = jdr.config("chameleon", "gprgnn", rewired=True, split="dense")
    assert chameleon.normalize_features and chameleon.model_params["alpha"] == 0.1
    assert (
        jdr.config("cora", "gcn", rewired=True, split="dense").source
        == "jdr: cora/gcn_denoise_dense"
    )


def test_jdr_rewiring_params():
    jdr = get_training_preset("jdr")
    cora = jdr.rewiring_params("cora", "gcn", "sparse")
    assert (cora["num_iterations"], cora["rank_a"], cora["rank_x"]) == (10, 1853, 38)
    assert cora["eta_a"] == pytest.approx(0.066, abs=1e-3)
    assert (cora["top_k"], cora["abs_ordering"], cora["offset"]) == (64, False, 0)
    get_method("jdr", **cora)  # the keys are JDR's keyword arguments
    assert jdr.rewiring_params("cora", "gcn", "dense")["rank_a"] == 1857
    assert jdr.rewiring_params("cora", "gprgnn", "dense")["rank_a"] == 1467
    assert jdr.rewiring_params("chameleon", "gprgnn", "dense")["rank_a"] == 31
    assert jdr.rewiring_params("chameleon", "gprgnn", tuned_with="gcn")["rank_a"] == 41
    assert jdr.rewiring_params("squirrel", "gcn", "dense")["abs_ordering"]
    assert not jdr.rewiring_params("texas", "gcn", "dense")["abs_ordering"]
    assert jdr.rewiring_params("wisconsin", "gcn")["rank_a"] == 100


def test_unknown_dataset_falls_back_to_defaults():
    for name in ("jdr", "comfy"):
        config = get_training_preset(name).config("my-graph", "gcn")
        assert "defaults" in config.source
    assert get_training_preset("jdr").config("my-graph", "gcn").lr == 0.01
    comfy = get_training_preset("comfy").config("my-graph", "gcn")
    assert (comfy.lr, comfy.hidden) == (0.01, 32)
    with pytest.raises(RewireError, match="unknown model"):
        get_training_preset("jdr").config("cora", "gin")


@pytest.mark.parametrize(
    "dataset, lr, hidden, normalized",
    [
        ("Cora", 0.01, 128, True),
        ("citeseer", 0.01, 32, True),
        ("texas", 0.001, 128, False),
        ("chameleon_filtered", 0.001, 128, False),
        ("actor", 0.001, 128, False),
    ],
)
def test_comfy_config(dataset, lr, hidden, normalized):
    config = get_training_preset("comfy").config(dataset, "gcn", rewired=True)
    assert (config.lr, config.hidden, config.normalize_features) == (lr, hidden, normalized)
    assert (config.dropout, config.weight_decay, config.max_epochs) == (0.0, 5e-4, 100)
    assert (config.early_stopping, config.eval_at) == ("none", "last")


def test_prepare_row_normalises_only_when_configured():
    data = Data(x=torch.tensor([[1.0, 3.0], [0.0, 0.0]]), edge_index=torch.empty(2, 0).long())
    jdr = get_training_preset("jdr")
    assert jdr.prepare(data, "cora", "gcn") is data
    out = jdr.prepare(data, "citeseer", "gcn")
    assert torch.equal(out.x, torch.tensor([[0.25, 0.75], [0.0, 0.0]]))
    assert torch.equal(data.x, torch.tensor([[1.0, 3.0], [0.0, 0.0]]))


def test_bangs_preset_row_normalises_only_the_citation_datasets():
    preset = get_training_preset("bangs")
    assert preset.config("cora", "gcn").normalize_features
    assert preset.config("CiteSeer", "gcn").normalize_features
    assert not preset.config("photo", "gcn").normalize_features
    assert not preset.config("actor", "gcn").normalize_features


def test_borf_preset_follows_the_borf_repository():
    config = get_training_preset("borf").config("cora", "gcn")
    assert (config.lr, config.weight_decay, config.hidden, config.dropout) == (1e-3, 0, 128, 0.5)
    assert config.model_params == {"num_layers": 4}  # 3 hidden layers + the output layer
    assert (config.early_stopping, config.patience, config.criterion) == ("digl", 101, "acc")
    assert (config.improvement_factor, config.lr_plateau_patience) == (1.01, 25)
    assert (config.eval_at, config.normalize_features) == ("last", False)
    assert get_training_preset("borf").splits_per_trial == 3
    assert get_training_preset("jdr").splits_per_trial == 1
    assert get_training_preset('borf{"lr":0.01}').splits_per_trial == 3


def test_borf_preset_stops_at_the_101st_epoch_without_gain_and_reports_the_last(clusters):
    config = get_training_preset("borf").config("cora", "gcn")
    # official: epochs_no_improve > 100 stops; epoch 0 counts, epochs 1..101 do not
    stop, _ = _feed(config, [1.0] * 300, accs=[0.5] * 300)
    assert stop == 101
    stop, _ = _feed(config, [1.0] * 300, accs=[0.5] * 100 + [0.6] + [0.6] * 199)
    assert stop == 100 + 101  # the gain at epoch 100 restarts the count
    data, masks = clusters
    result = train_node_classifier(data, *masks, "gcn", config, seed=0)
    assert 101 < result.epochs_run < config.max_epochs
    assert result.best_epoch == result.epochs_run - 1  # the last epoch is reported


def test_jdr_trains_other_rewirings_with_the_baseline_section():
    jdr = get_training_preset("jdr")
    assert jdr.rewired_settings("jdr")
    assert not jdr.rewired_settings("digl") and not jdr.rewired_settings("none")
    assert get_training_preset("comfy").rewired_settings("fosr")
    assert not get_training_preset('jdr{"lr":0.1}').rewired_settings("borf")


@pytest.mark.parametrize(
    "method, dataset, model, split, section, params",
    [
        ("digl", "cora", "gcn", "sparse", "rewire_ppr_gcn", {"alpha": 0.1, "k": 64}),
        ("digl", "cora", "gcn", "dense", "rewire_ppr_gcn_dense", {"alpha": 0.25, "k": 64}),
        ("digl", "texas", "gcn", "dense", "rewire_ppr_gcn", {"alpha": 1.0, "k": 64}),
        ("digl", "film", "gprgnn", "dense", "rewire_ppr_gprgnn", {"alpha": 0.6, "k": 64}),
        (
            "fosr",
            "citeseer",
            "gcn",
            "sparse",
            "rewire_fosr_gcn",
            {"add": 500, "num_power_iterations": 5},
        ),
        (
            "fosr",
            "chameleon",
            "sage",
            "dense",
            "rewire_fosr_gcn",
            {"add": 10, "num_power_iterations": 5},
        ),
        (
            "borf",
            "photo",
            "gprgnn",
            "sparse",
            "rewire_borf",
            {"num_batches": 3, "batch_add": 0, "batch_remove": 50, "faithful": True},
        ),
        (
            "borf",
            "photo",
            "gcn",
            "dense",
            "rewire_borf_dense",
            {"num_batches": 2, "batch_add": 40, "batch_remove": 20, "faithful": True},
        ),
    ],
)
def test_jdr_baseline_settings_are_the_yaml_sections(
    method, dataset, model, split, section, params
):
    from rewirekit.bench.presets import jdr_baseline_params, jdr_baseline_section

    assert jdr_baseline_section(method, dataset, model, split) == section
    assert jdr_baseline_params(method, dataset, model, split) == params
    get_method(method, **params)  # the keys are the method's keyword arguments


def test_jdr_baselines_the_yaml_does_not_configure_raise():
    from rewirekit.bench.presets import jdr_baseline_params

    with pytest.raises(RewireError, match="no section 'rewire_borf'"):
        jdr_baseline_params("borf", "squirrel", "gcn", "dense")  # OOM in the paper
    with pytest.raises(RewireError, match="baselines are borf, digl, fosr"):
        jdr_baseline_params("sdrf", "cora", "gcn")


def test_only_the_jdr_preset_keeps_the_directed_graphs_of_its_paper():
    from rewirekit.bench.presets import get_training_preset

    jdr, comfy = get_training_preset("jdr"), get_training_preset("comfy")
    assert jdr.keeps_direction("Actor") and not jdr.keeps_direction("chameleon")
    assert not jdr.keeps_direction("cora") and not comfy.keeps_direction("actor")
