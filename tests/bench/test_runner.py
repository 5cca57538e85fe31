"""The runner resumes: killed with SIGKILL mid-run, a re-run keeps every finished row."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from rewirekit.bench.runner import (
    BenchmarkSpec,
    DatasetSpec,
    MethodSpec,
    method_input,
    rewire_cell,
    run_benchmark,
)
from rewirekit.bench.store import ResultStore
from rewirekit.datasets import csbm

_SCRIPT = """
import sys
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
from rewirekit.bench.store import ResultStore
from rewirekit.datasets import csbm
spec = BenchmarkSpec(
    datasets=[DatasetSpec("csbm-small", lambda: csbm(300, 60, phi=0.5, seed=1), "csbm")],
    methods=[MethodSpec("none"), MethodSpec("random", {"add": 20, "seed": 0})],
    models=["gcn"], split_preset="dense", training_preset="comfy", num_splits=int(sys.argv[2]))
with ResultStore(sys.argv[1]) as store:
    run_benchmark(spec, store)
"""


def _count(path) -> int:
    try:
        conn = sqlite3.connect(path, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def _rows(path) -> dict:
    with ResultStore(path) as store:
        return {r.key: (r.test_acc, r.train_seconds) for r in store.records()}


def test_sigkill_then_resume(tmp_path):
    path = tmp_path / "bench.db"
    splits = 15
    proc = subprocess.Popen([sys.executable, "-c", _SCRIPT, str(path), str(splits)])
    deadline = time.time() + 240
    while _count(path) < 5 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    before = _rows(path)
    assert 5 <= len(before) < 2 * splits, "the run was not killed mid-way"
    subprocess.run([sys.executable, "-c", _SCRIPT, str(path), str(splits)], check=True)
    after = _rows(path)
    assert len(after) == 2 * splits
    for key, value in before.items():  # finished rows are kept, not recomputed
        assert after[key] == value


def test_rerun_skips_and_returns_all_rows(tmp_path):
    spec = BenchmarkSpec(
        datasets=[DatasetSpec("csbm-tiny", lambda: csbm(200, 40, phi=-0.5, seed=2), "csbm")],
        methods=[MethodSpec("none")],
        models=["gcn"],
        split_preset="dense",
        training_preset="comfy",
        num_splits=3,
    )
    calls = []

    class Counting:
        def start(self, total):
            calls.append(total)

        def advance(self, description):
            calls.append(description)

    with ResultStore(tmp_path / "r.db") as store:
        first = run_benchmark(spec, store, Counting())
        loaded = []
        spec2 = BenchmarkSpec(
            datasets=[DatasetSpec("csbm-tiny", lambda: loaded.append(1) or csbm(200, 40), "csbm")],
            methods=spec.methods,
            models=spec.models,
            split_preset="dense",
            training_preset="comfy",
            num_splits=3,
        )
        second = run_benchmark(spec2, store)
    assert calls[0] == 3 and len(calls) == 4
    assert len(first) == 3 and [r.test_acc for r in first] == [r.test_acc for r in second]
    assert not loaded, "a finished dataset must not be loaded again"
    assert all(0.0 <= r.test_acc <= 1.0 for r in first)


def test_named_datasets_reach_the_runner_as_built_so_actor_keeps_its_direction(
    monkeypatch, tmp_path
):
    """``DatasetSpec.named`` loads the graph as PyG builds it: the runner, not the loader,
    makes it undirected, except where the training preset keeps it directed (JDR on Actor)."""
    import torch
    from torch_geometric.data import Data

    from rewirekit.bench import runner
    from rewirekit.bench.training import TrainResult

    seen = []

    def spy(data, *args, **kwargs):
        seen.append(data.is_undirected())
        return TrainResult(0.5, 0.5, 0, 1, 0.0)

    monkeypatch.setattr(runner, "train_node_classifier", spy)
    graph = Data(
        x=torch.rand(40, 3),
        y=torch.arange(40) % 2,
        edge_index=torch.stack([torch.arange(40), (torch.arange(40) + 1) % 40]),
    )
    for name, directed in (("actor", True), ("texas", False)):
        seen.clear()
        spec = BenchmarkSpec(
            datasets=[DatasetSpec(name, lambda: graph, name)],
            methods=[MethodSpec("none")],
            models=["gcn"],
            split_preset="dense",
            training_preset="jdr",
            num_splits=1,
        )
        with ResultStore(tmp_path / f"{name}.db") as store:
            run_benchmark(spec, store)
        assert seen == [not directed], name


def test_dataset_spec_named_loads_the_graph_as_pyg_builds_it():
    from rewirekit.datasets import available_offline

    if not available_offline("texas"):
        import pytest

        pytest.skip("texas is not in $REWIREKIT_DATA")
    assert not DatasetSpec.named("texas").load().is_undirected()


def test_interleave_completes_pairs_split_by_split(tmp_path):
    spec = BenchmarkSpec(
        datasets=[DatasetSpec("csbm-tiny", lambda: csbm(200, 40, phi=0.5, seed=3), "csbm")],
        methods=[MethodSpec("none"), MethodSpec("random", {"add": 10, "seed": 0})],
        models=["gcn"],
        split_preset="dense",
        training_preset="comfy",
        num_splits=3,
    )
    order = []

    class Recording:
        def start(self, total):
            pass

        def advance(self, description):
            order.append(description.split()[-1])

    with ResultStore(tmp_path / "a.db") as store:
        interleaved = run_benchmark(spec, store, Recording(), interleave=True)
    with ResultStore(tmp_path / "b.db") as store:
        in_turn = run_benchmark(spec, store)
    assert order == ["none", "random(add=10,seed=0)"] * 3
    # the same rows, whatever the order they were trained in
    assert [(r.key, r.test_acc) for r in interleaved] == [(r.key, r.test_acc) for r in in_turn]


def test_cell_tasks_run_on_their_own_store_the_rows_run_benchmark_stores(tmp_path):
    from rewirekit.bench.runner import plan_cells, run_cell

    dataset = DatasetSpec.csbm(num_nodes=60, num_features=10, phi=0.5, seed=0)
    methods = [MethodSpec("none"), MethodSpec("random", {"add": 10})]
    spec = BenchmarkSpec([dataset], methods, ["gcn"], "sparse", "jdr", num_splits=2)
    with ResultStore(tmp_path / "a.db") as a, ResultStore(tmp_path / "b.db") as b:
        expected = run_benchmark(spec, a)
        keys, tasks = plan_cells(spec, b)
        assert keys == [r.key for r in expected]
        assert [t.label for t in tasks] == [
            f"{dataset.key} gcn none",
            f"{dataset.key} gcn random(add=10)",
        ]
        assert [run_cell(t, b) for t in tasks] == [2, 2]
        assert [run_cell(t, b) for t in tasks] == [0, 0]  # a task run again finds its rows
        assert plan_cells(spec, b) == (keys, [])
        got = list(b.records())
    assert {r.key: (r.test_acc, r.val_acc, r.epochs) for r in got} == {
        r.key: (r.test_acc, r.val_acc, r.epochs) for r in expected
    }


def test_first_split_runs_later_split_ids_with_the_same_rows(tmp_path):
    dataset = DatasetSpec("csbm-tiny", lambda: csbm(200, 40, phi=-0.5, seed=2), "csbm")
    common = dict(methods=[MethodSpec("none")], models=["gcn"], split_preset="dense")
    with ResultStore(tmp_path / "r.db") as store:
        late = run_benchmark(
            BenchmarkSpec(
                [dataset], **common, training_preset="comfy", num_splits=2, first_split=3
            ),
            store,
        )
        all_five = run_benchmark(
            BenchmarkSpec([dataset], **common, training_preset="comfy", num_splits=5), store
        )
    assert [r.key.split_id for r in late] == [3, 4]
    assert [r.test_acc for r in all_five[3:]] == [r.test_acc for r in late]


def test_method_input_and_rewire_cell_are_the_graphs_of_the_stored_rows():
    dataset = DatasetSpec("csbm-cell", lambda: csbm(200, 40, phi=0.5, seed=2), "csbm")
    method = MethodSpec("random", {"add": 30, "delete": 10, "seed": 0})
    spec = BenchmarkSpec([dataset], [method], ["gcn"], "dense", "comfy", num_splits=2)
    with ResultStore(":memory:") as store:
        report = run_benchmark(spec, store)[0].rewire_report
    given = method_input(dataset, "gcn", method, "dense", "comfy")
    rewired = rewire_cell(dataset, "gcn", method, "dense", "comfy")
    assert given.num_edges // 2 == report["edges_before"]
    assert rewired.rewire_report.edges_after == report["edges_after"]
    assert rewired.num_edges // 2 == report["edges_after"] != report["edges_before"]
