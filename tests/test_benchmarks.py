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


ROOT = BENCHMARKS.parent


def _table_rows(text: str) -> list[dict[str, str]]:
    script = sys.modules["reproduce_papers"]
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    rows = [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines]
    assert rows[0] == list(script.COLUMNS)  # the header
    return [dict(zip(script.COLUMNS, row, strict=True)) for row in rows[1:]]


def test_reproduce_baselines_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    out = tmp_path / "baselines.md"
    graphs = ["--graphs-file", str(tmp_path / "graphs.csv")]
    args = ["--table", "baselines", "--store", str(tmp_path / "b.db"), "--splits", "2"]
    args += ["--datasets", "texas", "--out", str(out), *graphs]
    assert script.main(args) == 0
    rows = _table_rows(out.read_text())
    assert [(r["preset"], r["model"]) for r in rows] == [
        ("jdr", "gcn"),
        ("jdr", "gprgnn"),
        ("comfy", "gcn"),
    ]
    # two splits of a 100-split target: no verdict yet
    assert all(r["n"] == "2" and r["target"] == "100" for r in rows)
    assert all(r["matches"] == "pending (n=2)" for r in rows)
    assert (tmp_path / "graphs.csv").read_text().count("texas") == 3  # test set sizes
    # A second run trains nothing: every row is in the store.
    assert script.main(args + ["--stored-only"]) == 0
    assert _table_rows(out.read_text()) == rows
    # The rows travel in a CSV: a training run writes the store to it, and --stored-only
    # tabulates that file alone, whatever the store holds.
    runs = tmp_path / "runs.csv.gz"
    assert script.main(args + ["--runs-file", str(runs)]) == 0
    fresh = args[:2] + ["--store", str(tmp_path / "other.db")] + args[4:]
    assert script.main(fresh + ["--stored-only", "--runs-file", str(runs)]) == 0
    assert _table_rows(out.read_text()) == rows
    assert not (tmp_path / "other.db").exists()


def test_reproduce_threads_reach_the_runner(tmp_path, monkeypatch):
    """``--threads`` sets torch's thread count of every training run (default 1)."""
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    seen = []

    def runner(specs, store, progress, *, num_threads=None, backend=None):
        seen.append(num_threads)
        return []

    monkeypatch.setattr(script, "run_benchmarks", runner)
    args = ["--table", "baselines", "--store", str(tmp_path / "b.db"), "--splits", "1"]
    args += ["--datasets", "texas", "--out", str(tmp_path / "t.md")]
    args += ["--graphs-file", str(tmp_path / "graphs.csv")]
    assert script.main(args) == 0
    assert script.main(args + ["--threads", "2"]) == 0
    assert seen == [1] * 3 + [2] * 3  # three texas rows per run


def test_reproduce_jdr_rows_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    out = tmp_path / "jdr.md"
    args = ["--table", "jdr", "--store", str(tmp_path / "j.db"), "--splits", "2"]
    args += ["--datasets", "texas", "--models", "gcn", "--out", str(out)]
    args += ["--graphs-file", str(tmp_path / "graphs.csv")]
    assert script.main(args) == 0
    rows = _table_rows(out.read_text())
    assert [r["method"] for r in rows] == ["base", "GCN+DIGL", "GCN+FoSR", "GCN+BORF", "GCN+JDR"]
    base, digl, fosr, borf, jdr = rows
    assert all(r["n"] == "2" and r["matches"] == "pending (n=2)" for r in rows)
    # the official yaml's settings reach the methods (texas: rewire_ppr_gcn, rewire_fosr_gcn,
    # rewire_borf) and the rows pair with the baseline's splits
    assert digl["params"] == "alpha=1.0, k=64"
    assert fosr["params"] == "add=50, num_power_iterations=5"
    assert fosr["edits made / asked"] == "add 50/50"
    assert (borf["params"], borf["variant"]) == (
        "num_batches=1, batch_add=40, batch_remove=10",
        "faithful",
    )
    assert all(r["Δ vs base (paired, 95% CI)"].startswith(("+", "-")) for r in rows[1:])
    assert jdr["paper Δ"] == "+9.50"  # 85.12 - 75.62
    with script.ResultStore(tmp_path / "j.db") as store:
        digl_run = next(store.records(method="digl"))
    assert digl_run.params == {"alpha": 1.0, "k": 64}
    assert digl_run.rewire_report["edges_after"] == 183  # α = 1: one self-loop per node


