import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from rewirekit.cli import app, parse_method
from rewirekit.datasets import available_offline

runner = CliRunner()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rewirekit", *args], capture_output=True, text=True, timeout=300
    )


def test_parse_method_reads_typed_parameters():
    spec = parse_method("random:add=10,delete=5,seed=3")
    assert spec.name == "random" and spec.params == {"add": 10, "delete": 5, "seed": 3}
    assert parse_method("none").params == {}


def test_methods_and_datasets_list():
    result = runner.invoke(app, ["methods"])
    assert result.exit_code == 0 and "random" in result.output and "none" in result.output
    result = runner.invoke(app, ["datasets"])
    assert result.exit_code == 0 and "cora" in result.output


def test_user_errors_print_one_line_and_exit_2(tmp_path):
    for args in (
        ["bench", "--method", "nope", "--store", str(tmp_path / "r.db")],
        ["bench", "--dataset", "not-a-dataset", "--store", str(tmp_path / "r.db")],
        ["bench", "--method", "random:add", "--store", str(tmp_path / "r.db")],
        ["bench", "--no-such-flag"],
        ["report", "--store", str(tmp_path / "missing.db")],
    ):
        result = _cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_bench_synthetic_json_report_and_plot(tmp_path):
    store, plot = tmp_path / "r.db", tmp_path / "phi.png"
    args = [
        "bench",
        "--synthetic",
        "csbm",
        "--phi",
        "-0.5",
        "--phi",
        "0.5",
        "--splits",
        "2",
        "--method",
        "none",
        "--method",
        "random:add=20",
        "--store",
        str(store),
        "--plot",
        str(plot),
        "--json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout[result.stdout.index("[") :])
    assert len(rows) == 4 and all(r["n"] == 2 for r in rows)
    assert plot.exists() and plot.stat().st_size > 1000
    for fmt, marker in (("markdown", "| dataset |"), ("csv", "dataset,split_preset")):
        out = runner.invoke(app, ["report", "--store", str(store), "--format", fmt])
        assert out.exit_code == 0 and marker in out.stdout
    out = runner.invoke(app, ["report", "--store", str(store), "--versus", "none"])
    assert out.exit_code == 0 and "Wilcoxon" in out.stdout and "random" in out.stdout


def test_diagnose_before_and_after():
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    result = runner.invoke(app, ["diagnose", "--dataset", "texas", "--method", "feast:add=10"])
    assert result.exit_code == 0, result.output
    for metric in ("edge homophily", "spectral gap", "modularity", "label nmi", "after feast"):
        assert metric in result.stdout
