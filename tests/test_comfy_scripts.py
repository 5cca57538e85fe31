"""Smoke tests of benchmarks/comfy_vs_official.py and comfy_speed.py without the official code.

The difference counter is checked on hand-made selections whose causes are known; the speed
script's "ours" path runs on a tiny graph.
"""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def compare():
    sys.path.insert(0, str(BENCHMARKS))  # the scripts import each other as top-level modules
    try:
        yield importlib.import_module("comfy_vs_official")
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def speed(compare):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module("comfy_speed")
    finally:
        sys.path.remove(str(BENCHMARKS))


def _angles(degrees):
    """Unit 2-d feature rows at the given angles: sim(u, v) = cos(angle_u - angle_v)."""
    rad = np.deg2rad(np.asarray(degrees, dtype=np.float64))
    return np.stack([np.cos(rad), np.sin(rad)], axis=1)


# Two communities of 4 nodes: every community pair has 16 node pairs of 48, B_ij = ⌊N/3⌋.
# Best non-edges: (0, 2) and (1, 3) in C0; (3, 5) and (2, 4) between; (4, 6) and (5, 7) in C1.
EIGHT_X = _angles([0, 80, 10, 100, 42, 130, 45, 140])
EIGHT_EDGES = {(0, 1), (2, 3), (4, 5), (6, 7), (0, 4)}
EIGHT_LABELS = np.array([0, 0, 0, 0, 1, 1, 1, 1])


def _comfy_context(compare, budget, x=EIGHT_X, edges=EIGHT_EDGES, labels=EIGHT_LABELS, kind="add"):
    return compare.selection_context(x, edges, labels, kind, budget, per_block=True)


def test_context_has_floor_budgets_and_block_means(compare):
    ctx = _comfy_context(compare, 6)
    assert ctx.block_budget == {(0, 0): 2, (0, 1): 2, (1, 1): 2}
    assert ctx.block_edges == {(0, 0): 2, (0, 1): 1, (1, 1): 2}
    assert ctx.block_mean[(0, 1)] == pytest.approx(np.cos(np.deg2rad(42)))
    assert not ctx.nan_blocks


def test_identical_selections_have_no_difference(compare):
    ours = {(0, 2), (3, 5), (4, 6)}
    assert compare.classify_differences(set(ours), ours, _comfy_context(compare, 3)) == {}


def test_self_loops_take_slots(compare):
    # B_ij = 1: the official code spends the slots of C0 and C1 on self-loops (similarity 1).
    ours = {(0, 2), (3, 5), (4, 6)}
    official = {(1, 1), (3, 5), (4, 4)}
    causes = compare.classify_differences(official, ours, _comfy_context(compare, 3))
    assert causes == {"self-loop": 4}


def test_second_orientation_takes_a_slot(compare):
    # B_ij = 2: (0, 2) and (2, 0) fill C0's two official slots; ours also takes (1, 3).
    ours = {(0, 2), (1, 3), (3, 5), (2, 4), (4, 6), (5, 7)}
    official = ours - {(1, 3)}
    causes = compare.classify_differences(official, ours, _comfy_context(compare, 6))
    assert causes == {"both orient.": 1}


def test_zero_budget_selects_everything_and_crowds_out_later_pairs(compare):
    # Sizes 2 and 6: B_00 = B_01 = 0, B_11 = ⌊4·36/52⌋ = 2 at N = 4. The official code
    # fills N from the first two pairs (self-loops included) and never reaches C1.
    labels = np.array([0, 0, 1, 1, 1, 1, 1, 1])
    edges = {(0, 1), (0, 4), (2, 3), (4, 5), (6, 7)}
    ctx = _comfy_context(compare, 4, edges=edges, labels=labels)
    assert ctx.block_budget == {(0, 0): 0, (0, 1): 0, (1, 1): 2}
    official = {(0, 0), (1, 1), (0, 2), (1, 6)}
    ours = {(4, 6), (5, 7)}
    causes = compare.classify_differences(official, ours, ctx)
    assert causes == {"self-loop": 2, "B=0 all": 2, "cap": 2}


def test_zero_feature_rows_make_the_official_block_empty(compare):
    x = EIGHT_X.copy()
    x[7] = 0.0  # edge (6, 7): the official mean similarity of C1 is NaN
    ctx = _comfy_context(compare, 3, x=x)
    assert ctx.nan_blocks == {(1, 1)}
    causes = compare.classify_differences({(0, 2), (3, 5)}, {(0, 2), (3, 5), (4, 6)}, ctx)
    assert causes == {"zero rows": 1}


# FeaSt: nodes 0, 1 share a feature row and so do 2, 3: (0, 1) and (2, 3) tie at similarity 1.
FIVE_X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
FIVE_EDGES = {(0, 2), (1, 3), (2, 4)}


def _feast_context(compare, budget, kind="add"):
    return compare.selection_context(
        FIVE_X, FIVE_EDGES, np.zeros(5, dtype=np.int64), kind, budget, per_block=False
    )


