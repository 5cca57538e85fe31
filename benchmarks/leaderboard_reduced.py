"""The leaderboard committed in docs/leaderboard.md: the fair protocol on fewer datasets,
run in two processes.

The grid: GCN and GPRGNN; Texas, Cornell, Wisconsin and a small cSBM (N = 400, F = 100,
φ = −0.5); every registered method, in the order of :data:`ORDER` (the control and the paper
methods first, so that a run stopped early has the most informative cells). The protocol is
``rewirekit leaderboard``'s (:class:`rewirekit.bench.leaderboard.Protocol`: 10 splits × 2
seeds; 20 trials per cell unless ``--trials`` says otherwise), through the same function
(:func:`rewirekit.bench.leaderboard.run_leaderboard`). Each process has its own store (they
share no study). The committed page ran with ``--trials 5`` (docs/leaderboard_run.txt)::

    nice -n 5 python benchmarks/leaderboard_reduced.py run runs/lb_a.db texas cornell --trials 5 &
    nice -n 5 python benchmarks/leaderboard_reduced.py run runs/lb_b.db wisconsin csbm --trials 5 &
    wait
    python benchmarks/leaderboard_reduced.py merge docs/leaderboard.csv.gz runs/lb_a.db runs/lb_b.db
    rewirekit leaderboard --stored-only --rows docs/leaderboard.csv.gz \\
        --preamble docs/leaderboard_preamble.md

Any other dataset name runs the same way (``run runs/lb_c.db cora --trials 5``; ``csbm:0.5``
is the full grid's cSBM, N = 1000 and F = 400, at φ = +0.5); ``--models
gcn`` and ``--models gprgnn`` split one dataset over two processes (two stores, each with its
own ``none`` cell to pair with), and ``--methods`` shares one model's cells further (each
process still tunes ``none`` first; the seeded studies give equal rows, and the merge keeps
the first store's). ``merge ... --drop chameleon`` leaves a dataset's rows out (one whose
cells are not all done yet). A later run with more trials extends the same studies (Optuna's
seeded TPE sampler proposes the same first ``T`` parameter sets). Each ``run`` prints its
wall time; a killed run resumes from its store, and a store rebuilt from the committed CSV
(``ResultStore.import_csv``) resumes too, as the seeded studies ask the same parameters
again and find their rows stored.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from rewirekit.bench.leaderboard import Protocol, run_leaderboard
from rewirekit.bench.runner import DatasetSpec
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.bench.sweep import csbm_dataset
from rewirekit.methods import list_methods

MODELS = ["gcn", "gprgnn"]
CSBM = {"num_nodes": 400, "num_features": 100}
#: The cSBM of the full grid (``rewirekit leaderboard``'s defaults), run at φ = ±0.5.
FULL_GRID_CSBM = {"num_nodes": 1000, "num_features": 400}
FIRST = ["none", "random", "jdr", "feast", "comfy", "digl", "fosr", "sdrf"]
ORDER = FIRST + [m for m in list_methods() if m not in FIRST]


def run(
    store: str,
    names: list[str],
    trials: int,
    models: list[str] = MODELS,
    methods: Sequence[str] = ORDER,
) -> None:
    torch.set_num_threads(1)
    datasets = [_dataset(name) for name in names]
    ordered = [m for m in ORDER if m in methods]
    start = time.time()
    with ResultStore(store) as results:
        skipped = run_leaderboard(datasets, models, ordered, results, Protocol(trials=trials))
    print("skipped", skipped, "seconds", time.time() - start, flush=True)


def _dataset(name: str) -> DatasetSpec:
    """A named dataset; ``csbm``, the small cSBM at φ = −0.5; or ``csbm:PHI``, the full grid's
    cSBM at angle PHI (``rewirekit leaderboard``'s size, :data:`FULL_GRID_CSBM`)."""
    if name == "csbm":
        return csbm_dataset(CSBM, -0.5)
    if name.startswith("csbm:"):
        return csbm_dataset(FULL_GRID_CSBM, float(name.removeprefix("csbm:")))
    return DatasetSpec.named(name)


def merge(target: str, stores: list[str], drop: Sequence[str] = ()) -> None:
    """Every row of ``stores`` in one CSV, less the rows of the datasets in ``drop`` (say, a
    dataset whose cells are not all done yet).

    The rows ``target`` already holds, less those of ``drop``, must come out unchanged (the
    stores were resumed from them): a merge that would lose or alter one raises and leaves
    ``target`` as it was."""
    with tempfile.TemporaryDirectory() as scratch, ResultStore(Path(scratch) / "m.db") as merged:
        part = Path(scratch) / "part.csv"
        for path in stores:
            with ResultStore(path) as store:
                store.export_csv(part)
            with part.open(newline="") as handle:
                header, *rows = csv.reader(handle)
            with part.open("w", newline="") as handle:
                csv.writer(handle).writerows([header] + [r for r in rows if r[0] not in drop])
            merged.import_csv(part)
        before = _rows_kept(Path(target), Path(scratch) / "before.db", drop)
        after = {record.key: record for record in merged.records()}
        changed = [record.key for record in before if after.get(record.key) != record]
        if changed:
            raise SystemExit(
                f"merge refused: {len(changed)} of the {len(before)} rows already in {target} "
                f"would be lost or changed (first: {changed[0]}); {target} is left as it was."
            )
        count = merged.export_csv(target)
    print(count, "rows in", target, f"({len(before)} of them there before, unchanged)")


def _rows_kept(target: Path, scratch: Path, drop: Sequence[str]) -> list[RunRecord]:
    """The rows of an earlier merge into ``target`` that a new one must keep (none if there
    was none)."""
    if not target.exists():
        return []
    with ResultStore(scratch) as earlier:
        earlier.import_csv(target)
        return [record for record in earlier.records() if record.key.dataset not in drop]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    runner = commands.add_parser("run", help="run (or resume) the grid of some datasets")
    runner.add_argument("store")
    runner.add_argument(
        "datasets", nargs="+", help="dataset names; csbm: the small cSBM; csbm:PHI: the full grid's"
    )
    runner.add_argument("--trials", type=int, default=Protocol.trials)
    runner.add_argument(
        "--models", nargs="+", default=MODELS, choices=MODELS,
        help="a subset of the models, e.g. to run one dataset's models in two processes",
    )  # fmt: skip
    runner.add_argument(
        "--methods", nargs="+", default=ORDER, choices=ORDER,
        help="a subset of the methods (run in ORDER), e.g. to share one model's cells",
    )  # fmt: skip
    merger = commands.add_parser("merge", help="every row of the stores in one CSV")
    merger.add_argument("target")
    merger.add_argument("stores", nargs="+")
    merger.add_argument("--drop", nargs="+", default=[], help="datasets whose rows are left out")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.store, args.datasets, args.trials, args.models, args.methods)
    else:
        merge(args.target, args.stores, args.drop)


if __name__ == "__main__":
    main()
