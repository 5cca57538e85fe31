"""The HTML report of a result store: one self-contained page (``rewirekit report --html``).

:func:`store_sections` turns the stored rows into the page's sections:

* **The leaderboard**, when the rows hold complete cells of the fair protocol
  (:func:`~rewirekit.bench.leaderboard_report.leaderboard_sections`): the standings with
  the Friedman test and the critical-difference diagram, each model's cells with their
  paired intervals;
* **Results per cell**: test accuracy over splits and seeds with its 95% bootstrap CI
  (:func:`~rewirekit.bench.report.summarize_records`);
* **Paired comparison with the baseline**: each method minus ``none`` on the same splits and
  seeds (:func:`~rewirekit.bench.report.compare_to_baseline`);
* **cSBM sweep**: test accuracy against the homophily angle φ, one plot per cSBM setting
  (:func:`~rewirekit.bench.plots.plot_sweep`);
* **Diagnosis of each dataset**: homophily, spectral gap, communities and their label NMI,
  curvature (:func:`rewirekit.diagnostics.diagnose`), for every dataset the report can
  rebuild from its stored name.

:func:`write_report` writes them after any sections passed in front (a leaderboard, say), with
:func:`rewirekit.bench.html.write_page`.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rewirekit.bench.html import Cell, Section, image, paragraph, table, write_page
from rewirekit.bench.leaderboard_report import leaderboard_sections
from rewirekit.bench.plots import plot_sweep
from rewirekit.bench.presets import is_tuned_preset
from rewirekit.bench.report import SummaryRow, compare_to_baseline, summarize_records
from rewirekit.bench.runner import DatasetSpec, MethodSpec
from rewirekit.bench.store import RunRecord
from rewirekit.datasets import DatasetUnavailable, get_split_preset, parse_csbm_key, standardize
from rewirekit.diagnostics import diagnose


def write_report(
    path: str | Path,
    records: Sequence[RunRecord],
    *,
    leading: Sequence[Section] = (),
    title: str = "rewirekit report",
    subtitle: str = "",
    baseline: str = "none",
    diagnosis: bool = True,
    selftrain: MethodSpec | None = None,
) -> Path:
    """Write the page of ``leading`` sections, then :func:`store_sections` of ``records``."""
    sections = store_sections(records, baseline=baseline, diagnosis=diagnosis, selftrain=selftrain)
    sections = [*leading, *sections]
    return write_page(path, title, sections, subtitle=subtitle)


def store_sections(
    records: Sequence[RunRecord],
    *,
    baseline: str = "none",
    diagnosis: bool = True,
    selftrain: MethodSpec | None = None,
) -> list[Section]:
    """The sections of the stored rows (see the module docstring); the leaderboard (of the
    rows self-trained by ``selftrain``) only when the rows hold one, the sweep section only
    when they hold a cSBM sweep, the diagnosis only with ``diagnosis``."""
    rows = summarize_records(records)
    sections = [*leaderboard_sections(records, selftrain), summary_section(rows)]
    sections.append(paired_section(records, baseline))
    sweeps = sweep_points(rows)
    if sweeps:
        sections.append(sweep_section(sweeps))
    if diagnosis:
        sections.append(diagnosis_section(records))
    return sections


def summary_section(rows: Sequence[SummaryRow]) -> Section:
    """Test accuracy per (dataset, split, training, model, method) with its interval."""
    headers = ["dataset", "split", "training", "model", "method", "n", "test acc (%)", "95% CI"]
    headers += ["±2σ/√n", "val acc (%)", "rewire s", "train s/run"]
    cells = [
        (
            r.dataset,
            r.split_preset,
            r.training_preset,
            r.model,
            r.method,
            r.n,
            Cell(f"{r.mean:.2f}", r.mean),
            Cell(f"[{r.ci_low:.2f}, {r.ci_high:.2f}]", r.ci_high - r.ci_low),
            Cell(f"{r.two_sigma:.2f}", r.two_sigma),
            Cell(f"{r.val_mean:.2f}", r.val_mean),
            Cell(f"{r.rewire_seconds:.3f}", r.rewire_seconds),
            Cell(f"{r.train_seconds:.2f}", r.train_seconds),
        )
        for r in rows
    ]
    return Section(
        "Results per cell",
        table(headers, cells, caption="95% CI: percentile bootstrap of the mean (1000 draws)"),
        lead=f"{len(rows)} configurations, aggregated over their splits and training seeds.",
    )


def paired_section(records: Sequence[RunRecord], baseline: str = "none") -> Section:
    """Every method against ``baseline`` on the splits and seeds both ran."""
    paired = compare_to_baseline(records, baseline)
    headers = ["dataset", "split", "model", "method", "n", f"Δ vs {baseline}", "95% CI", "p"]
    headers += ["wins/losses/ties", "verdict"]
    cells = [
        (
            r.dataset,
            r.split_preset,
            r.model,
            r.method,
            r.comparison.n,
            Cell(f"{r.comparison.mean_diff:+.2f}", r.comparison.mean_diff),
            Cell(
                f"[{r.comparison.ci_low:+.2f}, {r.comparison.ci_high:+.2f}]",
                r.comparison.ci_low,
            ),
            Cell(f"{r.comparison.p_value:.3g}", r.comparison.p_value),
            f"{r.comparison.wins}/{r.comparison.losses}/{r.comparison.ties}",
            _verdict(r.comparison.ci_low, r.comparison.ci_high),
        )
        for r in paired
    ]
    body = (
        table(
            headers,
            cells,
            caption="Δ: mean paired difference in test accuracy points (method − baseline); "
            "95% bootstrap CI; Wilcoxon signed-rank p",
        )
        if cells
        else paragraph(f"No method shares at least two splits with {baseline!r} in the store.")
    )
    return Section(
        f"Paired comparison with {baseline}",
        body,
        lead="Split-to-split variance cancels: each difference is taken on one split and seed.",
    )


def _verdict(low: float, high: float) -> str:
    if low > 0:
        return "above"
    if high < 0:
        return "below"
    return "no significant difference"


def sweep_points(rows: Sequence[SummaryRow]) -> dict[str, list[tuple[float, SummaryRow]]]:
    """The cSBM rows of ``rows`` as ``(phi, row)`` points, by sweep: one per cSBM size, seed,
    split and training preset (the plot title) that ran at two angles φ at least (a
    leaderboard's cSBM at one φ is no sweep). Rows trained with tuned hyperparameters
    (:func:`~rewirekit.bench.presets.is_tuned_preset`: tuning trials, e.g. a leaderboard's)
    are left out: their settings change from trial to trial, so they trace no curve.

    A method whose parameters change with φ (JDR with the paper's per-φ settings) is one
    series, labelled ``<name> (per-φ settings)``; methods with fixed parameters keep their
    label."""
    sweeps: dict[str, list[tuple[float, SummaryRow]]] = defaultdict(list)
    for row in rows:
        params = parse_csbm_key(row.dataset)
        if params is not None and not is_tuned_preset(row.training_preset):
            title = (
                f"cSBM N={params['num_nodes']} F={params['num_features']} seed={params['seed']}, "
                f"{row.split_preset} split, {row.training_preset} training"
            )
            sweeps[title].append((float(params["phi"]), row))
    for points in sweeps.values():
        per_phi: dict[tuple[str, str], dict[float, set[str]]] = defaultdict(
            lambda: defaultdict(set)
        )
        for phi, row in points:
            per_phi[row.model, _name(row.method)][phi].add(row.method)
        varying = {
            series
            for series, labels in per_phi.items()
            if all(len(found) == 1 for found in labels.values())
            and len(set().union(*labels.values())) > 1
        }
        points[:] = [
            (phi, replace(row, method=f"{_name(row.method)} (per-φ settings)"))
            if (row.model, _name(row.method)) in varying
            else (phi, row)
            for phi, row in points
        ]
    return {title: points for title, points in sweeps.items() if len(dict(points)) > 1}


def _name(label: str) -> str:
    return label.partition("(")[0]


def sweep_section(sweeps: dict[str, list[tuple[float, SummaryRow]]]) -> Section:
    """One embedded PNG per sweep (test accuracy against φ, 95% CI bands)."""
    parts = []
    with tempfile.TemporaryDirectory() as folder:
        for i, (title, points) in enumerate(sweeps.items()):
            png = plot_sweep(points, Path(folder) / f"sweep{i}.png", title=title)
            parts.append(image(png.read_bytes(), f"test accuracy against φ: {title}"))
    return Section(
        "cSBM sweep",
        "".join(parts),
        lead="Test accuracy against the homophily angle φ (−1: heterophilous graph, 0: the "
        "signal in the features only, 1: homophilous graph); bands are 95% CIs.",
    )


def diagnosis_section(records: Sequence[RunRecord], *, seed: int = 0) -> Section:
    """:func:`~rewirekit.diagnostics.diagnose` of each dataset of ``records`` (NMI on the
    training nodes of split 0 of the first split preset its rows ran on)."""
    presets: dict[str, str] = {}
    for r in records:
        presets.setdefault(r.key.dataset, r.key.split_preset)
    metrics: list[str] = []
    rows: list[list[str | Cell]] = []
    skipped: list[str] = []
    for key, preset_name in presets.items():
        spec = DatasetSpec.from_key(key)
        if spec is None:
            skipped.append(f"{key} (a graph read from a file: rewirekit diagnose --dataset PATH)")
            continue
        preset = get_split_preset(preset_name)
        try:
            data = preset.prepare(standardize(spec.load()))
        except DatasetUnavailable:
            skipped.append(f"{key} (not in the offline folder)")
            continue
        values = diagnose(data, preset.split(data, 0, key)[0], seed=seed).to_dict()
        metrics = metrics or list(values)
        rows.append([key, preset_name, *(_number(values[m]) for m in metrics)])
    body = table(["dataset", "split", *(m.replace("_", " ") for m in metrics)], rows)
    if skipped:
        body += paragraph("Not diagnosed: " + "; ".join(skipped) + ".")
    return Section(
        "Diagnosis of each dataset",
        body,
        lead="The signals that tell which rewiring may help (rewirekit diagnose): label NMI "
        "on the training nodes of split 0; curvature: Ollivier–Ricci, α = 0.5.",
    )


def _number(value: float) -> Cell:
    return Cell(str(value) if isinstance(value, int) else f"{value:.4f}", float(value))
