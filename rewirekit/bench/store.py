"""Crash-safe result store: one SQLite row per finished training run.

The database runs in WAL mode and every row is committed on its own, so a
benchmark killed at any moment (even with SIGKILL) keeps every finished row and
leaves a readable file; re-running the benchmark skips the rows already there.
Rows travel between machines as CSV (:meth:`ResultStore.export_csv` /
:meth:`ResultStore.import_csv`, gzip-compressed when the name ends in ``.gz``).

Each row also keeps the rewiring's report (:meth:`~rewirekit.methods.base.RewireReport.compact`:
edits asked and made, the solver, alignments, ...) as a JSON column, ``rewire_report``. Files
and CSV exports written before that column existed still open: the column is added on open
(rows already stored have none) and a CSV without it is read as rows without reports.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO, Any

from rewirekit.errors import RewireError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    dataset TEXT NOT NULL,
    split_preset TEXT NOT NULL,
    split_id INTEGER NOT NULL,
    method TEXT NOT NULL,
    params_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    training_preset TEXT NOT NULL,
    seed INTEGER NOT NULL,
    params TEXT NOT NULL,
    test_acc REAL NOT NULL,
    val_acc REAL NOT NULL,
    rewire_seconds REAL NOT NULL,
    train_seconds REAL NOT NULL,
    epochs INTEGER NOT NULL,
    versions TEXT NOT NULL,
    created REAL NOT NULL,
    rewire_report TEXT,
    PRIMARY KEY (dataset, split_preset, split_id, method, params_hash, model, training_preset, seed)
)
"""


