"""Smoke versions of the benchmark scripts (the full runs take hours)."""

import importlib.util
import sys
from pathlib import Path

import pytest
import torch
from torch_geometric.data import Data

from rewirekit.datasets import available_offline

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


def test_reproduce_baselines_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    out = tmp_path / "baselines.md"
    args = [
        "--table",
        "baselines",
        "--store",
        str(tmp_path / "b.db"),
        "--splits",
        "2",
        "--datasets",
        "texas",
        "--out",
        str(out),
    ]
    assert script.main(args) == 0
    rows = [
        line
        for line in out.read_text().splitlines()
        if line.startswith("| jdr") or line.startswith("| comfy")
    ]
    assert len(rows) == 3  # JDR GCN + GPRGNN (dense) and ComFy GCN
    assert all("| 2 |" in row for row in rows)
    # A second run trains nothing: every row is in the store.
    assert script.main(args + ["--stored-only"]) == 0
    assert out.read_text().count("| 2 |") == 3
    # The rows travel in a CSV: a fresh store gets them back without training.
    runs = tmp_path / "runs.csv.gz"
    assert script.main(args + ["--stored-only", "--runs-file", str(runs)]) == 0
    fresh = ["--store", str(tmp_path / "fresh.db"), "--runs-file", str(runs), "--stored-only"]
    assert script.main(args[:2] + fresh + args[4:]) == 0
    assert out.read_text().count("| 2 |") == 3


def test_reproduce_jdr_rows_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    out = tmp_path / "jdr.md"
    args = [
        "--table",
        "jdr",
        "--store",
        str(tmp_path / "j.db"),
        "--splits",
        "2",
        "--datasets",
        "texas",
        "--models",
        "gcn",
        "--out",
        str(out),
    ]
    assert script.main(args) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| jdr")]
    assert [row.split("|")[5].strip() for row in rows] == ["base", "GCN+JDR"]
    assert all("| 2 |" in row for row in rows)


def test_budget_selection_keeps_the_best_validation_candidate(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    row = next(
        r for r in script.TABLES["comfy"] if r.label == "ProxyAddMax" and r.dataset == "texas"
    )
    assert len(row.candidates) == 5
    row = script.PaperRow(**{**row.__dict__, "candidates": row.candidates[:2], "splits": 2})
    with script.ResultStore(tmp_path / "c.db") as store:
        result = script.Reproduction(store, 2).result(row)
        summaries = script.summarize_records(store.records(split_id=0)) + script.summarize_records(
            store.records(split_id=1)
        )
    assert result.summary is not None and result.summary.n == 2
    assert result.params in row.candidates
    assert len({s.method for s in summaries}) == 2  # both candidates ran on the selection splits


_FAKE_OFFICIAL = '''
"""Stand-in for the official denoise_jointly: the numpy reference of tests/methods/test_jdr.py."""
import importlib.util

import numpy as np
import torch

spec = importlib.util.spec_from_file_location("reference", {reference!r})
reference = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reference)


def denoise_jointly(data, args, device):
    n = data.num_nodes
    a = reference.dense_adjacency(data.edge_index, None, n)
    a, x = reference.reference_jdr(
        a, data.x.double().numpy(), args.denoise_iterations, args.rewired_index_A,
        args.rewired_index_X, args.rewired_ratio_A, args.rewired_ratio_X,
        args.rewired_ratio_X_non_binary, args.denoise_A_k, args.abs_ordering,
        args.denoise_offset)
    src, dst = np.nonzero(a)
    data.edge_index = torch.tensor(np.stack([src, dst]))
    data.edge_attr = torch.tensor(a[src, dst])
    data.x = torch.tensor(x)
    return data
'''


def test_jdr_exactness_path_against_a_reference(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # as when run as a script: its helpers import
    """The exactness script's comparison, with the numpy reference standing in for the
    official code (which CI does not have)."""
    (tmp_path / "src").mkdir()
    reference = Path(__file__).parent / "methods" / "test_jdr.py"
    (tmp_path / "src" / "denoise_jointly.py").write_text(
        _FAKE_OFFICIAL.format(reference=str(reference))
    )
    sys.path.insert(0, str(Path(__file__).parent / "methods"))
    try:
        from test_jdr import weighted_graph
    finally:
        sys.path.pop(0)
    script = _script("jdr_vs_official")
    official = script.load_official(str(tmp_path))
    data = weighted_graph(n=60, f=10)
    data.edge_weight = None
    settings = dict(
        num_iterations=3,
        rank_a=9,
        rank_x=6,
        eta_a=0.3,
        eta_x1=0.4,
        eta_x2=0.5,
        top_k=7,
        abs_ordering=True,
        offset=0,
    )
    exactness, _ = script.compare_faithful(official, data, settings, dtype="float64")
    assert exactness.official_edges == 60 * 7
    assert exactness.differing_edges == 0
    assert exactness.weight_error < 1e-4 and exactness.feature_error < 1e-6
    assert "identical edge set: yes" in str(exactness)
    # A dropped edge and a changed weight are counted.
    ei, w = torch.tensor([[0, 1, 2], [1, 2, 0]]), torch.tensor([1.0, 2.0, 4.0])
    assert script.compare_graphs(3, (ei, w), (ei[:, :2], w[:2] * 1.5)) == (1, 0.5)


def test_actor_lower_triangle_graph_holds_the_pairs_eigh_reads():
    if not available_offline("actor"):
        pytest.skip("actor is not in $REWIREKIT_DATA")
    _script("reproduce_papers")
    script = _script("jdr_actor_direction")
    from rewirekit.datasets import load

    directed = load("actor").edge_index
    n = int(directed.max()) + 1
    lower = script.lower_triangle_graph()
    assert lower.is_undirected()
    src, dst = lower.edge_index
    pairs = set((src * n + dst)[src > dst].tolist())
    assert pairs == set((directed[0] * n + directed[1])[directed[0] > directed[1]].tolist())
    assert len(pairs) == 14_934


def test_arpack_threads_smoke(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    _script("arpack_threads").main(
        ["--threads", "2", "--jdr-nodes", "600", "--fiedler-nodes", "800", "--edits", "2"]
    )
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.endswith("x")]
    assert [row.split(":")[0].split(",")[0] for row in rows] == ["JDR", "Fiedler pair", "ProxyAdd"]
    assert "q=384" in rows[0]  # 128 + 4 iterations of L = 64 accumulated


def test_jdr_speed_lapack_bound_times_the_decompositions_of_each_iteration(monkeypatch):
    import rewirekit.linalg as linalg

    calls = []

    def spy(name):
        real = getattr(linalg, name)

        def call(matrix):
            calls.append((name, tuple(matrix.shape), matrix.dtype))
            return real(matrix)

        return call

    for name in ("dense_eigh", "dense_svd"):
        monkeypatch.setattr(linalg, name, spy(name))
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    data = Data(
        x=torch.rand(30, 7, dtype=torch.float64),
        edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]),
    )
    _script("jdr_speed").decompositions(data, iterations=3)
    assert (
        calls
        == [("dense_eigh", (30, 30), torch.float32), ("dense_svd", (30, 7), torch.float32)] * 3
    )


