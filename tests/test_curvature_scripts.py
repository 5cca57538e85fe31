"""Smoke tests of benchmarks/curvature_scale.py, sdrf_vs_official.py, borf_vs_official.py,
sdrf_incremental_speed.py and orc_pairs_memory.py (the official code is not in CI: only the
scripts' own helpers run here)."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from rewirekit.datasets import available_offline

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module", autouse=True)
def _benchmarks_on_path():
    sys.path.insert(0, str(BENCHMARKS))
    yield
    sys.path.remove(str(BENCHMARKS))


def test_curvature_scale_smoke(capsys):
    scale = importlib.import_module("curvature_scale")
    scale.main(
        [
            "--nodes",
            "300",
            "--threads",
            "1",
            "--sdrf-iter",
            "5",
            "--borf-batches",
            "2",
            "--batch-add",
            "4",
            "--batch-remove",
            "2",
        ]
    )
    out = capsys.readouterr().out
    assert "sdrf(max_iter=5" in out and "+5 " in out
    assert "borf(num_batches=2" in out and "-4 edges" in out


def test_orc_pairs_memory_smoke(capsys):
    """Both ways run in their own processes and give the same values."""
    importlib.import_module("orc_pairs_memory").main(["--dataset", "csbm", "--nodes", "120"])
    out = capsys.readouterr().out
    assert "csbm: 120 nodes" in out and "measures / pairs: wall" in out
    assert "values equal bit for bit: True" in out


def test_sdrf_comparison_helpers():
    compare = importlib.import_module("sdrf_vs_official")
    a = compare.dense(np.array([[0, 1], [1, 2]]), 3)
    assert a.sum() == 4 and a[1, 0] == a[2, 1] == 1
    assert compare.pairs_of(np.array([[0, 1, 1, 2], [1, 0, 2, 1]])) == {(0, 1), (1, 2)}


def test_borf_reads_official_arcs_as_ours():
    compare = importlib.import_module("borf_vs_official")
    before = {(0, 1), (1, 2)}
    arcs = {(0, 1), (1, 0), (1, 2), (0, 3)}  # (2, 1) removed, (0, 3) added one way
    assert compare.undirected_pairs(arcs, before) == {(0, 1), (0, 3)}


def test_sdrf_incremental_speed_smoke(capsys):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    speed = importlib.import_module("sdrf_incremental_speed")
    speed.main(["--datasets", "texas", "--iterations", "3", "--repeat", "1", "--warmup", "0"])
    out = capsys.readouterr().out
    # paper and faithful modes, removal bounds 2 and 0.3
    assert out.count("+3 -0 edges, the same both ways") == 2
    assert out.count("+3 -3 edges, the same both ways") == 2
