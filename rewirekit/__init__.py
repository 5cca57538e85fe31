"""rewirekit: graph rewiring for GNNs, exact and fast, with an honest benchmark harness."""

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
    "__version__",
]
