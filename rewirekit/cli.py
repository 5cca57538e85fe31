"""The ``rewirekit`` command line: a thin typer app over the library."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, replace
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from typer.exceptions import TyperException

from rewirekit.errors import RewireError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Rewire graphs for GNNs and measure, honestly, whether it helped.",
)
console = Console()
err_console = Console(stderr=True)

DEFAULT_STORE = Path("runs") / "results.db"
DATASET_HELP = (
    "Dataset name, or the path of your own graph: a saved PyG Data (.pt), an .npz with "
    "edge_index, x and y, or a folder with edges.csv, features.csv and labels.csv."
)
UNDIRECTED_HELP = "Symmetrise a directed graph read from a file (else it is refused)."
PROTOCOL_HELP = (
    "Split preset (default: the dataset's shipped fixed splits where it has them, "
    "else dense 60/20/20; sparse on the cSBM)."
)
DEMO_REPORT = Path("runs") / "report.html"
STORE_HELP = "Result store: a SQLite file, or a postgresql://user@host/db URL (shared by workers)."
BACKEND_HELP = "Where cells run: local (this process) or ray (tasks on a Ray cluster)."
ADDRESS_HELP = (
    "The Ray cluster of --backend ray: 'auto' (started by ray start here) or HOST:PORT "
    "(default: a local cluster with every CPU)."
)


class BackendName(str, Enum):
    local = "local"
    ray = "ray"


def _backend(name: BackendName, address: str | None):
    from rewirekit.bench.backends import get_backend

    return get_backend(name.value, address)


#: The demo sweeps every fourth angle of the JDR paper's 17-point φ grid (-1, -0.5, 0, 0.5, 1)
#: to stay within 3 minutes on 2 cores (every other angle took longer: docs/demo_timing.txt);
#: --sweep phi runs all 17.
DEMO_PHI_STRIDE = 4


def _print_version(value: bool) -> None:
    if value:
        from rewirekit import __version__

        console.print(f"rewirekit {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Rewire graphs for GNNs and measure, honestly, whether it helped."""


class OutputFormat(str, Enum):
    table = "table"
    markdown = "markdown"
    csv = "csv"


def parse_method(text: str):
    """Parse ``name`` or ``name:key=value,key=value`` into a :class:`MethodSpec`."""
    from rewirekit.bench.runner import MethodSpec

    name, _, args = text.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, args.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise RewireError(
                f"cannot read method parameter {item!r} in {text!r}; "
                "write --method name:key=value,key=value."
            )
        params[key.strip()] = _parse_value(value.strip())
    return MethodSpec(name.strip().lower().replace("-", "_"), params)


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return {"true": True, "false": False}.get(text.lower(), text)


