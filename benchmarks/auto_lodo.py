"""Leave-one-dataset-out score of ``rewirekit auto`` on the committed leaderboard rows.

For each leaderboard dataset, the short-list rule (:class:`rewirekit.bench.auto.ShortlistRule`)
is fitted on the profiles of the *other* datasets, built from their rows alone
(:func:`rewirekit.bench.auto.leave_one_dataset_out`); ``auto`` then runs on the held-out
dataset with that rule (diagnosis, short-list, tuning on validation, choice) and its pick is
scored by the leaderboard's stored paired test gain of the picked method there (``none``
scores 0). Against: the best method on that dataset (the oracle, ``none`` included) and the
best single method, the one of highest mean gain over all datasets. The pick, with the
parameters auto tuned, is also trained against its tuned ``none`` on held-back splits
(:func:`rewirekit.bench.auto.evaluate`), which neither auto nor the leaderboard used: they
start after both auto's selection splits and the leaderboard's splits.

Only methods with a leaderboard cell on every dataset are candidates, in every fold alike,
so that every pick can be scored; the choice of that grid reads which cells exist, not their
values. It also writes the rule's profiles of all datasets, which ``rewirekit auto`` ships
(``rewirekit/bench/auto_profiles.json``)::

    REWIREKIT_DATA=../shared/datasets nice python benchmarks/auto_lodo.py

``--rule-only`` skips the tuning (the rule's own first pick is still scored). The tuning rows
go to a resumable store (``--store``); ``--folds DATASET...`` scores only those held-out
datasets and writes neither the page nor the profiles, so that a second process on the same
store takes folds the first reaches later (rerun without it: the page then reads the stored
runs). A process that reaches a fold the other is tuning stops with an error naming that
process (each Optuna study is leased to one process, :mod:`rewirekit.bench.leases`); run it
again once the other is done.
``--drop DATASET...`` leaves datasets out, e.g. one whose leaderboard rows came after a run.
``--diagnoses PROFILES`` reads each dataset's diagnosis from a profiles file an earlier run of
this script wrote (its ``--profiles``) instead of diagnosing again, which takes half an hour on
the full grid: for a resumed run on the same rows and code.
"""

from __future__ import annotations

import argparse
import csv
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from rewirekit.bench.auto import (
    FEATURES,
    PROFILES_FILE,
    ShortlistRule,
    auto,
    diagnose_dataset,
    diagnosis_features,
    evaluate,
    leave_one_dataset_out,
    load_profiles,
    profiles_from_leaderboard,
    save_profiles,
)
from rewirekit.bench.leaderboard import BASELINE, Protocol, dataset_splits
from rewirekit.bench.runner import DatasetSpec
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.linalg.threads import single_threaded_blas

COMMAND = "REWIREKIT_DATA=../shared/datasets nice python benchmarks/auto_lodo.py"
#: Within this many points of the oracle counts as meeting the target (issue 15).
TOLERANCE = 0.5
COLUMNS = [
    "dataset",
    "nearest",
    "shortlist",
    "rule_pick",
    "rule_gain",
    "auto_pick",
    "auto_val_gain",
    "auto_gain",
    "oracle",
    "oracle_gain",
    "auto_within_0.5",
    "heldback_gain",
    "heldback_ci_low",
    "heldback_ci_high",
]


def read_rows(paths: Sequence[Path]) -> list[RunRecord]:
    with tempfile.TemporaryDirectory() as scratch, ResultStore(Path(scratch) / "r.db") as db:
        for path in paths:
            db.import_csv(path)
        return list(db.records())


def diagnose_all(keys: Sequence[str], splits: dict[str, str]) -> dict[str, dict[str, float]]:
    """The rule's features of each dataset, diagnosed on the split preset of its rows."""
    features = {}
    for key in keys:
        spec = DatasetSpec.from_key(key)
        assert spec is not None, f"{key} cannot be diagnosed again"
        # one BLAS thread: the diagnosis's eigensolves round differently with more threads,
        # and the shipped profiles are compared with these digit for digit
        with single_threaded_blas():
            diagnosis = diagnose_dataset(spec, split_preset=splits[key])[0]
        features[key] = diagnosis_features(diagnosis)
    return features


