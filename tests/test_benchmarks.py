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
    script = _script("reproduce_baselines")
    out = tmp_path / "baselines.md"
    args = ["--store", str(tmp_path / "b.db"), "--splits", "2", "--datasets", "texas",
            "--out", str(out)]
    assert script.main(args) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| jdr")
            or line.startswith("| comfy")]
    assert len(rows) == 3  # JDR GCN + GPRGNN (dense) and ComFy GCN
    assert all("| 2 |" in row for row in rows)
    # A second run trains nothing: every row is in the store.
    assert script.main(args + ["--stored-only"]) == 0
    assert out.read_text().count("| 2 |") == 3
