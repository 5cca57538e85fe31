"""Smoke runs of the ORC-ManL benchmark scripts at tiny sizes."""

import csv
import importlib.util
import sys
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _script(name: str):
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_table_smoke_is_resumable(tmp_path):
    table = _script("orc_manl_table")
    path = table.run(["circles"], trials=1, n_points=600, faithful=False, out=tmp_path)
    rows = list(csv.DictReader(path.open()))
    assert {r["method"] for r in rows} == {
        "orc_manl", "orc_only", "bisection", "two_mst", "density", "distance"
    }  # fmt: skip
    table.run(["circles"], trials=1, n_points=600, faithful=False, out=tmp_path)
    assert len(list(csv.DictReader(path.open()))) == len(rows)  # nothing redone
    text = table.summarise(tmp_path, 600)
    assert "| circles | 1/1 |" in text
    table.write_between_markers(tmp_path / "doc.md", "t", text)
    table.write_between_markers(tmp_path / "doc.md", "t", text)
    assert (tmp_path / "doc.md").read_text().count("<!-- t:start -->") == 1


def test_scale_smoke(tmp_path, monkeypatch):
    scale = _script("orc_manl_scale")
    out = tmp_path / "scale.txt"
    argv = ["x", "--n-points", "1500", "--k", "10", "--threads", "1", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    scale.main()
    assert "total:" in out.read_text()


def test_paths_speed_smoke(capsys, monkeypatch):
    """Both kernels on a 3-d sample (A* both ways) and on 80 coordinates (shared searches)."""
    speed = _script("orc_manl_paths_speed")
    speed.main(["--inputs", "swiss_roll:1500", "--k", "10", "--threads", "1"])
    sample = speed.load_points("swiss_roll:800")  # padded to 80 coordinates: no dataset needed
    monkeypatch.setattr(speed, "load_points", lambda name: np.hstack([sample, np.zeros((800, 77))]))
    speed.main(["--inputs", "padded", "--k", "10", "--threads", "1"])
    out = capsys.readouterr().out
    assert "swiss_roll:1500: N=1500, dimension 3" in out and "runs A*" in out
    assert "padded: N=800, dimension 80" in out and "runs the shared searches" in out
