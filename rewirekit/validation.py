"""Argument checks shared by methods, algorithms, generators and models.

Each ``check_*`` returns the value in its canonical Python type, or raises
:class:`~rewirekit.errors.RewireError` with a message that says what to pass instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet


def check_int(name: str, value: Any, minimum: int) -> int:
    """An integer (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise RewireError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def check_fraction(name: str, value: Any) -> float:
    """A number in ``[0, 1]``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise RewireError(f"{name} must be a number in [0, 1], got {value!r}.")
    return float(value)


def check_bool(name: str, value: Any) -> bool:
    """``True`` or ``False`` (numpy booleans included)."""
    if not isinstance(value, (bool, np.bool_)):
        raise RewireError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """One of the strings ``choices``."""
    if value not in choices:
        raise RewireError(f"{name} must be one of {choices}, got {value!r}.")
    return str(value)


def check_seed(seed: Any) -> int:
    """A non-negative integer seed."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise RewireError(f"seed must be a non-negative integer, got {seed!r}.")
    return int(seed)


def check_budget(name: str, value: Any) -> int:
    """A budget is a non-negative number of edges."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise RewireError(f"{name} must be a non-negative integer number of edges, got {value!r}.")
    return int(value)


def check_feasible(edges: EdgeSet, add: int = 0, delete: int = 0) -> None:
    """Raise :class:`RewireError` if ``edges`` has fewer non-edges than ``add`` or fewer
    edges than ``delete``."""
    free = edges.max_pairs - edges.num_pairs
    if add > free:
        raise RewireError(
            f"cannot add {add} edges: the graph has only {free} non-edges; lower the add budget."
        )
    if delete > edges.num_pairs:
        raise RewireError(
            f"cannot delete {delete} edges: the graph has only {edges.num_pairs}; "
            "lower the delete budget."
        )


def check_number(name: str, value: Any, minimum: float | None = None) -> float:
    """A finite real number (not a bool), at least ``minimum`` if given."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not np.isfinite(value)
        or (minimum is not None and value < minimum)
    ):
        bound = f" >= {minimum}" if minimum is not None else ""
        raise RewireError(f"{name} must be a finite number{bound}, got {value!r}.")
    return float(value)
