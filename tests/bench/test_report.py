import pytest

from rewirekit.bench.report import (
    compare_to_baseline,
    summarize_records,
    to_csv,
    to_markdown,
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
