"""The Ray backend on a real local cluster (2 CPUs, one per test session) into a real
PostgreSQL (REWIREKIT_TEST_POSTGRES; see tests/conftest.py): the same rows as a local run,
cell for cell; a worker killed with SIGKILL mid-run loses nothing that had finished, and a
re-run completes every cell exactly once."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from rewirekit.bench.backends import LocalBackend, RayBackend, get_backend, run_benchmarks
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.bench.tuning import study_storage
from rewirekit.errors import RewireError


def _ray():
    try:
        import ray
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("Ray is not installed; under CI=true the Ray tests must run.")
        pytest.skip("Ray is not installed (pip install 'rewirekit[distributed]')")
    return ray


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray cluster per pytest process (``-n 2``: at most one per xdist worker;
    pytest-xdist 3.8 under pytest 9 does not keep an ``xdist_group`` on one worker)."""
    ray = _ray()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _spec(splits: int, phis: tuple[float, ...] = (-0.5, 0.5)) -> BenchmarkSpec:
    datasets = [DatasetSpec.csbm(num_nodes=200, num_features=40, phi=p, seed=0) for p in phis]
    methods = [MethodSpec("none"), MethodSpec("random", {"add": 20, "delete": 20})]
    return BenchmarkSpec(datasets, methods, ["gcn"], "sparse", "jdr", num_splits=splits)


def _outcome(r: RunRecord) -> tuple:
    """What a run measured, without its timings."""
    report = {k: v for k, v in (r.rewire_report or {}).items() if k != "seconds"}
    return (r.params, r.test_acc, r.val_acc, r.epochs, r.versions, report)


def _by_key(records) -> dict:
    return {r.key: _outcome(r) for r in records}


class _Counter:
    def __init__(self) -> None:
        self.total, self.done = None, []

    def start(self, total: int) -> None:
        self.total = total

    def advance(self, description: str) -> None:
        self.done.append(description)


def test_ray_run_into_postgresql_equals_a_local_run(ray_cluster, tmp_path, postgres_database):
    spec = _spec(splits=2)
    with ResultStore(tmp_path / "local.db") as store:
        local = run_benchmarks([spec], store, backend=LocalBackend())
    progress = _Counter()
    with ResultStore(postgres_database()) as store:
        first = run_benchmarks([spec], store, progress, backend=RayBackend())
        assert len(store) == 8
        again = run_benchmarks([spec], store, backend=RayBackend())  # nothing left to run
    assert len(local) == len(first) == 8
    assert _by_key(first) == _by_key(local)  # cell for cell, the same numbers
    assert _by_key(again) == _by_key(local)
    # the driver counted every run as its cell finished on a worker
    assert progress.total == 8 and len(progress.done) == 8
    assert set(progress.done) == {
        f"{d.key} gcn {m.label}" for d in spec.datasets for m in spec.methods
    }


def _cell_workers() -> list[int]:
    """PIDs of this session's Ray workers that run a cell now: the local cluster's processes
    descend from this test process, and Ray titles a busy worker ``ray::<task>``."""
    import psutil

    pids = []
    for proc in psutil.Process().children(recursive=True):
        try:
            cmdline = proc.cmdline()
        except psutil.Error:  # gone meanwhile
            continue
        if cmdline and cmdline[0].startswith("ray::_in_store"):
            pids.append(proc.pid)
    return pids


def test_sigkill_of_a_worker_loses_no_finished_row_and_a_rerun_completes(
    ray_cluster, postgres_database
):
    spec = _spec(splits=6, phis=(0.5,))  # cells of six runs, long enough to kill one mid-cell
    location = postgres_database()
    outcome: dict = {}

    def run() -> None:
        with ResultStore(location) as store:
            try:
                run_benchmarks([spec], store, backend=RayBackend(max_retries=0))
            except RewireError as err:
                outcome["error"] = err

    driver = threading.Thread(target=run)
    driver.start()
    with ResultStore(location) as store:
        deadline = time.time() + 240
        while len(store) == 0 and time.time() < deadline:  # mid-run: a row is finished
            time.sleep(0.2)
        victims = _cell_workers()
        assert victims, "no Ray worker was running a cell"
        finished = {r.key: _outcome(r) for r in store.records()}
        os.kill(victims[0], signal.SIGKILL)
        driver.join(timeout=300)
        assert not driver.is_alive()
        # the killed cell failed (no retries here), the run said so, and kept every finished row
        assert "run the same command again" in str(outcome.get("error"))
        after_kill = _by_key(store.records())
        assert {k: after_kill[k] for k in finished} == finished
        assert len(after_kill) < 12
        rows = run_benchmarks([spec], store, backend=RayBackend(max_retries=0))  # the restart
        keys = [r.key for r in store.records()]
    assert len(keys) == len(set(keys)) == 12 == len(rows)  # every run exactly once
    assert {k: v for k, v in _by_key(rows).items() if k in after_kill} == after_kill


