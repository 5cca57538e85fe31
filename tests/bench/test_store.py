import multiprocessing
import os
import signal
import sqlite3
import time
from dataclasses import replace

import pytest

from rewirekit import RewireError
from rewirekit.bench.store import (
    ResultStore,
    RunKey,
    RunRecord,
    database_url,
    is_store_url,
    numpy_simd,
    package_versions,
    params_hash,
)


def _record(split_id: int, acc: float = 0.5) -> RunRecord:
    key = RunKey("cora", "sparse", split_id, "random", params_hash({"add": 1}), "gcn", "jdr", 0)
    return RunRecord(key, {"add": 1}, acc, acc + 0.1, 0.01, 1.5, 200, {"torch": "x"})


def test_put_contains_and_read_back(new_store):
    with ResultStore(new_store()) as store:
        assert store.put(_record(0, 0.7)) and store.put(_record(1, 0.8))
        assert _record(0).key in store and _record(2).key not in store
        rows = list(store.records(dataset="cora"))
    assert [r.key.split_id for r in rows] == [0, 1]
    assert rows[1].test_acc == 0.8 and rows[1].params == {"add": 1}
    assert rows[0].versions == {"torch": "x"}


def test_versions_name_numpys_simd_targets_on_this_cpu():
    import numpy as np

    versions = package_versions()
    assert versions["numpy"] == np.__version__
    assert versions["numpy_simd"] == numpy_simd() != ""
    # every target named is one NumPy's build can dispatch to
    from numpy._core._multiarray_umath import __cpu_dispatch__

    assert set(numpy_simd().split()) <= {*__cpu_dispatch__, "baseline"}


def test_rows_survive_reopen_and_a_key_is_written_once(new_store):
    location = new_store()
    with ResultStore(location) as store:
        store.put(_record(0, 0.1))
    with ResultStore(location) as store:
        assert not store.put(_record(0, 0.9))  # the stored row stays
        assert len(store) == 1
        assert next(store.records()).test_acc == 0.1


def test_rows_come_in_byte_order_of_their_keys(new_store):
    names = ["alpha", "Zeta", "_x", "beta-2", "beta_1", "é"]
    with ResultStore(new_store()) as store:
        for name in names:
            store.put(replace(_record(0), key=replace(_record(0).key, dataset=name)))
        stored = [r.key.dataset for r in store.records()]
    assert stored == sorted(names, key=str.encode)


def test_floats_and_reports_round_trip_exactly(new_store):
    report = {"edges_added": 3, "extra": {"solver": "dense", "alignment": [0.1, 1e-300]}}
    record = replace(_record(0, 0.1 + 0.2), rewire_report=report, versions={"a": "1"})
    with ResultStore(new_store()) as store:
        store.put(record)
        assert list(store.records()) == [record]


@pytest.mark.parametrize("name", ["rows.csv", "rows.csv.gz"])
def test_csv_export_import_round_trip_keeps_local_rows(tmp_path, new_store, name):
    with ResultStore(new_store()) as store:
        store.put(_record(0, 0.7123456789012345))
        store.put(_record(1, 0.8))
        assert store.export_csv(tmp_path / name) == 2
    with ResultStore(new_store()) as other:
        other.put(_record(1, 0.3))  # a local row is not overwritten
        assert other.import_csv(tmp_path / name) == 1
        assert other.import_csv(tmp_path / name) == 0
        rows = {r.key.split_id: r for r in other.records()}
    assert rows[0] == _record(0, 0.7123456789012345) and rows[1].test_acc == 0.3
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with ResultStore(new_store()) as store, pytest.raises(RewireError, match="columns"):
        store.import_csv(tmp_path / "bad.csv")
    with ResultStore(new_store()) as store:
        assert len(store) == 0  # the refused file added nothing


def test_params_hash_ignores_key_order():
    assert params_hash({"a": 1, "b": 2}) == params_hash({"b": 2, "a": 1})
    assert params_hash({"a": 1}) != params_hash({"a": 2})


def test_bad_filter_and_bad_file(tmp_path, new_store):
    with ResultStore(new_store()) as store, pytest.raises(RewireError, match="filter"):
        list(store.records(colour="red"))
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(RewireError, match="store"):
        ResultStore(bad)


def test_locations_a_path_stays_a_path_and_urls_are_checked(tmp_path):
    with ResultStore(tmp_path / "a" / "r.db") as store:
        assert store.path == tmp_path / "a" / "r.db" and store.dialect == "sqlite"
        assert store.url == f"sqlite:///{tmp_path / 'a' / 'r.db'}"
    with ResultStore(str(tmp_path / "s.db")) as store:  # a string path is a path too
        assert store.path == tmp_path / "s.db"
    with ResultStore(":memory:") as store:
        store.put(_record(0))
        assert store.path is None and len(store) == 1
    assert database_url("postgresql://u:pw@h:5/db").drivername == "postgresql+psycopg"
    assert is_store_url("postgresql://h/db") and not is_store_url(tmp_path / "x://y")
    with pytest.raises(RewireError, match="unsupported store"):
        ResultStore("mysql://h/db")
    # a server that is not there: one clear error, the password hidden
    with pytest.raises(RewireError, match=r"cannot open result store postgresql\S*\*\*\*@"):
        ResultStore("postgresql://u:secret@127.0.0.1:1/db?connect_timeout=2")


