"""Plots of benchmark summaries."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rewirekit.bench.report import SummaryRow


def plot_sweep(
    points: list[tuple[float, SummaryRow]],
    path: str | Path,
    *,
    xlabel: str = "φ (homophily angle)",
    title: str | None = None,
) -> Path:
    """Test accuracy against a swept parameter, one line per (model, method), with 95% CIs.

    A line is labelled ``MODEL + method``, or just ``MODEL`` for the unrewired graph (``none``).

    Args:
        points: ``(x, row)`` pairs, e.g. ``(phi, summary row of the cSBM at that phi)``.
        path: where the PNG goes (parent folders are created).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines: dict[str, list[tuple[float, SummaryRow]]] = defaultdict(list)
    for x, row in points:
        name = row.model.upper()
        lines[name if row.method == "none" else f"{name} + {row.method}"].append((x, row))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, series in lines.items():
        series.sort(key=lambda p: p[0])
        xs = [x for x, _ in series]
        ax.plot(xs, [r.mean for _, r in series], marker="o", label=label)
        ax.fill_between(
            xs, [r.ci_low for _, r in series], [r.ci_high for _, r in series], alpha=0.2
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
