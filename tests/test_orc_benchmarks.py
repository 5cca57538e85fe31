"""Smoke versions of the Ollivier–Ricci benchmark scripts (tiny graphs)."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_orc_vs_graphricci_smoke(monkeypatch, capsys):
    pytest.importorskip("GraphRicciCurvature")
    pytest.importorskip("sklearn")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    rows = _script("orc_vs_graphricci").main(
        ["--graphs", "circles", "--points", "150", "--repeats", "1", "--threads", "1"]
    )
    assert rows[0]["graph"] == "circles" and rows[0]["weighted"]
    assert rows[0]["max_abs_diff"] < 1e-6
    out = capsys.readouterr().out
    assert "circles: N=150" in out and "ratio" in out


def test_orc_scale_smoke(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    result = _script("orc_scale").main(["--nodes", "600", "--threads", "1"])
    assert result["edges"] > 0 and result["seconds"] > 0
    out = capsys.readouterr().out
    assert "cSBM N=600" in out and "peak RSS" in out and "kappa min/q1/median/q3/max" in out


def test_orc_profile_smoke(monkeypatch, capsys):
    pytest.importorskip("sklearn")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    seconds = _script("orc_profile").main(["--graphs", "circles", "--points", "150"])["circles"]
    assert set(seconds) == {"set-up", "shared mass", "costs", "greedy", "simplex"}
    assert seconds["set-up"] > 0  # the Dijkstra balls of the weighted kNN graph
    assert "circles:" in capsys.readouterr().out


def test_orc_profile_of_a_feature_knn_graph(monkeypatch, capsys):
    """ORC-ManL's clean-mode curvature on Texas's features (a kNN graph with hubs)."""
    from rewirekit.datasets import available_offline

    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA (unset or lacking it); not downloading")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    script = _script("orc_profile")
    pairs, n, lengths, alpha, exp_power = script.load("texas-features", 0)
    assert n == 183 and (alpha, exp_power) == (0.0, 0.0) and lengths.shape == (pairs.shape[1],)
    seconds = script.main(["--graphs", "texas-features"])["texas-features"]
    assert seconds["set-up"] > 0
    assert "texas-features:" in capsys.readouterr().out
