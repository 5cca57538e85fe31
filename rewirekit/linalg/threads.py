"""Thread counts: BLAS limits around ARPACK calls, and torch's count kept across numba kernels.

ARPACK makes thousands of small BLAS-2 calls (products with one vector and the
reorthogonalisation against its basis); threading them costs more than it saves: on two
threads, one BLAS thread was 3.6× faster for 64 eigenpairs at N = 20,000 and 2.7× for a
Fiedler vector at N = 100,000 (``benchmarks/arpack_threads.py``). The products with a
large low-rank factor inside its operator are the exception: they stream an ``N×q`` matrix
and gain from more cores (1.18× on two threads at N = 169,343, q = 768;
``benchmarks/lowrank_threads.py``), so operators may restore the caller's thread count for them.

numba's OpenMP threading layer runs on the libgomp that torch loaded, and starting numba's
thread pool can set that runtime's thread count, torch's intra-op count, to numba's (every
core by default): :func:`keeps_torch_threads` gives torch its count back.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import torch
from threadpoolctl import ThreadpoolController

_P = ParamSpec("_P")
_R = TypeVar("_R")


def single_threaded_blas() -> contextlib.AbstractContextManager:
    """A context in which BLAS runs on one thread, for ARPACK calls."""
    return blas_threads(1)


def blas_threads(count: int) -> contextlib.AbstractContextManager:
    """A context in which BLAS runs on ``count`` threads."""
    return _blas_pools().limit(limits=count, user_api="blas")


def blas_thread_count() -> int:
    """The number of threads BLAS uses now (the largest over the loaded libraries)."""
    return max(
        (pool.num_threads for pool in _blas_pools().select(user_api="blas").lib_controllers),
        default=1,
    )


@functools.cache
def _blas_pools() -> ThreadpoolController:
    """The loaded thread pools, found once (a fresh search costs about 1 ms a call)."""
    return ThreadpoolController()


def keeps_torch_threads(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a function that launches numba ``prange`` kernels: torch's intra-op thread
    count is the same after a call as before it.

    numba starts its thread pool at the first parallel launch of a process; once torch has
    read its count, that start sets it to numba's. Without this, a caller that set torch to
    one thread (the benchmark runner does) would train on numba's count after a curvature
    computation, oversubscribing cores that another process shares, and training results
    that depend on the thread count would change.
    """

    @functools.wraps(function)
    def kept(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        count = torch.get_num_threads()
        try:
            return function(*args, **kwargs)
        finally:
            torch.set_num_threads(count)

    return kept