def test_reproduce_borf_protocol_rows_smoke(tmp_path):
    """One trial (3 splits) of Texas under the BORF repository's protocol."""
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    out = tmp_path / "curvature.md"
    args = ["--table", "curvature", "--store", str(tmp_path / "c.db"), "--splits", "3"]
    args += ["--datasets", "texas", "--methods", "GCN+BORF", "--out", str(out)]
    args += ["--graphs-file", str(tmp_path / "graphs.csv")]
    assert script.main(args) == 0
    (row,) = _table_rows(out.read_text())
    assert (row["preset"], row["split"], row["variant"]) == ("borf", "borf", "faithful")
    assert row["params"] == "num_batches=3, batch_add=30, batch_remove=10"  # the repo log's
    assert (row["n"], row["target"], row["matches"]) == ("1", "100", "pending (n=1)")
    with script.ResultStore(tmp_path / "c.db") as store:
        runs = list(store.records(training_preset="borf"))
    assert sorted(r.key.split_id for r in runs) == [0, 1, 2]
    assert float(row["ours"]) == pytest.approx(100 * max(r.test_acc for r in runs), abs=0.005)
    assert all(r.epochs > 101 for r in runs)  # stops only after 101 epochs without gain


def test_curvature_rows_run_borf_under_its_protocol_and_keep_sdrf_listed():
    script = _script("reproduce_papers")
    borf = [r for r in script.CURVATURE_ROWS if r.label == "GCN+BORF"]
    assert [r.dataset for r in borf] == ["cora", "citeseer", "texas", "cornell", "wisconsin"]
    cornell = next(r for r in borf if r.dataset == "cornell")
    assert cornell.candidates == (
        {"num_batches": 2, "batch_add": 20, "batch_remove": 30, "faithful": True},
    )
    assert all(not r.blocked and (r.target, r.splits) == (100, 300) for r in borf)
    sdrf = [r for r in script.CURVATURE_ROWS if r.label == "GCN+SDRF"]
    assert sdrf and all(r.blocked.startswith("not run: ") for r in sdrf)


def test_jdr_baseline_rows_carry_the_official_settings():
    script = _script("reproduce_papers")
    rows = {(r.split, r.dataset, r.label): r for r in script.JDR_REWIRED if r.model == "gcn"}
    assert rows["sparse", "cora", "GCN+DIGL"].candidates == ({"alpha": 0.1, "k": 64},)
    assert rows["dense", "cornell", "GCN+DIGL"].candidates == ({"alpha": 1.0, "k": 64},)
    assert rows["sparse", "computers", "GCN+FoSR"].candidates[0]["add"] == 250
    assert rows["dense", "actor", "GCN+BORF"].candidates == (
        {"num_batches": 2, "batch_add": 40, "batch_remove": 50, "faithful": True},
    )
    assert ("dense", "squirrel", "GCN+BORF") not in rows  # OOM in the paper: no figure
    labels = {r.label for r in script.JDR_REWIRED}
    assert not any("SDRF" in label for label in labels)  # the JDR paper has no SDRF row
    assert not {"GPRGNN+DIGL", "GPRGNN+FoSR", "GPRGNN+BORF"} & labels  # no paper figure
    assert all(not r.blocked for r in script.JDR_REWIRED)


def _record(method: str, params: dict, split: int, acc: float, dataset: str = "texas"):
    from rewirekit.bench.store import RunKey, RunRecord, params_hash

    key = RunKey(dataset, "comfy", split, method, params_hash(params), "gcn", "comfy", 0)
    return RunRecord(key, params, acc, acc, 0.1, 0.1, 100, {})


