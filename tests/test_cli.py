import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import rewirekit
from rewirekit.cli import app, parse_method
from rewirekit.datasets import available_offline
from rewirekit.methods import FeaSt
from rewirekit.search_space import Choice

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
    assert all(r["split_preset"] == "sparse" for r in rows)  # the cSBM keeps the JDR protocol
    assert "protocol: sparse on csbm" in result.stderr
    assert plot.exists() and plot.stat().st_size > 1000
    for fmt, marker in (("markdown", "| dataset |"), ("csv", "dataset,split_preset")):
        out = runner.invoke(app, ["report", "--store", str(store), "--format", fmt])
        assert out.exit_code == 0 and marker in out.stdout
    out = runner.invoke(app, ["report", "--store", str(store), "--versus", "none"])
    assert out.exit_code == 0 and "Wilcoxon" in out.stdout and "random" in out.stdout
    page = tmp_path / "report.html"
    out = runner.invoke(app, ["report", "--store", str(store), "--html", str(page)])
    assert out.exit_code == 0 and f"HTML report written to {page}" in out.stdout
    html = page.read_text()
    for section in ("Results per cell", "Paired comparison with none", "cSBM sweep"):
        assert f"<h2>{section}</h2>" in html
    assert html.count("data:image/png;base64,") == 1 and "edge homophily" in html


def test_report_versus_prints_only_paired_rows(tmp_path):
    from rewirekit.bench.store import ResultStore, RunKey, RunRecord, params_hash

    store = tmp_path / "r.db"
    accs = [0.61, 0.64, 0.66, 0.70]
    with ResultStore(store) as results:
        for method, params, shift in (("none", {}, 0), ("random", {"add": 0}, 0)):
            for split, acc in enumerate(accs):
                key = RunKey("texas", "dense", split, method, params_hash(params), "gcn", "jdr", 0)
                results.put(RunRecord(key, params, acc + shift, acc, 0.0, 0.1, 10, {}))
        # a method on one split only: it shares too few pairs to be compared
        key = RunKey("texas", "dense", 0, "feast", params_hash({"add": 1}), "gcn", "jdr", 0)
        results.put(RunRecord(key, {"add": 1}, 0.9, 0.9, 0.0, 0.1, 10, {}))
    out = runner.invoke(
        app, ["report", "--store", str(store), "--versus", "none", "-f", "markdown"]
    )
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0].startswith("| dataset | split | model | method | vs | n | Δ (95% CI)")
    assert lines[2:] == [
        "| texas | dense | gcn | random(add=0) | none | 4 | +0.00 [+0.00, +0.00] | 1 | 0/0/4 |"
    ]
    assert "test acc" not in out.stdout  # no unpaired summary beside the comparison
    assert "not compared" in out.stderr and "feast(add=1)" in out.stderr


def test_diagnose_before_and_after():
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    result = runner.invoke(app, ["diagnose", "--dataset", "texas", "--method", "feast:add=10"])
    assert result.exit_code == 0, result.output
    for metric in ("edge homophily", "spectral gap", "modularity", "label nmi", "after feast"):
        assert metric in result.stdout
    assert "protocol: geom-gcn on texas" in result.stdout


def test_version():
    for result in (runner.invoke(app, ["--version"]), _cli("--version")):
        assert result.stdout.strip() == f"rewirekit {rewirekit.__version__}"


def _needs_texas():
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")


