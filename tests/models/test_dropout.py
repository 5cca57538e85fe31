"""The fast CPU dropout equals torch's, bit for bit, including the generator's later draws."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from rewirekit.bench.training import TrainConfig, train_node_classifier
from rewirekit.datasets import csbm
from rewirekit.models import dropout as dropout_module
from rewirekit.models.dropout import _bernoulli, dropout


def _both(x: torch.Tensor, p: float, seed: int, skip: int):
    """(torch's output, its next draws) and (ours, our next draws) from one generator state."""
    results = []
    for fn in (F.dropout, dropout):
        torch.manual_seed(seed)
        torch.rand(skip)  # start anywhere in the Mersenne Twister's 624-word block
        out = fn(x, p, True)
        results.append((out, torch.rand(5)))
    return results


def test_the_fast_path_runs_on_torch_generator_state():
    # Without this, every comparison below could pass through the F.dropout fallback.
    assert _bernoulli(torch.empty(10), 0.5) is not None


@pytest.mark.parametrize("case", range(40))
def test_equals_torch_dropout_and_leaves_the_generator_where_torch_does(case):
    rng = np.random.default_rng(case)
    size = int(rng.integers(1, 40_000))  # across the 8192-element chunks and 624-word twists
    p = float(rng.random())
    dtype = torch.float64 if case % 4 == 0 else torch.float32
    x = torch.randn(size, dtype=dtype) + 3.0
    (expected, expected_next), (got, got_next) = _both(x, p, case, int(rng.integers(0, 2000)))
    assert torch.equal(got, expected)
    assert torch.equal(got_next, expected_next)


@pytest.mark.parametrize("p", [1e-12, 0.5, 1 - 1e-12])
def test_equals_torch_dropout_at_extreme_rates(p):
    x = torch.rand(300, 70)
    (expected, expected_next), (got, got_next) = _both(x, p, 3, 11)
    assert torch.equal(got, expected)
    assert torch.equal(got_next, expected_next)


def test_gradients_equal_torch_dropout():
    grads = []
    for fn in (F.dropout, dropout):
        x = torch.rand(500, 30, requires_grad=True)
        torch.manual_seed(0)
        (fn(x, 0.4, True) * torch.arange(30.0)).sum().backward()
        grads.append(x.grad)
    assert torch.equal(grads[0], grads[1])


def test_what_it_does_not_draw_for_matches_torch():
    x = torch.rand(50, 8)
    assert dropout(x, 0.5, False) is x
    assert dropout(x, 0.0, True) is x
    assert torch.equal(dropout(x, 1.0, True), torch.zeros_like(x))
    transposed = x.t()  # not contiguous: torch's own kernel draws it
    (expected, expected_next), (got, got_next) = _both(transposed, 0.3, 1, 0)
    assert torch.equal(got, expected) and torch.equal(got_next, expected_next)
    with pytest.raises(ValueError, match="between 0 and 1"):
        dropout(x, 1.5, True)


@pytest.mark.parametrize("model", ["gcn", "gprgnn", "mlp", "sage"])
def test_training_results_equal_those_with_torch_dropout(model, monkeypatch):
    data = csbm(num_nodes=300, num_features=60, phi=0.3, seed=0)
    masks = [torch.zeros(300, dtype=torch.bool) for _ in range(3)]
    for i, mask in enumerate(masks):
        mask[i::3] = True
    config = TrainConfig(max_epochs=40, early_stopping="none", dropout=0.5)

    def run():
        return train_node_classifier(data, *masks, model, config, seed=7, keep_logits=True)

    fast = run()
    monkeypatch.setattr(dropout_module, "_bernoulli", lambda out, keep: None)
    reference = run()
    assert (fast.test_acc, fast.val_acc, fast.best_epoch) == (
        reference.test_acc,
        reference.val_acc,
        reference.best_epoch,
    )
    assert torch.equal(fast.logits, reference.logits)