def test_an_unchanged_graph_shows_an_exact_zero_gain_and_verdicts_wait_for_the_target(
    tmp_path,
):
    """Texas ComFyDel's best budget deletes nothing: its runs equal the baseline's."""
    script = _script("reproduce_papers")
    row = next(
        r
        for r in script.COMFY_REWIRED
        if (r.label, r.dataset, r.variant) == ("ComFyDel", "texas", "default")
    )
    assert row.candidates == ({"delete": 0, "communities": "louvain"},)
    accs = [0.5 + 0.01 * (i % 7) for i in range(row.target)]
    with script.ResultStore(tmp_path / "s.db") as store:
        for i, acc in enumerate(accs):
            store.put(_record("none", {}, i, acc))
            store.put(_record("comfy", row.candidates[0], i, acc))
        facts = script.GraphFactsFile(tmp_path / "graphs.csv")
        reproduction = script.Reproduction(store, None, facts, stored_only=True)
        base = next(r for r in script.COMFY_BASELINES if r.dataset == "texas")
        results = [reproduction.result(base), reproduction.result(row)]
        short = script.Reproduction(store, row.target - 1, facts, stored_only=True)
        pending = short.result(row)
    paper_bases = {base.cell: base}
    cells = _table_rows(script.to_markdown(results, paper_bases))[1]
    assert cells["Δ vs base (paired, 95% CI)"] == "+0.00 [+0.00, +0.00]"
    assert cells["paper Δ"] == "+29.72"  # 64.86 - 35.14
    assert cells["n"] == "30" and cells["matches"] in ("yes", "no")
    assert cells["edits made / asked"] == "not measured"  # no graphs file entry
    cells = _table_rows(script.to_markdown([pending], paper_bases))[0]
    assert cells["matches"] == "pending (n=29)" and cells["note"] == ""


def test_rows_carry_their_target_number_of_splits():
    script = _script("reproduce_papers")
    rows = {
        (r.preset, r.split, r.model, r.dataset, r.label, r.variant): r
        for t in script.TABLES.values()
        for r in t
    }
    assert rows["jdr", "sparse", "gcn", "cora", "base", ""].target == 100
    assert rows["jdr", "sparse", "gcn", "computers", "base", ""].target == 20
    assert rows["jdr", "sparse", "gprgnn", "photo", "GPRGNN+JDR", ""].target == 20
    assert rows["jdr", "dense", "gcn", "squirrel", "base", ""].target == 20
    assert rows["jdr", "dense", "gcn", "texas", "GCN+JDR", ""].target == 100
    assert rows["comfy", "comfy", "gcn", "cora", "base", ""].target == 100
    assert rows["comfy", "comfy", "gcn", "cora", "FeaStAdd", ""].target == 30
    assert rows["comfy", "comfy", "gcn", "squirrel_filtered", "ComFyAdd", "faithful"].target == 30


def test_verdict_only_at_the_target():
    script = _script("reproduce_papers")
    from rewirekit.bench.report import SummaryRow

    paper = next(r for r in script.COMFY_BASELINES if r.dataset == "cora")  # 86.12 ± 0.36

    def ours(n: int, mean: float) -> SummaryRow:
        return SummaryRow(
            "cora", "comfy", "comfy", "gcn", "none", n, mean, mean - 0.3, mean + 0.3, 0.3, 0, 0, 0
        )

    assert script.verdict(paper, None) == "not run"
    assert script.verdict(paper, ours(99, 86.12)) == "pending (n=99)"
    assert script.verdict(paper, ours(100, 86.12)) == "yes"
    assert script.verdict(paper, ours(100, 90.0)) == "no"


