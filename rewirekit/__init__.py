"""rewirekit: graph rewiring for GNNs, exact and fast, with an honest benchmark harness.

``rewirekit.auto(data)`` (:func:`rewirekit.bench.auto.auto`, imported on first use) picks the
rewiring, if any, that helps on ``data`` and returns it ready, with the reasons.
"""

from typing import Any

from rewirekit.errors import RewireError
from rewirekit.methods import (
    Identity,
    RandomRewirer,
    Rewirer,
    RewireReport,
    get_method,
    list_methods,
    rewire,
)

__version__ = "0.1.0"

__all__ = [
    "RewireError",
    "Rewirer",
    "RewireReport",
    "get_method",
    "rewire",
    "list_methods",
    "Identity",
    "RandomRewirer",
    "auto",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # ``auto`` needs the benchmark harness (Optuna, the trainer): loaded when first asked for
    if name == "auto":
        from rewirekit.bench.auto import auto

        return auto
    raise AttributeError(f"module 'rewirekit' has no attribute {name!r}")
