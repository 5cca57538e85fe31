import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from rewirekit import RewireError
from rewirekit.bench.store import ResultStore, RunKey, RunRecord, params_hash


def _record(split_id: int, acc: float = 0.5) -> RunRecord:
    key = RunKey("cora", "sparse", split_id, "random", params_hash({"add": 1}), "gcn", "jdr", 0)
    return RunRecord(key, {"add": 1}, acc, acc + 0.1, 0.01, 1.5, 200, {"torch": "x"})


def test_put_contains_and_read_back(tmp_path):
    with ResultStore(tmp_path / "r.db") as store:
        store.put(_record(0, 0.7))
        store.put(_record(1, 0.8))
        assert _record(0).key in store and _record(2).key not in store
        rows = list(store.records(dataset="cora"))
    assert [r.key.split_id for r in rows] == [0, 1]
    assert rows[1].test_acc == 0.8 and rows[1].params == {"add": 1}
    assert rows[0].versions == {"torch": "x"}


def test_rows_survive_reopen_and_replace(tmp_path):
    path = tmp_path / "r.db"
    with ResultStore(path) as store:
        store.put(_record(0, 0.1))
    with ResultStore(path) as store:
        store.put(_record(0, 0.9))
        assert len(store) == 1
        assert next(store.records()).test_acc == 0.9


@pytest.mark.parametrize("name", ["rows.csv", "rows.csv.gz"])
def test_csv_export_import_round_trip_keeps_local_rows(tmp_path, name):
    with ResultStore(tmp_path / "a.db") as store:
        store.put(_record(0, 0.7123456789012345))
        store.put(_record(1, 0.8))
        assert store.export_csv(tmp_path / name) == 2
    with ResultStore(tmp_path / "b.db") as other:
        other.put(_record(1, 0.3))  # a local row is not overwritten
        assert other.import_csv(tmp_path / name) == 1
        assert other.import_csv(tmp_path / name) == 0
        rows = {r.key.split_id: r for r in other.records()}
    assert rows[0] == _record(0, 0.7123456789012345) and rows[1].test_acc == 0.3
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with ResultStore(tmp_path / "c.db") as store, pytest.raises(RewireError, match="columns"):
        store.import_csv(tmp_path / "bad.csv")


def test_params_hash_ignores_key_order():
    assert params_hash({"a": 1, "b": 2}) == params_hash({"b": 2, "a": 1})
    assert params_hash({"a": 1}) != params_hash({"a": 2})


def test_bad_filter_and_bad_file(tmp_path):
    with ResultStore(tmp_path / "r.db") as store, pytest.raises(RewireError, match="filter"):
        list(store.records(colour="red"))
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(RewireError, match="store"):
        ResultStore(bad)


_WRITER = """
import sys, time
from rewirekit.bench.store import ResultStore, RunKey, RunRecord
store = ResultStore(sys.argv[1])
i = 0
while True:
    key = RunKey("cora", "sparse", i, "none", "h", "gcn", "jdr", 0)
    store.put(RunRecord(key, {}, 0.5, 0.5, 0.0, 0.0, 1, {}))
    print(i, flush=True)
    i += 1
    time.sleep(0.002)
"""


def test_sigkill_mid_write_loses_no_finished_row(tmp_path):
    path = tmp_path / "kill.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    finished = []
    deadline = time.time() + 60
    while len(finished) < 200 and time.time() < deadline:
        finished.append(int(proc.stdout.readline()))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(finished) >= 200
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    with ResultStore(path) as store:
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
