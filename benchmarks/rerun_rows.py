"""Train stored rows again with this checkout and say which ones come out equal.

A leaderboard row is a key (dataset, split, method and its parameters, model, training
preset, seed) and what its run measured. This reruns the selected rows into a scratch store
(the rewiring, then the training, exactly as the leaderboard's runner does) and compares the
test and validation accuracies and the epochs with the stored ones, digit for digit. It is
the check that the committed rows are what the committed code computes, and it finds what a
row depends on beyond its key: ``--threads`` sets the BLAS, OpenMP and torch threads (the
runner itself trains on one torch thread)::

    REWIREKIT_DATA=../shared/datasets python benchmarks/rerun_rows.py --dataset texas \\
        --model gcn --method jdr --limit 4 --threads 1

``docs/rerun_rows.txt`` holds such runs, each block headed by its arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile

import pandas as pd
from timing import run_header, set_threads

from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
from rewirekit.bench.store import ResultStore


def rerun(row: pd.Series, store: ResultStore) -> tuple[float, float, int]:
    """(test accuracy, validation accuracy, epochs) of ``row``'s run, trained again."""
    dataset = DatasetSpec.from_key(row.dataset)
    if dataset is None:
        raise SystemExit(f"{row.dataset!r} was read from a file; its rows cannot be rerun here")
    spec = BenchmarkSpec(
        datasets=[dataset],
        methods=[MethodSpec(row.method, json.loads(row.params))],
        models=[row.model],
        split_preset=row.split_preset,
        training_preset=row.training_preset,
        num_splits=1,
        first_split=int(row.split_id),
        seeds=(int(row.seed),),
    )
    (record,) = run_benchmark(spec, store)
    return record.test_acc, record.val_acc, record.epochs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="docs/leaderboard.csv.gz", help="a CSV of stored rows")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--model")
    parser.add_argument("--method")
    parser.add_argument("--limit", type=int, default=5, help="the first N selected rows")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    set_threads(args.threads)
    rows = pd.read_csv(args.rows, float_precision="round_trip")  # the stored digits exactly
    chosen = rows[rows.dataset == args.dataset]
    for column in ("model", "method"):
        if getattr(args, column) is not None:
            chosen = chosen[chosen[column] == getattr(args, column)]
    chosen = chosen.head(args.limit)
    print(run_header("rerun_rows.py"))
    print(
        f"{len(chosen)} rows of {args.rows} (dataset {args.dataset}, model {args.model or 'any'}, "
        f"method {args.method or 'any'}); {args.threads} BLAS/OpenMP thread(s); 1-minute load "
        f"average {os.getloadavg()[0]:.1f}"
    )
    print("model | method | params_hash | split | seed | stored test/val/epochs | rerun | equal")
    equal = 0
    with tempfile.TemporaryDirectory() as scratch:
        store = ResultStore(os.path.join(scratch, "rerun.db"))
        for _, row in chosen.iterrows():
            stored = (row.test_acc, row.val_acc, int(row.epochs))
            again = rerun(row, store)
            equal += again == stored
            print(
                f"{row.model} | {row.method} | {row.params_hash} | {row.split_id} | {row.seed} | "
                f"{_cell(stored)} | {_cell(again)} | {'yes' if again == stored else 'NO'}"
            )
    print(f"equal: {equal} of {len(chosen)}")
    return 0 if equal == len(chosen) else 1


def _cell(result: tuple[float, float, int]) -> str:
    test, val, epochs = result
    return f"{test!r}/{val!r}/{epochs}"


if __name__ == "__main__":
    raise SystemExit(main())
