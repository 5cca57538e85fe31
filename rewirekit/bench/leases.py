"""Leases: at most one live process at a time in a named piece of work of a result store.

An Optuna study must be searched by one process: two processes asking and telling trials of
one study at once evaluate parameter sets twice, and each re-queues the other's running trial
as if it had been killed. :func:`~rewirekit.bench.tuning.tune` therefore holds a lease on its
study for as long as it searches.

A lease is a row ``(name, holder, expires)`` of the table ``leases`` in the store's own
database (SQLite or PostgreSQL). The holder is ``host:pid``; a thread of the holder pushes
``expires`` to ``lapse`` seconds ahead every ``interval`` seconds. A lease is free again when
its row is deleted (the holder left), when it has expired (the holder was killed, on any
host; hosts' clocks are assumed to agree to well within ``lapse``), or at once when the
holder is a process of this host that no longer exists. Taking a lease is one transaction:
of two processes that find it free, one inserts the row and the other is refused.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from rewirekit.errors import RewireError

_METADATA = sa.MetaData()
_LEASES = sa.Table(
    "leases",
    _METADATA,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("holder", sa.Text, nullable=False),
    sa.Column("expires", sa.Double, nullable=False),
)


class LeaseHeld(RewireError):
    """Another live process holds the lease (or took it over from this one)."""


def create_table(conn: Connection) -> None:
    """Create the ``leases`` table if the database has none."""
    _METADATA.create_all(conn)


def this_process() -> str:
    """The holder name of this process: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Lease:
    """Hold ``name`` in the database of ``engine`` while the ``with`` block runs.

    Args:
        engine: the store's engine (its database holds the ``leases`` table).
        name: what is leased, e.g. an Optuna study's name.
        insert: the dialect's ``insert`` construct (it has ``on_conflict_do_nothing``).
        holder: who holds it; this process by default.
        interval: seconds between heartbeats; ``None`` renews none (a store in memory, which
            no other process can open).
        lapse: seconds after its last heartbeat when the lease expires.

    Raises:
        LeaseHeld: on entry, when a live holder has the lease.
    """

    def __init__(
        self,
        engine: Engine,
        name: str,
        insert: Callable[[sa.Table], Any],
        *,
        holder: str | None = None,
        interval: float | None = 30.0,
        lapse: float = 120.0,
    ) -> None:
        if interval is not None and not 0 < interval < lapse:
            raise RewireError(f"a lease needs 0 < interval < lapse, got {interval} and {lapse}.")
        self.name = name
        self.holder = holder or this_process()
        self._engine = engine
        self._insert = insert
        self._interval = interval
        self._lapse = lapse
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lost = False

    def __enter__(self) -> Lease:
        with self._engine.begin() as conn:
            row = conn.execute(
                sa.select(_LEASES.c.holder, _LEASES.c.expires).where(_LEASES.c.name == self.name)
            ).first()
            if row is not None and not _abandoned(row.holder, row.expires):
                raise self._held_by(row.holder, row.expires)
            if row is not None:
                conn.execute(
                    sa.delete(_LEASES).where(
                        _LEASES.c.name == self.name, _LEASES.c.holder == row.holder
                    )
                )
            taken = conn.execute(
                self._insert(_LEASES)
                .values(name=self.name, holder=self.holder, expires=time.time() + self._lapse)
                .on_conflict_do_nothing()
                .returning(_LEASES.c.name)
            ).first()
        if taken is None:  # another process inserted it since the select
            raise LeaseHeld(f"{self.name!r} was just taken by another process; run again later.")
        if self._interval is not None:
            self._thread = threading.Thread(
                target=self._beat, name=f"lease {self.name}", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._engine.begin() as conn:
            conn.execute(sa.delete(_LEASES).where(*self._mine()))

    def check(self) -> None:
        """Raise :class:`LeaseHeld` if the lease lapsed and another process took it over
        (this process stalled for longer than ``lapse``)."""
        if self._lost:
            raise LeaseHeld(
                f"the lease on {self.name!r} lapsed (no heartbeat for {self._lapse:.0f} s) and "
                "another process took it over; this process stops so that the two do not "
                "work on it at once."
            )

    def _mine(self) -> list[Any]:
        return [_LEASES.c.name == self.name, _LEASES.c.holder == self.holder]

    def _beat(self) -> None:
        assert self._interval is not None
        while not self._stop.wait(self._interval):
            try:
                with self._engine.begin() as conn:
                    renewed = conn.execute(
                        sa.update(_LEASES)
                        .where(*self._mine())
                        .values(expires=time.time() + self._lapse)
                    ).rowcount
            except sa.exc.SQLAlchemyError:
                continue  # a busy database: the next beat tries again, well before the lapse
            if not renewed:
                self._lost = True
                return

    def _held_by(self, holder: str, expires: float) -> LeaseHeld:
        return LeaseHeld(
            f"{self.name!r} is in use by process {holder} (its lease expires in "
            f"{expires - time.time():.0f} s unless renewed): two processes in one Optuna study "
            "would evaluate parameter sets twice and corrupt its trial count. Wait for that "
            "process to finish, or stop it; the lease of a killed process expires "
            f"{self._lapse:.0f} s after its last heartbeat (at once on the same host)."
        )


def _abandoned(holder: str, expires: float) -> bool:
    """Whether a lease is expired, or held by a process of this host that no longer exists."""
    if time.time() > expires:
        return True
    host, _, pid = holder.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, under another user
        return False
    return False