def test_ray_leaderboard_cell_runs_its_study_in_a_worker(ray_cluster, postgres_database):
    import optuna
    from optuna.trial import TrialState

    from rewirekit.bench.leaderboard import Protocol, run_leaderboard

    dataset = DatasetSpec.csbm(num_nodes=200, num_features=40, phi=0.5, seed=0)
    protocol = Protocol(trials=2, num_splits=2, seeds=(0,))
    progress = _Counter()
    with ResultStore(postgres_database()) as store:
        skipped = run_leaderboard(
            [dataset], ["gcn"], ["none", "random"], store, protocol, progress, RayBackend()
        )
        rows = list(store.records())
        storage = study_storage(store)
        studies = [
            optuna.load_study(study_name=s.study_name, storage=storage)
            for s in storage.get_all_studies()
        ]
    assert skipped == []
    assert progress.total == 2 and sorted(progress.done) == [
        f"{dataset.key} gcn none",
        f"{dataset.key} gcn random",
    ]
    # each cell: two trials of two splits, in the store and in Optuna's tables beside it
    assert sorted({r.key.method for r in rows}) == ["none", "random"] and len(rows) == 8
    assert sorted(s.study_name.split("|")[0] for s in studies) == ["none", "random"]
    assert all(len(s.get_trials(states=[TrialState.COMPLETE])) == 2 for s in studies)


def test_backend_choice_and_errors(tmp_path):
    assert isinstance(get_backend("local"), LocalBackend)
    assert get_backend("ray", "auto").address == "auto"
    with pytest.raises(RewireError, match="--address is for --backend ray"):
        get_backend("local", "auto")
    with pytest.raises(RewireError, match="unknown backend"):
        get_backend("dask")
    with ResultStore(":memory:") as store, pytest.raises(RewireError, match="in memory"):
        RayBackend().map(lambda s, item: item, store, [1])


_LOCAL_RUN = """
import sys
from rewirekit import cli  # noqa: F401  (the whole command line, as a user runs it)
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec
from rewirekit.bench.store import ResultStore
from rewirekit.bench.sweep import Sweep, expand, run_sweep
from rewirekit.bench.leaderboard import run_leaderboard  # noqa: F401
dataset = DatasetSpec.csbm(num_nodes=60, num_features=10, phi=0.0, seed=0)
plan = expand(Sweep([dataset], [MethodSpec("none")], ["gcn"], "jdr", num_splits=1))
with ResultStore(sys.argv[1]) as store:
    assert len(run_sweep(plan, store)) == 1
print(sorted(m for m in sys.modules if m.split(".")[0] in ("ray", "psycopg")))
"""


def test_the_local_backend_imports_neither_ray_nor_psycopg(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", _LOCAL_RUN, str(tmp_path / "r.db")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_command_line_bench_tune_and_report_on_ray_and_postgresql(ray_cluster, postgres_database):
    from typer.testing import CliRunner

    from rewirekit.cli import app
    from rewirekit.datasets import available_offline

    if not available_offline("texas"):
        pytest.skip("texas is not in REWIREKIT_DATA")
    runner, store = CliRunner(), postgres_database()
    ray_args = ["--backend", "ray", "--store", store]
    args = ["bench", "-d", "texas", "--splits", "2", "--method", "none", "--method"]
    result = runner.invoke(app, [*args, "random:add=20", "--json", *ray_args])
    assert result.exit_code == 0, result.output
    assert [r["n"] for r in json.loads(result.stdout)] == [2, 2]
    args = ["tune", "-d", "texas", "--method", "feast", "--trials", "2", "--splits", "1"]
    result = runner.invoke(app, [*args, "--training", "comfy", "--json", *ray_args])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["trials"]) == 2
    with ResultStore(store) as results:
        assert {r.key.method for r in results.records()} == {"none", "random", "feast"}
        assert len(study_storage(results).get_all_studies()) == 1  # the study beside the rows
    out = runner.invoke(app, ["report", "--store", store, "-f", "csv"])
    assert out.exit_code == 0 and out.stdout.count("texas,") == 4, out.output
