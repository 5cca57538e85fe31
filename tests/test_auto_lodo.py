"""benchmarks/auto_lodo.py without tuning: the committed page's rule columns and the shipped
profiles are what the script computes from the committed leaderboard rows (the diagnoses up
to the last digits of an eigensolver)."""

import csv
import gzip
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rewirekit.datasets import available_offline

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "auto_lodo.py"
RULE_COLUMNS = ("dataset", "nearest", "shortlist", "rule_pick", "rule_gain", "oracle")


def _load():
    spec = importlib.util.spec_from_file_location("auto_lodo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["auto_lodo"] = module
    spec.loader.exec_module(module)
    return module


def _rows(path):
    with open(path, encoding="utf-8") as handle:
        return [{c: row[c] for c in RULE_COLUMNS} for row in csv.DictReader(handle)]


def test_the_rule_columns_and_the_shipped_profiles_come_from_the_committed_rows(tmp_path):
    if not all(available_offline(d) for d in ("texas", "cornell", "wisconsin")):
        pytest.skip("texas, cornell and wisconsin are not all in $REWIREKIT_DATA")
    profiles = tmp_path / "profiles.json"
    rows = ROOT / "docs" / "leaderboard.csv.gz"
    script = _load()
    # the leaderboard's datasets that the committed run did not cover (added after it)
    scored = {row["dataset"] for row in _rows(ROOT / "docs" / "auto_lodo.csv")}
    later = sorted({r.key.dataset for r in script.read_rows([rows])} - scored)
    args = ["--rule-only", "--out", str(tmp_path), "--profiles", str(profiles), "--rows", str(rows)]
    assert script.main([*args, *(["--drop", *later] if later else [])]) == 0
    assert _rows(tmp_path / "auto_lodo.csv") == _rows(ROOT / "docs" / "auto_lodo.csv")
    shipped = json.loads((ROOT / "rewirekit" / "bench" / "auto_profiles.json").read_text())
    written = json.loads(profiles.read_text())
    # Diagnoses are floats from eigensolvers whose last digits vary with the machine's BLAS
    # (the spectral gap: 1e-16 on one machine, 0.0 on another); the rest is exact.
    assert written["profiles"] == [
        {**p, "features": pytest.approx(p["features"], rel=1e-9, abs=1e-12)}
        for p in shipped["profiles"]
    ]


def test_folds_score_only_the_named_datasets_and_write_no_files(tmp_path, capsys):
    if not all(available_offline(d) for d in ("texas", "cornell", "wisconsin")):
        pytest.skip("texas, cornell and wisconsin are not all in $REWIREKIT_DATA")
    rows = ROOT / "docs" / "leaderboard.csv.gz"
    script = _load()
    others = sorted({r.key.dataset for r in script.read_rows([rows])} - {"texas", "cornell"})
    out, profiles = tmp_path / "out", tmp_path / "profiles.json"
    args = ["--rule-only", "--folds", "texas", "--out", str(out), "--profiles", str(profiles)]
    assert script.main([*args, "--rows", str(rows), "--drop", *others]) == 0
    printed = capsys.readouterr().out
    assert "'dataset': 'texas'" in printed and "'dataset': 'cornell'" not in printed
    assert "'nearest': 'cornell" in printed  # fitted on the other datasets all the same
    assert not out.exists() and not profiles.exists()


def test_a_resumed_run_reuses_the_diagnoses_an_earlier_run_wrote(tmp_path, monkeypatch):
    if not all(available_offline(d) for d in ("texas", "cornell")):
        pytest.skip("texas and cornell are not both in $REWIREKIT_DATA")
    rows = tmp_path / "rows.csv.gz"  # the committed rows of the two datasets
    with gzip.open(ROOT / "docs" / "leaderboard.csv.gz", "rt", newline="") as full:
        reader = csv.DictReader(full)
        with gzip.open(rows, "wt", newline="") as handle:
            writer = csv.DictWriter(handle, reader.fieldnames)
            writer.writeheader()
            writer.writerows(r for r in reader if r["dataset"] in ("texas", "cornell"))
    script = _load()
    common = ["--rule-only", "--rows", str(rows)]
    first, second = tmp_path / "first", tmp_path / "second"
    assert script.main([*common, "--out", str(first), "--profiles", str(first / "p.json")]) == 0

    def no_diagnosis(*args, **kwargs):
        raise AssertionError("diagnosed again")

    monkeypatch.setattr(script, "diagnose_dataset", no_diagnosis)
    resumed = ["--out", str(second), "--profiles", str(second / "p.json")]
    assert script.main([*common, *resumed, "--diagnoses", str(first / "p.json")]) == 0
    assert _rows(second / "auto_lodo.csv") == _rows(first / "auto_lodo.csv")
    assert (second / "p.json").read_text() == (first / "p.json").read_text()
    with pytest.raises(SystemExit, match="no diagnosis of cornell"):
        only_texas = tmp_path / "texas.json"
        only_texas.write_text((first / "p.json").read_text().replace('"cornell"', '"other"'))
        script.main([*common, *resumed, "--diagnoses", str(only_texas)])
