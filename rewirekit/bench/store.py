"""Crash-safe result store: one row per finished training run, in SQLite or PostgreSQL.

The store lives behind a location: a path is a SQLite file (the default), a
``postgresql://`` (or ``postgresql+psycopg://``) URL a PostgreSQL database that many
workers share. Both go through one code path, SQLAlchemy Core, with one schema. The key of a
run (:class:`RunKey`) is the table's primary key and a row is inserted with
``ON CONFLICT DO NOTHING``, so a key is written once: concurrent workers that finish the
same run store one row, and no worker's row is lost. PostgreSQL needs the ``distributed``
extra (``psycopg``).

Every row is committed on its own. The SQLite file runs in WAL mode, so a benchmark killed
at any moment (even with SIGKILL) keeps every finished row and leaves a readable file;
re-running the benchmark skips the rows already there. Rows travel between machines as CSV
(:meth:`ResultStore.export_csv` / :meth:`ResultStore.import_csv`, gzip-compressed when the
name ends in ``.gz``).

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
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO, Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from rewirekit.bench import leases
from rewirekit.errors import RewireError

_METADATA = sa.MetaData()
_RESULTS = sa.Table(
    "results",
    _METADATA,
    sa.Column("dataset", sa.Text, primary_key=True),
    sa.Column("split_preset", sa.Text, primary_key=True),
    sa.Column("split_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("method", sa.Text, primary_key=True),
    sa.Column("params_hash", sa.Text, primary_key=True),
    sa.Column("model", sa.Text, primary_key=True),
    sa.Column("training_preset", sa.Text, primary_key=True),
    sa.Column("seed", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("test_acc", sa.Double, nullable=False),
    sa.Column("val_acc", sa.Double, nullable=False),
    sa.Column("rewire_seconds", sa.Double, nullable=False),
    sa.Column("train_seconds", sa.Double, nullable=False),
    sa.Column("epochs", sa.Integer, nullable=False),
    sa.Column("versions", sa.Text, nullable=False),
    sa.Column("created", sa.Double, nullable=False),
    sa.Column("rewire_report", sa.Text),
)
#: Any fixed number: the PostgreSQL advisory lock that serialises creating the schema, so
#: workers opening a fresh database at once do not race on ``CREATE TABLE``.
_SCHEMA_LOCK = 0x72657769


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


def _report_json(report: dict[str, Any] | None) -> str | None:
    return None if report is None else json.dumps(report, sort_keys=True, default=str)


def package_versions() -> dict[str, str]:
    """Versions of the packages that decide a result, and NumPy's SIMD kernels on this CPU
    (:func:`numpy_simd`)."""
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
        "numpy_simd": numpy_simd(),
    }


def numpy_simd() -> str:
    """The SIMD targets NumPy dispatches to on this CPU beyond its build's baseline, e.g.
    ``"X86_V3 X86_V4 AVX512_ICL AVX512_SPR"`` (``"baseline"`` when none): the kind of CPU a
    row ran on, as far as NumPy's kernels go, so that a result that differs between machines
    can be traced to it."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # a NumPy without the (private) table
        return "unknown"
    return " ".join(f for f in __cpu_dispatch__ if __cpu_features__.get(f)) or "baseline"


def is_store_url(location: str | Path) -> bool:
    """Whether a ``--store`` value is a database URL (``scheme://...``) rather than a path."""
    return isinstance(location, str) and "://" in location


def database_url(location: str | Path) -> sa.URL:
    """The SQLAlchemy URL of a store location: a path is a SQLite file (``":memory:"`` a
    database in memory), and ``postgresql://`` means the psycopg 3 driver."""
    if not is_store_url(location):
        if str(location) == ":memory:":
            return sa.make_url("sqlite://")
        return sa.URL.create("sqlite", database=str(Path(location).resolve()))
    try:
        url = sa.make_url(str(location))
    except sa.exc.ArgumentError as err:
        raise RewireError(f"cannot read the store URL {location!r}: {err}.") from None
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise RewireError(
            f"unsupported store {url.render_as_string()!r}: give a path (SQLite) or a "
            "postgresql:// URL."
        )
    return url


