"""Banzhaf values by MSR against exact enumeration, and the propagation utility by hand."""

import itertools
import math

import numpy as np
import pytest
import torch

from rewirekit.errors import RewireError
from rewirekit.selftrain.banzhaf import (
    PropagationUtility,
    banzhaf_msr,
    candidate_set,
    normalized_adjacency,
    sample_coalitions,
)

WEIGHTS = np.array([0.5, -0.2, 1.0, 0.3, 0.0, -0.7])


def hand_utility(members: np.ndarray) -> float:
    """Additive weights, a three-way synergy of players 0, 1, 2 and a size penalty: its
    Banzhaf and Shapley values differ (player 0's synergy share: 1/4 against 1/3)."""
    size = members.sum()
    return float(WEIGHTS @ members + 2.0 * members[:3].all() - 0.1 * size**2)


def exact_banzhaf(num_players: int) -> np.ndarray:
    values = np.zeros(num_players)
    for bits in itertools.product([0, 1], repeat=num_players - 1):
        others = np.array(bits)
        for i in range(num_players):
            without = np.insert(others, i, 0)
            with_i = np.insert(others, i, 1)
            values[i] += hand_utility(with_i) - hand_utility(without)
    return values / 2 ** (num_players - 1)


def utilities_of(coalitions: torch.Tensor) -> torch.Tensor:
    return torch.tensor(
        [hand_utility(row) for row in coalitions.numpy().astype(int)], dtype=torch.float64
    )


def test_msr_over_every_coalition_is_the_exact_banzhaf_value():
    players = len(WEIGHTS)
    every = torch.tensor(list(itertools.product([0, 1], repeat=players)), dtype=torch.bool)
    exact = exact_banzhaf(players)
    assert exact[0] == pytest.approx(0.5 + 2.0 / 4 - 0.1 * players)  # synergy share 1/4
    np.testing.assert_allclose(banzhaf_msr(every, utilities_of(every)).numpy(), exact, atol=1e-12)


def test_msr_sampled_estimate_converges_to_the_exact_value():
    players = len(WEIGHTS)
    generator = torch.Generator().manual_seed(0)
    coalitions = sample_coalitions(players, 20000, max_size=None, generator=generator)
    estimate = banzhaf_msr(coalitions, utilities_of(coalitions)).numpy()
    np.testing.assert_allclose(estimate, exact_banzhaf(players), atol=0.05)


def test_sampling_is_seeded_and_respects_the_size_cap():
    draw = lambda: sample_coalitions(8, 300, max_size=3, generator=torch.Generator().manual_seed(4))  # noqa: E731
    first = draw()
    assert first.shape == (300, 8) and first.dtype == torch.bool
    assert int(first.sum(dim=1).max()) <= 3
    assert torch.equal(first, draw())
    free = sample_coalitions(8, 4000, max_size=None, generator=torch.Generator().manual_seed(4))
    assert abs(float(free.float().mean()) - 0.5) < 0.02
    assert int(free.sum(dim=1).max()) > 3


def test_msr_refuses_a_player_never_left_out():
    coalitions = torch.tensor([[True, False], [True, True]])
    with pytest.raises(RewireError, match="undefined"):
        banzhaf_msr(coalitions, torch.tensor([1.0, 2.0]))


def test_candidate_set_takes_the_most_confident_eligible_nodes():
    confidence = torch.tensor([0.9, 0.8, 0.95, 0.1, 0.8, 0.7])
    eligible = torch.tensor([True, True, False, True, True, True])
    assert candidate_set(confidence, eligible, 3).tolist() == [0, 1, 4]
    assert candidate_set(confidence, eligible, 10).tolist() == [0, 1, 4, 5, 3]


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _entropy(p):
    return -(p * np.log(p + 1e-9)).sum(axis=-1)


@pytest.mark.parametrize("faithful", [False, True])
def test_utility_on_a_path_matches_a_hand_computation(faithful):
    # path 0 - 1 - 2 - 3 and an isolated node 4 that no player reaches; node 0 is the
    # training node (class 1); players: nodes 2 and 3
    edge_index = torch.tensor([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])
    w = 2.0 if faithful else 1.0
    a = np.zeros((5, 5))
    a[[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]] = 1.0
    a += w * np.eye(5)
    d = a.sum(axis=1) ** -0.5
    a_hat = d[:, None] * a * d[None, :]
    beta = 0.75
    m = beta * a_hat + beta**2 * a_hat @ a_hat
    x = np.array([[0.0, 1.0], [0.6, 0.4], [0.2, 0.8], [0.9, 0.1], [0.3, 0.7]])
    coalition = np.array([0, 0, 1, 1, 0])  # both players: nodes 2 and 3
    sources = np.array([1, 0, 0, 0, 0])
    logits = m @ (x * sources[:, None]) + m @ (x * coalition[:, None])
    p = _softmax(logits)
    train_p = p[0]  # the training term's sources are the same here (no pseudo-labels)
    if faithful:
        target = _softmax(x[0])
        cross = -(target * np.log(_softmax(train_p))).sum()
    else:
        cross = -math.log(train_p[1] + 1e-9)
    expected = _entropy(p.mean(axis=0)) - _entropy(p).mean() - cross

    adjacency = normalized_adjacency(
        edge_index, None, 5, double_self_loops=faithful, dtype=torch.float64
    )
    np.testing.assert_allclose(adjacency.to_dense().numpy(), a_hat, atol=1e-12)
    utility = PropagationUtility(
        adjacency,
        beta,
        torch.tensor(x),
        torch.tensor([0]),
        torch.tensor([0]),
        torch.tensor([0]),
        torch.tensor([1]),
        torch.tensor([2, 3]),
        faithful=faithful,
    )
    values = utility(torch.tensor([[True, True], [False, False], [True, False]]))
    assert float(values[0]) == pytest.approx(expected, abs=1e-9)
    only_2 = m @ (x * sources[:, None]) + m @ (x * np.array([0, 0, 1, 0, 0])[:, None])
    assert float(values[2]) != pytest.approx(float(values[0]), abs=1e-6)
    p2 = _softmax(only_2)
    cross2 = (
        -(_softmax(x[0]) * np.log(_softmax(p2[0]))).sum()
        if faithful
        else -math.log(p2[0, 1] + 1e-9)
    )
    assert float(values[2]) == pytest.approx(
        _entropy(p2.mean(axis=0)) - _entropy(p2).mean() - cross2, abs=1e-9
    )


def test_capped_sampling_keeps_the_law_when_drawn_directly():
    """12 players capped at 3 keep 299 of 4096 draws (< MIN_ACCEPTANCE): drawn directly, the
    sizes follow the binomial law cut at 3 and every player is equally likely in."""

    def draw(seed):
        generator = torch.Generator().manual_seed(seed)
        return sample_coalitions(12, 20000, max_size=3, generator=generator)

    coalitions = draw(1)
    assert torch.equal(coalitions, draw(1)) and not torch.equal(coalitions, draw(2))
    sizes = torch.bincount(coalitions.sum(dim=1), minlength=4).double() / 20000
    expected = torch.tensor([1.0, 12.0, 66.0, 220.0], dtype=torch.float64) / 299
    assert sizes.numel() == 4 and torch.allclose(sizes, expected, atol=0.01)
    inclusion = coalitions.double().mean(dim=0)
    mean_size = float((torch.arange(4) * expected).sum())
    assert torch.allclose(
        inclusion, torch.full((12,), mean_size / 12, dtype=torch.float64), atol=0.01
    )
