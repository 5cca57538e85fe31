"""Smoke run of benchmarks/diagnose_signals.py (the committed run covers seven datasets)."""

import importlib.util
import sys
from pathlib import Path

import pytest

from rewirekit.datasets import available_offline

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "diagnose_signals.py"


def test_diagnose_signals_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    spec = importlib.util.spec_from_file_location("diagnose_signals", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    sys.modules["diagnose_signals"] = script
    spec.loader.exec_module(script)
    out = tmp_path / "signals.md"
    args = ["--datasets", "texas", "--after", "texas", "--method", "random:add=5,delete=5"]
    assert script.main([*args, "--out", str(out)]) == 0
    text = out.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| texas")]
    assert len(rows) == 1 and "edge homophily" in text
    after = [line for line in text.splitlines() if line.startswith("| `random")]
    assert len(after) == 1
    assert after[0].split(" | ")[1] == rows[0].split(" | ")[1]  # same edge count: +5 -5
