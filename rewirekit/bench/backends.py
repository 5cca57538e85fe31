"""Where benchmark work runs: in this process (``local``, the default) or as Ray tasks (``ray``).

A backend maps a function over work items (benchmark cells, leaderboard cells) that each
write their rows to a result store themselves. :class:`LocalBackend` calls the function in
this process, on the caller's store, one item after another; it never imports Ray.
:class:`RayBackend` submits one Ray task per item (one CPU each). A task opens the store
from its URL (:attr:`~rewirekit.bench.store.ResultStore.url`), loads its dataset where it
runs, and commits each row as it finishes, so a worker killed mid-item loses only that
item's unfinished rows; the driver's progress display counts items as they finish on any
worker. Ray retries a task whose worker died (its default, three times), and a retried or
re-run item trains only its rows still missing. Items that still fail are reported together
after the others have finished; running the same command again completes them.

Every worker needs rewirekit installed and the datasets at ``REWIREKIT_DATA`` on its node,
and a store all of them reach: a PostgreSQL URL on a cluster, a SQLite path only on one
machine. Ray and psycopg are the ``distributed`` extra: ``pip install 'rewirekit[distributed]'``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

from rewirekit.bench.runner import (
    BenchmarkSpec,
    CellTask,
    Progress,
    plan_cells,
    run_benchmark,
    run_cell,
    stored_rows,
)
from rewirekit.bench.store import ResultStore, RunKey, RunRecord
from rewirekit.errors import RewireError

Item = TypeVar("Item")
Result = TypeVar("Result")
#: The names ``--backend`` takes.
BACKENDS = ("local", "ray")


class Backend(Protocol):
    """Runs ``fn(store, item)`` for every item; see the module docstring."""

    name: str

    def map(
        self,
        fn: Callable[[ResultStore, Item], Result],
        store: ResultStore,
        items: Sequence[Item],
        progress: Progress | None = None,
        *,
        describe: Callable[[Item], str] = str,
        weight: Callable[[Item], int] = lambda item: 1,
    ) -> list[Result]:
        """The results in the order of ``items``; ``progress`` advances ``weight(item)``
        steps (described by ``describe(item)``) when an item finishes."""
        ...


class LocalBackend:
    """Every item in this process, in order, on the caller's store."""

    name = "local"

    def map(
        self,
        fn: Callable[[ResultStore, Item], Result],
        store: ResultStore,
        items: Sequence[Item],
        progress: Progress | None = None,
        *,
        describe: Callable[[Item], str] = str,
        weight: Callable[[Item], int] = lambda item: 1,
    ) -> list[Result]:
        results = []
        for item in items:
            results.append(fn(store, item))
            _advance(progress, describe(item), weight(item))
        return results


class RayBackend:
    """One Ray task per item, on a Ray cluster.

    Args:
        address: ``None`` starts a local cluster in this process (or uses the one
            ``ray.init`` already started); ``"auto"`` joins the cluster ``ray start``
            runs on this machine; ``HOST:PORT`` joins the cluster at that head node.
        num_cpus: CPUs of a local cluster started here (default: all).
        max_retries: how often Ray runs a task again whose worker died (Ray's default, 3).
    """

    name = "ray"

    def __init__(
        self, address: str | None = None, *, num_cpus: int | None = None, max_retries: int = 3
    ) -> None:
        if address is not None and num_cpus is not None:
            raise RewireError("num_cpus is for a local Ray cluster, not one at an address.")
        self.address, self.num_cpus, self.max_retries = address, num_cpus, max_retries

    def map(
        self,
        fn: Callable[[ResultStore, Item], Result],
        store: ResultStore,
        items: Sequence[Item],
        progress: Progress | None = None,
        *,
        describe: Callable[[Item], str] = str,
        weight: Callable[[Item], int] = lambda item: 1,
    ) -> list[Result]:
        if not items:
            return []
        if store.dialect == "sqlite" and store.path is None:
            raise RewireError("Ray workers cannot reach a store in memory; give a path or URL.")
        ray = _ray()
        if not ray.is_initialized():
            ray.init(
                address=self.address,
                num_cpus=self.num_cpus,
                include_dashboard=False,
                log_to_driver=False,
            )
        task = ray.remote(num_cpus=1, max_retries=self.max_retries)(_in_store)
        refs = [task.remote(fn, store.url, item) for item in items]
        index = {ref: i for i, ref in enumerate(refs)}
        results: list[Any] = [None] * len(items)
        failed: list[tuple[Item, BaseException]] = []
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            i = index[done[0]]
            try:
                results[i] = ray.get(done[0])
            except Exception as err:  # a task error or a worker that died for good
                failed.append((items[i], _cause(err)))
                continue
            _advance(progress, describe(items[i]), weight(items[i]))
        if failed:
            item, first = failed[0]
            if isinstance(first, RewireError) and len(failed) == 1:
                raise first
            raise RewireError(
                f"{len(failed)} of {len(items)} items failed on the Ray cluster (the first, "
                f"{describe(item)}: {type(first).__name__}: {first}); every finished row is "
                "stored: run the same command again to complete them."
            ) from first
        return results


