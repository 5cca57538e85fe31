"""The fair leaderboard: selection on validation only, pairing with ``none``, ranks, the
Friedman test with its critical difference, and the page rebuilt from the rows alone."""

import csv
import gzip
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from typer.testing import CliRunner

from rewirekit import RewireError
from rewirekit.bench.leaderboard import (
    Protocol,
    choose,
    compare_training,
    constant_prediction_floors,
    is_leaderboard_row,
    leaderboard,
    protocol_split,
    run_leaderboard,
)
from rewirekit.bench.leaderboard_report import to_markdown
from rewirekit.bench.plots import _cliques
from rewirekit.bench.presets import tuned_preset_name
from rewirekit.bench.runner import DatasetSpec, MethodSpec, training_label
from rewirekit.bench.store import ResultStore, RunKey, RunRecord, params_hash
from rewirekit.cli import app
from rewirekit.datasets import (
    available_offline,
    csbm,
    csbm_key,
    get_split_preset,
    majority_class_accuracy,
    parse_csbm_key,
)

PROTOCOL = Protocol(trials=2, num_splits=4, seeds=(0, 1))


def _row(dataset, method, split, seed, test, val, params=None, lr=0.01, model="gcn", report=None):
    params = params or {}
    preset = tuned_preset_name("fair", {"lr": lr})
    key = RunKey(dataset, "dense", split, method, params_hash(params), model, preset, seed)
    return RunRecord(key, params, test, val, 0.5, 1.0, 10, {}, report)


def _cell(dataset, method, test, val=0.5, **kwargs):
    """Rows of one trial on every split and seed; test accuracy ``test[split]``."""
    return [
        _row(dataset, method, s, seed, test[s], val, **kwargs)
        for s in range(PROTOCOL.num_splits)
        for seed in PROTOCOL.seeds
    ]


def test_the_choice_reads_validation_at_the_first_seed_only():
    good_val = _cell("a", "m", [0.1] * 4, val=0.9, lr=0.05)
    good_test = _cell("a", "m", [0.99] * 4, val=0.2, lr=0.01)
    chosen = choose(good_val + good_test, num_splits=4, seed=0)
    assert chosen.model_params == {"lr": 0.05} and chosen.val_acc == 0.9 and chosen.trials == 2
    incomplete = [r for r in good_val if r.key.split_id < 3]
    with pytest.raises(RewireError, match="no trial has all 4 splits"):
        choose(incomplete, num_splits=4, seed=0)


def test_cells_are_paired_with_none_and_ranked():
    base = [0.60, 0.62, 0.58, 0.61]
    rows = []
    for dataset, shift in (("a", 0.10), ("b", 0.08), ("c", 0.12)):
        rows += _cell(dataset, "none", base)
        rows += _cell(dataset, "better", [x + shift for x in base], params={"add": 1})
        rows += _cell(dataset, "same", base, params={"add": 2})
    board = leaderboard(rows, PROTOCOL)
    better = next(c for c in board.cells if (c.dataset, c.method) == ("a", "better"))
    assert better.paired.mean_diff == pytest.approx(10.0) and better.verdict == "win"
    assert better.paired.n == 8 and better.rewire_seconds == 0.5
    same = next(c for c in board.cells if (c.dataset, c.method) == ("b", "same"))
    assert same.paired.mean_diff == 0 and same.verdict == "tie"
    standing = {s.method: s for s in board.standings}
    assert (standing["better"].wins, standing["better"].ties, standing["better"].losses) == (
        3,
        0,
        0,
    )
    assert standing["better"].average_rank == 1.0 and standing["none"].average_rank == 2.5
    (friedman,) = board.friedman
    assert friedman.methods == ["none", "better", "same"] and friedman.ranks == [2.5, 1.0, 2.5]
    # Demšar (2006), table 5: q_0.05 = 2.343 for k = 3; CD = q sqrt(k (k + 1) / (6 N))
    assert friedman.critical_difference == pytest.approx(2.343 * math.sqrt(12 / 18), abs=1e-3)
    assert friedman.p_value < 0.1 and not board.missing