def test_comfy_rows_appear_faithful_and_default_with_the_stores_params():
    script = _script("reproduce_papers")
    comfy = [r for r in script.COMFY_REWIRED if r.method == "comfy"]
    assert len(comfy) == 3 * 2 * len(script.COMFY_DATASETS)
    for r in comfy:
        (params,) = r.candidates
        budgets = {k: v for k, v in params.items() if k in ("add", "delete")}
        expected = {**budgets, "communities": "louvain"}
        if r.variant == "faithful":
            expected["faithful"] = True
        else:
            assert r.variant == "default"
        assert params == expected
        assert set(budgets) == {"add", "delete"} & {
            "add" if "Add" in r.label else "",
            "delete" if "Del" in r.label else "",
        }
    higher = [r for r in script.COMFY_REWIRED if r.label.startswith("HigherComMa")]
    # HigherComMaAdd and HigherComMaDel on every dataset, faithful and default
    assert sorted(r.variant for r in higher) == ["default"] * 16 + ["faithful"] * 16
    for r in higher:
        assert r.candidates[0].get("faithful", False) == (r.variant == "faithful")
        assert r.candidates[0]["mode"] == "higher"
    lower = [r for r in script.COMFY_REWIRED if r.label.startswith("LowerComMa")]
    assert lower and all(r.variant.startswith("default") for r in lower)
    assert len({(r.label, r.dataset) for r in lower}) == len(lower)  # once each


def test_graph_facts_file_round_trips_and_formats_the_edits(tmp_path):
    script = _script("reproduce_papers")
    row = next(r for r in script.COMFY_REWIRED if r.label == "ComFyAddDel")
    facts = script.GraphFacts(37, {"add": 10, "delete": 10}, {"add": 10, "delete": 3})
    path = tmp_path / "g.csv"
    script.GraphFactsFile(path).put(row, row.candidates[0], facts)
    text = path.read_text()
    again = script.GraphFactsFile(path)
    assert again.get(row, row.candidates[0]) == facts
    assert again.get(row, {}) is None
    assert facts.edits_text() == "add 10/10, delete 3/10"
    assert script.GraphFacts(37, {}, {}).edits_text() == "—"
    again.put(row, row.candidates[0], facts)
    assert path.read_text() == text  # the same facts give the same bytes


def test_measured_edits_come_from_the_rewire_report():
    if not available_offline("cornell"):
        pytest.skip("cornell is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    row = next(
        r
        for r in script.COMFY_REWIRED
        if (r.label, r.dataset, r.variant) == ("ComFyAdd", "cornell", "default")
    )
    facts = script.measure_graph(row, row.candidates[0])
    assert facts.asked == {"add": 10}
    assert facts.made == {"add": 10}  # the default spends the whole budget
    assert facts.test_nodes == 37


def test_committed_tables_are_regenerated_from_the_committed_rows(tmp_path):
    """`make tables` output, byte for byte: no table may go stale against its rows."""
    script = _script("reproduce_papers")
    args = ["--all", "--stored-only", "--runs-file", str(ROOT / "docs/reproduction_runs.csv.gz")]
    args += ["--graphs-file", str(ROOT / "docs/reproduction_graphs.csv")]
    args += ["--out-dir", str(tmp_path), "--store", str(tmp_path / "unused.db")]
    assert script.main(args) == 0
    for name in script.TABLE_FILES.values():
        committed = (ROOT / "docs" / name).read_text(encoding="utf-8")
        assert (tmp_path / name).read_text(encoding="utf-8") == committed, (
            f"docs/{name} differs from its rows: run `make tables` and commit it"
        )