@app.command()
def bench(
    dataset: list[str] = typer.Option([], "--dataset", "-d", help=f"{DATASET_HELP} Repeatable."),
    undirected: bool = typer.Option(False, "--undirected", help=UNDIRECTED_HELP),
    synthetic: str | None = typer.Option(None, help="Synthetic data instead: 'csbm'."),
    sweep: str | None = typer.Option(None, help="Sweep a generator parameter: 'phi'."),
    phi: list[float] = typer.Option(
        [], help="cSBM angle(s) (repeatable); with --sweep phi, the angles swept."
    ),
    full_size: bool = typer.Option(
        False, "--full-size", help="The JDR paper's cSBM size (N=5000, F=2000)."
    ),
    protocol: str | None = typer.Option(None, "--protocol", "-p", help=PROTOCOL_HELP),
    training: str | None = typer.Option(
        None,
        help="Training preset: jdr, comfy or bangs (default: comfy for --protocol comfy, "
        "else jdr).",
    ),
    model: list[str] = typer.Option(["gcn"], "--model", "-m", help="Model (repeatable)."),
    method: list[str] = typer.Option(
        [], help="Method, optionally with parameters: 'random:add=100,delete=50' (repeatable)."
    ),
    splits: int | None = typer.Option(None, help="Number of splits (default: the preset's)."),
    seed: list[int] = typer.Option([0], help="Training seed(s) (repeatable)."),
    selftrain: str | None = typer.Option(
        None,
        "--selftrain",
        help="Self-train every run after the rewiring: bangs, st or m3s, optionally with "
        "parameters: 'bangs:top_k=70,rounds=10'.",
    ),
    store: str = typer.Option(str(DEFAULT_STORE), help=STORE_HELP),
    backend: BackendName = typer.Option(BackendName.local, help=BACKEND_HELP),
    address: str | None = typer.Option(None, help=ADDRESS_HELP),
    plot: Path = typer.Option(Path("runs") / "csbm_phi.png", help="PNG for a sweep."),
    html: Path | None = typer.Option(
        None, "--html", help=f"Also write the HTML report of these rows (demo: {DEMO_REPORT})."
    ),
    threads: int = typer.Option(1, min=1, help="Torch threads per training run."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Benchmark methods. With no arguments: the cSBM demo across homophily (GCN, GCN + JDR
    and GCN + FeaSt at 5 angles φ, 3 splits), with its verdict, plot and HTML report.

    On the cSBM, 'jdr' takes the JDR paper's tuned settings for each φ
    (given parameters override them). A sweep ends with a verdict: at how
    many φ each method is at or above 'none' (paired 95% CI).
    """
    from rewirekit.bench.plots import plot_sweep
    from rewirekit.bench.progress import RichProgress
    from rewirekit.bench.report import (
        compare_to_baseline,
        summarize_records,
        to_rich_table,
        to_sweep_table,
    )
    from rewirekit.bench.runner import DatasetSpec
    from rewirekit.bench.store import ResultStore
    from rewirekit.bench.sweep import (
        DEMO_CSBM,
        DEMO_METHODS,
        PAPER_CSBM,
        Sweep,
        csbm_dataset,
        expand,
        run_sweep,
        sweep_verdict,
    )
    from rewirekit.datasets import CSBM_PHI_GRID

    demo = not dataset and synthetic is None
    if demo:
        synthetic, sweep = "csbm", "phi"
        splits = splits or 3
        phi = phi or list(CSBM_PHI_GRID[::DEMO_PHI_STRIDE])
        html = html or DEMO_REPORT
    if dataset and synthetic:
        raise RewireError("choose either --dataset or --synthetic, not both.")
    size = PAPER_CSBM if full_size else DEMO_CSBM
    if synthetic is not None:
        if synthetic.lower() != "csbm":
            raise RewireError(f"unknown synthetic dataset {synthetic!r}; the choice is 'csbm'.")
        if sweep not in (None, "phi"):
            raise RewireError(f"cannot sweep {sweep!r}; the cSBM sweep is over 'phi'.")
        grid = (phi or list(CSBM_PHI_GRID)) if sweep == "phi" else (phi or [0.0])
        datasets = [csbm_dataset(size, value) for value in grid]
    else:
        datasets = [DatasetSpec.from_argument(d, undirected=undirected) for d in dataset]
    methods = [parse_method(m) for m in (method or (DEMO_METHODS if demo else ["none"]))]
    if sweep and all(m.name != "none" for m in methods):
        methods.insert(0, parse_method("none"))  # a sweep compares with the unrewired graph
    plan = expand(
        Sweep(
            datasets=datasets,
            methods=methods,
            models=[m.lower() for m in model],
            training_preset=training or _default_training(protocol),
            protocol=protocol,
            num_splits=splits,
            seeds=tuple(seed),
            selftrain=parse_method(selftrain) if selftrain else None,
        )
    )
    _print_protocols({d.preset_name: plan.choices[d.key] for d in datasets}, stderr=as_json)
    if plan.unresolved:
        angles = sorted({d.params["phi"] for d in datasets if d.key in dict(plan.unresolved)})
        err_console.print(
            "note: the JDR paper has no cSBM settings for φ = "
            f"{', '.join(f'{p:+.3f}' for p in angles)}; JDR runs there with its defaults "
            "and the given parameters.",
            highlight=False,
        )
    runner = _backend(backend, address)
    with ResultStore(store) as results, RichProgress(err_console) as progress:
        records = run_sweep(plan, results, progress, num_threads=threads, backend=runner)
        store = str(results)  # a URL without its password
    rows = summarize_records(records)
    phis = {d.key: d.params["phi"] for d in datasets if "phi" in d.params}
    points = [
        (phis[r.dataset], replace(r, method=plan.labels.get(r.method, r.method)))
        for r in rows
        if r.dataset in phis
    ]
    split = plan.benchmarks[0].split_preset
    if as_json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    elif points:
        console.print(to_sweep_table(points, title=f"cSBM {_describe_size(size)}, {split} split"))
    else:
        console.print(to_rich_table(rows, title=f"rewirekit bench · store {store}"))
    if points:
        paired = compare_to_baseline(records, "none")
        for line in sweep_verdict(paired, datasets, plan.labels):
            (err_console if as_json else console).print(line, highlight=False, soft_wrap=True)
        written = plot_sweep(points, plot, title=f"cSBM, {split} split")
        err_console.print(f"plot written to {written}")
    if html is not None:
        from rewirekit.bench.html_report import write_report

        page = write_report(html, records, subtitle=f"rewirekit bench · store {store}")
        err_console.print(f"HTML report written to {page}", highlight=False, soft_wrap=True)


def _print_protocols(choices: dict[str, Any], *, stderr: bool = False) -> None:
    """One line per split preset chosen: which datasets run on it, and why."""
    names: dict[Any, list[str]] = {}
    for name, choice in choices.items():
        names.setdefault(choice, []).append(name)
    for choice, on in names.items():
        hint = "" if choice.reason == "as requested" else "; --protocol to choose another"
        (err_console if stderr else console).print(
            f"protocol: {choice.preset} on {', '.join(on)} ({choice.reason}{hint})",
            highlight=False,
            soft_wrap=True,
        )


def _describe_size(size: dict[str, int]) -> str:
    return f"N={size['num_nodes']} F={size['num_features']}"


@app.command()
def tune(
    method: str = typer.Option(..., help="Method to tune (e.g. jdr)."),
    dataset: str = typer.Option(..., "--dataset", "-d", help=DATASET_HELP),
    undirected: bool = typer.Option(False, "--undirected", help=UNDIRECTED_HELP),
    trials: int = typer.Option(20, min=1, help="Distinct parameter sets to evaluate."),
    protocol: str | None = typer.Option(None, "--protocol", "-p", help=PROTOCOL_HELP),
    training: str | None = typer.Option(None, help="Training preset (default as in bench)."),
    model: str = typer.Option("gcn", "--model", "-m"),
    splits: int = typer.Option(5, min=1, help="Splits per trial (validation mean)."),
    seed: int = typer.Option(0, help="Seed of the TPE sampler."),
    store: str = typer.Option(str(DEFAULT_STORE), help=f"{STORE_HELP} Rows and the study."),
    backend: BackendName = typer.Option(BackendName.local, help=BACKEND_HELP),
    address: str | None = typer.Option(None, help=ADDRESS_HELP),
    threads: int = typer.Option(1, min=1, help="Torch threads."),
    as_json: bool = typer.Option(False, "--json", help="Print the search as JSON."),
) -> None:
    """Optuna search over a method's published search space, on validation accuracy.

    No parameter set is evaluated twice; test accuracy is shown only for the trial
    chosen by validation. Resumable: run it again to continue the same study."""
    import torch

    from rewirekit.bench.progress import RichProgress
    from rewirekit.bench.runner import DatasetSpec
    from rewirekit.bench.store import ResultStore
    from rewirekit.bench.tuning import trial_value
    from rewirekit.bench.tuning import tune as run_tuning
    from rewirekit.datasets import choose_split_preset

    torch.set_num_threads(threads)
    spec = DatasetSpec.from_argument(dataset, undirected=undirected)
    choice = choose_split_preset(spec.preset_name, protocol)
    _print_protocols({spec.key: choice}, stderr=as_json)
    runner = _backend(backend, address)
    with ResultStore(store) as results, RichProgress(err_console) as progress:
        result = run_tuning(
            method.lower(),
            spec,
            results,
            trials=trials,
            model=model.lower(),
            split_preset=choice.preset,
            num_splits=splits,
            training_preset=training or _default_training(protocol),
            seed=seed,
            progress=progress,
            backend=runner,
        )
    if as_json:
        setting = dict(
            method=method.lower(),
            dataset=spec.key,
            model=model.lower(),
            training=training or _default_training(protocol),
            splits=splits,
        )
        print(json.dumps(_tuning_json(result, choice, **setting), indent=2))
        return
    console.print(
        f"\n[bold]{method} on {spec.key}[/]: validation accuracy of {len(result.trials)} "
        f"parameter sets (mean of {splits} {choice.preset} splits; * chosen by validation)",
        highlight=False,
        soft_wrap=True,
    )
    table = Table()
    for col in ("trial", "val acc", "parameters"):
        table.add_column(col, justify="left" if col == "parameters" else "right")
    for t in result.trials:
        mark = "* " if t is result.best else ""
        table.add_row(f"{mark}{t.number}", f"{100 * trial_value(t):.2f}", _format_params(t.params))
    console.print(table)
    for note in result.notes:
        console.print(note, highlight=False, soft_wrap=True)
    console.print("\n[bold]Test accuracy of the trial chosen by validation[/]")
    console.print(
        f"trial {result.best.number} ({_format_params(result.best.params)}): "
        f"{100 * result.test_acc:.2f} test, {100 * trial_value(result.best):.2f} validation "
        f"(mean of {splits} splits)",
        highlight=False,
        soft_wrap=True,
    )


def _format_params(params: dict[str, Any]) -> str:
    return ", ".join(
        f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items()
    )


def _tuning_json(result: Any, choice: Any, **setting: Any) -> dict[str, Any]:
    """The search as JSON: validation accuracy per trial; test accuracy for the chosen one."""
    from rewirekit.bench.tuning import trial_value

    best = result.best
    return {
        **setting,
        "protocol": asdict(choice),
        "trials": [
            {"trial": t.number, "val_acc": 100 * trial_value(t), "params": t.params}
            for t in result.trials
        ],
        "repeats": result.repeats,
        "rejected": result.rejected,
        "exhausted": result.exhausted,
        "notes": result.notes,
        "chosen_by_validation": {
            "trial": best.number,
            "params": best.params,
            "val_acc": 100 * trial_value(best),
            "test_acc": 100 * result.test_acc,
        },
    }


def _default_training(protocol: str | None) -> str:
    return "comfy" if protocol == "comfy" else "jdr"


@app.command()
def leaderboard(
    dataset: list[str] = typer.Option(
        [],
        "--dataset",
        "-d",
        help="Dataset name or graph file (repeatable; see bench --help). Without --dataset "
        "and --csbm-phi: every offline dataset and the cSBM at -0.5 and 0.5.",
    ),
    undirected: bool = typer.Option(False, "--undirected", help=UNDIRECTED_HELP),
    csbm_phi: list[float] = typer.Option([], help="The cSBM at this angle (repeatable)."),
    csbm_nodes: int = typer.Option(1000, min=2, help="cSBM nodes."),
    csbm_features: int = typer.Option(400, min=1, help="cSBM features."),
    model: list[str] = typer.Option(["gcn", "gprgnn"], "--model", "-m", help="Model (repeatable)."),
    method: list[str] = typer.Option([], help="Method (repeatable; default: every registered)."),
    trials: int = typer.Option(20, min=1, help="Optuna trials per cell, the same for all."),
    splits: int = typer.Option(10, min=2, help="Random 60/20/20 splits per cell."),
    seeds: int = typer.Option(2, min=1, help="Training seeds per split (0, 1, ...)."),
    store: str = typer.Option(str(Path("runs") / "leaderboard.db"), help=STORE_HELP),
    backend: BackendName = typer.Option(BackendName.local, help=BACKEND_HELP),
    address: str | None = typer.Option(None, help=ADDRESS_HELP),
    rows: list[Path] = typer.Option(
        [],
        help="CSV of rows: written after a run (default docs/leaderboard.csv.gz); read, "
        "and merged if repeated, with --stored-only.",
    ),
    out: Path = typer.Option(Path("docs"), help="Folder of leaderboard.md and its PNGs."),
    preamble: Path | None = typer.Option(None, help="Markdown put under the page's title."),
    stored_only: bool = typer.Option(
        False, "--stored-only", help="Run nothing: rebuild the page from the rows (--rows)."
    ),
    html: Path | None = typer.Option(
        None,
        "--html",
        help="Also write the rows as one self-contained HTML page: the leaderboard first, "
        "then rewirekit report's sections (every trial, pairs, each dataset's diagnosis).",
    ),
    selftrain: str | None = typer.Option(
        None,
        "--selftrain",
        help="Self-train every run, 'none' included, after the rewiring: bangs, st or m3s, "
        "optionally with parameters ('st:rounds=5'). Its rows form a leaderboard of their "
        "own; pass it again with --stored-only.",
    ),
    threads: int = typer.Option(1, min=1, help="Torch threads."),
) -> None:
    """The fair leaderboard: every method x dataset x model under one protocol.

    The same class-balanced 60/20/20 splits and the same tuning budget (Optuna trials over the
    method's search space plus the model's, on validation accuracy) for every method,
    'none' included; test accuracy paired against 'none', wins/ties/losses, average ranks,
    a Friedman test and the critical-difference diagram. Resumable: run it again to continue.
    The page is built from the stored rows alone, so --stored-only rebuilds it from the CSV.
    With --selftrain, every run is also self-trained: the same question with self-training.
    """
    import tempfile

    import torch

    from rewirekit.bench.leaderboard import Protocol, constant_prediction_floors, run_leaderboard
    from rewirekit.bench.leaderboard import leaderboard as build
    from rewirekit.bench.leaderboard_report import write_leaderboard
    from rewirekit.bench.progress import RichProgress
    from rewirekit.bench.runner import DatasetSpec
    from rewirekit.bench.store import ResultStore
    from rewirekit.bench.sweep import csbm_dataset
    from rewirekit.datasets import list_datasets
    from rewirekit.methods import list_methods, method_class
    from rewirekit.selftrain import get_self_trainer

    target = rows[0] if rows else Path("docs") / "leaderboard.csv.gz"
    selftraining = parse_method(selftrain) if selftrain else None
    if selftraining is not None:
        get_self_trainer(selftraining.name, **selftraining.params)  # fails early on a typo
    if stored_only:
        if not rows:
            raise RewireError("--stored-only reads rows: pass --rows FILE.csv (repeatable).")
        with tempfile.TemporaryDirectory() as scratch, ResultStore(Path(scratch) / "r.db") as db:
            for path in rows:
                db.import_csv(path)
            records = list(db.records())
    else:
        torch.set_num_threads(threads)
        everything = not dataset and not csbm_phi  # the full grid
        phis = [-0.5, 0.5] if everything else csbm_phi
        offline = [d.name for d in list_datasets() if d.available_offline]
        names = offline if everything else dataset
        size = {"num_nodes": csbm_nodes, "num_features": csbm_features}
        specs = [DatasetSpec.from_argument(n, undirected=undirected) for n in names]
        specs += [csbm_dataset(size, p) for p in phis]
        protocol = Protocol(
            trials=trials,
            num_splits=splits,
            seeds=tuple(range(seeds)),
            selftrain=selftraining,
        )
        methods = [method_class(m).name for m in method] or list_methods()
        runner = _backend(backend, address)
        with ResultStore(store) as results, RichProgress(err_console) as progress:
            models = [m.lower() for m in model]
            skipped = run_leaderboard(
                specs, models, methods, results, protocol, progress, backend=runner
            )
            records = list(results.records())
            results.export_csv(target)
        for skip in skipped:
            err_console.print(
                f"skipped {skip.method} on {skip.dataset}, {skip.model}: {skip.reason}"
            )
    board = build(records, Protocol.of(records, selftrain=selftraining))
    note = None if preamble is None else str(preamble)
    floors = constant_prediction_floors(board)
    written = write_leaderboard(
        board, records, out, rows_file=str(target), preamble_file=note, floors=floors
    )
    if html is not None:
        from rewirekit.bench.html_report import write_report

        subtitle = f"rewirekit leaderboard · rows {target}"
        page = write_report(
            html, records, title="The fair leaderboard", subtitle=subtitle, selftrain=selftraining
        )
        written.append(page)
    console.print(f"{len(records)} rows; written: {', '.join(map(str, written))}", highlight=False)


@app.command()
def auto(
    dataset: str = typer.Option(..., "--dataset", "-d", help=DATASET_HELP),
    undirected: bool = typer.Option(False, "--undirected", help=UNDIRECTED_HELP),
    evaluate: bool = typer.Option(
        False, "--evaluate", help="Also the paired test gain on held-back splits."
    ),
    trials: int = typer.Option(8, min=1, help="Optuna trials per candidate, none included."),
    splits: int = typer.Option(5, min=1, help="Selection splits (random 60/20/20)."),
    eval_splits: int = typer.Option(5, min=2, help="Held-back splits of --evaluate."),
    eval_seeds: int = typer.Option(2, min=1, help="Training seeds per held-back split."),
    shortlist: int = typer.Option(2, min=0, help="Methods the rule short-lists."),
    neighbours: int = typer.Option(1, min=1, help="Nearest leaderboard datasets that vote."),
    model: str = typer.Option("gcn", "--model", "-m"),
    method: list[str] = typer.Option(
        [], help="Consider only these methods (repeatable; default: every registered)."
    ),
    rows: list[Path] = typer.Option(
        [],
        help="Learn the rule from these leaderboard rows (CSV, repeatable; default: the "
        "profiles shipped with rewirekit, from docs/leaderboard.csv.gz).",
    ),
    store: Path = typer.Option(Path("runs") / "auto.db", help="SQLite store (resumable)."),
    seed: int = typer.Option(0, help="Seed of the diagnosis and of the TPE sampler."),
    threads: int = typer.Option(1, min=1, help="Torch threads."),
) -> None:
    """Which rewiring, if any, helps on this graph: diagnose, short-list, tune, choose.

    The rule short-lists the methods that gained most on the nearest leaderboard dataset(s)
    in diagnosis space (never the dataset itself); 'none' and the short-list are tuned with
    the same Optuna budget on validation accuracy (the fair protocol's splits); the best
    validation accuracy wins ('none' on ties). With --evaluate, the choice and the tuned
    'none' are trained on held-back splits selection never used, and compared paired.
    The defaults run Texas in a few minutes on 2 cores.
    """
    import tempfile

    import torch

    from rewirekit.bench.auto import FEATURES, load_profiles, profiles_from_records
    from rewirekit.bench.auto import auto as run_auto
    from rewirekit.bench.auto import evaluate as run_evaluation
    from rewirekit.bench.progress import RichProgress
    from rewirekit.bench.runner import DatasetSpec
    from rewirekit.bench.store import ResultStore

    torch.set_num_threads(threads)
    spec = DatasetSpec.from_argument(dataset, undirected=undirected)
    if rows:
        with tempfile.TemporaryDirectory() as scratch, ResultStore(Path(scratch) / "r.db") as db:
            for path in rows:
                db.import_csv(path)
            profiles = profiles_from_records(db.records(), seed=seed)
    else:
        profiles = load_profiles()
    with ResultStore(store) as results, RichProgress(err_console) as progress:
        _, found = run_auto(
            spec,
            model=model,
            trials=trials,
            num_splits=splits,
            shortlist=shortlist,
            neighbours=neighbours,
            methods=method or None,
            profiles=profiles,
            store=results,
            seed=seed,
            progress=progress,
        )
        evaluation = None
        if evaluate:
            evaluation = run_evaluation(
                spec,
                found,
                num_splits=eval_splits,
                seeds=tuple(range(eval_seeds)),
                store=results,
            )
    within = "within every class" if found.split_preset == "stratified" else "class-balanced"
    _say(
        f"protocol: {found.split_preset} (random 60/20/20, {within}) on {found.dataset}, the fair "
        f"training preset, {found.model}; selection on splits 0-{splits - 1} at seed 0"
    )
    values = found.diagnosis.to_dict()
    _say("\n[bold]Diagnosis[/] (labels of the training nodes of split 0 only)")
    _say(", ".join(f"{f.replace('_', ' ')} {values[f]:.4f}" for f in FEATURES))
    voters = found.nearest[: found.neighbours]
    others = found.nearest[found.neighbours :]
    _say(
        f"\n[bold]Short-list[/]: the {len(found.shortlist)} methods of best leaderboard "
        f"gain on the nearest leaderboard dataset(s) in z-scored diagnosis space: "
        + ", ".join(f"{d} (distance {dist:.2f})" for d, dist in voters)
        + ("; farther: " + ", ".join(f"{d} ({dist:.2f})" for d, dist in others) if others else "")
    )
    for s in found.shortlist:
        _say(f"  {s.method}: {s.why}")
    for name, reason in found.skipped:
        _say(f"  {name} skipped: {reason}")
    _say(f"\n[bold]Tuned on validation[/] ({trials} trials each, mean of {splits} splits)")
    table = Table()
    for col in ("method", "val acc", "Δ val vs none", "trials", "parameters"):
        table.add_column(col, justify="left" if col in ("method", "parameters") else "right")
    for c in found.candidates:
        mark = "* " if c is found.choice else ""
        table.add_row(
            f"{mark}{c.method}",
            f"{c.val_acc:.2f}",
            "—" if c is found.baseline else f"{c.val_acc - found.baseline.val_acc:+.2f}",
            str(c.trials),
            _format_params({**c.params, **c.model_params}),
        )
    console.print(table)
    choice = found.choice
    verdict = "do not rewire" if choice.method == "none" else f"rewire with {choice.method}"
    _say(
        f"\n[bold]Choice[/]: {verdict} ({_format_params(choice.params) or 'no parameters'}; "
        f"{_format_params(choice.model_params)}), validation gain {found.val_gain:+.2f} "
        "points over none"
    )
    if evaluation is not None:
        ids = evaluation.split_ids
        p = evaluation.paired
        _say(
            f"\n[bold]Held-back test[/] (splits {ids[0]}-{ids[-1]} x seeds "
            f"{', '.join(map(str, evaluation.seeds))}, never used by selection): "
            f"{choice.method} {evaluation.chosen.mean:.2f}, none {evaluation.baseline.mean:.2f}; "
            f"paired gain {p.mean_diff:+.2f} points [95% CI {p.ci_low:+.2f}, {p.ci_high:+.2f}] "
            f"(n={p.n}, Wilcoxon p={p.p_value:.3g})"
        )
        if choice.method == "none":
            _say("(none was chosen: its gain over itself is zero by construction)")


def _say(text: str) -> None:
    """One plain line of a report: no highlighting, soft-wrapped."""
    console.print(text, highlight=False, soft_wrap=True)


@app.command()
def report(
    store: str = typer.Option(str(DEFAULT_STORE), help=STORE_HELP),
    output: OutputFormat = typer.Option(OutputFormat.table, "--format", "-f"),
    dataset: str | None = typer.Option(None, help="Only this dataset."),
    versus: str | None = typer.Option(
        None,
        help="Instead, compare every method with this one (e.g. 'none'), paired on the "
        "splits and seeds both ran.",
    ),
    html: Path | None = typer.Option(
        None,
        "--html",
        help="Write one self-contained HTML page instead: results with intervals, paired "
        "comparisons (with --versus, default 'none'), the cSBM sweep plot, diagnoses.",
    ),
    diagnosis: bool = typer.Option(
        True, "--diagnosis/--no-diagnosis", help="Diagnose each dataset in the HTML page."
    ),
) -> None:
    """Print the stored results, aggregated over splits and seeds (or write them as HTML).

    With --versus, print only paired comparisons: each method's mean difference from the
    baseline over the (split, seed) pairs both ran, with its 95% bootstrap CI.
    """
    from rewirekit.bench.report import (
        compare_to_baseline,
        method_label,
        summarize_records,
        to_csv,
        to_markdown,
        to_paired_csv,
        to_paired_markdown,
        to_paired_table,
        to_rich_table,
    )
    from rewirekit.bench.store import ResultStore, is_store_url

    if not is_store_url(store) and not Path(store).exists():
        raise RewireError(
            f"no result store at {store}; run 'rewirekit bench' first or pass --store."
        )
    with ResultStore(store) as results:
        filters = {"dataset": dataset.lower()} if dataset else {}
        records = list(results.records(**filters))
        store = str(results)  # a URL without its password
    if html is not None:
        from rewirekit.bench.html_report import write_report

        written = write_report(
            html, records, baseline=versus or "none", diagnosis=diagnosis, subtitle=str(store)
        )
        console.print(f"HTML report written to {written}", highlight=False, soft_wrap=True)
        return
    if versus is None:
        rows = summarize_records(records)
        if output is OutputFormat.markdown:
            print(to_markdown(rows), end="")
        elif output is OutputFormat.csv:
            print(to_csv(rows), end="")
        else:
            console.print(to_rich_table(rows, title=str(store)))
        return
    paired = compare_to_baseline(records, versus)
    if output is OutputFormat.markdown:
        print(to_paired_markdown(paired), end="")
    elif output is OutputFormat.csv:
        print(to_paired_csv(paired), end="")
    else:
        console.print(to_paired_table(paired))
    compared = {r.method for r in paired} | {versus}
    left = sorted({method_label(r) for r in records} - compared)
    if left:
        err_console.print(
            f"not compared (fewer than 2 (split, seed) pairs shared with {versus}): "
            + ", ".join(left),
            highlight=False,
            soft_wrap=True,
        )


@app.command()
def datasets() -> None:
    """List the datasets and whether they are available offline (REWIREKIT_DATA)."""
    from rewirekit.datasets import list_datasets

    table = Table(title="datasets")
    for col in ("name", "source", "homophilic", "offline", "fixed splits"):
        table.add_column(col)
    for info in list_datasets():
        table.add_row(
            info.name,
            info.source,
            _yes(info.homophilic),
            _yes(info.available_offline),
            _yes(info.has_fixed_splits),
        )
    console.print(table)


@app.command()
def methods() -> None:
    """List the rewiring methods and their parameters."""
    from rewirekit.methods import describe, list_methods, method_class

    table = Table(title="methods")
    for col in ("name", "parameters", "description"):
        table.add_column(col)
    for name in list_methods():
        params = ", ".join(method_class(name).param_names()) or "—"
        table.add_row(name, params, describe(name))
    console.print(table)


@app.command()
def diagnose(
    dataset: str = typer.Option(..., "--dataset", "-d", help=DATASET_HELP),
    undirected: bool = typer.Option(False, "--undirected", help=UNDIRECTED_HELP),
    method: str | None = typer.Option(
        None, help="Also diagnose after this rewiring, e.g. 'comfy:add=100,delete=100'."
    ),
    protocol: str | None = typer.Option(
        None, "--protocol", "-p", help=f"{PROTOCOL_HELP} It gives the training labels."
    ),
    split: int = typer.Option(0, min=0, help="Split id of the training mask."),
    seed: int = typer.Option(0, help="Seed of the community detection."),
    communities: str = typer.Option("leiden", help="'leiden' or 'louvain' (the ComFy paper's)."),
) -> None:
    """Homophily, spectral gap, communities and their label alignment, before and after."""
    from rewirekit.bench.runner import DatasetSpec
    from rewirekit.datasets import choose_split_preset, get_split_preset, standardize
    from rewirekit.diagnostics import diagnose as compute
    from rewirekit.methods import get_method

    source = DatasetSpec.from_argument(dataset, undirected=undirected)
    name = source.key
    choice = choose_split_preset(source.preset_name, protocol)
    preset = get_split_preset(choice.preset)
    spec = None if method is None else parse_method(method)
    rewirer = None if spec is None else get_method(spec.name, **spec.params)
    _print_protocols({name: choice})
    data = preset.prepare(standardize(source.load()))
    train_mask, _, _ = preset.split(data, split, name)
    results = {"before": compute(data, train_mask, seed=seed, communities=communities)}
    if spec is not None and rewirer is not None:
        after = compute(rewirer(data), train_mask, seed=seed, communities=communities)
        results[f"after {spec.label}"] = after
    columns = {header: result.to_dict() for header, result in results.items()}
    table = Table(
        title=f"{name}: diagnostics",
        caption=f"NMI on the training nodes of {preset.name} split {split}",
    )
    table.add_column("")
    for header in columns:
        table.add_column(header, justify="right")
    for metric in columns["before"]:
        table.add_row(metric.replace("_", " "), *(_fmt(col[metric]) for col in columns.values()))
    console.print(table)
    for header, result in results.items():
        edges = ", ".join(f"({u}, {v}) {k:.3f}" for u, v, k in result.most_negative_edges)
        console.print(f"most negatively curved edges {header}: {edges or 'none'}")


@app.command()
def certify(
    dataset: str = typer.Option("cora_ml_b", "--dataset", "-d", help="'cora_ml_b' or 'csbm'."),
    model: str = typer.Option("gcn", help="NTK architecture: gcn, sgc, sage, gin, appnp, mlp."),
    budget: float = typer.Option(0.05, help="Share delta of labelled nodes an attacker flips."),
    c: float = typer.Option(0.075, "--C", help="The SVM's box bound C."),
    method: str | None = typer.Option(
        None, help="Also certify after this rewiring, e.g. 'jdr:...', on the same targets."
    ),
    collective: bool = typer.Option(False, help="One attack against all targets at once."),
    seed: int = typer.Option(0, help="Seed of the split (and of the CSBM)."),
) -> None:
    """Certified ratio against label flips (QPCert, exact), before and after a rewiring."""
    from rewirekit.certify.api import certify_labels
    from rewirekit.certify.certificates import SampleCertificate
    from rewirekit.certify.data import LabelGraph, load_label_graph, to_data
    from rewirekit.methods import get_method

    graph, split = load_label_graph(dataset, seed)
    graphs = {"before": graph}
    if method is not None:
        spec = parse_method(method)
        rewired = get_method(spec.name, **spec.params)(to_data(graph))
        graphs[f"after {spec.label}"] = LabelGraph(
            x=rewired.x.numpy().astype(float), adj=_adjacency(rewired), y=graph.y, name=dataset
        )
    for header, g in graphs.items():
        cert = certify_labels(
            g,
            model,
            budget,
            C=c,
            labelled=split.labelled,
            targets=split.targets,
            collective=collective,
        )
        timed_out = cert.num_timed_out if isinstance(cert, SampleCertificate) else cert.timed_out
        console.print(
            f"{dataset} {model} budget {budget:g} (B={cert.budget}) {header}: "
            f"certified ratio {cert.ratio:.4f} ({len(split.targets)} targets, "
            f"timed out: {timed_out})"
        )


def _adjacency(data: Any) -> Any:
    import numpy as np
    import scipy.sparse as sp

    edges = data.edge_index.numpy()
    n = data.num_nodes
    adj = sp.csr_array((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(n, n))
    return ((adj + adj.T) > 0).astype(float)


def _fmt(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def main() -> None:
    """Entry point: user errors print one line and exit 2, without a traceback."""
    try:
        code = app(standalone_mode=False)
    except (RewireError, TyperException) as err:
        message = err.format_message() if isinstance(err, TyperException) else str(err)
        err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Abort:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
