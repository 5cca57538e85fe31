"""JDR on the cSBM: the paper's per-φ settings and the sweep's verdict against the base GCN."""

import re
from types import SimpleNamespace

from typer.testing import CliRunner

import rewirekit.cli as cli
from rewirekit.bench import sweep
from rewirekit.bench.presets import csbm_jdr_params
from rewirekit.bench.runner import DatasetSpec, MethodSpec
from rewirekit.bench.stats import paired_comparison
from rewirekit.bench.store import ResultStore
from rewirekit.datasets import CSBM_PHI_GRID
from rewirekit.methods import get_method


def test_paper_settings_cover_the_grid_and_follow_table_22():
    table = {phi: csbm_jdr_params(phi) for phi in CSBM_PHI_GRID}
    assert all(params is not None for params in table.values())
    for params in table.values():
        get_method("jdr", **params)  # every entry is a valid JDR configuration
    assert all(table[phi]["abs_ordering"] for phi in CSBM_PHI_GRID if phi <= -0.375)
    graph_only = [table[phi] for phi in CSBM_PHI_GRID if -0.25 <= phi <= 0.25]
    assert all(p["eta_x1"] == 0 and p["rank_a"] == 1 and p["offset"] == 1 for p in graph_only)
    assert table[-1.0]["eta_a"] == table[1.0]["eta_a"] == 0  # features only at the extremes
    assert table[0.5]["num_iterations"] == 18 and table[-0.5]["num_iterations"] == 50
    assert csbm_jdr_params(0.3) is None
    table[0.5]["top_k"] = 1
    assert csbm_jdr_params(0.5)["top_k"] == 64  # callers get a copy


def test_given_parameters_override_the_paper_settings():
    def at(method, phi):
        dataset = (
            DatasetSpec.named("texas")
            if phi is None
            else sweep.csbm_dataset({"num_nodes": 10, "num_features": 4}, phi)
        )
        return sweep.paper_parameters(method, dataset)

    spec = at(MethodSpec("jdr", {"faithful": True, "top_k": 8}), -0.5)
    assert spec.params == {**csbm_jdr_params(-0.5), "faithful": True, "top_k": 8}
    other = MethodSpec("random", {"add": 5})
    assert at(other, -0.5) is other
    off_grid = MethodSpec("jdr")
    assert at(off_grid, 0.3) is off_grid and at(off_grid, None) is off_grid


def test_csbm_bench_runs_jdr_with_per_phi_settings_and_prints_verdict(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "DEMO_CSBM", {"num_nodes": 100, "num_features": 40})
    store, phis = tmp_path / "r.db", (-0.5, 0.0)
    args = [
        "bench",
        "--synthetic",
        "csbm",
        "--phi",
        "-0.5",
        "--phi",
        "0",
        "--splits",
        "2",
        "--method",
        "none",
        "--method",
        "jdr",
        "--method",
        "random",  # at its defaults the identity: same graphs, same accuracies as none
        "--store",
        str(store),
        "--plot",
        str(tmp_path / "p.png"),
    ]
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    with ResultStore(store) as results:
        stored = {r.key.dataset: r.params for r in results.records(method="jdr")}
    assert len(stored) == len(phis)
    for phi in phis:
        key = next(k for k in stored if f"phi={phi:+.3f}" in k)
        assert stored[key] == csbm_jdr_params(phi)
    # a case whose answer is known: a method that changes nothing ties at every angle
    assert (
        "verdict: gcn + random is at or above gcn + none at 2/2 φ (upper bound of the paired "
        "95% CI of the difference >= 0)." in result.stdout
    ), result.stdout
    # JDR's verdict on 2 tiny splits is not known in advance: only its line is checked
    assert re.search(
        r"verdict: gcn \+ jdr \(paper, per φ\) is at or above gcn \+ none at [0-2]/2 φ",
        result.stdout,
    ), result.stdout


def test_sweep_verdict_lists_the_angles_where_a_method_is_below():
    below = paired_comparison([60.0, 61.0, 59.0], [70.0, 70.5, 69.0])  # 10 points lower
    tie = paired_comparison([70.0, 71.0, 69.0], [70.0, 71.0, 69.0])
    rows = [
        SimpleNamespace(dataset=name, model="gcn", method="m", comparison=comparison)
        for name, comparison in (("a", below), ("b", tie))
    ]
    datasets = [
        DatasetSpec(name, dict, "csbm", {"phi": phi}) for name, phi in (("a", -0.5), ("b", 0.25))
    ]
    lines = sweep.sweep_verdict(rows, datasets, {})
    assert lines[0].startswith("verdict: gcn + m is at or above gcn + none at 1/2 φ")
    assert lines[1:] == [
        f"  below at φ = -0.500: Δ = -9.83 [{below.ci_low:+.2f}, {below.ci_high:+.2f}] "
        "points, n = 3"
    ]
    assert below.ci_high < 0 <= tie.ci_high


def test_the_demo_shows_gcn_jdr_and_feast_with_verdicts_plot_and_page(tmp_path, monkeypatch):
    """``rewirekit bench`` without a dataset: the demo's methods, angles and outputs."""
    monkeypatch.setattr(sweep, "DEMO_CSBM", {"num_nodes": 200, "num_features": 40})
    page, plot = tmp_path / "report.html", tmp_path / "p.png"
    args = ["bench", "--splits", "2", "--store", str(tmp_path / "r.db"), "--plot", str(plot)]
    result = CliRunner().invoke(cli.app, [*args, "--html", str(page)])
    assert result.exit_code == 0, result.output
    angles = re.findall(r"│ ([+-]\d\.\d{3}) │", result.stdout)
    assert [float(a) for a in angles] == list(CSBM_PHI_GRID[:: cli.DEMO_PHI_STRIDE])
    assert len(angles) == 5
    for label in ("gcn + none", "gcn + jdr (paper, per φ)", "gcn + feast(add=250,delete=250)"):
        assert label in result.stdout
    assert result.stdout.count("verdict: ") == 2 and "random" not in result.stdout
    assert f"HTML report written to {page}" in result.stderr and plot.exists()
    assert "<h2>cSBM sweep</h2>" in page.read_text()
