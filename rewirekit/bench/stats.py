"""Summaries of repeated runs (one value per split) and paired comparisons of two methods.

The two papers report spread differently, so a :class:`Summary` carries both:

* JDR: mean ± the half-width of a 95% bootstrap confidence interval of the mean (1000
  resamples). The official code prints ``max(|hi - mean|, |mean - lo|)`` from
  ``scipy.stats.bootstrap``, whose default method is BCa; the default here is the percentile
  method, and ``method="BCa"`` gives the official numbers.
* ComFy: mean ± ``2 * std / sqrt(n)`` with the population standard deviation (``np.std``).

Values are summarised as given: percent or fraction, nothing is rescaled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from rewirekit.errors import RewireError

BootstrapMethod = Literal["percentile", "BCa"]


@dataclass(frozen=True)
class Summary:
    """Mean and spread of ``n`` values.

    Attributes:
        n: number of values.
        mean: their mean.
        std: population standard deviation (``ddof=0``, as both official codes compute it).
        ci_low, ci_high: 95% bootstrap confidence interval of the mean.
        ci_half_width: ``max(ci_high - mean, mean - ci_low)``, the "±" JDR reports.
        two_sigma: ``2 * std / sqrt(n)``, the "±" ComFy reports.

    With ``n == 1`` there is no spread to estimate: ``std``, the interval and both half-widths
    are NaN.
    """

    n: int
    mean: float
    std: float
    ci_low: float
    ci_high: float
    ci_half_width: float
    two_sigma: float


@dataclass(frozen=True)
class PairedComparison:
    """Method ``a`` against method ``b`` on the same splits (differences are ``a - b``).

    Attributes:
        n: number of pairs.
        mean_diff: mean of the differences.
        ci_low, ci_high: 95% bootstrap confidence interval of the mean difference.
        p_value: two-sided Wilcoxon signed-rank p-value (1.0 when all differences are zero,
            NaN for a single pair).
        wins, losses, ties: pairs with ``a > b``, ``a < b``, ``a == b``.
    """

    n: int
    mean_diff: float
    ci_low: float
    ci_high: float
    p_value: float
    wins: int
    losses: int
    ties: int


def summarize(
    values: Sequence[float] | np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    method: BootstrapMethod = "percentile",
) -> Summary:
    """Mean, standard deviation and the 95% bootstrap CI of the mean of ``values``.

    Args:
        values: one value per split (at least one, all finite).
        n_boot: bootstrap resamples.
        seed: seed of the resampling; the same values and seed give the same interval.
        method: ``"percentile"`` or ``"BCa"`` (the official JDR code's choice).

    Example:
        >>> s = summarize([80.0, 82.0, 81.0, 79.0])
        >>> s.mean, round(s.two_sigma, 3)
        (80.5, 1.118)
    """
    x = _as_array(values, "values")
    mean = float(x.mean())
    if x.size == 1:
        nan = math.nan
        return Summary(1, mean, nan, nan, nan, nan, nan)
    std = float(x.std())
    low, high = _bootstrap_ci(x, n_boot, seed, method)
    return Summary(
        int(x.size),
        mean,
        std,
        low,
        high,
        max(high - mean, mean - low),
        2.0 * std / math.sqrt(x.size),
    )


def paired_comparison(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    method: BootstrapMethod = "percentile",
    test: bool = True,
) -> PairedComparison:
    """Compare two methods run on the same splits: ``a[i]`` and ``b[i]`` share split ``i``.

    Returns the mean difference ``a - b`` with its 95% bootstrap CI, the two-sided Wilcoxon
    signed-rank test (zero differences dropped, scipy's default), and win/loss/tie counts.
    With ``test=False`` the test is skipped (``p_value`` is NaN): with tied differences scipy
    runs it as a permutation test, by far the costliest part of a comparison.

    Identical values give exact zeros: ``mean_diff == ci_low == ci_high == 0.0``.
    """
    x, y = _as_array(a, "a"), _as_array(b, "b")
    if x.shape != y.shape:
        raise RewireError(
            f"paired values need one value per shared split: a has {x.size}, "
            f"b has {y.size}; align both on the same split ids."
        )
    diff = x - y
    wins, losses = int((diff > 0).sum()), int((diff < 0).sum())
    ties = int(diff.size) - wins - losses
    summary = summarize(diff, n_boot=n_boot, seed=seed, method=method)
    if diff.size == 1 or not test:
        p_value = math.nan
    elif ties == diff.size:
        p_value = 1.0
    else:
        p_value = float(stats.wilcoxon(x, y).pvalue)
    return PairedComparison(
        summary.n, summary.mean, summary.ci_low, summary.ci_high, p_value, wins, losses, ties
    )


def intervals_overlap(lo1: float, hi1: float, lo2: float, hi2: float) -> bool:
    """Whether the closed intervals ``[lo1, hi1]`` and ``[lo2, hi2]`` share a point.

    This is the reproduction criterion: our 95% interval overlaps the paper's.
    """
    for lo, hi in ((lo1, hi1), (lo2, hi2)):
        if not lo <= hi:
            raise RewireError(
                f"an interval needs lo <= hi, got [{lo}, {hi}]; pass the lower bound first."
            )
    return lo1 <= hi2 and lo2 <= hi1


def _bootstrap_ci(
    x: np.ndarray, n_boot: int, seed: int, method: BootstrapMethod
) -> tuple[float, float]:
    if n_boot < 1:
        raise RewireError(f"n_boot must be >= 1, got {n_boot}.")
    if method not in ("percentile", "BCa"):
        raise RewireError(f"method must be 'percentile' or 'BCa', got {method!r}.")
    if np.ptp(x) == 0:  # every resample has the same mean; BCa would be undefined
        return float(x.mean()), float(x.mean())
    result = stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=n_boot,
        confidence_level=0.95,
        method=method,
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _as_array(values: Sequence[float] | np.ndarray, name: str) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise RewireError(
            f"{name} must be a non-empty 1-d sequence of numbers, got shape {x.shape}."
        )
    if not np.isfinite(x).all():
        raise RewireError(f"{name} contains NaN or infinite values; drop failed runs first.")
    return x
