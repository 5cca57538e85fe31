"""Plots of benchmark summaries."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from rewirekit.bench.report import SummaryRow

if TYPE_CHECKING:
    from rewirekit.bench import leaderboard

#: A sweep plot with more lines than this puts its legend beside the axes.
LEGEND_INSIDE_UP_TO = 8
#: Line styles of a sweep plot's models, in the order they first appear.
LINE_STYLES = ("-", "--", ":", "-.")


def plot_sweep(
    points: list[tuple[float, SummaryRow]],
    path: str | Path,
    *,
    xlabel: str = "φ (homophily angle)",
    title: str | None = None,
) -> Path:
    """Test accuracy against a swept parameter, one line per (model, method), with 95% CIs.

    A line is labelled ``MODEL + method``, or just ``MODEL`` for the unrewired graph (``none``);
    each model has its own line style; with more than :data:`LEGEND_INSIDE_UP_TO` lines the
    legend goes beside the axes.

    Args:
        points: ``(x, row)`` pairs, e.g. ``(phi, summary row of the cSBM at that phi)``.
        path: where the PNG goes (parent folders are created).
    """
    plt = _pyplot()
    lines: dict[str, list[tuple[float, SummaryRow]]] = defaultdict(list)
    styles: dict[str, str] = {}  # one line style per model: "-", "--", ...
    for x, row in points:
        name = row.model.upper()
        lines[name if row.method == "none" else f"{name} + {row.method}"].append((x, row))
        styles.setdefault(row.model, LINE_STYLES[len(styles) % len(LINE_STYLES)])
    crowded = len(lines) > LEGEND_INSIDE_UP_TO
    size = (10, max(4.5, 1 + 0.17 * len(lines))) if crowded else (7, 4.5)
    fig, ax = plt.subplots(figsize=size)
    for label, series in lines.items():
        series.sort(key=lambda p: p[0])
        xs = [x for x, _ in series]
        style = styles[series[0][1].model]
        ax.plot(xs, [r.mean for _, r in series], marker="o", linestyle=style, label=label)
        ax.fill_between(
            xs, [r.ci_low for _, r in series], [r.ci_high for _, r in series], alpha=0.2
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    if crowded:  # beside the axes, one entry per line, rather than over the curves
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    else:
        ax.legend()
    if title:
        ax.set_title(title)
    return _save(fig, path)


def plot_critical_difference(friedman: leaderboard.Friedman, path: str | Path) -> Path:
    """Critical-difference diagram of average ranks (Demšar 2006, figure 1 style).

    Methods sit on a rank axis (1 = best, on the left); a bar of length CD shows the Nemenyi
    critical difference, and a thick line joins each maximal group of methods whose average
    ranks differ by less than CD (not significantly different at α = 0.05).
    """
    plt = _pyplot()
    k = len(friedman.methods)
    order = sorted(range(k), key=lambda i: friedman.ranks[i])
    ranks = [friedman.ranks[i] for i in order]
    names = [friedman.methods[i] for i in order]
    half = (k + 1) // 2
    cd = friedman.critical_difference
    groups = _cliques(ranks, cd)
    top = -0.2 - 0.18 * len(groups)  # the label rows start below the group bars
    fig, ax = plt.subplots(figsize=(8, 1.8 + 0.3 * (half + len(groups))))
    ax.set_xlim(0.5, k + 0.5)
    ax.set_ylim(top - 0.5 * half - 0.3, 2.2)
    ax.axis("off")
    ax.hlines(0, 1, k, color="black", linewidth=1)
    for r in range(1, k + 1):
        ax.vlines(r, 0, 0.15, color="black", linewidth=1)
        ax.text(r, 0.3, str(r), ha="center", va="bottom", fontsize=8)
    ax.hlines(1.5, 1, 1 + cd, color="black", linewidth=1.5)
    ax.text(1 + cd / 2, 1.65, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=8)
    for i, (rank, name) in enumerate(zip(ranks, names, strict=True)):
        left = i < half
        y = top - 0.5 * (i if left else k - 1 - i)
        edge = 0.55 if left else k + 0.45
        ax.plot([rank, rank, edge], [0, y, y], color="0.3", lw=0.8)
        ax.text(
            edge + (-0.05 if left else 0.05),
            y,
            f"{name} ({rank:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize=8,
        )
    for j, (lo, hi) in enumerate(groups):
        y = -0.15 - 0.18 * j
        ax.hlines(y, ranks[lo] - 0.03, ranks[hi] + 0.03, color="tab:red", linewidth=2.5)
    ax.set_title(
        f"{friedman.model.upper()}: average ranks over {len(friedman.datasets)} datasets "
        f"(Friedman p = {friedman.p_value:.3g})",
        fontsize=9,
    )
    return _save(fig, path)


def _cliques(ranks: list[float], cd: float) -> list[tuple[int, int]]:
    """Maximal runs ``lo..hi`` of the sorted ``ranks`` spanning less than ``cd`` (more than
    one method each)."""
    runs: list[tuple[int, int]] = []
    for lo in range(len(ranks)):
        hi = lo
        while hi + 1 < len(ranks) and ranks[hi + 1] - ranks[lo] < cd:
            hi += 1
        if hi > lo and not any(a <= lo and hi <= b for a, b in runs):
            runs.append((lo, hi))
    return runs


def plot_paired_differences(
    cells: list[leaderboard.Cell], path: str | Path, *, title: str = ""
) -> Path:
    """Paired test-accuracy difference with ``none`` and its 95% CI, one line per
    (dataset, method): a forest plot, zero marked."""
    plt = _pyplot()
    cells = sorted(cells, key=lambda c: (c.dataset, c.method))
    fig, ax = plt.subplots(figsize=(7, 0.9 + 0.22 * len(cells)))
    for y, cell in enumerate(cells):
        d = cell.paired
        if d is None:
            continue
        colour = {"win": "tab:green", "loss": "tab:red"}.get(cell.verdict, "0.4")
        ax.plot([d.ci_low, d.ci_high], [y, y], color=colour, lw=1.5)
        ax.plot([d.mean_diff], [y], "o", color=colour, ms=4)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(cells)), [f"{c.dataset} · {c.method}" for c in cells], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("test accuracy − none (points), paired 95% CI")
    ax.grid(axis="x", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=9)
    return _save(fig, path)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120, metadata={"Software": None})
    _pyplot().close(fig)
    return path