class ResultStore:
    """Store of :class:`RunRecord` rows, keyed by :class:`RunKey`, in SQLite or PostgreSQL.

    Args:
        location: a path (a SQLite file, created with its parent folder if absent;
            ``":memory:"`` keeps the rows in memory) or a database URL such as
            ``postgresql://user@host:5432/rewirekit`` (the ``distributed`` extra).

    Attributes:
        url: the SQLAlchemy URL as a string (password included), for workers and Optuna.
        path: the SQLite file, ``None`` for PostgreSQL and a store in memory.
    """

    def __init__(self, location: str | Path) -> None:
        url = database_url(location)
        self.url = url.render_as_string(hide_password=False)
        self.path: Path | None = None
        self._shown = url.render_as_string() if is_store_url(location) else str(location)
        try:
            self._engine = _engine(url)
            if url.get_backend_name() == "sqlite" and url.database:
                self.path = Path(url.database)
            with self._engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
                _METADATA.create_all(conn)
                leases.create_table(conn)
                _add_report_column(conn)
        except ImportError as err:
            raise RewireError(
                f"the store {self._shown} needs {err.name}: pip install 'rewirekit[distributed]'."
            ) from None
        except sa.exc.SQLAlchemyError as err:
            raise RewireError(
                f"cannot open result store {self._shown}: {getattr(err, 'orig', None) or err}; "
                "pass another "
                "--store."
            ) from err
        self._insert = (postgresql if self.dialect == "postgresql" else sqlite).insert

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._engine.dialect.name

    def __str__(self) -> str:
        """The location as given, a URL with its password hidden."""
        return self._shown

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lease(self, name: str, *, lapse: float = 120.0) -> leases.Lease:
        """A :class:`~rewirekit.bench.leases.Lease` on ``name`` in this store's database, for
        a ``with`` block: one live process at a time (an Optuna study's search). A store in
        memory, which no other process can open, renews no heartbeat."""
        in_memory = self.dialect == "sqlite" and self.path is None
        return leases.Lease(
            self._engine, name, self._insert, interval=None if in_memory else lapse / 4, lapse=lapse
        )

    def __len__(self) -> int:
        with self._engine.connect() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(_RESULTS)).scalar_one()

    def __contains__(self, key: RunKey) -> bool:
        query = sa.select(sa.literal(1)).where(*_key_clause(key)).limit(1)
        with self._engine.connect() as conn:
            return conn.execute(query).first() is not None

    def put(self, record: RunRecord) -> bool:
        """Insert one finished run and commit it at once. A key already stored keeps its
        row (a key is written once); return whether this row was written."""
        with self._engine.begin() as conn:
            return self._put(conn, record)

    def _put(self, conn: Connection, record: RunRecord) -> bool:
        values = {
            **_key_values(record.key),
            "params": json.dumps(record.params, sort_keys=True, default=str),
            "test_acc": record.test_acc,
            "val_acc": record.val_acc,
            "rewire_seconds": record.rewire_seconds,
            "train_seconds": record.train_seconds,
            "epochs": record.epochs,
            "versions": json.dumps(record.versions, sort_keys=True),
            "created": time.time(),
            _REPORT_COLUMN: _report_json(record.rewire_report),
        }
        statement = (
            self._insert(_RESULTS)
            .values(values)
            .on_conflict_do_nothing()
            .returning(_RESULTS.c.seed)  # a row comes back only when this one was written
        )
        return conn.execute(statement).first() is not None

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
        yet (rows already here win), in one transaction; return how many were added.
        Exports from before the ``rewire_report`` column are read too (their rows have no
        report)."""
        path = Path(path)
        with _open_text(path, "r") as handle, self._engine.begin() as conn:
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
                added += self._put(
                    conn,
                    RunRecord(
                        RunKey(**columns),
                        json.loads(row["params"]),
                        float(row["test_acc"]),
                        float(row["val_acc"]),
                        float(row["rewire_seconds"]),
                        float(row["train_seconds"]),
                        int(row["epochs"]),
                        json.loads(row["versions"]),
                        json.loads(row[_REPORT_COLUMN]) if row.get(_REPORT_COLUMN) else None,
                    ),
                )
        return added

    def records(self, **filters: Any) -> Iterator[RunRecord]:
        """All rows, optionally filtered by key columns (e.g. ``dataset="cora"``), in key
        order (text compared byte by byte on both databases)."""
        unknown = set(filters) - set(_KEY_COLUMNS)
        if unknown:
            raise RewireError(
                f"cannot filter results by {sorted(unknown)}; use one of {_KEY_COLUMNS}."
            )
        order = [
            _RESULTS.c[c].collate("C")
            if self.dialect == "postgresql" and isinstance(_RESULTS.c[c].type, sa.Text)
            else _RESULTS.c[c]
            for c in _KEY_COLUMNS
        ]
        query = (
            sa.select(*(_RESULTS.c[c] for c in _KEY_COLUMNS + _VALUE_COLUMNS))
            .where(*(_RESULTS.c[c] == v for c, v in filters.items()))
            .order_by(*order)
        )
        with self._engine.connect() as conn:
            rows = conn.execute(query).all()
        for row in rows:
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


def _engine(url: sa.URL) -> Engine:
    """An engine for ``url``. SQLite: WAL, ``synchronous=NORMAL`` (in WAL mode it keeps every
    committed row across a process kill) and a 30 s wait for a writer's lock; a database in
    memory is one connection shared by all users of the store."""
    if url.get_backend_name() != "sqlite":
        return sa.create_engine(url, pool_pre_ping=True)
    if url.database:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"timeout": 30.0})
    else:
        engine = sa.create_engine(
            url, poolclass=sa.pool.StaticPool, connect_args={"check_same_thread": False}
        )

    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return engine


def _add_report_column(conn: Connection) -> None:
    """Migration: a store written before rows kept their rewiring report gets the column."""
    columns = {c["name"] for c in sa.inspect(conn).get_columns("results")}
    if _REPORT_COLUMN not in columns:
        conn.execute(sa.text(f"ALTER TABLE results ADD COLUMN {_REPORT_COLUMN} TEXT"))


def _key_values(key: RunKey) -> dict[str, Any]:
    return {c: getattr(key, c) for c in _KEY_COLUMNS}


def _key_clause(key: RunKey) -> list[Any]:
    return [_RESULTS.c[c] == v for c, v in _key_values(key).items()]


def _open_text(path: Path, mode: str) -> IO[str]:
    """Text file, gzip-compressed for ``.gz`` (without a timestamp: equal rows give equal
    bytes, so an unchanged export does not show up as a change in version control)."""
    if path.suffix == ".gz":
        binary = gzip.GzipFile(path, mode + "b", mtime=0)
        return io.TextIOWrapper(binary, encoding="utf-8", newline="")
    return open(path, mode, newline="", encoding="utf-8")


def astuple_key(key: RunKey) -> tuple:
    return tuple(getattr(key, c) for c in _KEY_COLUMNS)