def params_hash(params: dict[str, Any]) -> str:
    """A stable short hash of method parameters (key order does not matter)."""
    text = json.dumps(params, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RunKey:
    """What identifies one training run."""

    dataset: str
    split_preset: str
    split_id: int
    method: str
    params_hash: str
    model: str
    training_preset: str
    seed: int


@dataclass(frozen=True)
class RunRecord:
    """A finished run: its key, the method parameters and the measured figures."""

    key: RunKey
    params: dict[str, Any]
    test_acc: float
    val_acc: float
    rewire_seconds: float
    train_seconds: float
    epochs: int
    versions: dict[str, str]
    rewire_report: dict[str, Any] | None = None


_KEY_COLUMNS = [f.name for f in fields(RunKey)]
_CSV_COLUMNS = _KEY_COLUMNS + [
    "params",
    "test_acc",
    "val_acc",
    "rewire_seconds",
    "train_seconds",
    "epochs",
    "versions",
]
_REPORT_COLUMN = "rewire_report"
_VALUE_COLUMNS = _CSV_COLUMNS[len(_KEY_COLUMNS) :] + ["created", _REPORT_COLUMN]


def _add_report_column(conn: sqlite3.Connection) -> None:
    """Migration: a store written before rows kept their rewiring report gets the column."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(results)")}
    if _REPORT_COLUMN not in columns:
        conn.execute(f"ALTER TABLE results ADD COLUMN {_REPORT_COLUMN} TEXT")


def _report_json(report: dict[str, Any] | None) -> str | None:
    return None if report is None else json.dumps(report, sort_keys=True, default=str)


def package_versions() -> dict[str, str]:
    """Versions of the packages that decide a result."""
    import numpy
    import scipy
    import torch
    import torch_geometric

    import rewirekit

    return {
        "rewirekit": rewirekit.__version__,
        "torch": torch.__version__,
        "torch_geometric": torch_geometric.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }


class ResultStore:
    """SQLite store of :class:`RunRecord` rows, keyed by :class:`RunKey`.

    Args:
        path: the database file (created with its parent folder if absent).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL keeps every committed row across a process kill.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
            _add_report_column(self._conn)
        except sqlite3.DatabaseError as err:
            raise RewireError(
                f"cannot open result store {self.path}: {err}; pass another --store path."
            ) from err

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def __contains__(self, key: RunKey) -> bool:
        where = " AND ".join(f"{c} = ?" for c in _KEY_COLUMNS)
        row = self._conn.execute(
            f"SELECT 1 FROM results WHERE {where}", astuple_key(key)
        ).fetchone()
        return row is not None

    def put(self, record: RunRecord) -> None:
        """Insert one finished run and commit it at once (replaces an equal key)."""
        values = (
            *astuple_key(record.key),
            json.dumps(record.params, sort_keys=True, default=str),
            record.test_acc,
            record.val_acc,
            record.rewire_seconds,
            record.train_seconds,
            record.epochs,
            json.dumps(record.versions, sort_keys=True),
            time.time(),
            _report_json(record.rewire_report),
        )
        names = ", ".join(_KEY_COLUMNS + _VALUE_COLUMNS)
        marks = ", ".join("?" * len(values))
        self._conn.execute(f"INSERT OR REPLACE INTO results ({names}) VALUES ({marks})", values)

    def export_csv(self, path: str | Path) -> int:
        """Write every row to ``path`` (CSV; gzip if it ends in ``.gz``), in key order, and
        return how many. Parameters and versions are JSON cells."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = list(self.records())
        with _open_text(path, "w") as handle:
            writer = csv.writer(handle)
            writer.writerow(_CSV_COLUMNS + [_REPORT_COLUMN])
            for r in rows:
                writer.writerow(
                    [
                        *astuple_key(r.key),
                        json.dumps(r.params, sort_keys=True),
                        repr(r.test_acc),
                        repr(r.val_acc),
                        repr(r.rewire_seconds),
                        repr(r.train_seconds),
                        r.epochs,
                        json.dumps(r.versions, sort_keys=True),
                        _report_json(r.rewire_report) or "",
                    ]
                )
        return len(rows)

    def import_csv(self, path: str | Path) -> int:
        """Add the rows of a CSV written by :meth:`export_csv` whose keys are not stored
        yet (rows already here win); return how many were added. Exports from before the
        ``rewire_report`` column are read too (their rows have no report)."""
        path = Path(path)
        with _open_text(path, "r") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames not in (_CSV_COLUMNS, _CSV_COLUMNS + [_REPORT_COLUMN]):
                raise RewireError(
                    f"{path} is not a result export: its columns are "
                    f"{reader.fieldnames}, expected {_CSV_COLUMNS + [_REPORT_COLUMN]}."
                )
            added = 0
            for row in reader:
                columns: dict[str, Any] = {
                    c: int(row[c]) if c in ("split_id", "seed") else row[c] for c in _KEY_COLUMNS
                }
                key = RunKey(**columns)
                if key in self:
                    continue
                self.put(
                    RunRecord(
                        key,
                        json.loads(row["params"]),
                        float(row["test_acc"]),
                        float(row["val_acc"]),
                        float(row["rewire_seconds"]),
                        float(row["train_seconds"]),
                        int(row["epochs"]),
                        json.loads(row["versions"]),
                        json.loads(row[_REPORT_COLUMN]) if row.get(_REPORT_COLUMN) else None,
                    )
                )
                added += 1
        return added

    def records(self, **filters: Any) -> Iterator[RunRecord]:
        """All rows, optionally filtered by key columns (e.g. ``dataset="cora"``)."""
        unknown = set(filters) - set(_KEY_COLUMNS)
        if unknown:
            raise RewireError(
                f"cannot filter results by {sorted(unknown)}; use one of {_KEY_COLUMNS}."
            )
        where = " AND ".join(f"{c} = ?" for c in filters) or "1"
        names = ", ".join(_KEY_COLUMNS + _VALUE_COLUMNS)
        order = ", ".join(_KEY_COLUMNS)
        query = f"SELECT {names} FROM results WHERE {where} ORDER BY {order}"
        for row in self._conn.execute(query, tuple(filters.values())):
            key = RunKey(*row[: len(_KEY_COLUMNS)])
            (params, test_acc, val_acc, rewire_s, train_s, epochs, versions, _created, report) = (
                row[len(_KEY_COLUMNS) :]
            )
            yield RunRecord(
                key,
                json.loads(params),
                test_acc,
                val_acc,
                rewire_s,
                train_s,
                epochs,
                json.loads(versions),
                None if report is None else json.loads(report),
            )


def _open_text(path: Path, mode: str) -> IO[str]:
    """Text file, gzip-compressed for ``.gz`` (without a timestamp: equal rows give equal
    bytes, so an unchanged export does not show up as a change in version control)."""
    if path.suffix == ".gz":
        binary = gzip.GzipFile(path, mode + "b", mtime=0)
        return io.TextIOWrapper(binary, encoding="utf-8", newline="")
    return open(path, mode, newline="", encoding="utf-8")


def astuple_key(key: RunKey) -> tuple:
    return tuple(getattr(key, c) for c in _KEY_COLUMNS)