def test_bench_runs_on_the_datasets_own_splits_unless_told(tmp_path):
    _needs_texas()
    args = ["bench", "-d", "texas", "--splits", "1", "--training", "comfy", "--json"]
    args += ["--store", str(tmp_path / "r.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["split_preset"] == "geom-gcn"
    assert "protocol: geom-gcn on texas (the 10 fixed splits" in result.stderr
    result = runner.invoke(app, [*args, "--protocol", "sparse"])
    assert json.loads(result.stdout)[0]["split_preset"] == "sparse"
    assert "protocol: sparse on texas (as requested)" in result.stderr


def test_tune_shows_validation_per_trial_and_test_once_for_the_chosen_trial(tmp_path):
    _needs_texas()
    args = ["tune", "-d", "texas", "--method", "feast", "--trials", "3", "--splits", "2"]
    args += ["--training", "comfy", "--store", str(tmp_path / "t.db")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = result.stdout
    heading = "Test accuracy of the trial chosen by validation"
    assert out.count(heading) == 1 and "protocol: geom-gcn on texas" in out
    trials = out[: out.index(heading)]
    assert "val acc" in trials and "test" not in trials.lower()
    assert "test" in out[out.index(heading) + len(heading) :]
    result = runner.invoke(app, [*args, "--json"])  # the same study: nothing is re-run
    assert result.exit_code == 0, result.output
    search = json.loads(result.stdout)
    assert search["protocol"]["preset"] == "geom-gcn"
    assert [set(t) for t in search["trials"]] == [{"trial", "val_acc", "params"}] * 3
    assert len({json.dumps(t["params"], sort_keys=True) for t in search["trials"]}) == 3
    chosen = search["chosen_by_validation"]
    assert chosen["val_acc"] == max(t["val_acc"] for t in search["trials"])
    assert 0 <= chosen["test_acc"] <= 100 and f"{chosen['test_acc']:.2f} test" in out


def test_tune_says_when_the_search_space_is_exhausted(tmp_path, monkeypatch):
    _needs_texas()
    monkeypatch.setattr(FeaSt, "search_space", {"add": Choice((0, 10))})
    args = ["tune", "-d", "texas", "--method", "feast", "--trials", "3", "--splits", "1"]
    result = runner.invoke(app, [*args, "--training", "comfy", "--store", str(tmp_path / "t.db")])
    assert result.exit_code == 0, result.output
    assert "the search space is exhausted: all 2 parameter sets are tried" in result.stdout


def _save_graph(path, *, directed: bool = False):
    import numpy as np

    from rewirekit.datasets import csbm

    data = csbm(num_nodes=120, num_features=8, phi=0.5, seed=3)
    edge_index = data.edge_index[:, data.edge_index[0] < data.edge_index[1]] if directed else None
    edge_index = data.edge_index if edge_index is None else edge_index
    np.savez(path, edge_index=edge_index.numpy(), x=data.x.numpy(), y=data.y.numpy())
    return path


def test_your_own_graph_runs_through_bench_diagnose_and_tune(tmp_path):
    path = str(_save_graph(tmp_path / "mine.npz"))
    store = str(tmp_path / "r.db")
    args = ["bench", "-d", path, "--method", "none", "--method", "feast:add=10", "--splits", "2"]
    result = runner.invoke(app, [*args, "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["method"] for r in rows] == ["none", "feast(add=10)"]
    assert all(r["dataset"].startswith("mine@") and r["split_preset"] == "dense" for r in rows)
    assert "protocol: dense on user-graph (a graph read from a file" in result.stderr
    result = runner.invoke(app, ["diagnose", "-d", path])
    assert result.exit_code == 0, result.output
    assert "edge homophily" in result.stdout and "mine@" in result.stdout
    args = ["tune", "-d", path, "--method", "feast", "--trials", "2", "--splits", "1"]
    result = runner.invoke(app, [*args, "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["dataset"] == rows[0]["dataset"]


def test_a_directed_graph_file_is_refused_on_the_command_line_unless_undirected(tmp_path):
    path = str(_save_graph(tmp_path / "directed.npz", directed=True))
    result = _cli("diagnose", "-d", path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "is directed" in result.stderr and "--undirected" in result.stderr
    result = runner.invoke(app, ["diagnose", "-d", path, "--undirected"])
    assert result.exit_code == 0, result.output


def test_auto_on_your_own_graph_prints_the_choice_and_the_held_back_gain(tmp_path):
    path = str(_save_graph(tmp_path / "mine.npz"))
    args = ["auto", "-d", path, "--evaluate", "--trials", "2", "--splits", "2"]
    args += ["--eval-splits", "2", "--eval-seeds", "1", "--store", str(tmp_path / "a.db")]
    args += ["--method", "feast", "--method", "random", "--method", "fosr"]  # fast ones
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "mine@" in out and "feature label alignment" in out and "Short-list" in out
    assert "protocol: dense (random 60/20/20, class-balanced) on mine@" in out
    assert "Short-list: the 2 methods" in out and "(distance " in out
    listed = out.split("Short-list")[1].split("Tuned on validation")[0]
    assert sum(f"  {m}: " in listed for m in ("feast", "random", "fosr")) == 2
    assert "Choice: " in out and "points over none" in out.split("Choice: ")[1]
    assert "Held-back test (splits 2-3 x seeds 0, never used by selection)" in out
    assert "paired gain" in out and "95% CI" in out


def test_leaderboard_takes_your_own_graph(tmp_path):
    path = str(_save_graph(tmp_path / "mine.npz"))
    args = ["leaderboard", "-d", path, "-m", "gcn", "--method", "none", "--method", "random"]
    args += ["--trials", "1", "--splits", "2", "--seeds", "1", "--store", str(tmp_path / "l.db")]
    args += ["--rows", str(tmp_path / "rows.csv"), "--out", str(tmp_path / "page")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    page = (tmp_path / "page" / "leaderboard.md").read_text()
    assert "| mine@" in page and "| random |" in page