# Writers are forked from the test process: it has imported everything already, so they
# start at once even on a busy machine.
_FORK = multiprocessing.get_context("fork")


def _write_forever(location, pipe) -> None:
    store = ResultStore(location)
    i = 0
    while True:
        key = RunKey("cora", "sparse", i, "none", "h", "gcn", "jdr", 0)
        store.put(RunRecord(key, {}, 0.5, 0.5, 0.0, 0.0, 1, {}))
        pipe.send(i)
        i += 1
        time.sleep(0.002)


def test_sigkill_mid_write_loses_no_finished_row(new_store):
    location = new_store()
    receive, send = _FORK.Pipe(duplex=False)
    proc = _FORK.Process(target=_write_forever, args=(location, send))
    proc.start()
    finished = []
    deadline = time.time() + 60
    while len(finished) < 200 and time.time() < deadline and receive.poll(deadline - time.time()):
        finished.append(receive.recv())
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    assert len(finished) >= 200
    if not is_store_url(location):
        conn = sqlite3.connect(location)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
    with ResultStore(location) as store:
        stored = {r.key.split_id for r in store.records()}
    assert set(finished) <= stored


_OLD_SCHEMA = """
CREATE TABLE results (
    dataset TEXT NOT NULL, split_preset TEXT NOT NULL, split_id INTEGER NOT NULL,
    method TEXT NOT NULL, params_hash TEXT NOT NULL, model TEXT NOT NULL,
    training_preset TEXT NOT NULL, seed INTEGER NOT NULL, params TEXT NOT NULL,
    test_acc REAL NOT NULL, val_acc REAL NOT NULL, rewire_seconds REAL NOT NULL,
    train_seconds REAL NOT NULL, epochs INTEGER NOT NULL, versions TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (dataset, split_preset, split_id, method, params_hash, model, training_preset, seed)
)
"""


def test_a_store_from_before_the_report_column_is_migrated(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute(_OLD_SCHEMA)
    old = _record(0, 0.6)
    values = (*(getattr(old.key, f) for f in old.key.__dataclass_fields__), '{"add": 1}')
    conn.execute(
        "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*values, 0.6, 0.7, 0.01, 1.5, 200, '{"torch": "x"}', 0.0),
    )
    conn.commit()
    conn.close()
    report = {"edges_added": 1, "extra": {"solver": "dense"}}
    with ResultStore(path) as store:
        store.put(replace(_record(1, 0.8), rewire_report=report))
        rows = list(store.records())
    assert rows[0] == old and rows[0].rewire_report is None
    assert rows[1].rewire_report == report


def test_csv_keeps_the_report_and_reads_exports_without_it(tmp_path):
    report = {"edges_added": 1, "extra": {}}
    with ResultStore(tmp_path / "a.db") as store:
        store.put(replace(_record(0), rewire_report=report))
        store.export_csv(tmp_path / "new.csv")
    lines = (tmp_path / "new.csv").read_text().splitlines()
    assert lines[0].endswith(",rewire_report")
    old_header = lines[0].removesuffix(",rewire_report")
    old_row = lines[1][: lines[1].rindex(',"{')]  # the same row without its report cell
    (tmp_path / "old.csv").write_text(f"{old_header}\n{old_row}\n")
    with ResultStore(tmp_path / "b.db") as store:
        assert store.import_csv(tmp_path / "new.csv") == 1
        assert next(store.records()).rewire_report == report
    with ResultStore(tmp_path / "c.db") as store:
        assert store.import_csv(tmp_path / "old.csv") == 1
        assert next(store.records()) == _record(0)


def _append(location, worker: int, go, written) -> None:
    store = ResultStore(location)
    go.wait()  # all four start writing at once
    count = 0
    for i in range(60):
        # 40 rows of its own, and 20 keys every worker writes
        method = f"own{worker}" if i < 40 else "shared"
        key = RunKey("cora", "sparse", i, method, "h", "gcn", "jdr", 0)
        count += store.put(RunRecord(key, {"worker": worker}, 0.5, 0.5, 0.0, 0.0, 1, {}))
    written.put(count)


def test_four_processes_append_to_one_store_without_losing_or_duplicating(new_store):
    location = new_store()
    ResultStore(location).close()  # the schema exists before the race, as after any first run
    go, written = _FORK.Event(), _FORK.Queue()
    procs = [_FORK.Process(target=_append, args=(location, w, go, written)) for w in range(4)]
    for p in procs:
        p.start()
    go.set()
    counts = [written.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert all(p.exitcode == 0 for p in procs)
    with ResultStore(location) as store:
        rows = list(store.records())
    keys = [(r.key.method, r.key.split_id) for r in rows]
    assert len(keys) == len(set(keys)) == 4 * 40 + 20
    assert {(f"own{w}", i) for w in range(4) for i in range(40)} <= set(keys)
    assert sum(counts) == len(rows)  # each shared key was written by exactly one worker
    shared = [r for r in rows if r.key.method == "shared"]
    assert all(r.params["worker"] in range(4) for r in shared)
