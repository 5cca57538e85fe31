"""Graph self-training: BANGS (Banzhaf-value pseudo-labels) and its baselines.

Every method runs after any rewiring: give it the rewired graph. By name::

    method = get_self_trainer("bangs", top_k=100, rounds=40)
    result = method.fit(data, train_mask, val_mask, test_mask, "gcn", config, seed=0)
"""

from __future__ import annotations

from typing import Any

from rewirekit.errors import RewireError
from rewirekit.selftrain.bangs import BANGS
from rewirekit.selftrain.baselines import M3S, ConfidenceSelfTraining
from rewirekit.selftrain.calibration import GATS, TemperatureScaling, calibrate
from rewirekit.selftrain.loop import (
    RoundRecord,
    Selection,
    SelectionContext,
    SelfTrainingMethod,
    SelfTrainResult,
    self_train,
)

SELF_TRAINERS: dict[str, type[SelfTrainingMethod]] = {
    cls.name: cls for cls in (BANGS, ConfidenceSelfTraining, M3S)
}


def list_self_trainers() -> list[str]:
    """Names accepted by :func:`get_self_trainer`."""
    return list(SELF_TRAINERS)


def get_self_trainer(name: str, **params: Any) -> SelfTrainingMethod:
    """The self-training method called ``name`` with hyperparameters ``params``."""
    key = str(name).lower()
    if key not in SELF_TRAINERS:
        raise RewireError(
            f"unknown self-training method {name!r}; choose one of: {', '.join(SELF_TRAINERS)}."
        )
    try:
        return SELF_TRAINERS[key](**params)
    except TypeError as error:
        raise RewireError(f"bad parameters for self-training method {key!r}: {error}") from None


__all__ = [
    "BANGS",
    "ConfidenceSelfTraining",
    "M3S",
    "GATS",
    "TemperatureScaling",
    "calibrate",
    "self_train",
    "SelfTrainingMethod",
    "SelfTrainResult",
    "RoundRecord",
    "Selection",
    "SelectionContext",
    "SELF_TRAINERS",
    "get_self_trainer",
    "list_self_trainers",
]