def test_tie_at_the_cut(compare):
    causes = compare.classify_differences({(2, 3)}, {(0, 1)}, _feast_context(compare, 1))
    assert causes == {"tie exact": 2}


def test_a_pair_below_the_cut_is_unexplained(compare):
    causes = compare.classify_differences({(0, 4)}, {(0, 1)}, _feast_context(compare, 1))
    assert causes == {"unexplained": 2}


def test_deletions_use_the_largest_similarity_as_cut(compare):
    # Edges (0, 2), (1, 3) have similarity 0 < mean; deleting one of them is a tie.
    ctx = _feast_context(compare, 1, kind="delete")
    assert compare.classify_differences({(1, 3)}, {(0, 2)}, ctx) == {"tie exact": 2}
    assert compare.classify_differences({(2, 4)}, {(0, 2)}, ctx) == {"unexplained": 2}


def test_paper_budgets_are_compared(compare):
    runs = compare.similarity_runs("cora", 50)
    assert ("comfy", "delete", 2000) in runs and ("feast", "add", 1000) in runs
    assert ("feast", "add", 50) in runs and len(runs) == 8


def _tiny_graph() -> Data:
    """Connected graph of 16 nodes (a ring with chords), seeded Gaussian features."""
    ring = np.arange(16)
    src = np.concatenate([ring, ring])
    dst = np.concatenate([(ring + 1) % 16, (ring + 5) % 16])
    edge_index = torch.tensor(np.stack([np.concatenate([src, dst]), np.concatenate([dst, src])]))
    x = torch.from_numpy(np.random.default_rng(0).standard_normal((16, 4)).astype(np.float32))
    return Data(x=x, edge_index=edge_index, num_nodes=16)


def test_speed_script_times_our_methods(speed):
    runs = speed.speed_runs("tiny", 2)
    assert [r.label for r in runs] == [
        "FeaSt add",
        "FeaSt delete",
        "ComFy add",
        "ComFy[louvain] add",
        "ComFy delete",
        "ComFy[louvain] delete",
        "ProxyAddMax",
        "ProxyDelMax",
        "FoSR",
    ]
    # the Louvain rows reuse the official timing of the default rows
    assert runs[2].official_key() == runs[3].official_key() != runs[4].official_key()
    data = _tiny_graph()
    protocol = speed.Protocol(repeats=2, warmup=1)
    for run in runs:
        timing = speed.time_ours(data, run, protocol)
        assert len(timing.seconds) == 2, run.label
        assert 0 < timing.minimum <= timing.median < 5, run.label


def test_speed_official_calls_follow_the_protocol(speed):
    calls = []

    def official(step):
        calls.append(step)
        return float(len(calls))  # the seconds it reports: 1, 2, 3, 4

    timing = speed._in_child(speed.Protocol(repeats=3, warmup=1), official, ("x",))
    assert calls == ["x"] * 4 and timing.seconds == (2.0, 3.0, 4.0)  # warm-up not timed
    assert (timing.median, timing.minimum) == (3.0, 2.0)


def test_speed_row_marks_lower_bounds_and_targets(speed):
    run = speed.speed_runs("tiny", 2)[0]
    ours = speed.Timing((0.1, 0.2, 0.1))
    done = speed.row("tiny", run, speed.OfficialTime(speed.Timing((3.0, 2.5, 3.5))), ours, None)
    assert " 30x" in done and "met" in done and "3.00s (2.50)" in done and "0.100s (0.100)" in done
    cut = speed.row("tiny", run, speed.OfficialTime(None, 1.0, "timed out"), ours, None)
    assert ">10x" in cut and "MISSED" in cut and "timed out" in cut
    louvain = next(r for r in speed.speed_runs("tiny", 2) if r.label == "ComFy[louvain] add")
    shared = (speed.Timing((0.5,)), speed.Timing((0.05,)))
    info = speed.row("tiny", louvain, speed.OfficialTime(speed.Timing((1.0,))), ours, shared)
    assert "info" in info and "target" not in info and "sel. ratio 10x" in info


def test_comma_comparison_flags_an_official_run_that_differs(compare, monkeypatch):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        comma = importlib.import_module("comma_vs_official")
    finally:
        sys.path.remove(str(BENCHMARKS))
    ring = torch.tensor([[i, (i + 1) % 12] for i in range(12)] + [[0, 6], [3, 9]]).t()
    graph = Data(x=torch.eye(12), edge_index=torch.cat([ring, ring.flip(0)], 1), num_nodes=12)
    monkeypatch.setattr(comma, "load_prepared", lambda name: graph)

    class Unchanged:  # an "official" run that makes no edit
        @staticmethod
        def community_rewiring(data, seed, delete, add):
            return (data,)

    line = comma.compare(Unchanged, "ring", "higher", 2, 1)
    assert line.endswith("NO") and line.split("|")[1].split() == ["0", "0"]
