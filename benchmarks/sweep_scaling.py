"""How a fixed bench grid scales: the local backend against Ray on 1 and 2 CPUs.

    REWIREKIT_DATA=/work/shared/datasets nice python benchmarks/sweep_scaling.py \
        [--out docs/sweep_scaling.txt] [--splits 10] [--store-url postgresql://...]

The grid (fixed; ``--splits`` and ``--datasets`` only for a smoke run): texas and cornell
(offline, their 10 fixed geom-gcn splits) × none, random, FeaSt and DIGL × GCN, the JDR
training preset, one torch thread per run. It runs once per backend, each time into a fresh
store (a SQLite file in a temporary folder; with ``--store-url``, that PostgreSQL database
with its ``results`` table dropped first), and reports:

* the wall time of the sweep (cluster start not included, it is shown apart), and the
  speed-up over the local backend;
* the CPU time it took (user + system: this process, and for Ray every process of the local
  cluster, raylet and workers, over the sweep), which a busy machine does not inflate the way
  it inflates wall time, and the wall time it implies on idle CPUs (CPU time / CPUs);
* per (dataset, method) cell: the rewiring time and the summed training time of its runs
  (from the stored rows of the local run), which is what one worker spends on a cell, so
  that a cluster can be sized: ``cells × seconds per cell / workers``;
* whether every backend stored the same numbers (test and validation accuracy, epochs).

The machine may be shared: the load average before and after each run is printed with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from rewirekit.bench.backends import Backend, LocalBackend, RayBackend
from rewirekit.bench.runner import DatasetSpec, MethodSpec
from rewirekit.bench.store import ResultStore, RunRecord
from rewirekit.bench.sweep import Sweep, expand, run_sweep

DATASETS = ("texas", "cornell")
METHODS = (
    MethodSpec("none"),
    MethodSpec("random", {"add": 100, "delete": 100}),
    MethodSpec("feast", {"add": 100, "delete": 100}),
    MethodSpec("digl"),
)
MODEL, TRAINING = "gcn", "jdr"


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(*os.getloadavg())


def cpu_seconds() -> dict[int, float]:
    """User + system CPU seconds of this process and of every process below it (a local Ray
    cluster's raylet and workers), by PID."""
    import psutil

    me = psutil.Process()
    seconds = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.Error:  # exited meanwhile
            continue
        seconds[proc.pid] = times.user + times.system
    return seconds


def run_once(name: str, backend: Backend, location: str, plan) -> dict:
    """One sweep of ``plan`` into the store at ``location``: its wall and CPU time, rows."""
    before, cpu = load(), cpu_seconds()
    start = time.perf_counter()
    with ResultStore(location) as store:
        records = run_sweep(plan, store, backend=backend)
    wall = time.perf_counter() - start
    used = sum(t - cpu.get(pid, 0.0) for pid, t in cpu_seconds().items())
    return dict(name=name, wall=wall, cpu=used, records=records, before=before, after=load())


def start_ray(num_cpus: int) -> float:
    """Start a local Ray cluster with ``num_cpus`` CPUs; the seconds it took."""
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return time.perf_counter() - start


def outcomes(records: list[RunRecord]) -> dict:
    return {r.key: (r.test_acc, r.val_acc, r.epochs) for r in records}


def cell_table(records: list[RunRecord]) -> list[str]:
    """Seconds per (dataset, method) cell on one worker: rewiring once, then its runs."""
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for r in records:
        cells[r.key.dataset, r.key.method].append(r)
    lines = [
        f"{'dataset':<8} {'method':<7} {'runs':>4} {'rewire s':>9} {'train s':>8} "
        f"{'cell s':>7} {'per run s':>9}"
    ]
    for (dataset, method), rows in cells.items():
        rewire = rows[0].rewire_seconds  # one rewiring per cell, stored with each row
        train = sum(r.train_seconds for r in rows)
        lines.append(
            f"{dataset:<8} {method:<7} {len(rows):>4} {rewire:>9.3f} {train:>8.2f} "
            f"{rewire + train:>7.2f} {train / len(rows):>9.3f}"
        )
    per_cell = [
        rows[0].rewire_seconds + sum(r.train_seconds for r in rows) for rows in cells.values()
    ]
    lines.append(
        f"mean seconds per cell: {statistics.mean(per_cell):.2f} over {len(per_cell)} cells; "
        f"sum {sum(per_cell):.1f} s"
    )
    return lines


def fresh_location(base: str | None, folder: Path, name: str) -> str:
    """A store without rows: a new SQLite file in ``folder``, or the database at ``base``
    with its results table dropped."""
    if base is None:
        return str(folder / f"{name}.db")
    import sqlalchemy as sa

    from rewirekit.bench.store import database_url

    engine = sa.create_engine(database_url(base))
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS results"))
    engine.dispose()
    return base


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    parser.add_argument("--splits", type=int, default=10, help="splits per cell (smoke: fewer)")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--cpus", type=int, nargs="*", default=[1, 2], help="Ray cluster sizes")
    parser.add_argument("--store-url", default=None, help="a PostgreSQL URL instead of SQLite")
    args = parser.parse_args(argv)
    command = " ".join(["python benchmarks/sweep_scaling.py", *(argv or sys.argv[1:])])
    import ray

    plan = expand(
        Sweep(
            datasets=[DatasetSpec.named(d) for d in args.datasets],
            methods=list(METHODS),
            models=[MODEL],
            training_preset=TRAINING,
            num_splits=args.splits,
        )
    )
    cells = sum(len(s.datasets) * len(s.methods) * len(s.models) for s in plan.benchmarks)
    header = [
        f"# sweep scaling, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"{os.cpu_count()} CPUs on this machine, Python {sys.version.split()[0]}, "
        f"Ray {ray.__version__}",
        f"# {command}",
        f"grid: {' + '.join(args.datasets)} × {', '.join(m.label for m in METHODS)} × {MODEL}, "
        f"{args.splits} splits each: {cells} cells, {plan.runs} runs; training preset "
        f"{TRAINING}, one torch thread per run; store: "
        + ("PostgreSQL" if args.store_url else "SQLite")
        + ", fresh for every backend",
        "",
    ]
    results, starts, cpus_of = [], {}, {"local": 1}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        results.append(
            run_once("local", LocalBackend(), fresh_location(args.store_url, folder, "local"), plan)
        )
        for cpus in args.cpus:
            name = f"ray, {cpus} CPU" + ("s" if cpus > 1 else "")
            starts[name], cpus_of[name] = start_ray(cpus), cpus
            try:
                location = fresh_location(args.store_url, folder, f"ray{cpus}")
                results.append(run_once(name, RayBackend(), location, plan))
            finally:
                ray.shutdown()
    base = results[0]
    same = all(outcomes(r["records"]) == outcomes(base["records"]) for r in results[1:])
    lines = header + [
        f"{'backend':<12} {'wall s':>7} {'speed-up':>8} {'CPU s':>7} {'CPU s/CPUs':>10} "
        f"{'speed-up':>8} {'start s':>7}",
    ]
    for r in results:
        start = f"{starts[r['name']]:.1f}" if r["name"] in starts else "-"
        idle = r["cpu"] / cpus_of[r["name"]]
        lines.append(
            f"{r['name']:<12} {r['wall']:>7.1f} {base['wall'] / r['wall']:>7.2f}x "
            f"{r['cpu']:>7.1f} {idle:>10.1f} {base['cpu'] / idle:>7.2f}x {start:>7}"
        )
    lines += ["", "load average during each run:"]
    lines += [f"  {r['name']}: before {r['before']}; after {r['after']}" for r in results]
    lines += [
        "",
        "wall s: the sweep's wall time (the cluster's start, 'start s', not included; a Ray "
        "worker's first task also imports torch and rewirekit). The first speed-up is local "
        "wall / this wall; on a shared machine it measures the other load as much as the "
        "backend.",
        "CPU s: CPU time of this process and, for Ray, of every process of the local cluster "
        "over the sweep; CPU s/CPUs: the wall time those would take on idle CPUs; the second "
        "speed-up is local CPU s / that.",
        f"every backend stored the same test/val accuracy and epochs per run: "
        f"{'yes' if same else 'NO'} ({len(base['records'])} runs)",
        "",
        "seconds per cell on one worker (the local run's rows: rewiring once, then every "
        "split's training):",
        *cell_table(base["records"]),
    ]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    return text


if __name__ == "__main__":
    main()
