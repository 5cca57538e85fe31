"""Declarative search spaces: :class:`IntRange`, :class:`FloatRange` and :class:`Choice`.

A method declares its space as a mapping from constructor parameters to dimensions
(:attr:`rewirekit.methods.base.Rewirer.search_space`); the fair protocol adds the model's
training hyperparameters (:func:`rewirekit.bench.presets.model_space`). The dimensions say
what to sample, not how: the tuner turns them into Optuna distributions
(:func:`rewirekit.bench.tuning.to_optuna`), and :func:`sample` draws from them with NumPy
alone, for the conformance suite.

Example::

    >>> space = {"add": Choice((0, 10, 50)), "eta": FloatRange(0.0, 0.5)}
    >>> params = sample(space, np.random.default_rng(0))
    >>> sorted(params)
    ['add', 'eta']
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from rewirekit.errors import RewireError


@dataclass(frozen=True)
class IntRange:
    """Integers ``low ≤ v ≤ high``, uniform or (``log=True``) log-uniform."""

    low: int
    high: int
    log: bool = False

    def __post_init__(self) -> None:
        _check_bounds(self.low, self.high, self.log)

    def sample(self, rng: np.random.Generator) -> int:
        if self.log:
            value = math.exp(rng.uniform(math.log(self.low), math.log(self.high + 1)))
            return min(int(value), self.high)
        return int(rng.integers(self.low, self.high + 1))

    def extremes(self) -> tuple[int, ...]:
        return (self.low, self.high)

    def size(self) -> float:
        return float(self.high - self.low + 1)


@dataclass(frozen=True)
class FloatRange:
    """Reals ``low ≤ v ≤ high``, uniform or (``log=True``) log-uniform."""

    low: float
    high: float
    log: bool = False

    def __post_init__(self) -> None:
        _check_bounds(self.low, self.high, self.log)

    def sample(self, rng: np.random.Generator) -> float:
        if self.log:
            return float(math.exp(rng.uniform(math.log(self.low), math.log(self.high))))
        return float(rng.uniform(self.low, self.high))

    def extremes(self) -> tuple[float, ...]:
        return (self.low, self.high)

    def size(self) -> float:
        return math.inf


#: What a :class:`Choice` may offer (what Optuna's categorical distribution stores).
ChoiceValue: TypeAlias = bool | int | float | str | None


@dataclass(frozen=True)
class Choice:
    """One of a fixed tuple of values (numbers, strings, booleans)."""

    values: tuple[ChoiceValue, ...]

    def __post_init__(self) -> None:
        if not self.values or len(set(self.values)) != len(self.values):
            raise RewireError(f"a Choice needs distinct values, got {self.values!r}.")

    def sample(self, rng: np.random.Generator) -> Any:
        return self.values[int(rng.integers(len(self.values)))]

    def extremes(self) -> tuple[ChoiceValue, ...]:
        return self.values

    def size(self) -> float:
        return float(len(self.values))


Dimension: TypeAlias = IntRange | FloatRange | Choice
#: A search space: one dimension per parameter name.
SearchSpace: TypeAlias = Mapping[str, Dimension]


def sample(space: SearchSpace, rng: np.random.Generator) -> dict[str, Any]:
    """One parameter set drawn from ``space`` (each dimension independently)."""
    return {name: dim.sample(rng) for name, dim in space.items()}


def extreme_points(space: SearchSpace) -> list[dict[str, Any]]:
    """Parameter sets that visit every bound of every range and every value of every choice:
    point ``i`` takes the ``i``-th extreme of each dimension (the last one once it runs out).
    """
    count = max((len(dim.extremes()) for dim in space.values()), default=0)
    return [
        {name: dim.extremes()[min(i, len(dim.extremes()) - 1)] for name, dim in space.items()}
        for i in range(count)
    ]


def space_size(space: SearchSpace) -> float:
    """Number of distinct parameter sets (``math.inf`` if any dimension is continuous)."""
    return math.prod(dim.size() for dim in space.values())


def _check_bounds(low: float, high: float, log: bool) -> None:
    if not low <= high:
        raise RewireError(f"a range needs low <= high, got [{low}, {high}].")
    if log and low <= 0:
        raise RewireError(f"a log range needs low > 0, got {low}.")


#: Edit budgets of the ComFy paper's code grid (Rubio-Madrigal et al., ICLR 2025; the
#: Planetoid grid of ComMa, also the budgets its baselines are searched over).
COMFY_BUDGETS = Choice((0, 10, 50, 100, 500, 1000))
