"""Smoke versions of the benchmark scripts (the full runs take hours)."""
import importlib.util
import sys
from pathlib import Path

import pytest

from rewirekit.datasets import available_offline

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


def test_reproduce_baselines_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    out = tmp_path / "baselines.md"
    args = ["--table", "baselines", "--store", str(tmp_path / "b.db"), "--splits", "2",
            "--datasets", "texas", "--out", str(out)]
    assert script.main(args) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| jdr")
            or line.startswith("| comfy")]
    assert len(rows) == 3  # JDR GCN + GPRGNN (dense) and ComFy GCN
    assert all("| 2 |" in row for row in rows)
    # A second run trains nothing: every row is in the store.
    assert script.main(args + ["--stored-only"]) == 0
    assert out.read_text().count("| 2 |") == 3


def test_reproduce_jdr_rows_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    out = tmp_path / "jdr.md"
    args = ["--table", "jdr", "--store", str(tmp_path / "j.db"), "--splits", "2",
            "--datasets", "texas", "--models", "gcn", "--out", str(out)]
    assert script.main(args) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| jdr")]
    assert [row.split("|")[5].strip() for row in rows] == ["base", "GCN+JDR"]
    assert all("| 2 |" in row for row in rows)


def test_budget_selection_keeps_the_best_validation_candidate(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    row = next(r for r in script.TABLES["comfy"] if r.label == "ProxyAddMax"
               and r.dataset == "texas")
    assert len(row.candidates) == 5
    row = script.PaperRow(**{**row.__dict__, "candidates": row.candidates[:2], "splits": 2})
    with script.ResultStore(tmp_path / "c.db") as store:
        result = script.Reproduction(store, 2).result(row)
        summaries = script.summarize_records(store.records(split_id=0)) + \
            script.summarize_records(store.records(split_id=1))
    assert result.summary is not None and result.summary.n == 2
    assert result.params in row.candidates
    assert len({s.method for s in summaries}) == 2  # both candidates ran on the selection splits
