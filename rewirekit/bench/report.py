"""Aggregate stored runs into summary rows and render them as a table, Markdown or CSV."""
from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Iterable

import numpy as np
from rich.table import Table

from rewirekit.bench.stats import summarize
from rewirekit.bench.store import RunRecord


@dataclass(frozen=True)
class SummaryRow:
    """Test accuracy (percent) of one configuration over its splits and seeds."""

    dataset: str
    split_preset: str
    training_preset: str
    model: str
    method: str
    n: int
    mean: float
    ci_low: float
    ci_high: float
    two_sigma: float
    val_mean: float
    rewire_seconds: float
    train_seconds: float

    @property
    def ci_half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2


def method_label(record: RunRecord) -> str:
    args = ",".join(f"{k}={v}" for k, v in sorted(record.params.items()))
    return f"{record.key.method}({args})" if args else record.key.method


def summarize_records(records: Iterable[RunRecord]) -> list[SummaryRow]:
    """One :class:`SummaryRow` per (dataset, split preset, training preset, model, method+params),
    in first-seen order. The interval is the 95% bootstrap CI of the mean (1000 resamples);
    ``two_sigma`` is 2·std/√n, the ComFy paper's ± figure."""
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for r in records:
        k = r.key
        groups[(k.dataset, k.split_preset, k.training_preset, k.model, method_label(r))].append(r)
    rows = []
    for (dataset, split, training, model, method), runs in groups.items():
        summary = summarize([100 * r.test_acc for r in runs])
        rows.append(SummaryRow(
            dataset, split, training, model, method, summary.n, summary.mean, summary.ci_low,
            summary.ci_high, summary.two_sigma,
            float(np.mean([100 * r.val_acc for r in runs])),
            float(np.mean([r.rewire_seconds for r in runs])),
            float(np.mean([r.train_seconds for r in runs]))))
    return rows


_COLUMNS = ("dataset", "split", "training", "model", "method", "n", "test acc (95% CI)",
            "±2σ/√n", "val acc", "rewire s", "train s/run")


def _cells(row: SummaryRow) -> tuple[str, ...]:
    return (row.dataset, row.split_preset, row.training_preset, row.model, row.method, str(row.n),
            f"{row.mean:.2f} ± {row.ci_half_width:.2f}", f"{row.two_sigma:.2f}",
            f"{row.val_mean:.2f}", f"{row.rewire_seconds:.3f}", f"{row.train_seconds:.2f}")


def to_rich_table(rows: list[SummaryRow], title: str | None = None) -> Table:
    table = Table(title=title)
    for col in _COLUMNS:
        table.add_column(col, justify="right" if col not in ("dataset", "method") else "left")
    for row in rows:
        table.add_row(*_cells(row))
    return table


def to_markdown(rows: list[SummaryRow]) -> str:
    lines = ["| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
    lines += ["| " + " | ".join(_cells(row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def to_csv(rows: list[SummaryRow]) -> str:
    buffer = io.StringIO()
    names = list(SummaryRow.__dataclass_fields__)
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(asdict(row))
    return buffer.getvalue()