def test_lowrank_threads_smoke(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    _script("lowrank_threads").main(
        ["--nodes", "800", "--rank", "32", "--restarts", "1", "--repeat", "1"]
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("N=800, q=32")
    assert sum("ms a step" in line for line in lines) == 2
    assert lines[-1].startswith("best: ")


def test_jdr_scale_smoke(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    _script("jdr_scale").main(
        ["--nodes", "1500", "--iterations", "2", "--rank", "8", "--top-k", "8", "--threads", "2"]
    )
    out = capsys.readouterr().out
    assert "cSBM N=1500" in out
    assert "JDR K=2, L_A=L_X=8, top_k=8, truncated: " in out and "peak RSS" in out
    assert "low-rank q = " in out


def test_jdr_randomized_smoke(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    _script("jdr_randomized").main(
        [
            "--nodes",
            "1500",
            "--iterations",
            "2",
            "--rank",
            "8",
            "--passes",
            "2",
            "32",
            "--splits",
            "1",
            "--threads",
            "2",
        ]
    )
    rows = {
        line[:18].strip(): line[18:].split() for line in capsys.readouterr().out.splitlines()[2:]
    }
    assert set(rows) == {
        "input graph",
        "truncated",
        "truncated, seed 1",
        "randomized, 2",
        "randomized, 32",
    }
    assert rows["truncated"][2:4] == ["0.000", "1.000"]  # against itself
    assert float(rows["randomized, 32"][2]) < float(rows["randomized, 2"][2])
    assert 0 <= float(rows["randomized, 2"][3]) <= 1


def test_leaderboard_reduced_merges_the_stores_of_its_processes(tmp_path):
    from rewirekit.bench.store import ResultStore, RunKey, RunRecord

    script = _script("leaderboard_reduced")
    assert script.ORDER[0] == "none" and sorted(script.ORDER) == sorted(set(script.ORDER))
    for i, name in enumerate(("a", "b")):
        with ResultStore(tmp_path / f"{name}.db") as store:
            key = RunKey(name, "dense", 0, "none", "h", "gcn", "fair", 0)
            store.put(RunRecord(key, {}, 0.5 + i / 10, 0.5, 0.0, 1.0, 3, {}))
    target = tmp_path / "rows.csv"
    script.merge(str(target), [str(tmp_path / "a.db"), str(tmp_path / "b.db")])
    assert len(target.read_text().splitlines()) == 3
