"""Sweeps: a grid of datasets × models × methods × splits, expanded into benchmark cells.

A :class:`Sweep` names what to compare; :func:`expand` turns it into one
:class:`~rewirekit.bench.runner.BenchmarkSpec` per dataset, each on the split preset that
dataset is evaluated on (:func:`~rewirekit.datasets.choose_split_preset`) and with each
method's parameters resolved for that dataset by a preset hook (:data:`ParameterHook`; the
default, :func:`paper_parameters`, gives JDR the JDR paper's tuned settings on the cSBM
angle it runs on). :func:`run_sweep` runs the cells into a result store,
resumably, in this process or on a Ray cluster (:mod:`rewirekit.bench.backends`).

A dataset spec carries its generator parameters (:attr:`DatasetSpec.params
<rewirekit.bench.runner.DatasetSpec.params>`: the cSBM's size, angle φ and seed), so hooks
and reports read φ from the dataset itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewirekit.bench.backends import Backend, run_benchmarks
from rewirekit.bench.presets import csbm_jdr_params
from rewirekit.bench.report import PairedRow
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, Progress
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.datasets import SplitChoice, choose_split_preset

#: The demo's cSBM: smaller than the JDR paper's (N=5000, F=2000) so it runs in minutes.
DEMO_CSBM = {"num_nodes": 1000, "num_features": 400}
#: The JDR paper's cSBM size.
PAPER_CSBM = {"num_nodes": 5000, "num_features": 2000}
#: What rewiring can do: GCN, GCN + JDR (the paper's settings per φ) and GCN + FeaSt. Random
#: rewiring with the same budget is the control: --method random:add=250,delete=250.
DEMO_METHODS = ("none", "jdr", "feast:add=250,delete=250")
#: Shown after a JDR label whose settings came from :func:`paper_parameters`.
PAPER_PHI_SUFFIX = " (paper, per φ)"

#: Resolves a method's parameters on a dataset: the given method when nothing changes (the
#: same object), else a new spec.
ParameterHook = Callable[[MethodSpec, DatasetSpec], MethodSpec]


def csbm_dataset(size: dict[str, int], phi: float, seed: int = 0) -> DatasetSpec:
    """The cSBM at angle ``phi`` as a dataset spec; its key and ``params`` name every
    generator parameter (``size`` holds ``num_nodes`` and ``num_features``)."""
    return DatasetSpec.csbm(**size, phi=phi, seed=seed)


def paper_parameters(method: MethodSpec, dataset: DatasetSpec) -> MethodSpec:
    """JDR on a cSBM whose angle is on the paper's grid takes the JDR paper's tuned settings
    for that angle (:func:`~rewirekit.bench.presets.csbm_jdr_params`), with the given
    parameters on top; anything else is returned unchanged (the same object)."""
    phi = dataset.params.get("phi")
    table = csbm_jdr_params(phi) if method.name == "jdr" and phi is not None else None
    if table is None:
        return method
    return MethodSpec(method.name, {**table, **method.params})


@dataclass(frozen=True)
class Sweep:
    """What to compare.

    Attributes:
        datasets: the datasets, each with its generator parameters.
        methods: the methods with the parameters given by the user.
        models: model names.
        training_preset: training preset name (see :mod:`rewirekit.bench.presets`).
        protocol: split preset for every dataset, or ``None`` for each dataset's default.
        num_splits: splits per cell (``None``: the split preset's number).
        seeds: training seeds.
        selftrain: a self-training method run after each rewiring (``None``: plain training).
        hook: resolves each method's parameters per dataset.
    """

    datasets: Sequence[DatasetSpec]
    methods: Sequence[MethodSpec]
    models: Sequence[str]
    training_preset: str
    protocol: str | None = None
    num_splits: int | None = None
    seeds: tuple[int, ...] = (0,)
    selftrain: MethodSpec | None = None
    hook: ParameterHook = paper_parameters


@dataclass(frozen=True)
class Plan:
    """A sweep expanded: one benchmark per dataset and what the expansion decided.

    Attributes:
        benchmarks: one :class:`BenchmarkSpec` per dataset, methods resolved.
        choices: the split preset of each dataset (by key), with the reason.
        labels: for each method label the hook changed, the label to show (the given label
            plus :data:`PAPER_PHI_SUFFIX`).
        unresolved: ``(dataset key, method label)`` for JDR on a cSBM angle the paper did
            not tune (it runs with its defaults and the given parameters).
    """

    benchmarks: list[BenchmarkSpec]
    choices: dict[str, SplitChoice]
    labels: dict[str, str] = field(default_factory=dict)
    unresolved: list[tuple[str, str]] = field(default_factory=list)

    @property
    def runs(self) -> int:
        """Training runs in the plan (splits default to each split preset's number)."""
        return sum(spec.runs for spec in self.benchmarks)


def expand(sweep: Sweep) -> Plan:
    """The benchmarks of ``sweep``: one per dataset, on its split preset, with the methods
    as :attr:`Sweep.hook` resolves them there."""
    benchmarks, labels, unresolved = [], {}, []
    choices = {d.key: choose_split_preset(d.preset_name, sweep.protocol) for d in sweep.datasets}
    for dataset in sweep.datasets:
        methods = []
        for method in sweep.methods:
            resolved = sweep.hook(method, dataset)
            if resolved is not method:
                labels[resolved.label] = method.label + PAPER_PHI_SUFFIX
            elif method.name == "jdr" and "phi" in dataset.params:
                unresolved.append((dataset.key, method.label))
            methods.append(resolved)
        benchmarks.append(
            BenchmarkSpec(
                datasets=[dataset],
                methods=methods,
                models=list(sweep.models),
                split_preset=choices[dataset.key].preset,
                training_preset=sweep.training_preset,
                num_splits=sweep.num_splits,
                seeds=sweep.seeds,
                selftrain=sweep.selftrain,
            )
        )
    return Plan(benchmarks, choices, labels, unresolved)


def run_sweep(
    plan: Plan,
    store: ResultStore,
    progress: Progress | None = None,
    *,
    num_threads: int | None = 1,
    backend: Backend | None = None,
) -> list[RunRecord]:
    """Run every missing row of ``plan`` into ``store`` (one progress total for all of it),
    in this process or on ``backend`` (:mod:`rewirekit.bench.backends`); return every row
    of the plan."""
    return run_benchmarks(
        plan.benchmarks, store, progress, num_threads=num_threads, backend=backend
    )


def sweep_verdict(
    paired: list[PairedRow], datasets: Sequence[DatasetSpec], labels: dict[str, str]
) -> list[str]:
    """Whether each method is at or above the unrewired graph at every angle of a φ sweep.

    "At or above" at one angle: the 95% bootstrap CI of the paired mean difference (method
    minus ``none``, same splits and seeds) reaches zero, i.e. the method is not significantly
    below. One summary line per (model, method), then one line per angle where it is below.
    """
    phis = {d.key: d.params["phi"] for d in datasets if "phi" in d.params}
    groups: dict[tuple[str, str], list[tuple[float, Any]]] = {}
    for row in paired:
        if row.dataset in phis:
            key = (row.model, labels.get(row.method, row.method))
            groups.setdefault(key, []).append((phis[row.dataset], row.comparison))
    lines = []
    for (model, method), results in groups.items():
        below = sorted(((phi, c) for phi, c in results if c.ci_high < 0), key=lambda t: t[0])
        lines.append(
            f"verdict: {model} + {method} is at or above {model} + none at "
            f"{len(results) - len(below)}/{len(results)} φ (upper bound of the paired "
            "95% CI of the difference >= 0)" + (":" if below else ".")
        )
        lines += [
            f"  below at φ = {phi:+.3f}: Δ = {c.mean_diff:+.2f} "
            f"[{c.ci_low:+.2f}, {c.ci_high:+.2f}] points, n = {c.n}"
            for phi, c in below
        ]
    return lines
