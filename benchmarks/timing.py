"""Timing helpers shared by the speed and scale benchmarks.

A speed table is measured under one :class:`Protocol`, fixed before anything runs and the
same for every row and for every implementation in it (ours and the official code alike):
``warmup`` untimed calls, then ``repeats`` timed calls, reported as their median and their
minimum. Ratios are ratios of medians. A row is never re-measured under another protocol:
to change the protocol, rerun the whole table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def set_threads(threads: int) -> None:
    """The same thread count for OpenMP, MKL, OpenBLAS and torch: the variables for the
    libraries loaded later, and ``threadpoolctl`` limits for those already loaded (a script
    that imported numpy first has its OpenBLAS pools started with one thread per core)."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(threads)
    _LIMITS.append(threadpool_limits(limits=threads))  # kept: the limits hold while it lives


_LIMITS: list[object] = []


def process_cpu_seconds() -> float:
    """CPU time of this process so far, user + system, all its threads."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Timing:
    """Wall times, in seconds, of the timed calls of one measurement."""

    seconds: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def minimum(self) -> float:
        return min(self.seconds)

    def cell(self, width: int = 17) -> str:
        """``"3.33s (3.20)"``: the median, the minimum in brackets (three decimals below 1 s),
        right-aligned to ``width``."""
        digits = 2 if self.median >= 1 else 3
        return f"{self.median:.{digits}f}s ({self.minimum:.{digits}f})".rjust(width)


@dataclass(frozen=True)
class Protocol:
    """How every figure of a speed table is measured.

    Attributes:
        repeats: timed calls per figure (at least 1).
        warmup: untimed calls before them (imports, allocator and BLAS start-up).
    """

    repeats: int = 3
    warmup: int = 1

    def __post_init__(self) -> None:
        if self.repeats < 1 or self.warmup < 0:
            raise ValueError(
                f"a protocol needs repeats >= 1 and warmup >= 0, got {self.repeats} and "
                f"{self.warmup}"
            )

    @classmethod
    def add_arguments(
        cls, parser: argparse.ArgumentParser, repeats: int = 3, warmup: int = 1
    ) -> None:
        """``--repeat`` and ``--warmup``, with this table's defaults."""
        parser.add_argument("--repeat", type=int, default=repeats, help="timed calls per figure")
        parser.add_argument("--warmup", type=int, default=warmup, help="untimed calls first")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Protocol:
        return cls(repeats=args.repeat, warmup=args.warmup)

    def describe(self) -> str:
        """The line a table prints above its rows."""
        warm = f"{self.warmup} untimed warm-up call" + ("s" if self.warmup != 1 else "")
        return (
            f"protocol: {warm}, then {self.repeats} timed; each figure is the median "
            "(minimum in brackets); ratios are ratios of medians"
        )

    def measure(self, run: Callable[[], object]) -> Timing:
        """Time ``run`` under this protocol."""
        return self.timed(run)[1]

    def timed(self, run: Callable[[], T]) -> tuple[T, Timing]:
        """Time ``run`` under this protocol; also return what its last call returned."""
        for _ in range(self.warmup):
            run()
        seconds = []
        for _ in range(self.repeats):
            start = time.perf_counter()
            result = run()
            seconds.append(time.perf_counter() - start)
        return result, Timing(tuple(seconds))


def ratio(reference: Timing, ours: Timing) -> float:
    """How many times faster ``ours`` is than ``reference`` (ratio of medians)."""
    return reference.median / ours.median


def git_commit(checkout: str) -> str:
    """The commit of a git checkout (an official repository the table compares with), or
    why it is unknown."""
    try:
        out = subprocess.run(
            ["git", "-C", checkout, "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return out.stdout.strip()


def run_header(script: str) -> str:
    """The first line of a benchmark's output: its command, the UTC time and the commit of
    this checkout."""
    commit = git_commit(os.path.dirname(os.path.abspath(__file__)))
    commit = commit if commit.startswith("unknown") else commit[:7]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return f"$ python benchmarks/{script}   # {when}, rewirekit {commit}"