def test_a_chosen_set_that_made_no_edit_is_flagged_on_the_page():
    """A budget of 0 chosen by the tuning: the cell says so instead of passing for a method
    that helped or hurt; one run that edited, or a row without a report, is not flagged."""
    unchanged = {"edges_added": 0, "edges_removed": 0, "features_changed": False}
    edited = {**unchanged, "edges_added": 3}
    rows = _cell("a", "none", [0.5] * 4, report=unchanged)
    rows += _cell("a", "zero", [0.6] * 4, params={"add": 0}, report=unchanged)
    rows += _cell("a", "some", [0.6] * 4, params={"add": 3}, report=unchanged)
    rows[-1] = replace(rows[-1], rewire_report=edited)
    rows += _cell("a", "old", [0.6] * 4, params={"add": 0})
    board = leaderboard(rows, PROTOCOL)
    flags = {c.method: c.no_edits for c in board.cells}
    assert flags == {"none": False, "zero": True, "some": False, "old": False}
    page = to_markdown(board, rows, rows_file="rows.csv")
    lines = {m: next(x for x in page.splitlines() if x.startswith(f"| a | {m} |")) for m in flags}
    assert [m for m, line in lines.items() if "| win (no edits) |" in line] == ["zero"]


def test_cells_are_read_against_the_constant_prediction_of_their_dataset(tmp_path, monkeypatch):
    """The floor comes from the labels under the page's splits; a dataset whose labels are
    not at hand without a download (not in the offline folder) gets none, and says so."""
    monkeypatch.setenv("REWIREKIT_DATA", str(tmp_path))  # an offline folder without Cora
    graph = csbm_key(60, 8, -0.5, 0)
    rows = _cell(graph, "none", [0.9] * 4) + _cell(graph, "random", [0.2] * 4, params={"add": 1})
    rows += _cell("cora", "none", [0.5] * 4)
    board = leaderboard(rows, PROTOCOL)
    floors = constant_prediction_floors(board)
    dense = get_split_preset("dense")
    data = dense.prepare(csbm(num_nodes=60, num_features=8, phi=-0.5, seed=0))
    assert floors == {graph: pytest.approx(majority_class_accuracy(dense, data, graph, 4))}
    assert 20 < floors[graph] < 90
    page = to_markdown(board, rows, rows_file="rows.csv", floors=floors)
    assert f"| {graph} | dense | {floors[graph]:.2f} | 1 of 2 |" in page
    assert f"| {graph} | random | 20.00 ± 0.00 | {20 - floors[graph]:+.2f} |" in page
    assert "| cora | none | 50.00 ± 0.00 | — |" in page
    assert "Not computed for `cora`: the labels were not at hand" in page
    # at the floor up to rounding (100 * 0.07 == 7.000000000000001) counts as at the floor
    rows = _cell(graph, "none", [0.9] * 4) + _cell(graph, "random", [0.07] * 4, params={"add": 1})
    page = to_markdown(leaderboard(rows, PROTOCOL), rows, rows_file="rows.csv", floors={graph: 7})
    assert f"| {graph} | dense | 7.00 | 1 of 2 |" in page


