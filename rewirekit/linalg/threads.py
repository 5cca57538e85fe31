"""BLAS thread limits around ARPACK calls and inside their operators.

ARPACK makes thousands of small BLAS-2 calls (products with one vector and the
reorthogonalisation against its basis); threading them costs more than it saves: on two
threads, one BLAS thread was 3.6× faster for 64 eigenpairs at N = 20,000 and 2.7× for a
Fiedler vector at N = 100,000 (``benchmarks/arpack_threads.py``). The products with a
large low-rank factor inside its operator are the exception: they stream an ``N×q`` matrix
and gain from more cores (1.18× on two threads at N = 169,343, q = 768;
``benchmarks/lowrank_threads.py``), so operators may restore the caller's thread count for them.
"""

from __future__ import annotations

import contextlib
import functools

from threadpoolctl import ThreadpoolController


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
