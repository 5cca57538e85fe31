"""Smoke run of benchmarks/qpcert_speed.py on a tiny CSBM (seconds)."""

import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def test_speed_benchmark_smoke(tmp_path):
    out, table = tmp_path / "speed.txt", tmp_path / "speed.csv"
    cmd = [
        sys.executable,
        str(ROOT / "benchmarks" / "qpcert_speed.py"),
        "--smoke",
        "--nodes",
        "2",
        "--budgets",
        "1,2",
        "--csv",
        str(table),
        "--out",
        str(out),
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True, env=env)
    text = out.read_text()
    assert "uptime before" in text and "target: median < 5 s" in text
    # ours and plain reach the exact verdicts (auto enumerates at these budgets)
    assert "ours: verdicts equal the exact (auto) ones on 2/2" in text
    assert "plain: verdicts equal the exact (auto) ones on 2/2" in text
    rows = table.read_text().splitlines()
    subprocess.run(
        cmd, check=True, cwd=ROOT, capture_output=True, env=env
    )  # resumes: nothing redone
    assert table.read_text().splitlines() == rows


def test_curves_benchmark_smoke(tmp_path, monkeypatch):
    prefix = str(tmp_path / "curves")
    argv = [
        "qpcert_curves.py",
        "--datasets",
        "csbm",
        "--seeds",
        "0",
        "--targets",
        "6",
        "--deltas",
        "0.05,0.2",
        "--archs",
        "gcn,sgc",
        "--n",
        "60",
        "--prefix",
        prefix,
    ]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(ROOT / "benchmarks" / "qpcert_curves.py"), run_name="__main__")
    text = Path(prefix + ".txt").read_text()
    assert "linear SGC is more robust than ReLU GCN" in text
    assert Path(prefix + ".png").stat().st_size > 0
    rows = Path(prefix + ".csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * 2  # header, 2 architectures x 2 budgets
    certified = [int(r.split(",")[6]) for r in rows[1:]]
    assert certified[1] <= certified[0] and certified[3] <= certified[2]  # monotone in delta
    runpy.run_path(str(ROOT / "benchmarks" / "qpcert_curves.py"), run_name="__main__")
    assert Path(prefix + ".csv").read_text().splitlines() == rows  # resumed: nothing redone


def test_curves_masks_round_trip_beyond_64_targets():
    curves = runpy.run_path(str(ROOT / "benchmarks" / "qpcert_curves.py"))
    flags = np.zeros(160, dtype=bool)
    flags[[0, 63, 64, 100, 159]] = True
    mask = curves["_mask"](flags)
    assert not mask.startswith("-")
    np.testing.assert_array_equal(curves["_unmask"](mask, 160), flags)
