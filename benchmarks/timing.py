"""Timing helpers shared by the speed and scale benchmarks."""

from __future__ import annotations

import os
import time
from collections.abc import Callable


def set_threads(threads: int) -> None:
    """The same thread count for OpenMP, MKL, OpenBLAS and torch. Call it before numpy,
    scipy or torch do heavy work: the BLAS libraries read their variables when they start."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    import torch

    torch.set_num_threads(threads)


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """Smallest wall time, in seconds, of ``repeat`` calls of ``run``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