def reuse_diagnoses(keys: Sequence[str], path: Path) -> dict[str, dict[str, float]]:
    """The features of ``keys`` as an earlier run wrote them into its profiles file."""
    written = {p.dataset: dict(p.features) for p in load_profiles(path)}
    missing = [key for key in keys if key not in written]
    if missing:
        raise SystemExit(f"{path} holds no diagnosis of {', '.join(missing)}; drop --diagnoses")
    return {key: written[key] for key in keys}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, action="append", default=None)
    parser.add_argument("--model", default="gcn")
    parser.add_argument("--store", type=Path, default=Path("runs") / "auto_lodo.db")
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--profiles", type=Path, default=PROFILES_FILE)
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--shortlist", type=int, default=2)
    parser.add_argument("--neighbours", type=int, default=1)
    parser.add_argument("--rule-only", action="store_true")
    parser.add_argument(
        "--drop", nargs="+", default=[], help="datasets whose rows are left out (all models)"
    )
    parser.add_argument(
        "--folds", nargs="+", help="score only these held-out datasets; write no files"
    )
    parser.add_argument(
        "--diagnoses", type=Path, help="profiles file of an earlier run: its diagnoses are reused"
    )
    args = parser.parse_args(argv)
    rows_files = args.rows or [Path("docs") / "leaderboard.csv.gz"]
    torch.set_num_threads(1)
    start, load_before = time.time(), os.getloadavg()[0]
    records = [r for r in read_rows(rows_files) if r.key.dataset not in args.drop]
    board = Protocol.of([r for r in records if r.key.model == args.model])
    held_back_first = max(args.splits, board.num_splits)
    keys = sorted({r.key.dataset for r in records if r.key.model == args.model})
    if args.diagnoses is None:
        features = diagnose_all(keys, dataset_splits(records))
    else:
        features = reuse_diagnoses(keys, args.diagnoses)
    profiles = [p for p in profiles_from_leaderboard(records, features) if p.model == args.model]
    source = f"{', '.join(map(str, rows_files))} (model {args.model}): {COMMAND}"
    if args.folds is None:
        save_profiles(profiles, args.profiles, source)
    grid = sorted(set.intersection(*(set(p.gains) for p in profiles)))
    folds = leave_one_dataset_out(records, features, args.model)
    results = []
    with ResultStore(args.store) as store:
        for held_out, train in folds:
            if args.folds is not None and held_out.dataset not in args.folds:
                continue
            rule = ShortlistRule(tuple(train), neighbours=args.neighbours)
            ranking = rule.rank(held_out.features, grid)
            nearest = rule.distances(held_out.features)[: args.neighbours]
            shortlist = ranking[: args.shortlist]
            rule_pick = shortlist[0].method if shortlist else BASELINE
            auto_pick, val_gain = "", float("nan")
            held = (float("nan"),) * 3
            if not args.rule_only:
                spec = DatasetSpec.from_key(held_out.dataset)
                assert spec is not None
                _, found = auto(
                    spec,
                    model=args.model,
                    trials=args.trials,
                    num_splits=args.splits,
                    shortlist=args.shortlist,
                    neighbours=args.neighbours,
                    methods=[BASELINE, *grid],
                    profiles=train,
                    store=store,
                )
                assert [s.method for s in found.shortlist] == [s.method for s in shortlist]
                auto_pick, val_gain = found.choice.method, found.val_gain
                p = evaluate(
                    spec,
                    found,
                    num_splits=args.splits,
                    seeds=(0, 1),
                    store=store,
                    first_split=held_back_first,
                ).paired
                held = (p.mean_diff, p.ci_low, p.ci_high)
            gains = {BASELINE: 0.0, **{m: held_out.gains[m] for m in grid}}
            oracle = max(sorted(gains), key=lambda m: gains[m])
            auto_gain = gains[auto_pick] if auto_pick else float("nan")
            results.append(
                {
                    "dataset": held_out.dataset,
                    "nearest": "; ".join(f"{p.dataset} ({d:.2f})" for p, d in nearest),
                    "shortlist": "; ".join(
                        f"{s.method} ({s.predicted_gain:+.2f})" for s in shortlist
                    ),
                    "rule_pick": rule_pick,
                    "rule_gain": gains[rule_pick],
                    "auto_pick": auto_pick,
                    "auto_val_gain": val_gain,
                    "auto_gain": auto_gain,
                    "oracle": oracle,
                    "oracle_gain": gains[oracle],
                    "auto_within_0.5": (
                        "" if not auto_pick else str(gains[oracle] - auto_gain <= TOLERANCE)
                    ),
                    "heldback_gain": held[0],
                    "heldback_ci_low": held[1],
                    "heldback_ci_high": held[2],
                }
            )
    means = {
        m: sum(p.gains.get(m, 0.0) for p in profiles) / len(profiles) for m in [BASELINE, *grid]
    }
    best_single = max(sorted(means), key=lambda m: means[m])
    if args.folds is not None:
        for row in results:
            print({k: _cell(v) for k, v in row.items()})
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "auto_lodo.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        for row in results:
            writer.writerow({k: _cell(v) for k, v in row.items()})
    timing = (time.time() - start, load_before, os.getloadavg()[0])
    page = render(
        results, means, best_single, grid, args, rows_files, timing, board, held_back_first
    )
    (args.out / "auto_lodo.md").write_text(page, encoding="utf-8")
    print(page)
    return 0


