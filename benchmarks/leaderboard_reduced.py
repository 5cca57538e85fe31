"""The reduced leaderboard grid committed in docs/leaderboard.md, run one dataset per process.

The grid: GCN; Texas, Cornell, Wisconsin and a small cSBM (N = 400, F = 100, φ = −0.5); every
registered method, in the order of :data:`ORDER` (the control and the paper methods first, so
that a run stopped early has the most informative cells); 2 trials per cell, 5 splits × 2
seeds. The protocol is :func:`rewirekit.bench.leaderboard.run_leaderboard`'s, the same as
``rewirekit leaderboard``'s; only the grid is smaller, and each dataset runs in its own
process with its own store (they share no study)::

    for d in texas cornell wisconsin csbm; do
        nice -n 10 python benchmarks/leaderboard_reduced.py run $d runs/lb_$d.db &
    done; wait
    python benchmarks/leaderboard_reduced.py merge docs/leaderboard.csv runs/lb_*.db
    rewirekit leaderboard --stored-only --rows docs/leaderboard.csv \\
        --preamble docs/leaderboard_preamble.md

Each ``run`` prints its wall time; a killed run resumes from its store.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import torch

from rewirekit.bench.leaderboard import Protocol, run_leaderboard
from rewirekit.bench.runner import DatasetSpec
from rewirekit.bench.store import ResultStore
from rewirekit.bench.sweep import csbm_dataset
from rewirekit.methods import list_methods

PROTOCOL = Protocol(trials=2, num_splits=5, seeds=(0, 1))
CSBM = {"num_nodes": 400, "num_features": 100}
FIRST = ["none", "random", "jdr", "feast", "comfy", "digl", "fosr", "sdrf"]
ORDER = FIRST + [m for m in list_methods() if m not in FIRST]


def run(name: str, store: str) -> None:
    torch.set_num_threads(1)
    dataset = csbm_dataset(CSBM, -0.5) if name == "csbm" else DatasetSpec.named(name)
    start = time.time()
    with ResultStore(store) as results:
        skipped = run_leaderboard([dataset], ["gcn"], ORDER, results, PROTOCOL)
    print("skipped", skipped, "seconds", time.time() - start, flush=True)


def merge(target: str, stores: list[str]) -> None:
    """Every row of ``stores`` in one CSV."""
    with tempfile.TemporaryDirectory() as scratch, ResultStore(Path(scratch) / "m.db") as merged:
        for path in stores:
            with ResultStore(path) as store:
                store.export_csv(Path(scratch) / "part.csv")
            merged.import_csv(Path(scratch) / "part.csv")
        print(merged.export_csv(target), "rows in", target)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "run":
        run(*args)
    else:
        merge(args[0], args[1:])
