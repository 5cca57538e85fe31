"""Timing helper shared by the speed benchmarks."""
from __future__ import annotations

import time
from typing import Callable


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """Smallest wall time, in seconds, of ``repeat`` calls of ``run``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