def test_the_page_sums_each_datasets_compute_counting_each_rewiring_once():
    rows = _cell("a", "none", [0.5] * 4) + _cell("a", "random", [0.6] * 4, params={"add": 1})
    # the trial rewired once for every split at seed 0; the chosen set rewired again for seed 1
    rows = [
        replace(r, train_seconds=450.0, rewire_seconds=900.0 if r.key.seed == 0 else 300.0)
        for r in rows
    ]
    none = rows[:8]
    # GPRGNN's cells rewire on their own, even with GCN's parameters and times
    rows += [
        replace(r, key=replace(r.key, dataset="b", model=m))
        for m in ("gcn", "gprgnn")
        for r in none
    ]
    page = to_markdown(leaderboard(rows, PROTOCOL), rows, rows_file="rows.csv")
    assert "| a | 2.00 | 0.67 | 2.67 |" in page  # 16 runs x 450 s; 2 sets x (900 + 300) s
    assert "| b | 2.00 | 0.67 | 2.67 |" in page
    assert "| all | 4.00 | 1.33 | 5.33 |" in page
    assert "14400 s of training and 4800 s of rewiring" in page
    # 2 trials here, 20 by default: training x (20 + 1) / (2 + 1), rewiring x (20 + 1) / (2 + 1)
    assert "(84 runs per cell, 12 here)" in page and "about 37.3 hours" in page
    assert "training × 7.00, rewiring × 7.00" in page
    full = to_markdown(leaderboard(rows, replace(PROTOCOL, trials=20)), rows, rows_file="r.csv")
    assert "At the default budget" not in full


def test_a_cell_without_its_other_seeds_is_listed_missing():
    rows = _cell("a", "none", [0.5] * 4) + [
        r for r in _cell("a", "m", [0.6] * 4, params={"add": 1}) if r.key.seed == 0
    ]
    board = leaderboard(rows, PROTOCOL)
    assert [c.method for c in board.cells] == ["none"]
    assert [(m.method, m.reason) for m in board.missing] == [
        ("m", "the chosen parameter set lacks some seeds: resume")
    ]


def test_the_protocol_is_read_back_from_the_rows():
    rows = _cell("a", "none", [0.5] * 4) + _cell("a", "none", [0.5] * 4, lr=0.1)
    assert Protocol.of(rows) == Protocol(trials=2, num_splits=4, seeds=(0, 1))
    with pytest.raises(RewireError, match="split"):
        Protocol(trials=1, num_splits=1)


def _two_classes(minority: int) -> DatasetSpec:
    """A ring of 100 nodes, ``minority`` of them in class 0."""
    y = (torch.arange(100) >= minority).long()
    ring = torch.arange(100)
    data = Data(
        x=torch.randn(100, 4),
        y=y,
        edge_index=torch.stack(
            [torch.cat([ring, (ring + 1) % 100]), torch.cat([(ring + 1) % 100, ring])]
        ),
    )
    return DatasetSpec(f"two{minority}", lambda: data, f"two{minority}")


def test_a_dataset_the_dense_rule_leaves_one_class_to_test_is_split_within_classes(tmp_path):
    # 20 and 80 nodes: the dense rule trains on all of class 0, so validation and test would
    # hold class 1 only, where never predicting class 0 scores 100%. With 2 and 98 nodes not
    # even a stratified split validates class 0: that dataset is skipped.
    mines, tiny = _two_classes(20), _two_classes(2)
    protocol = Protocol(trials=1, num_splits=2, seeds=(0,))
    assert protocol_split(mines.load(), mines.key, 2) == "stratified"
    assert protocol_split(_two_classes(50).load(), "even", 2) == "dense"
    with ResultStore(tmp_path / "lb.db") as store:
        skipped = run_leaderboard([mines, tiny], ["gcn"], ["none", "random"], store, protocol)
        rows = list(store.records())
    assert {(r.key.dataset, r.key.split_preset) for r in rows} == {("two20", "stratified")}
    assert [(s.dataset, s.method) for s in skipped] == [("two2", "none"), ("two2", "random")]
    assert all("'dense' split 0" in s.reason for s in skipped)
    assert all(
        "'stratified' split 0 of 'two2' holds in its validation set class 1" in s.reason
        for s in skipped
    )
    board = leaderboard(rows, Protocol.of(rows))
    assert board.splits == {"two20": "stratified"}
    assert "on `two20`, whose `dense` splits leave" in to_markdown(board, rows, rows_file="r.csv")
    # rows of both presets for one dataset (withdrawn dense rows merged back) are refused
    dense = [replace(r, key=replace(r.key, split_preset="dense")) for r in rows]
    with pytest.raises(RewireError, match="'two20' come under dense and stratified"):
        leaderboard(rows + dense, Protocol.of(rows))


