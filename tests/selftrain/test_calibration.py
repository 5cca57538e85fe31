"""GATS and temperature scaling: per-node temperatures, a fit that lowers the NLL, errors."""

import pytest
import torch
import torch.nn.functional as F

from rewirekit.errors import RewireError
from rewirekit.selftrain.calibration import GATS, calibrate, hops_to


def test_hops_to_the_training_nodes_on_a_path():
    edge_index = torch.tensor([[0, 1, 1, 2, 2, 3, 3, 4], [1, 0, 2, 1, 3, 2, 4, 3]])
    assert hops_to(torch.tensor([0]), edge_index, 5, 2).tolist() == [0, 1, 2, 2, 2]
    assert hops_to(torch.tensor([2]), edge_index, 5, 3).tolist() == [2, 1, 0, 1, 2]


def _overconfident(graph):
    data, train, val, _ = graph
    torch.manual_seed(0)
    predicted = data.y.clone()
    predicted[::4] = 1 - predicted[::4]  # a quarter wrong, all with high confidence
    logits = 8.0 * F.one_hot(predicted, 2).float() + torch.randn(data.num_nodes, 2)
    return data, train, val, logits


@pytest.mark.parametrize("method", ["gats", "ts"])
def test_calibration_lowers_the_nll_of_overconfident_logits_and_keeps_the_argmax(graph, method):
    data, train, val, logits = _overconfident(graph)
    fit, stop = val.nonzero().view(-1), train.nonzero().view(-1)
    calibrated = calibrate(
        logits,
        data.y,
        data.edge_index,
        fit,
        stop,
        stop,
        method=method,
        seed=0,
        patience=2000,
        max_epochs=60,
    )
    assert calibrated.shape == logits.shape
    assert torch.equal(calibrated.argmax(1), logits.argmax(1))  # positive temperatures
    before = F.cross_entropy(logits[fit], data.y[fit])
    assert F.cross_entropy(calibrated[fit], data.y[fit]) < before
    again = calibrate(
        logits,
        data.y,
        data.edge_index,
        fit,
        stop,
        stop,
        method=method,
        seed=0,
        patience=2000,
        max_epochs=60,
    )
    assert torch.equal(calibrated, again)


def test_gats_gives_each_node_its_own_temperature(graph):
    data, train, _, logits = _overconfident(graph)
    gats = GATS(2, data.edge_index, train.nonzero().view(-1), data.num_nodes)
    temperatures = gats.node_temperatures(logits)
    assert temperatures.shape == (data.num_nodes, 1)
    assert bool((temperatures > 0).all())
    assert temperatures.unique().numel() > 1


def test_none_returns_the_logits_and_unknown_names_fail(graph):
    data, train, val, logits = _overconfident(graph)
    index = train.nonzero().view(-1)
    assert calibrate(logits, data.y, data.edge_index, index, index, index, method="none") is logits
    with pytest.raises(RewireError, match="unknown calibration 'platt'"):
        calibrate(logits, data.y, data.edge_index, index, index, index, method="platt")
    with pytest.raises(RewireError, match="labelled nodes"):
        calibrate(logits, data.y, data.edge_index, index[:0], index, index, method="ts")


def _reference_temperatures(gats, logits):
    """The module docstring's formula, term by term, over every node."""
    gamma = torch.ones(logits.size(0))
    gamma[gats.hops == 0] = gats.train_factor.detach()
    gamma[gats.hops == 1] = gats.neighbour_factor.detach()
    low, high = logits.min(1, keepdim=True).values, logits.max(1, keepdim=True).values
    tau = gats.temperature(((logits - low) / (high - low)).sort(1).values).detach()
    confidence = logits.softmax(1).amax(1)
    source, target = gats.edges
    scaled = logits / gamma.unsqueeze(1)
    score = torch.nn.functional.leaky_relu((scaled[source] * scaled[target]).sum(1), 0.2)
    temperatures = torch.empty(logits.size(0))
    for i in range(logits.size(0)):
        into = target == i
        alpha = score[into].softmax(0)
        neighbours = source[into]
        smoothed = (alpha.unsqueeze(1) * (tau * gamma.unsqueeze(1))[neighbours]).sum(0)
        spread = (confidence[i] - confidence[neighbours]).sum() / into.sum()
        inner = smoothed + gats.confidence_weight.detach() * spread
        temperatures[i] = torch.nn.functional.softplus(inner).mean() + gats.bias.detach()
    return temperatures.unsqueeze(1)


def test_gats_temperatures_follow_the_formula_on_any_subset_of_nodes(graph):
    data, train, val, logits = _overconfident(graph)
    gats = GATS(2, data.edge_index, train.nonzero().view(-1), data.num_nodes)
    with torch.no_grad():  # factors away from their initial 1 and 0
        gats.train_factor.fill_(0.7)
        gats.neighbour_factor.fill_(1.4)
        gats.confidence_weight.fill_(0.5)
    reference = _reference_temperatures(gats, logits)
    full = gats.node_temperatures(logits).detach()
    assert torch.allclose(full, reference, atol=1e-5)
    nodes = torch.cat([val.nonzero().view(-1), train.nonzero().view(-1)]).unique()
    part = gats.node_temperatures(logits, gats.logit_features(logits, nodes)).detach()
    assert torch.allclose(part, full[nodes], rtol=0, atol=1e-6)  # summed in another order
    calibrated = gats(logits, gats.logit_features(logits, nodes)).detach()
    assert torch.allclose(calibrated, (logits / full)[nodes], rtol=1e-6, atol=0)
