"""Tiny versions of benchmarks/bangs_reproduction.py and benchmarks/bangs_speed.py."""

import csv
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from rewirekit.datasets import available_offline
from rewirekit.selftrain import BANGS, ConfidenceSelfTraining

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _script(name):
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cora():
    if not available_offline("cora"):
        pytest.skip("cora is not in $REWIREKIT_DATA")


def test_reproduction_smoke_resumes_and_reports(cora, tmp_path, monkeypatch):
    script = _script("bangs_reproduction")
    small = {
        "st": ConfidenceSelfTraining(top_k=20, rounds=1),
        "bangs": BANGS(top_k=20, candidates=40, samples_per_node=10, rounds=1,
                       calibration_epochs=5),
    }  # fmt: skip
    monkeypatch.setattr(script, "methods", lambda dataset, rounds: small)
    table, out = tmp_path / "rows.csv", tmp_path / "report.md"
    args = ["--datasets", "cora", "--seeds", "910", "911", "--rounds", "1", "--max-epochs",
            "3", "--patience", "2", "--csv", str(table), "--out", str(out),
            "--checkpoints", str(tmp_path / "states")]  # fmt: skip
    script.main(args)
    assert sorted(p.name for p in (tmp_path / "states").iterdir()) == [
        f"cora-{s}-{m}.pt" for s in ("910", "911") for m in ("bangs", "st")
    ]
    with table.open() as handle:
        rows = list(csv.DictReader(handle))
    assert sorted((r["seed"], r["method"]) for r in rows) == sorted(
        (s, m) for s in ("910", "911") for m in ("base", "st", "bangs")
    )
    base = {r["seed"]: r["test_acc"] for r in rows if r["method"] == "base"}
    for row in rows:  # round 0 of each self-training run is the base model
        assert row["round_test_accs"].split(";")[0] == f"{float(base[row['seed']]):.4f}"
    script.main(args)  # resumed: nothing left to run
    assert len(table.read_text().splitlines()) == 7
    report = out.read_text()
    assert "pending (n=2)" in report and "paper values: not available" in report.lower()
    assert "rounds: 1 (official scripts: 40) -- a deviation" in report


def test_the_report_counts_the_runs_that_ran_out_of_nodes(tmp_path):
    script = _script("bangs_reproduction")
    table, out = tmp_path / "rows.csv", tmp_path / "report.md"
    fields = ["dataset", "seed", "method", "test_acc", "last_test_acc", "num_pseudo_labelled",
              "pseudo_label_acc", "rounds_run", "pseudo_label_classes"]  # fmt: skip
    made = {("base", 910): 0, ("st", 910): 40, ("base", 911): 0, ("st", 911): 21}
    with table.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for (method, seed), rounds in made.items():
            writer.writerow(dict(dataset="cora", seed=seed, method=method, test_acc=0.8,
                                 last_test_acc=0.8, num_pseudo_labelled=100 * rounds,
                                 pseudo_label_acc=0.9, rounds_run=rounds,
                                 pseudo_label_classes="1;2"))  # fmt: skip
    script.main(["--report-only", "--csv", str(table), "--out", str(out), "--rounds", "40"])
    report = out.read_text()
    assert "rounds: 40 (official scripts: 40); some runs made fewer (see Rounds run)" in report
    assert "| cora | st | 2 | 21–40 | 2100–4000 | 1 of 2 |" in report


def test_speed_smoke(cora, tmp_path):
    out = tmp_path / "speed.txt"
    args = "--repeats 1 --warmup 0 --teacher-epochs 2 --samples-per-node 20 --threads 1"
    text = _script("bangs_speed").main([*args.split(), "--out", str(out)])
    assert out.read_text() == text
    assert "median:" in text and "load before:" in text and "40 coalitions" in text


def test_official_random_split_draws_as_the_official_generate_mask():
    script = _script("bangs_reproduction")
    train, val, test = script.official_random_split(1001, seed=910)
    assert (int(train.sum()), int(val.sum()), int(test.sum())) == (50, 150, 801)
    assert not (train & val).any() and bool((train | val | test).all())
    # the official calls, on NumPy's global generator
    np.random.seed(910)  # noqa: NPY002
    official_train = np.random.choice(1001, 50, replace=False)  # noqa: NPY002
    rest = np.setdiff1d(np.arange(1001), official_train)
    official_val = np.random.choice(rest, 150, replace=False)  # noqa: NPY002
    assert set(np.flatnonzero(train.numpy())) == set(official_train)
    assert set(np.flatnonzero(val.numpy())) == set(official_val)
    assert not torch.equal(script.official_random_split(1001, seed=911)[0], train)


def test_reproduction_uses_the_random_split_off_planetoid(tmp_path, monkeypatch):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("bangs_reproduction")
    small = {"st": ConfidenceSelfTraining(top_k=5, rounds=1)}
    monkeypatch.setattr(script, "methods", lambda dataset, rounds: small)
    drawn = []
    official = script.official_random_split
    monkeypatch.setattr(
        script,
        "official_random_split",
        lambda num_nodes, seed: drawn.append((num_nodes, seed)) or official(num_nodes, seed),
    )
    table, out = tmp_path / "rows.csv", tmp_path / "report.md"
    script.main(["--datasets", "texas", "--seeds", "910", "911", "--rounds", "1",
                 "--max-epochs", "3", "--patience", "2", "--methods", "st",
                 "--csv", str(table), "--out", str(out)])  # fmt: skip
    with table.open() as handle:
        rows = list(csv.DictReader(handle))
    assert sorted((r["seed"], r["method"]) for r in rows) == [
        ("910", "base"), ("910", "st"), ("911", "base"), ("911", "st")
    ]  # fmt: skip
    assert drawn == [(183, 910), (183, 911)]  # one split per seed, none public
    assert {r["num_pseudo_labelled"] for r in rows if r["method"] == "st"} == {"5"}