def render(
    results: list[dict],
    means: dict[str, float],
    best_single: str,
    grid: list[str],
    args: argparse.Namespace,
    rows_files: Sequence[Path],
    timing: tuple[float, float, float],
    board: Protocol,
    held_back_first: int,
) -> str:
    n = len(results)
    splits = f"splits 0–{board.num_splits - 1} × seeds {', '.join(map(str, board.seeds))}"
    lines = [
        "# `rewirekit auto`, leave one dataset out",
        "",
        f"Written by `{COMMAND}`"
        + (" `--rule-only`" if args.rule_only else "")
        + (f" `--drop {' '.join(args.drop)}`" if args.drop else "")
        + f" from the leaderboard rows in {', '.join(f'`{p}`' for p in rows_files)} "
        f"(model {args.model}); {timing[0]:.0f} s of wall time on 2 shared cores, one torch "
        f"thread (1-minute load average {timing[1]:.1f} at the start, {timing[2]:.1f} at the "
        "end). Per-dataset rows: `docs/auto_lodo.csv`.",
        "",
        "**The verdict is on the committed leaderboard's datasets only**: "
        f"{n} datasets, model {args.model}, {board.trials} Optuna trials per cell, "
        f"{board.num_splits} splits × {len(board.seeds)} seeds "
        "(`docs/leaderboard.md` says which grid). With so few datasets the "
        f"rule is fitted on {n - 1} in every fold; this measures the mechanism, not a "
        "general claim.",
        "",
        "## What is measured",
        "",
        f"- **Rule** (`rewirekit.bench.auto.ShortlistRule`): the {args.neighbours} nearest "
        "leaderboard dataset(s) in z-scored diagnosis space "
        f"({', '.join(f'`{f}`' for f in FEATURES)}; z-scored over the fitted datasets), "
        "methods ranked by their mean stored paired test gain over `none` there; the "
        f"best {args.shortlist} are short-listed. In each fold it is fitted on the other "
        "datasets' rows alone (`leave_one_dataset_out`).",
        f"- **auto**: `none` and the short-list tuned with {args.trials} Optuna trials each "
        f"on the held-out dataset, mean validation accuracy over dense splits "
        f"0–{args.splits - 1} at seed 0; the best validation accuracy is chosen (`none` on "
        "ties). Test accuracy is not read.",
        "- **Score**: the leaderboard's stored paired test gain (points, method − `none`, "
        f"{splits}) of the picked method on the held-out dataset; `none` scores 0.",
        "- **Held-back**: auto's pick with the parameters it tuned, trained with its tuned "
        f"`none` on dense splits {held_back_first}–{held_back_first + args.splits - 1} × "
        "seeds 0, 1, which neither auto nor the leaderboard used: the paired test "
        "difference and its 95% bootstrap CI (`rewirekit.bench.auto.evaluate`). It measures "
        "auto's own pick, not the leaderboard's cell of the same method (tuned with "
        f"{board.trials} trials).",
        "- **Oracle**: the best method on that dataset by the same stored gain (`none` "
        "included). **Best single method**: the method of highest mean stored gain over all "
        f"{n} datasets (chosen with every dataset's rows: a favourable baseline).",
        f"- **Grid**: the methods with a cell on every leaderboard dataset ({', '.join(grid)}); "
        "the others (missing somewhere) are left out of every fold, as their pick could not "
        "be scored.",
        "",
        "## Per dataset",
        "",
        "| held-out dataset | nearest (distance) | short-list (predicted gain) | rule's pick: "
        "gain | auto's pick (validation gain) | auto's gain | oracle: gain | within "
        f"{TOLERANCE} of the oracle | auto's pick on held-back splits [95% CI] |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        tuned = bool(r["auto_pick"])
        auto_cell = f"{r['auto_pick']} ({r['auto_val_gain']:+.2f})" if tuned else "not run"
        verdict = "—" if not tuned else ("met" if r["auto_within_0.5"] == "True" else "missed")
        lines.append(
            f"| {r['dataset']} | {r['nearest']} | {r['shortlist']} | {r['rule_pick']}: "
            f"{r['rule_gain']:+.2f} | {auto_cell} | "
            + (f"{r['auto_gain']:+.2f}" if tuned else "—")
            + f" | {r['oracle']}: {r['oracle_gain']:+.2f} | {verdict} | "
            + (
                f"{r['heldback_gain']:+.2f} [{r['heldback_ci_low']:+.2f}, "
                f"{r['heldback_ci_high']:+.2f}]"
                if tuned
                else "—"
            )
            + " |"
        )
    rule_mean = sum(r["rule_gain"] for r in results) / n
    oracle_mean = sum(r["oracle_gain"] for r in results) / n
    lines += [
        "",
        "## On average over the datasets",
        "",
        "| who picks | mean stored test gain over `none` (points) |",
        "|---|---|",
        f"| oracle (best method per dataset) | {oracle_mean:+.2f} |",
        f"| best single method: `{best_single}` | {means[best_single]:+.2f} |",
        f"| the rule's first pick | {rule_mean:+.2f} |",
    ]
    if results and all(r["auto_pick"] for r in results):
        auto_mean = sum(r["auto_gain"] for r in results) / n
        met = sum(r["auto_within_0.5"] == "True" for r in results)
        lines += [
            f"| auto | {auto_mean:+.2f} |",
            "",
            "## Targets (issue 15)",
            "",
            f"- Within {TOLERANCE} points of the best method on each dataset: "
            f"**{'met' if met == n else 'missed'}** ({met} of {n} datasets).",
            f"- Above the best single method on average ({auto_mean:+.2f} against "
            f"{means[best_single]:+.2f} for `{best_single}`): "
            f"**{'met' if auto_mean > means[best_single] else 'missed'}**.",
        ]
    lines += [
        "",
        "Mean stored gain of every grid method over the datasets: "
        + ", ".join(f"`{m}` {means[m]:+.2f}" for m in sorted(means, key=lambda m: -means[m]))
        + ".",
        "",
    ]
    return "\n".join(lines)


def _cell(value: object) -> object:
    return f"{value:.4f}" if isinstance(value, float) else value


if __name__ == "__main__":
    raise SystemExit(main())
