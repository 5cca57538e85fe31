"""Actor under the JDR protocol: what the direction of its edges does to the table's rows.

    REWIREKIT_DATA=/work/shared/datasets python benchmarks/jdr_actor_direction.py --splits 20
    REWIREKIT_DATA=/work/shared/datasets python benchmarks/jdr_actor_direction.py --base

PyG's ``Actor`` is directed. The JDR table's base row trains on it as it is, as the official
code does; its DIGL, FoSR and BORF rows rewire it made undirected (our methods take
undirected graphs), so their gain over the base mixes the rewiring with the symmetrisation.

``--base`` separates the two: it trains the base row's GCN (no rewiring, the ``jdr``
training preset, the same ``dense`` splits) on Actor made undirected, in its own store, and
prints, paired over the (split, seed) pairs both stores hold, with 95% bootstrap CIs: this
minus the directed base row, and each rewired row minus this.

Without ``--base``: the official script hands JDR's dense adjacency ``A[src, dst]`` to
``torch.linalg.eigh``, which reads only the lower triangle, so JDR there sees the undirected
graph of the edges ``i -> j`` with ``i > j``. Our reproduction rows rewire the symmetrised
graph instead. This mode runs the GCN+JDR row (faithful JDR with the paper's Actor GCN
settings) on the lower-triangle graph, in its own store, and prints both against the paper
and the paired difference (lower triangle minus symmetrised).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from reproduce_papers import JDR_BASELINES, JDR_REWIRED, write_runs_file
from torch_geometric.data import Data

from rewirekit.bench.report import paired_text, summarize_records
from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
from rewirekit.bench.stats import PairedComparison, paired_comparison
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.datasets import load, standardize

PAPER = next(r for r in JDR_REWIRED if (r.dataset, r.label) == ("actor", "GCN+JDR"))
BASE = next(r for r in JDR_BASELINES if (r.dataset, r.model) == ("actor", "gcn"))
#: The rows that rewire Actor made undirected.
UNDIRECTED_ROWS = [
    r for r in JDR_REWIRED if r.dataset == "actor" and r.model == "gcn" and r.method != "jdr"
]


def lower_triangle_graph() -> Data:
    """Actor as ``eigh`` sees its directed adjacency: the pairs with an edge ``i -> j``,
    ``i > j``, made undirected."""
    data = load("actor", undirected=False)
    src, dst = data.edge_index
    lower = data.clone()
    lower.edge_index = data.edge_index[:, src > dst]
    return standardize(lower)


def symmetrised_graph() -> Data:
    """Actor made undirected, as the DIGL, FoSR and BORF rows rewire it."""
    return standardize(load("actor", undirected=False))


def runs(
    store: ResultStore, dataset: DatasetSpec, splits: int, method: MethodSpec | None = None
) -> list[RunRecord]:
    """A row's runs on splits ``0 .. splits - 1`` (trained into ``store`` if missing): the
    GCN+JDR row's unless ``method`` is given."""
    spec = BenchmarkSpec(
        datasets=[dataset],
        methods=[method or MethodSpec("jdr", PAPER.candidates[0])],
        models=["gcn"],
        split_preset="dense",
        training_preset="jdr",
        num_splits=splits,
    )
    return run_benchmark(spec, store)


def paired(a: list[RunRecord], b: list[RunRecord]) -> PairedComparison:
    """``a`` minus ``b`` in test accuracy points, paired by (split id, seed)."""
    accs_a = {(r.key.split_id, r.key.seed): 100 * r.test_acc for r in a}
    accs_b = {(r.key.split_id, r.key.seed): 100 * r.test_acc for r in b}
    shared = sorted(set(accs_a) & set(accs_b))
    return paired_comparison([accs_a[k] for k in shared], [accs_b[k] for k in shared])


def print_row(name: str, records: list[RunRecord]) -> None:
    row = summarize_records(records)[0]
    print(f"{name:<36} {row.mean:.2f} ± {row.ci_half_width:.2f}  ({row.n} splits)")


def print_paired(name: str, a: list[RunRecord], b: list[RunRecord]) -> None:
    difference = paired(a, b)
    print(f"{name}, over {difference.n} splits: {paired_text(difference)} points (95% CI)")


def compare_base(
    store_path: Path, reproduction_store: Path, splits: int, runs_file: Path | None
) -> None:
    """The ``--base`` comparison (module docstring); ``runs_file`` receives this script's
    store as CSV."""
    none = MethodSpec("none", {})
    with ResultStore(store_path) as store:
        undirected = runs(store, DatasetSpec("actor", symmetrised_graph, "actor"), splits, none)
        if runs_file is not None:
            write_runs_file(store, runs_file)
    with ResultStore(reproduction_store) as store:
        directed = runs(store, DatasetSpec.named("actor"), splits, none)
        rewired = {
            row.label: runs(
                store, DatasetSpec.named("actor"), splits, MethodSpec(row.method, row.candidates[0])
            )
            for row in UNDIRECTED_ROWS
        }
    print(f"paper (GCN, Actor): {BASE.mean:.2f} ± {BASE.pm:.2f}")
    print_row("GCN, directed (the base row)", directed)
    print_row("GCN, made undirected", undirected)
    for label, records in rewired.items():
        print_row(f"{label} (rewires it made undirected)", records)
    print_paired("made undirected minus directed", undirected, directed)
    for label, records in rewired.items():
        print_paired(f"{label} minus GCN made undirected", records, undirected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", action="store_true", help="the base row made undirected")
    parser.add_argument("--splits", type=int, help="splits (default: 20, or 100 with --base)")
    parser.add_argument("--store", type=Path, help="this script's own store")
    parser.add_argument("--runs-file", type=Path, help="with --base: export its store there")
    parser.add_argument(
        "--symmetrised-store",
        type=Path,
        default=Path("runs/baselines.db"),
        help="the reproduction store holding the table's rows",
    )
    args = parser.parse_args()
    if args.base:
        store = args.store or Path("runs/jdr_actor_undirected.db")
        compare_base(store, args.symmetrised_store, args.splits or 100, args.runs_file)
        return
    splits = args.splits or 20
    with ResultStore(args.store or Path("runs/jdr_actor_lower.db")) as store:
        lower = runs(store, DatasetSpec("actor", lower_triangle_graph, "actor"), splits)
    with ResultStore(args.symmetrised_store) as store:
        symmetrised = runs(store, DatasetSpec.named("actor"), splits)
    print(f"paper (GCN+JDR, Actor): {PAPER.mean:.2f} ± {PAPER.pm:.2f}")
    print_row("lower triangle (official input)", lower)
    print_row("symmetrised (ours)", symmetrised)
    print_paired("paired, lower triangle minus symmetrised", lower, symmetrised)


if __name__ == "__main__":
    main()
