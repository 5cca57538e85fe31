"""Self-training after a rewiring, from the runner and from `rewirekit bench --selftrain`."""

import json

import pytest
from typer.testing import CliRunner

from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
from rewirekit.bench.store import ResultStore
from rewirekit.cli import app
from rewirekit.datasets import csbm
from rewirekit.errors import RewireError


def _spec(selftrain=None):
    return BenchmarkSpec(
        datasets=[DatasetSpec("csbm-st", lambda: csbm(200, 20, phi=0.5, seed=1), "csbm")],
        methods=[MethodSpec("random", {"add": 30, "seed": 0})],
        models=["gcn"],
        split_preset="dense",
        training_preset="comfy",
        num_splits=1,
        selftrain=selftrain,
    )


def test_self_trained_rows_have_their_own_key(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        plain = run_benchmark(_spec(), store)
        trained = run_benchmark(_spec(MethodSpec("st", {"top_k": 10, "rounds": 1})), store)
        assert len(store) == 2
    assert plain[0].key.training_preset == "comfy"
    assert trained[0].key.training_preset == "comfy+st(rounds=1,top_k=10)"
    # round 0 is the plain run; one more round trains again
    assert trained[0].epochs == 2 * plain[0].epochs
    with (
        pytest.raises(RewireError, match="unknown self-training method"),
        ResultStore(tmp_path / "s.db") as store,
    ):
        run_benchmark(_spec(MethodSpec("nope")), store)


def test_cli_bench_selftrain_after_rewiring(tmp_path):
    args = [
        "bench", "--synthetic", "csbm", "--phi", "0.5", "--splits", "1", "--training", "comfy",
        "--method", "random:add=20", "--selftrain", "st:top_k=20,rounds=1",
        "--store", str(tmp_path / "r.db"), "--json",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout[result.stdout.index("[") :])
    assert [r["training_preset"] for r in rows] == ["comfy+st(rounds=1,top_k=20)"]