def test_groups_within_the_critical_difference():
    assert _cliques([1.0, 1.5, 3.0, 3.2], cd=1.0) == [(0, 1), (2, 3)]
    assert _cliques([1.0, 2.5, 4.0], cd=1.0) == []


def _run_grid(runner, grid, tmp_path, rows, out):
    """``rewirekit leaderboard`` on ``grid`` into a fresh store; rows to ``rows``."""
    result = runner.invoke(
        app,
        ["leaderboard", *grid, "--store", str(tmp_path / "lb.db"), "--rows", str(rows)]
        + ["--out", str(out)],
    )
    assert result.exit_code == 0, result.output


def test_the_cli_runs_a_two_dataset_grid_and_rebuilds_the_page_from_its_rows(tmp_path):
    rows, first, second = tmp_path / "rows.csv", tmp_path / "run", tmp_path / "rebuilt"
    grid = ["--csbm-phi", "-0.5", "--csbm-phi", "0.5", "--csbm-nodes", "60"]
    grid += ["--csbm-features", "8", "-m", "gcn", "--trials", "1", "--splits", "2"]
    grid += ["--seeds", "1", "--method", "none", "--method", "random", "--method", "fosr"]
    runner = CliRunner()
    _run_grid(runner, grid, tmp_path, rows, first)
    html = tmp_path / "board.html"
    again = runner.invoke(
        app,
        ["leaderboard", "--stored-only", "--rows", str(rows), "--out", str(second)]
        + ["--html", str(html)],
    )
    assert again.exit_code == 0, again.output
    assert '<section id="leaderboard-standings">' in html.read_text()
    page = (first / "leaderboard.md").read_text()
    assert page == (second / "leaderboard.md").read_text()
    assert "## Cells: GCN" in page and "| csbm(n=60,f=8,phi=-0.500,seed=0) | fosr |" in page
    assert "Friedman χ² =" in page and (first / "leaderboard_cd_gcn.png").stat().st_size > 0
    assert len(rows.read_text().splitlines()) == 1 + 2 * 3 * 2  # datasets x methods x splits
    assert np.isfinite(float(page.split("CD = ")[1].split()[0]))


