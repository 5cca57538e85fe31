import math

import numpy as np
import pytest

from rewirekit.bench import intervals_overlap, paired_comparison, summarize
from rewirekit.errors import RewireError


def test_constant_values():
    s = summarize([77.5] * 10)
    assert (s.n, s.mean, s.std, s.two_sigma) == (10, 77.5, 0.0, 0.0)
    assert (s.ci_low, s.ci_high, s.ci_half_width) == (77.5, 77.5, 0.0)
    assert summarize([0.5] * 4, method="BCa").ci_half_width == 0.0


def test_known_small_sample():
    s = summarize([80.0, 82.0, 81.0, 79.0])
    assert s.mean == 80.5
    assert s.std == pytest.approx(math.sqrt(1.25))  # population std, as np.std
    assert s.two_sigma == pytest.approx(2 * math.sqrt(1.25) / 2)
    assert 79.0 <= s.ci_low < s.mean < s.ci_high <= 82.0
    assert s.ci_half_width == max(s.ci_high - s.mean, s.mean - s.ci_low)


def test_bootstrap_is_seeded_and_matches_normal_theory():
    values = np.random.default_rng(1).normal(80.0, 1.0, size=100)
    a, b = summarize(values, seed=5), summarize(values, seed=5)
    assert a == b
    # 95% CI of a mean of 100 unit-variance values: half-width close to 1.96 / 10
    assert a.ci_half_width == pytest.approx(0.196, abs=0.04)
    bca = summarize(values, method="BCa")
    assert bca.ci_half_width == pytest.approx(a.ci_half_width, abs=0.04)


def test_fractions_are_not_rescaled():
    s = summarize([0.80, 0.82])
    assert s.mean == pytest.approx(0.81) and s.ci_high <= 0.82


def test_single_value_has_no_spread():
    s = summarize([3.0])
    assert (s.n, s.mean) == (1, 3.0)
    assert all(math.isnan(v) for v in (s.std, s.ci_low, s.ci_high, s.ci_half_width, s.two_sigma))


@pytest.mark.parametrize("values", [[], [1.0, float("nan")], [[1.0, 2.0]]])
def test_bad_values_raise(values):
    with pytest.raises(RewireError):
        summarize(values)


def test_bad_bootstrap_options_raise():
    with pytest.raises(RewireError):
        summarize([1.0, 2.0], method="bca")
    with pytest.raises(RewireError):
        summarize([1.0, 2.0], n_boot=0)


def test_shifted_pair_is_a_clear_win():
    b = np.random.default_rng(0).normal(70.0, 2.0, size=30)
    a = b + 1.0 + np.random.default_rng(1).normal(0.0, 0.1, size=30)
    c = paired_comparison(a, b)
    assert c.n == 30 and c.mean_diff == pytest.approx(1.0, abs=0.1)
    assert c.ci_low > 0.0
    assert c.p_value < 1e-4
    assert (c.wins, c.losses, c.ties) == (30, 0, 0)


def test_identical_pair():
    a = [70.0, 71.0, 72.0]
    c = paired_comparison(a, a)
    assert (c.mean_diff, c.ci_low, c.ci_high, c.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert (c.wins, c.losses, c.ties) == (0, 0, 3)


def test_paired_counts_and_single_pair():
    c = paired_comparison([1.0, 2.0, 3.0, 4.0], [0.0, 2.0, 5.0, 3.0])
    assert (c.wins, c.losses, c.ties) == (2, 1, 1)
    assert 0.0 < c.p_value <= 1.0
    single = paired_comparison([1.0], [0.0])
    assert single.mean_diff == 1.0 and math.isnan(single.p_value) and math.isnan(single.ci_low)


def test_paired_lengths_must_match():
    with pytest.raises(RewireError, match="same split ids"):
        paired_comparison([1.0, 2.0], [1.0])


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ((0.0, 1.0), (0.5, 2.0), True),
        ((0.0, 1.0), (1.0, 2.0), True),  # touching
        ((0.0, 1.0), (1.5, 2.0), False),
        ((1.5, 2.0), (0.0, 1.0), False),
        ((0.0, 3.0), (1.0, 2.0), True),  # nested
    ],
)
def test_intervals_overlap(a, b, expected):
    assert intervals_overlap(*a, *b) is expected


def test_reversed_interval_raises():
    with pytest.raises(RewireError, match="lo <= hi"):
        intervals_overlap(2.0, 1.0, 0.0, 3.0)
