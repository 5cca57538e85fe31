"""Leases on a real store (SQLite file, and PostgreSQL where the tests have one): one live
process per lease, a killed holder's lease is free again, and a second search of a study in
use stops instead of corrupting it."""

import socket
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa

from rewirekit.bench.leases import LeaseHeld
from rewirekit.bench.runner import DatasetSpec
from rewirekit.bench.store import ResultStore
from rewirekit.bench.tuning import tune
from rewirekit.datasets import csbm

HOST = socket.gethostname()


def _leases(store: ResultStore) -> list[tuple]:
    with sa.create_engine(store.url).connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text("SELECT name, holder FROM leases"))]


def _lease_held_by(store: ResultStore, name: str, holder: str, **kwargs):
    """A lease taken in the name of another process (its heartbeat renewed by this one)."""
    kwargs.setdefault("lapse", 120.0)
    lease = store.lease(name, **kwargs)
    lease.holder = holder
    return lease


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_lease_is_held_for_the_block_and_refused_to_a_live_process(new_store):
    with ResultStore(new_store()) as store:
        with store.lease("study a") as lease:
            assert _leases(store) == [("study a", lease.holder)]
            second = store.lease("study a")
            with pytest.raises(LeaseHeld, match="in use by process .*Wait for that process"):
                second.__enter__()
            with store.lease("study b"):  # another name is free
                assert len(_leases(store)) == 2
        assert _leases(store) == []
        with store.lease("study a"):  # free again after the block
            pass


def test_a_lease_on_another_host_is_free_only_after_its_lapse(tmp_path):
    with ResultStore(tmp_path / "s.db") as store:
        other = _lease_held_by(store, "study", "elsewhere.example:1", lapse=0.5)
        other.__enter__()
        with pytest.raises(LeaseHeld, match="elsewhere.example:1"):
            store.lease("study").__enter__()
        other._stop.set()  # the other host dies: its heartbeat stops
        other._thread.join()
        time.sleep(0.6)
        with store.lease("study") as lease:
            assert _leases(store) == [("study", lease.holder)]
            other.check()  # it never renewed after its lapse, so it has not noticed yet


def test_the_lease_of_a_dead_process_on_this_host_is_free_at_once(tmp_path):
    with ResultStore(tmp_path / "s.db") as store:
        dead = _lease_held_by(store, "study", f"{HOST}:{_dead_pid()}")
        dead.__enter__()
        dead._stop.set()
        with store.lease("study") as lease:
            assert _leases(store) == [("study", lease.holder)]


def test_the_heartbeat_is_renewed_and_a_lease_taken_over_is_noticed(tmp_path):
    with ResultStore(tmp_path / "s.db") as store:
        with store.lease("study", lapse=0.4) as lease:
            engine = sa.create_engine(store.url)
            with engine.connect() as conn:
                first = conn.execute(sa.text("SELECT expires FROM leases")).scalar_one()
            time.sleep(0.3)
            with engine.connect() as conn:
                assert conn.execute(sa.text("SELECT expires FROM leases")).scalar_one() > first
            with engine.begin() as conn:  # another process takes it over
                conn.execute(sa.text("UPDATE leases SET holder = 'elsewhere.example:1'"))
            time.sleep(0.3)
            with pytest.raises(LeaseHeld, match="took it over"):
                lease.check()
        assert _leases(store) == [("study", "elsewhere.example:1")]  # its lease is kept


def test_a_second_search_of_a_study_in_use_stops_and_leaves_it_intact(tmp_path):
    dataset = DatasetSpec("csbm-lease", lambda: csbm(150, 30, phi=0.5, seed=3), "csbm")
    options = dict(model="gcn", split_preset="dense", training_preset="comfy", num_splits=1)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with ResultStore(tmp_path / "s.db") as store:
            first = tune("random", dataset, store, trials=1, **options)
            name = f"optuna study {first.study.study_name}"
            held = _lease_held_by(store, name, f"{HOST}:{live.pid}")
            with held, pytest.raises(LeaseHeld, match="in use by process"):
                tune("random", dataset, store, trials=2, **options)
            assert len(first.study.trials) == 1  # nothing asked, nothing re-queued
            assert len(tune("random", dataset, store, trials=2, **options).trials) == 2
    finally:
        live.kill()
        live.wait()