def get_backend(name: str = "local", address: str | None = None) -> Backend:
    """The backend ``--backend name [--address ...]`` asks for."""
    if name == "local":
        if address is not None:
            raise RewireError("--address is for --backend ray.")
        return LocalBackend()
    if name == "ray":
        return RayBackend(address)
    raise RewireError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}.")


def run_benchmarks(
    specs: Sequence[BenchmarkSpec],
    store: ResultStore,
    progress: Progress | None = None,
    *,
    num_threads: int | None = 1,
    backend: Backend | None = None,
) -> list[RunRecord]:
    """Run every missing row of ``specs`` into ``store`` (one progress total for all of
    them); return every row of the specs.

    Locally each spec goes through :func:`~rewirekit.bench.runner.run_benchmark`. Elsewhere
    each cell with missing rows is one item (:func:`~rewirekit.bench.runner.run_cell`,
    ``num_threads`` torch threads per worker) and the progress advances by a cell's rows
    when it finishes.
    """
    if backend is None or isinstance(backend, LocalBackend):
        total = sum(spec.runs for spec in specs)
        shared = None if progress is None else _SharedProgress(progress, total)
        return [
            record
            for spec in specs
            for record in run_benchmark(spec, store, shared, num_threads=num_threads)
        ]
    keys: list[RunKey] = []
    tasks: list[CellTask] = []
    for spec in specs:
        spec_keys, spec_tasks = plan_cells(spec, store)
        keys += spec_keys
        tasks += spec_tasks
    if progress is not None:
        progress.start(len(keys))
        _advance(progress, "stored", len(keys) - sum(len(t.keys) for t in tasks))
    backend.map(
        partial(_run_cell_with_threads, num_threads),
        store,
        tasks,
        progress,
        describe=lambda t: t.label,
        weight=lambda t: len(t.keys),
    )
    return stored_rows(store, keys)


def _run_cell_with_threads(num_threads: int | None, store: ResultStore, task: CellTask) -> int:
    if num_threads is not None:
        import torch

        torch.set_num_threads(num_threads)
    return run_cell(task, store)


def _in_store(fn: Callable[[ResultStore, Any], Any], url: str, item: Any) -> Any:
    """What a Ray task runs: ``fn`` on its own connection to the store."""
    with ResultStore(url) as store:
        return fn(store, item)


def _advance(progress: Progress | None, description: str, steps: int) -> None:
    if progress is not None:
        for _ in range(steps):
            progress.advance(description)


def _cause(err: BaseException) -> BaseException:
    """The exception a Ray task raised, without Ray's wrapper."""
    cause = getattr(err, "cause", None)
    return cause if isinstance(cause, BaseException) else err


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RewireError(
            "the ray backend needs Ray: pip install 'rewirekit[distributed]'."
        ) from None
    return ray


class _SharedProgress:
    """One progress display for several runner calls: started once with the grand total."""

    def __init__(self, progress: Progress, total: int) -> None:
        self._progress, self._total, self._started = progress, total, False

    def start(self, total: int) -> None:
        if not self._started:
            self._progress.start(self._total)
            self._started = True

    def advance(self, description: str) -> None:
        self._progress.advance(description)
