import math

import pytest

from rewirekit.bench.report import (
    best_of_trials,
    compare_to_baseline,
    paired_text,
    summarize_records,
    to_csv,
    to_markdown,
    to_paired_csv,
    to_paired_markdown,
    to_sweep_table,
)
from rewirekit.bench.store import RunKey, RunRecord, params_hash


def _record(method: str, params: dict, split: int, acc: float, model: str = "gcn") -> RunRecord:
    key = RunKey("cora", "sparse", split, method, params_hash(params), model, "jdr", 0)
    return RunRecord(key, params, acc, acc, 0.5, 1.0, 100, {})


def _records():
    base = [0.70, 0.72, 0.74, 0.76, 0.78]
    records = [_record("none", {}, i, a) for i, a in enumerate(base)]
    records += [_record("random", {"add": 5}, i, a + 0.02) for i, a in enumerate(base)]
    return records


def test_summary_rows_group_by_method_and_parameters():
    rows = summarize_records(_records())
    assert [(r.method, r.n) for r in rows] == [("none", 5), ("random(add=5)", 5)]
    assert rows[0].mean == pytest.approx(74.0) and rows[1].mean == pytest.approx(76.0)
    assert rows[0].ci_low < 74.0 < rows[0].ci_high


def test_paired_comparison_sees_a_constant_gain():
    (row,) = compare_to_baseline(_records(), "none")
    c = row.comparison
    assert row.method == "random(add=5)" and row.baseline == "none" and c.n == 5
    assert c.mean_diff == pytest.approx(2.0)
    assert c.ci_low == pytest.approx(2.0) and c.ci_high == pytest.approx(2.0)
    assert (c.wins, c.losses, c.ties) == (5, 0, 0)


def test_paired_comparison_needs_the_baseline():
    assert compare_to_baseline(_records(), "no-such-method") == []


def test_markdown_and_csv_carry_every_row():
    rows = summarize_records(_records())
    markdown, csv = to_markdown(rows), to_csv(rows)
    assert markdown.count("\n") == 2 + len(rows) and "76.00" in markdown
    assert csv.splitlines()[0].startswith("dataset,split_preset") and len(csv.splitlines()) == 3


def test_sweep_table_has_a_row_per_value():
    rows = summarize_records(_records())
    table = to_sweep_table([(0.5, rows[0]), (0.5, rows[1]), (-0.5, rows[0])])
    assert table.row_count == 2 and len(table.columns) == 3


def test_identical_runs_give_an_exact_zero_difference():
    base = [0.70, 0.71, 0.74, 0.74, 0.78]
    records = [_record("none", {}, i, a) for i, a in enumerate(base)]
    records += [_record("random", {"add": 0}, i, a) for i, a in enumerate(base)]
    (row,) = compare_to_baseline(records, "none")
    c = row.comparison
    assert (c.mean_diff, c.ci_low, c.ci_high) == (0.0, 0.0, 0.0)
    assert (c.wins, c.losses, c.ties) == (0, 0, 5) and c.p_value == 1.0
    assert paired_text(c) == "+0.00 [+0.00, +0.00]"


def test_paired_rows_pair_by_split_and_skip_the_wilcoxon_test_on_request():
    records = _records()[:-1]  # the baseline lacks split 4: four pairs remain
    (row,) = compare_to_baseline(records, "none", test=False)
    assert row.comparison.n == 4 and math.isnan(row.comparison.p_value)
    assert paired_text(row.comparison) == "+2.00 [+2.00, +2.00]"


def test_paired_markdown_and_csv_carry_every_comparison():
    rows = compare_to_baseline(_records(), "none")
    markdown, csv = to_paired_markdown(rows), to_paired_csv(rows)
    assert "| random(add=5) | none | 5 | +2.00 [+2.00, +2.00] |" in markdown
    header, line = csv.splitlines()
    assert header.startswith("dataset,split_preset,training_preset,model,method,baseline,n")
    assert line.startswith("cora,sparse,jdr,gcn,random(add=5),none,5,2.0")


def test_best_of_trials_keeps_the_best_test_accuracy_of_each_full_trial():
    accs = [0.5, 0.7, 0.6, 0.8, 0.8, 0.4, 0.9]  # trials {0,1,2}, {3,4,5}, and split 6 alone
    records = [_record("borf", {"num_batches": 1}, i, a) for i, a in enumerate(accs)]
    records += [_record("none", {}, i, 0.5) for i in range(6)]
    trials = best_of_trials(records, 3)
    borf = [t for t in trials if t.key.method == "borf"]
    assert [(t.key.split_id, t.test_acc) for t in borf] == [(0, 0.7), (1, 0.8)]
    assert borf[1].params == {"num_batches": 1}
    (summary,) = [s for s in summarize_records(trials) if s.method.startswith("borf")]
    assert summary.n == 2 and summary.mean == pytest.approx(75.0)
    assert summary.two_sigma == pytest.approx(2 * 5.0 / math.sqrt(2))  # 2σ/√trials
    (paired,) = compare_to_baseline(trials, test=False)  # trials pair by trial id
    assert paired.comparison.n == 2 and paired.comparison.mean_diff == pytest.approx(25.0)
    assert best_of_trials(records, 1) == records
    with pytest.raises(ValueError):
        best_of_trials(records, 0)
