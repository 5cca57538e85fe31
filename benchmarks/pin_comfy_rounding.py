"""Pin ``rounding="round"`` on the stored ComFy rows that were run before the default changed.

Until 2026-12-01, ``comfy`` rounded its per-pair budgets half up by default, and the
reproduction rows were stored with the parameters they were called with (no ``rounding``).
The default is now ``"largest_remainder"``; this rewrites those rows of the committed
per-split file with the rounding they actually ran with, and their parameter hash, so that a
stored row is never read as a run of the new default.

    python benchmarks/pin_comfy_rounding.py docs/reproduction_runs.csv.gz
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json

from rewirekit.bench.store import params_hash


def pin(path: str) -> int:
    """Rewrite ``path`` in place; return the number of rows changed."""
    with gzip.open(path, "rt", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        fields = list(reader.fieldnames or [])
    changed = 0
    for row in rows:
        params = json.loads(row["params"])
        if row["method"] == "comfy" and "rounding" not in params:
            params["rounding"] = "round"
            row["params"] = json.dumps(params, sort_keys=True)
            row["params_hash"] = params_hash(params)
            changed += 1
    with gzip.open(path, "wt", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs_file")
    print(f"{pin(parser.parse_args().runs_file)} ComFy rows pinned to rounding='round'")


if __name__ == "__main__":
    main()
