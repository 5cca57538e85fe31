"""How long ``make demo`` (``rewirekit bench`` without arguments) takes, and what it shows.

    REWIREKIT_DATA=/work/shared/datasets python benchmarks/demo_time.py \
        [--out docs/demo_timing.txt] [--copy-to docs] [--bench-args "..."]

``--command`` times another command the same way, e.g. ``rewirekit auto``::

    REWIREKIT_DATA=../shared/datasets python benchmarks/demo_time.py \
        --command "auto --dataset texas --evaluate" --out docs/auto_texas_timing.txt

Runs ``python -m rewirekit bench`` (plus ``--bench-args``, for a smoke run) in a fresh
temporary folder, so that no stored row is reused, with one thread (``OMP_NUM_THREADS=1``,
the demo's own ``--threads`` default). It writes the wall time, the CPU time of the demo
process (user + system, from ``getrusage``), the machine's ``uptime`` before and after, and
the demo's whole output (the sweep table, the verdicts, where the plot and the HTML report
went). ``--copy-to`` copies the plot and the HTML report there as ``demo_csbm_phi.png`` and
``demo_report.html``.

On a loaded machine the wall time measures the load as much as the demo. The demo is one
process with one busy thread, so on an otherwise idle machine its wall time is about its CPU
time: that is the figure to compare with the 3-minute target, next to the load it ran under.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

#: The demo's command line (``make demo``).
DEMO = "rewirekit bench"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def child_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_demo(bench_args: list[str], folder: Path, subcommand: str = "bench") -> dict:
    """Run the demo (or ``rewirekit SUBCOMMAND``) in ``folder``; its wall and CPU seconds,
    the load, and its output."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "COLUMNS": "120"}
    bench_args = [*shlex.split(subcommand), *bench_args]
    command = [sys.executable, "-m", "rewirekit", *bench_args]
    before, cpu = uptime(), child_cpu_seconds()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the demo failed ({done.returncode}):\n{done.stderr}")
    return dict(
        command=shlex.join(["rewirekit", *bench_args]),
        wall=wall,
        cpu=child_cpu_seconds() - cpu,
        before=before,
        after=uptime(),
        output=done.stdout + done.stderr,
    )


def report(result: dict) -> str:
    return "\n".join(
        [
            f"# {result['command']}{' (make demo)' if result['command'] == DEMO else ''}, "
            "timed by benchmarks/demo_time.py",
            f"# {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
            "OMP_NUM_THREADS=1, a fresh store",
            f"uptime before: {result['before']}",
            f"uptime after:  {result['after']}",
            f"wall time: {result['wall']:.1f} s",
            f"CPU time of the demo process (user + system): {result['cpu']:.1f} s",
            "",
            "## output",
            result["output"].rstrip(),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/demo_timing.txt"))
    parser.add_argument("--copy-to", type=Path, default=None)
    parser.add_argument("--bench-args", default="", help="extra arguments (smoke runs)")
    parser.add_argument("--command", default="bench", help="the rewirekit command to time")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rewirekit-demo-") as folder:
        result = run_demo(shlex.split(args.bench_args), Path(folder), args.command)
        if args.copy_to is not None:
            args.copy_to.mkdir(parents=True, exist_ok=True)
            runs = Path(folder) / "runs"
            shutil.copyfile(runs / "csbm_phi.png", args.copy_to / "demo_csbm_phi.png")
            shutil.copyfile(runs / "report.html", args.copy_to / "demo_report.html")
    text = report(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)
    return text


if __name__ == "__main__":
    main()
