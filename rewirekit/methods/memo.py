"""The last value of an expensive function of a graph, kept for the next call on that graph.

Tuning rewires one graph again and again with other parameters (an Optuna study, a
leaderboard cell): the first step of SDRF and of BORF, the curvature of every edge of the
input graph, is the same in every call and the most expensive part of a short run on a large
graph. :class:`LastGraphMemo` keeps one such value, for the graph it was computed on, in
this process; a call on any other graph (or with other arguments) computes again and
replaces it. :func:`clear_all` forgets every kept value (for a benchmark that times first
calls, or to free the memory).
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from rewirekit.graph import EdgeSet

_MEMOS: weakref.WeakSet[LastGraphMemo] = weakref.WeakSet()


class LastGraphMemo:
    """One value of ``compute`` and the graph it belongs to.

    The graph is told apart by a digest of its node count, its pairs and ``tag`` (the other
    arguments the value depends on), so a changed graph never reads a stale value. The kept
    arrays are read-only: a caller that changes them in place gets an error instead of
    corrupting the next call.
    """

    def __init__(self) -> None:
        self._key: bytes | None = None
        self._value: tuple[np.ndarray, ...] = ()
        _MEMOS.add(self)

    def clear(self) -> None:
        self._key, self._value = None, ()

    def get(
        self, edges: EdgeSet, tag: Any, compute: Callable[[], tuple[np.ndarray, ...]]
    ) -> tuple[tuple[np.ndarray, ...], bool]:
        """``(value, reused)``: the kept value if it was computed on ``edges`` with ``tag``,
        else ``compute()`` (which is then kept)."""
        key = _digest(edges, tag)
        if key == self._key:
            return self._value, True
        value = tuple(np.asarray(array) for array in compute())
        for array in value:
            array.flags.writeable = False
        self._key, self._value = key, value
        return value, False


def clear_all() -> None:
    """Forget the values of every :class:`LastGraphMemo` of this process."""
    for memo in list(_MEMOS):
        memo.clear()


def _digest(edges: EdgeSet, tag: Any) -> bytes:
    digest = hashlib.blake2b(repr((edges.num_nodes, edges.directed, tag)).encode())
    for array in (edges.src, edges.dst):
        digest.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
    return digest.digest()