def test_the_committed_leaderboard_is_rebuilt_from_its_rows(tmp_path, monkeypatch):
    root = Path(__file__).resolve().parents[2]
    with gzip.open(root / "docs" / "leaderboard.csv.gz", "rt", encoding="utf-8") as rows:
        keys = {row["dataset"] for row in csv.DictReader(rows)}
    absent = sorted(k for k in keys if parse_csbm_key(k) is None and not available_offline(k))
    if absent:
        pytest.skip(f"the page's constant predictions need these datasets offline: {absent}")
    monkeypatch.chdir(root)  # the page names its files relative to the checkout
    result = CliRunner().invoke(
        app,
        ["leaderboard", "--stored-only", "--rows", "docs/leaderboard.csv.gz"]
        + ["--preamble", "docs/leaderboard_preamble.md", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    committed = (root / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    assert (tmp_path / "leaderboard.md").read_text(encoding="utf-8") == committed


def test_self_trained_rows_form_a_leaderboard_of_their_own():
    st = MethodSpec("st", {"rounds": 1})
    plain = _cell("a", "none", [0.5] * 4) + _cell("a", "m", [0.6] * 4)
    trained = [
        replace(r, key=replace(r.key, training_preset=training_label(r.key.training_preset, st)))
        for r in _cell("a", "none", [0.7] * 4) + _cell("a", "m", [0.6] * 4)
    ]
    assert not any(is_leaderboard_row(r.key) for r in trained)
    assert all(is_leaderboard_row(r.key, st) for r in trained)
    assert not any(is_leaderboard_row(r.key, st) for r in plain)
    boards = {
        name: leaderboard(plain + trained, Protocol.of(plain + trained, selftrain=selftrain))
        for name, selftrain in (("plain", None), ("st", st))
    }
    diffs = {name: b.cells[1].paired.mean_diff for name, b in boards.items()}
    assert diffs == pytest.approx({"plain": 10.0, "st": -10.0})
    choice = boards["st"].cells[0].choice
    assert choice.training_preset.endswith("+st(rounds=1)")
    assert choice.preset == tuned_preset_name("fair", {"lr": 0.01})
    assert choice.model_params == {"lr": 0.01}
    with pytest.raises(RewireError, match=r"fair\+m3s"):
        Protocol.of(plain + trained, selftrain=MethodSpec("m3s"))
    gains = compare_training(boards["st"], boards["plain"])
    assert [(g.method, g.paired.mean_diff, g.verdict) for g in gains] == [
        ("none", pytest.approx(20.0), "win"),
        ("m", pytest.approx(0.0), "tie"),
    ]
    fewer = leaderboard(plain, replace(PROTOCOL, seeds=(0,)))
    with pytest.raises(RewireError, match="other splits or seeds"):
        compare_training(boards["st"], fewer)


def test_the_cli_self_trains_every_cell_and_rebuilds_that_page(tmp_path):
    rows, first, second = tmp_path / "rows.csv", tmp_path / "run", tmp_path / "rebuilt"
    grid = ["--csbm-phi", "0.5", "--csbm-nodes", "60", "--csbm-features", "8", "-m", "gcn"]
    grid += ["--trials", "1", "--splits", "2", "--seeds", "2", "--method", "none"]
    grid += ["--method", "random", "--selftrain", "st:rounds=1,top_k=5"]
    runner = CliRunner()
    _run_grid(runner, grid, tmp_path, rows, first)
    written = rows.read_text().splitlines()
    assert len(written) == 1 + 2 * 2 * 2  # methods x splits x seeds
    assert all("+st(rounds=1,top_k=5)" in line for line in written[1:])
    page = (first / "leaderboard.md").read_text()
    assert page.startswith("# The fair leaderboard, self-trained by st(rounds=1,top_k=5)")
    assert "--selftrain st:rounds=1,top_k=5" in page and "| random |" in page
    assert "These rows hold no plain-training leaderboard" in page
    rebuild = ["leaderboard", "--stored-only", "--rows", str(rows), "--out", str(second)]
    again = runner.invoke(app, [*rebuild, "--selftrain", "st:rounds=1,top_k=5"])
    assert again.exit_code == 0, again.output
    assert (second / "leaderboard.md").read_text() == page
    plain = runner.invoke(app, ["leaderboard", "--stored-only", "--rows", str(rows)])
    assert plain.exit_code != 0 and "no rows of the fair protocol (fair)" in str(plain.exception)
    _run_grid(runner, grid[:-2], tmp_path, rows, tmp_path / "plain")  # the same store
    html = tmp_path / "board.html"
    both = runner.invoke(app, [*rebuild, "--selftrain", "st:rounds=1,top_k=5", "--html", html])
    assert both.exit_code == 0, both.output
    shown = html.read_text()
    assert (
        'id="self-training-against-plain-training"' in shown
        and "rewired graph by st(rounds=1,top_k=5)" in shown
    )
    compared = (second / "leaderboard.md").read_text().split("## Self-training against")[1]
    assert "| gcn | csbm(n=60,f=8,phi=+0.500,seed=0) | random |" in compared
    typo = runner.invoke(app, ["leaderboard", *grid[:-1], "bangz", "--store", str(tmp_path / "x")])
    assert typo.exit_code != 0 and "bangz" in str(typo.exception)