def test_budget_selection_keeps_the_best_validation_candidate(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    script = _script("reproduce_papers")
    row = next(
        r for r in script.TABLES["comfy"] if r.label == "ProxyAddMax" and r.dataset == "texas"
    )
    assert len(row.candidates) == 5
    row = script.PaperRow(**{**row.__dict__, "candidates": row.candidates[:2]})
    facts = script.GraphFactsFile(tmp_path / "graphs.csv")
    with script.ResultStore(tmp_path / "c.db") as store:
        result = script.Reproduction(store, 2, facts).result(row)
        summaries = script.summarize_records(store.records(split_id=0)) + script.summarize_records(
            store.records(split_id=1)
        )
    assert result.summary is not None and result.summary.n == 2
    assert result.params in row.candidates
    assert len({s.method for s in summaries}) == 2  # both candidates ran on the selection splits
    assert result.facts is not None and result.facts.asked == {"add": result.params["add"]}


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


@pytest.fixture
def actor_direction():
    """The Actor direction script and Actor's directed edges with the node count."""
    if not available_offline("actor"):
        pytest.skip("actor is not in $REWIREKIT_DATA")
    _script("reproduce_papers")
    from rewirekit.datasets import load

    directed = load("actor", undirected=False).edge_index
    return _script("jdr_actor_direction"), directed, int(directed.max()) + 1


def test_actor_lower_triangle_graph_holds_the_pairs_eigh_reads(actor_direction):
    script, directed, n = actor_direction
    lower = script.lower_triangle_graph()
    assert lower.is_undirected()
    src, dst = lower.edge_index
    pairs = set((src * n + dst)[src > dst].tolist())
    assert pairs == set((directed[0] * n + directed[1])[directed[0] > directed[1]].tolist())
    assert len(pairs) == 14_934


def test_actor_symmetrised_graph_is_what_the_rewired_rows_rewire(actor_direction):
    script, directed, n = actor_direction
    graph = script.symmetrised_graph()
    assert graph.is_undirected()
    src, dst = graph.edge_index
    lo, hi = directed.min(0).values, directed.max(0).values
    pairs = set((lo * n + hi)[lo != hi].tolist())
    assert set((src * n + dst)[src < dst].tolist()) == pairs
    assert sorted(row.method for row in script.UNDIRECTED_ROWS) == ["borf", "digl", "fosr"]
    assert (script.BASE.method, script.BASE.mean) == ("none", 34.00)


def test_actor_direction_pairs_the_two_stores_by_split():
    _script("reproduce_papers")
    script = _script("jdr_actor_direction")
    lower = [_record("jdr", {}, i, acc, "actor") for i, acc in enumerate([0.40, 0.42, 0.38])]
    symmetrised = [_record("jdr", {}, i, acc, "actor") for i, acc in enumerate([0.39, 0.41])]
    difference = script.paired(lower, symmetrised)  # split 2 has no partner
    assert difference.n == 2 and difference.mean_diff == pytest.approx(1.0)
    assert script.paired(lower, lower).mean_diff == 0.0
    assert (script.PAPER.method, script.PAPER.mean) == ("jdr", 40.47)  # the GCN+JDR row


def test_arpack_threads_smoke(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    _script("arpack_threads").main(
        ["--threads", "2", "--jdr-nodes", "600", "--fiedler-nodes", "800", "--edits", "2"]
        + ["--repeat", "1", "--warmup", "0"]
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


def test_timing_protocol_warms_up_untimed_and_reports_median_and_minimum(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    timing = _script("timing")
    calls = []
    result, measured = timing.Protocol(repeats=3, warmup=2).timed(
        lambda: calls.append(1) or len(calls)
    )
    assert len(calls) == 5 and len(measured.seconds) == 3 and result == 5
    fixed = timing.Timing((4.0, 1.0, 2.0))
    assert (fixed.median, fixed.minimum) == (2.0, 1.0)
    assert timing.ratio(timing.Timing((8.0,)), fixed) == 4.0  # ratio of medians
    assert "2 untimed warm-up calls, then 3 timed" in timing.Protocol(3, 2).describe()
    with pytest.raises(ValueError, match="repeats >= 1"):
        timing.Protocol(repeats=0)


def test_run_header_names_the_script_and_this_checkouts_commit(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    header = _script("timing").run_header("x.py")
    assert header.startswith("$ python benchmarks/x.py   # ") and " UTC, rewirekit " in header
    commit = header.rsplit(" ", 1)[1]
    assert commit == "unknown" or (len(commit) == 7 and int(commit, 16) >= 0)


def test_jdr_speed_row_prints_the_bound_ratio_and_the_target(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    speed = _script("jdr_speed")
    t = _script("timing").Timing
    met = speed.format_row("cora", t((60.0, 70.0, 65.0)), t((11.0,)), t((20.0,)), t((10.0,)))
    assert "1.10x" in met and met.endswith("met")
    assert "6.5x" in met  # official / lapack, medians
    missed = speed.format_row("cora", t((60.0,)), t((12.0,)), t((20.0,)), t((10.0,)))
    assert "1.20x" in missed and missed.endswith("MISSED")
    assert len(speed.HEADER.split()) == 10 and len(met.split()) == 10 + 4  # + four minima


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


def test_demo_time_smoke(tmp_path):
    script = _script("demo_time")
    bench = "--synthetic csbm --phi -0.5 --phi 0.5 --splits 2 --method none --method feast:add=10"
    out = tmp_path / "demo_timing.txt"
    bench += " --html runs/report.html"
    text = script.main(["--out", str(out), "--copy-to", str(tmp_path), "--bench-args", bench])
    assert out.read_text() == text
    assert "uptime before:" in text and "wall time:" in text and "CPU time of the demo" in text
    assert "verdict: gcn + feast(add=10) is at or above gcn + none at" in text
    assert "HTML report written to runs/report.html" in text
    assert (tmp_path / "demo_csbm_phi.png").stat().st_size > 1000
    assert "<h2>cSBM sweep</h2>" in (tmp_path / "demo_report.html").read_text()


def _jdr_accuracy_rows(store, script, accuracies):
    """Rows of both arms on Chameleon, split i: (exact, randomized) = accuracies[i]."""
    from rewirekit.bench.store import RunKey, RunRecord, params_hash

    for split_id, pair in enumerate(accuracies):
        for solver, acc in zip(script.SOLVERS, pair, strict=True):
            params = script.Arm("chameleon", "dense", solver).params
            key = RunKey(
                "chameleon", "dense", split_id, "jdr", params_hash(params), "gcn", "jdr", 0
            )
            store.put(RunRecord(key, params, acc, acc, 1.0, 1.0, 10, {}))


def test_jdr_randomized_accuracy_pairs_splits_and_withholds_verdicts_below_target(
    tmp_path, monkeypatch
):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    script = _script("jdr_randomized_accuracy")
    from rewirekit.bench.store import ResultStore

    with ResultStore(tmp_path / "a.db") as store:
        _jdr_accuracy_rows(store, script, [(0.70, 0.72), (0.60, 0.63), (0.65, 0.66)])
        store.export_csv(tmp_path / "rows.csv")
        low = script.render(store, ["chameleon", "cora"], target=30)
        full = script.render(store, ["chameleon"], target=3)
    chameleon = next(line for line in low.splitlines() if line.startswith("| chameleon"))
    assert "| 3 |" in chameleon and "+2.00" in chameleon and "pending (n=3)" in chameleon
    assert "| cora | sparse | 0 |" in low and "pending (n=0)" in low
    assert "randomized higher" in full  # every pair +1 to +3 points: the CI excludes 0
    # --stored-only rebuilds the same doc from the CSV alone, training nothing
    out = tmp_path / "doc.md"
    args = ["--stored-only", "--datasets", "chameleon", "cora", "--store", str(tmp_path / "b.db")]
    args += ["--csv", str(tmp_path / "rows.csv"), "--out", str(out)]
    assert script.main(args) == 0
    assert out.read_text() == low


def test_set_threads_limits_blas_pools_loaded_before_it():
    """A script that imports numpy and torch first still gets the asked thread count in its
    OpenBLAS pools (run in a child: the limit is process-wide)."""
    import subprocess

    code = (
        "import numpy, scipy.linalg, torch; from timing import set_threads; set_threads(1); "
        "from threadpoolctl import threadpool_info; "
        "print(sorted({p['num_threads'] for p in threadpool_info()}), torch.get_num_threads())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=BENCHMARKS, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["[1]", "1"]


def test_leaderboard_reduced_merges_the_stores_of_its_processes(tmp_path):
    from rewirekit.bench.store import ResultStore, RunKey, RunRecord

    script = _script("leaderboard_reduced")
    assert script.ORDER[0] == "none" and sorted(script.ORDER) == sorted(set(script.ORDER))
    for i, name in enumerate(("a", "b", "a")):
        with ResultStore(tmp_path / f"{name}{i}.db") as store:
            key = RunKey(name, "dense", 0, "none", "h", "gcn", "fair", 0)
            store.put(RunRecord(key, {}, 0.5 + i / 10, 0.5, 0.0, 1.0, 3, {}))
    a, b, a_rerun = (str(tmp_path / f"{name}.db") for name in ("a0", "b1", "a2"))
    target = tmp_path / "rows.csv"
    script.main(["merge", str(target), a, b])
    merged = target.read_text()
    assert len(merged.splitlines()) == 3
    # A merge that would lose a row already merged (b's), or change one (a's accuracy), is
    # refused and leaves the earlier merge as it was.
    for stores in ([a], [a_rerun, b]):
        with pytest.raises(SystemExit, match="1 of the 2 rows already in"):
            script.main(["merge", str(target), *stores])
        assert target.read_text() == merged
    script.main(["merge", str(target), a, b, a_rerun])
    assert target.read_text() == merged
    script.main(["merge", str(target), a, b, "--drop", "b"])
    assert [line.split(",")[0] for line in target.read_text().splitlines()] == ["dataset", "a"]


def test_leaderboard_reduced_runs_a_subset_of_the_methods_in_order(monkeypatch, tmp_path):
    script = _script("leaderboard_reduced")
    calls = []
    monkeypatch.setattr(
        script, "run_leaderboard", lambda datasets, models, methods, *rest: calls.append(
            ([d.key for d in datasets], models, methods)) or []
    )  # fmt: skip
    store = str(tmp_path / "s.db")
    script.main(["run", store, "texas", "--models", "gprgnn", "--methods", "proxy_delete", "jdr"])
    assert calls == [(["texas"], ["gprgnn"], ["jdr", "proxy_delete"])]
    script.main(["run", store, "csbm", "csbm:0.5", "--methods", "none"])
    params = [script.DatasetSpec.from_key(key).params for key in calls[-1][0]]
    assert [(p["num_nodes"], p["num_features"], p["phi"]) for p in params] == [
        (400, 100, -0.5),
        (1000, 400, 0.5),
    ]
    with pytest.raises(SystemExit):
        script.main(["run", store, "texas", "--methods", "no_such_method"])


def test_bangs_official_check_reports_each_import_and_the_shipped_builds(monkeypatch, tmp_path):
    """Offline parts of the official-code check: the torch builds read off the library names,
    and an import step's outcome (its output, or the error's last line)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    check = _script("bangs_official_check")
    for path in ("dgl/graphbolt/libgraphbolt_pytorch_2.2.1.so",
                 "dgl/graphbolt/libgraphbolt_pytorch_2.1.0.so",
                 "dgl/tensoradapter/pytorch/libtensoradapter_pytorch_2.2.1.so"):  # fmt: skip
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).touch()
    assert check._shipped_builds(tmp_path) == [
        "libtensoradapter built for torch: 2.2.1",
        "libdgl_sparse built for torch: none found",
        "libgraphbolt built for torch: 2.1.0, 2.2.1",
    ]
    (tmp_path / "present.py").write_text("VALUE = 7\n")
    assert check._attempt("import present; print(present.VALUE)", str(tmp_path), tmp_path) == "ok 7"
    failed = check._attempt("import absent_module_xyz", str(tmp_path), tmp_path)
    assert failed == "FAILED: ModuleNotFoundError: No module named 'absent_module_xyz'"


def test_split_classes_names_the_classes_the_dense_split_never_tests(capsys):
    if not (available_offline("texas") and available_offline("minesweeper")):
        pytest.skip("texas and minesweeper are not both in $REWIREKIT_DATA")
    _script("split_classes").main(["--datasets", "texas", "minesweeper"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "texas | [33, 1, 18, 101, 30] | 22 | [0, 1, 2] | [1, 2] | dense | 80.16"
    assert lines[3].startswith(
        "minesweeper | [8000, 2000] | 3000 | [1] | [1] | stratified (the 'dense' split 0"
    )
    assert lines[3].endswith(" | 80.00")  # stratified: 20% of each class, 80% class 0


def test_knn_ties_smoke(tmp_path):
    if not available_offline("texas"):
        pytest.skip("texas is not in $REWIREKIT_DATA")
    from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
    from rewirekit.bench.store import ResultStore

    rows = tmp_path / "rows.csv"
    spec = BenchmarkSpec(
        [DatasetSpec.named("texas")], [MethodSpec("orc_manl")], ["gcn"], "dense", "fair", 1
    )
    with ResultStore(tmp_path / "s.db") as store:
        run_benchmark(spec, store)
        store.export_csv(rows)
    out = tmp_path / "ties.md"
    assert _script("knn_ties").main(["--rows", str(rows), "--out", str(out)]) == 0
    table = out.read_text()
    # Tie counts are the same on every machine: 1703 binary features, 183 points.
    assert "| texas | gcn | 183 | 5 | 69 | 886 |" in table
    assert "| texas | gcn | 183 | 20 | 110 | 3397 |" in table


def test_dropout_speed_smoke(monkeypatch, capsys):
    if not available_offline("cora"):
        pytest.skip("cora is not in $REWIREKIT_DATA")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    script = _script("dropout_speed")
    script.main(["--datasets", "cora", "--epochs", "2", "--repeat", "1", "--warmup", "0"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("cora ")]
    assert [row.split()[1] for row in rows] == ["gprgnn", "gcn"]
    assert all(row.endswith("x  equal") for row in rows)
    # the masks come back to rewirekit's kernel after the timed fallback
    assert script.dropout_module._bernoulli(torch.empty(4), 0.5) is not None


def test_training_profile_smoke(monkeypatch, capsys):
    if not available_offline("cora"):
        pytest.skip("cora is not in $REWIREKIT_DATA")
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    _script("training_profile").main(["--dataset", "cora", "--models", "gprgnn", "--epochs", "2"])
    out = capsys.readouterr().out
    assert "gprgnn: hidden 32, dropout 0.3692, 2 epochs" in out
    assert "aten::" in out and "%" in out


def test_rerun_rows_finds_equal_rows_and_a_changed_one(monkeypatch, tmp_path, capsys):
    from rewirekit.bench.runner import BenchmarkSpec, DatasetSpec, MethodSpec, run_benchmark
    from rewirekit.bench.store import ResultStore

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    script = _script("rerun_rows")
    dataset = DatasetSpec.csbm(num_nodes=120, num_features=20, phi=0.5, seed=0)
    spec = BenchmarkSpec(
        datasets=[dataset],
        methods=[MethodSpec("random", {"add": 20, "delete": 20, "seed": 3})],
        models=["gcn"],
        split_preset="dense",
        training_preset="fair",
        num_splits=2,
    )
    rows = tmp_path / "rows.csv"
    with ResultStore(tmp_path / "s.db") as store:
        run_benchmark(spec, store)
        assert store.export_csv(rows) == 2
    args = ["--rows", str(rows), "--dataset", dataset.key, "--limit", "2"]
    assert script.main(args) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "equal: 2 of 2"
    lines = rows.read_text().splitlines()
    lines[1] = lines[1].replace(",0.", ",0.0001", 1)  # a stored accuracy that was not computed
    rows.write_text("\n".join(lines) + "\n")
    assert script.main(args) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "equal: 1 of 2" and sum(line.endswith("| NO") for line in out) == 1
