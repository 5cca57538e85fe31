"""Aggregate stored runs into summary rows and render them as a table, Markdown or CSV."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace

import numpy as np
from rich.table import Table

from rewirekit.bench.stats import PairedComparison, paired_comparison, summarize
from rewirekit.bench.store import RunKey, RunRecord


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
        rows.append(
            SummaryRow(
                dataset,
                split,
                training,
                model,
                method,
                summary.n,
                summary.mean,
                summary.ci_low,
                summary.ci_high,
                summary.two_sigma,
                float(np.mean([100 * r.val_acc for r in runs])),
                float(np.mean([r.rewire_seconds for r in runs])),
                float(np.mean([r.train_seconds for r in runs])),
            )
        )
    return rows


def best_of_trials(records: Iterable[RunRecord], splits_per_trial: int) -> list[RunRecord]:
    """Group each configuration's runs into trials of ``splits_per_trial`` consecutive split
    ids (trial ``t`` holds splits ``t·s … t·s + s − 1``, per training seed) and keep, for
    each complete trial, the run with the highest test accuracy (the first on ties), its
    ``split_id`` replaced by ``t``: the BORF code's statistic (``run_node_classification.py``
    keeps ``max(test_accs)`` over ``num_splits`` = 3 runs). Incomplete trials are dropped.

    :func:`summarize_records` of the result then gives n = trials and ``two_sigma`` =
    2σ/√trials, the figure the BORF paper reports; a paired comparison pairs trials."""
    if splits_per_trial < 1:
        raise ValueError(f"splits_per_trial must be >= 1, got {splits_per_trial}.")
    trials: dict[RunKey, list[RunRecord]] = defaultdict(list)
    for r in records:
        trials[replace(r.key, split_id=r.key.split_id // splits_per_trial)].append(r)
    best = []
    for trial, runs in trials.items():
        if len({r.key.split_id for r in runs}) == splits_per_trial:
            top = max(runs, key=lambda r: r.test_acc)  # max keeps the first of equals
            best.append(replace(top, key=trial))
    return best


@dataclass(frozen=True)
class PairedRow:
    """A method against a baseline on the splits (and seeds) both ran; differences in points."""

    dataset: str
    split_preset: str
    training_preset: str
    model: str
    method: str
    baseline: str
    comparison: PairedComparison


def compare_to_baseline(
    records: Iterable[RunRecord], baseline: str = "none", *, test: bool = True
) -> list[PairedRow]:
    """Paired comparison of every method with ``baseline`` (a method label such as ``none``)
    within each (dataset, split preset, training preset, model): test accuracies are paired
    by (split id, seed), so split-to-split variance cancels out. Methods sharing fewer than
    two pairs with the baseline are left out. ``test=False`` skips the Wilcoxon test (see
    :func:`~rewirekit.bench.stats.paired_comparison`)."""
    groups: dict[tuple, dict[str, dict[tuple, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in records:
        k = r.key
        group = groups[(k.dataset, k.split_preset, k.training_preset, k.model)]
        group[method_label(r)][(k.split_id, k.seed)] = 100 * r.test_acc
    rows = []
    for (dataset, split, training, model), by_method in groups.items():
        base = by_method.get(baseline)
        if base is None:
            continue
        for method, accs in by_method.items():
            shared = sorted(set(accs) & set(base))
            if method == baseline or len(shared) < 2:
                continue
            comparison = paired_comparison(
                [accs[s] for s in shared], [base[s] for s in shared], test=test
            )
            rows.append(PairedRow(dataset, split, training, model, method, baseline, comparison))
    return rows


def paired_text(comparison: PairedComparison) -> str:
    """``"+1.23 [+0.40, +2.01]"``: the mean paired difference and its 95% CI, in points.

    Identical accuracies on every pair give exactly ``+0.00 [+0.00, +0.00]`` (the
    differences are exact zeros, and so is every bootstrap mean)."""
    c = comparison
    return f"{c.mean_diff:+.2f} [{c.ci_low:+.2f}, {c.ci_high:+.2f}]"


_PAIRED_COLUMNS = ("dataset", "split", "model", "method", "vs", "n", "Δ (95% CI)", "p", "W/L/T")


def _paired_cells(row: PairedRow) -> tuple[str, ...]:
    c = row.comparison
    return (
        row.dataset,
        row.split_preset,
        row.model,
        row.method,
        row.baseline,
        str(c.n),
        paired_text(c),
        f"{c.p_value:.3g}",
        f"{c.wins}/{c.losses}/{c.ties}",
    )


def to_paired_table(rows: list[PairedRow]) -> Table:
    table = Table(
        title="paired comparison with the baseline (same splits)",
        caption="Δ = method − baseline, test accuracy points; 95% bootstrap CI; "
        "Wilcoxon signed-rank p",
    )
    for col in _PAIRED_COLUMNS:
        table.add_column(col, justify="left" if col in ("dataset", "method", "vs") else "right")
    for r in rows:
        table.add_row(*_paired_cells(r))
    return table


def to_paired_markdown(rows: list[PairedRow]) -> str:
    """The paired comparisons as a Markdown table (the columns of :func:`to_paired_table`)."""
    lines = ["| " + " | ".join(_PAIRED_COLUMNS) + " |", "|" + "---|" * len(_PAIRED_COLUMNS)]
    lines += ["| " + " | ".join(_paired_cells(row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def to_paired_csv(rows: list[PairedRow]) -> str:
    """One CSV line per paired comparison, with every field of :class:`PairedComparison`."""
    buffer = io.StringIO()
    names = ["dataset", "split_preset", "training_preset", "model", "method", "baseline"]
    names += list(PairedComparison.__dataclass_fields__)
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        fields = {k: v for k, v in asdict(row).items() if k != "comparison"}
        writer.writerow({**fields, **asdict(row.comparison)})
    return buffer.getvalue()


_COLUMNS = (
    "dataset",
    "split",
    "training",
    "model",
    "method",
    "n",
    "test acc ± 95% CI",
    "±2σ/√n",
    "val acc",
    "rewire s",
    "train s/run",
)
_GROUPING = 5  # the first five columns say which configuration a row is


def _cells(row: SummaryRow) -> tuple[str, ...]:
    return (
        row.dataset,
        row.split_preset,
        row.training_preset,
        row.model,
        row.method,
        str(row.n),
        f"{row.mean:.2f} ± {row.ci_half_width:.2f}",
        f"{row.two_sigma:.2f}",
        f"{row.val_mean:.2f}",
        f"{row.rewire_seconds:.3f}",
        f"{row.train_seconds:.2f}",
    )


def to_rich_table(rows: list[SummaryRow], title: str | None = None) -> Table:
    """A terminal table; grouping columns with one value for all rows move to the caption."""
    cells = [_cells(row) for row in rows]
    constant = [i for i in range(_GROUPING) if len({c[i] for c in cells}) == 1 and len(cells) > 1]
    shown = [i for i in range(len(_COLUMNS)) if i not in constant]
    caption = ", ".join(f"{_COLUMNS[i]}: {cells[0][i]}" for i in constant) or None
    table = Table(title=title, caption=caption)
    for i in shown:
        table.add_column(_COLUMNS[i], justify="left" if i < _GROUPING else "right")
    for c in cells:
        table.add_row(*(c[i] for i in shown))
    return table


def to_sweep_table(
    points: list[tuple[float, SummaryRow]], xlabel: str = "φ", title: str | None = None
) -> Table:
    """Pivot of a sweep: one row per swept value, one column per (model, method)."""
    series = list(dict.fromkeys(f"{r.model} + {r.method}" for _, r in points))
    grid: dict[float, dict[str, SummaryRow]] = defaultdict(dict)
    for x, r in points:
        grid[x][f"{r.model} + {r.method}"] = r
    table = Table(title=title, caption="test accuracy (%), mean ± 95% bootstrap CI")
    table.add_column(xlabel, justify="right")
    for name in series:
        table.add_column(name, justify="right")
    for x in sorted(grid):
        row = grid[x]
        table.add_row(
            f"{x:+.3f}",
            *(
                f"{row[s].mean:.2f} ± {row[s].ci_half_width:.2f}" if s in row else "—"
                for s in series
            ),
        )
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
