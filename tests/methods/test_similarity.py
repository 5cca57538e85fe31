"""FeaSt and ComFy: exact semantics on hand-checkable graphs, and against brute force."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from torch_geometric.data import Data
from torch_geometric.utils import is_undirected, to_undirected

import rewirekit
from rewirekit import RewireError
from rewirekit.graph import edge_set
from rewirekit.linalg.similarity import (
    SPARSE_BELOW_DENSITY,
    normalized_rows,
    pair_similarity,
    top_similar_pairs,
)
from rewirekit.methods.similarity import _proportional, similarity_rewire


def _graph(pairs, x, n=None):
    ei = to_undirected(torch.tensor(pairs, dtype=torch.long).t().reshape(2, -1))
    x = torch.tensor(x, dtype=torch.float)
    return Data(x=x, edge_index=ei, num_nodes=n or x.shape[0], y=torch.zeros(x.shape[0]))


def _pairs(data):
    return {(u, v) for u, v in data.edge_index.t().tolist() if u < v}


def _cosine(x):
    x = np.asarray(x, dtype=np.float64)
    norm = np.linalg.norm(x, axis=1)
    safe = np.where(norm > 0, norm, 1)
    xn = x / safe[:, None]
    return xn @ xn.T


# Hand-checkable: x0 = x1 = (1,0), x2 = x3 = (0,1), x4 = (1,1). Edges 0-2, 1-3 (sim 0) and
# 0-4 (sim 1/√2): s̄ = 0.2357. Non-edges: 0-1, 2-3 (sim 1), 1-4, 2-4, 3-4 (sim 0.707),
# 0-3, 1-2 (sim 0).
HAND_X = [[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]]
HAND_E = [(0, 2), (1, 3), (0, 4)]


@pytest.mark.parametrize(
    "add, expected",
    [
        (1, {(0, 1)}),
        (2, {(0, 1), (2, 3)}),
        (3, {(0, 1), (2, 3), (1, 4)}),  # ties at 0.707 go to the smallest pair
        (5, {(0, 1), (2, 3), (1, 4), (2, 4), (3, 4)}),
    ],
)
def test_feast_adds_the_most_similar_non_edges_above_the_mean(add, expected):
    data = _graph(HAND_E, HAND_X)
    out = rewirekit.rewire(data, "feast", add=add)
    assert _pairs(out) - _pairs(data) == expected
    assert out.rewire_report.extra["mean_similarity"] == pytest.approx(np.sqrt(0.5) / 3, abs=1e-6)


def test_feast_never_adds_below_the_mean_and_reports_the_shortfall():
    data = _graph(HAND_E, HAND_X)
    out = rewirekit.rewire(data, "feast", add=7)  # 7 non-edges exist, only 5 above s̄
    assert (0, 3) not in _pairs(out) and (1, 2) not in _pairs(out)
    assert out.rewire_report.edges_added == 5
    assert out.rewire_report.extra["add_shortfall"] == 2
    with pytest.raises(RewireError, match="add"):
        rewirekit.rewire(data, "feast", add=8)


def test_feast_deletes_the_least_similar_edges_below_the_mean():
    data = _graph(HAND_E, HAND_X)
    out = rewirekit.rewire(data, "feast", delete=1)
    assert _pairs(data) - _pairs(out) == {(0, 2)}  # tie 0-2 / 1-3 at sim 0: smallest pair
    out = rewirekit.rewire(data, "feast", delete=3)
    assert _pairs(data) - _pairs(out) == {(0, 2), (1, 3)}  # 0-4 is above the mean
    assert out.rewire_report.extra["delete_shortfall"] == 1


def test_feast_add_and_delete_are_chosen_on_the_input():
    data = _graph(HAND_E, HAND_X)
    out = rewirekit.rewire(data, "feast", add=2, delete=2)
    assert _pairs(out) == {(0, 4), (0, 1), (2, 3)}


@pytest.mark.parametrize("sparse", [False, True])
def test_zero_feature_rows_have_similarity_zero(sparse):
    x = np.array([[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]])
    xn = normalized_rows(x, sparse=sparse)
    sims = pair_similarity(xn, np.array([0, 0, 1]), np.array([2, 1, 1]))
    assert sims[0] == 0.0 and sims[1] == 0.0 and sims[2] == pytest.approx(1.0)


def _brute_top(x, rows, cols, count, above, excluded, triangle):
    sims = _cosine(x)
    cands = []
    for p, u in enumerate(rows):
        for q, v in enumerate(cols):
            if (triangle and q <= p) or (p, q) in excluded:
                continue
            if sims[u, v] > above:
                cands.append((-sims[u, v], min(u, v), max(u, v)))
    cands.sort()
    return [(u, v) for _, u, v in cands[:count]]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("triangle", [True, False])
@pytest.mark.parametrize("block_entries", [7, 50, 10**6])
def test_blocked_top_k_matches_brute_force(triangle, block_entries, sparse):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 5))
    x[3] = 0.0
    if triangle:
        rows = cols = np.sort(rng.choice(40, 25, replace=False))
    else:
        perm = rng.permutation(40)
        rows, cols = np.sort(perm[:15]), np.sort(perm[15:35])
    ex = rng.integers(0, 15, (30, 2))
    ex = ex[ex[:, 0] < ex[:, 1]] if triangle else ex
    excluded = set(map(tuple, ex.tolist()))
    u, v, s = top_similar_pairs(
        normalized_rows(x, sparse=sparse),
        rows,
        cols,
        20,
        above=0.1,
        exclude_row=ex[:, 0],
        exclude_col=ex[:, 1],
        triangle=triangle,
        block_entries=block_entries,
    )
    assert list(zip(u.tolist(), v.tolist(), strict=True)) == _brute_top(
        x, rows, cols, 20, 0.1, excluded, triangle
    )
    assert np.all(np.diff(s) <= 0)


def _bag_of_words(n, f, seed):
    """Binary features whose rows have 0, 1, 4 or 16 words: unit rows hold 1, 1/2 or 1/4,
    so every similarity is exact in float32 on both paths and equal similarities (there
    are many) are exact ties."""
    rng = np.random.default_rng(seed)
    x = np.zeros((n, f), dtype=np.float32)
    for row, words in enumerate(rng.choice([0, 1, 4, 16], n, p=[0.05, 0.25, 0.5, 0.2])):
        x[row, rng.choice(f, words, replace=False)] = 1.0
    return x


def test_representation_is_chosen_by_density():
    x = np.zeros((40, 800), dtype=np.float32)
    x[np.arange(40), np.arange(40) * 7] = 1.0
    x[np.arange(40), np.arange(40) * 3 + 1] = 2.5
    assert np.count_nonzero(x) <= SPARSE_BELOW_DENSITY * x.size
    xs = normalized_rows(torch.from_numpy(x))
    assert sp.issparse(xs) and xs.dtype == np.float32
    dense = normalized_rows(torch.from_numpy(x), sparse=False)
    assert not sp.issparse(dense) and not sp.issparse(normalized_rows(np.ones((4, 3))))
    np.testing.assert_array_equal(xs.toarray(), dense)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("triangle", [True, False])
@pytest.mark.parametrize("block_entries", [60, None])
def test_sparse_and_dense_paths_select_the_same_pairs(seed, triangle, block_entries):
    rng = np.random.default_rng(seed)
    n = 60
    x = _bag_of_words(n, 30, seed)  # few words: many equal similarities
    dense, sparse = normalized_rows(x, sparse=False), normalized_rows(x, sparse=True)
    src, dst = rng.integers(0, n, 200), rng.integers(0, n, 200)
    np.testing.assert_array_equal(
        pair_similarity(sparse, src, dst), pair_similarity(dense, src, dst)
    )
    if triangle:
        rows = cols = np.sort(rng.choice(n, 40, replace=False))
    else:
        perm = rng.permutation(n)
        rows, cols = np.sort(perm[:25]), np.sort(perm[25:])
    ex = rng.integers(0, 25, (40, 2))
    ex = ex[ex[:, 0] < ex[:, 1]] if triangle else ex
    for count, above in [(15, 0.2), (400, 0.0), (5, -np.inf)]:
        got = [
            top_similar_pairs(
                xn,
                rows,
                cols,
                count,
                above=above,
                exclude_row=ex[:, 0],
                exclude_col=ex[:, 1],
                triangle=triangle,
                block_entries=block_entries,
            )
            for xn in (dense, sparse)
        ]
        for dense_part, sparse_part in zip(*got, strict=True):
            np.testing.assert_array_equal(dense_part, sparse_part)
        assert got[0][0].size > count // 2


@pytest.mark.parametrize("seed", range(2))
def test_feast_and_comfy_are_the_same_on_both_paths(seed):
    n = 50
    x = _bag_of_words(n, 40, seed)
    ei = torch.randint(0, n, (2, 150), generator=torch.Generator().manual_seed(seed))
    edges = edge_set(
        Data(
            x=torch.from_numpy(x),
            num_nodes=n,
            edge_index=to_undirected(ei[:, ei[0] != ei[1]], num_nodes=n),
        )
    )
    labels = (np.arange(n) * 3 // n).astype(np.int64)
    for rule in (_proportional("round"), _proportional("largest_remainder")):
        for add, delete in [(10, 10), (60, 40)]:
            got = [
                similarity_rewire(
                    edges, normalized_rows(x, sparse=sparse), labels, add, delete, rule
                )[0].keys
                for sparse in (False, True)
            ]
            np.testing.assert_array_equal(got[0], got[1])


def _oracle(x, pairs, labels, add, delete, rule):
    """Straight Python version of the per-community-pair definition."""
    n, sims = len(labels), _cosine(x)
    edges = sorted(pairs)
    num_comm = labels.max() + 1
    sizes = np.bincount(labels, minlength=num_comm)
    total = (n * n + int((sizes**2).sum())) // 2
    by_pair = {}
    for u, v in edges:
        key = tuple(sorted((labels[u], labels[v])))
        by_pair.setdefault(key, []).append((u, v))
    keys = sorted(by_pair)
    b_add = rule(add, sizes[[k[0] for k in keys]], sizes[[k[1] for k in keys]], total)
    b_del = rule(delete, sizes[[k[0] for k in keys]], sizes[[k[1] for k in keys]], total)
    added, removed = [], []
    for g, (i, j) in enumerate(keys):
        mean = np.mean([sims[u, v] for u, v in by_pair[(i, j)]])
        cand = sorted(
            (-sims[u, v], u, v)
            for u, v in itertools.combinations(range(n), 2)
            if {labels[u], labels[v]} == {i, j} and (u, v) not in pairs and sims[u, v] > mean
        )
        added += [(u, v) for _, u, v in cand[: b_add[g]]]
        low = sorted((sims[u, v], u, v) for u, v in by_pair[(i, j)] if sims[u, v] < mean)
        removed += [(u, v) for _, u, v in low[: b_del[g]]]
    return set(added[:add]), set(removed[:delete])


@pytest.mark.parametrize("rounding", ["round", "floor", "largest_remainder"])
@pytest.mark.parametrize("seed", [0, 1])
def test_per_community_pair_selection_matches_the_definition(rounding, seed):
    rng = np.random.default_rng(seed)
    n = 30
    x = rng.standard_normal((n, 6))
    labels = np.sort(rng.integers(0, 4, n))
    labels = np.unique(labels, return_inverse=True)[1].astype(np.int64)
    ei = torch.randint(0, n, (2, 90), generator=torch.Generator().manual_seed(seed))
    data = Data(
        x=torch.tensor(x, dtype=torch.float),
        edge_index=to_undirected(ei[:, ei[0] != ei[1]], num_nodes=n),
        num_nodes=n,
    )
    pairs = _pairs(data)
    edges = edge_set(data)
    for add, delete in [(12, 9), (40, 30), (3, 2)]:
        new, _ = similarity_rewire(
            edges, normalized_rows(data.x), labels, add, delete, _proportional(rounding)
        )
        got = set(zip(new.src.tolist(), new.dst.tolist(), strict=True))
        want_add, want_del = _oracle(x, pairs, labels, add, delete, _proportional(rounding))
        assert got - pairs == want_add
        assert pairs - got == want_del


@pytest.mark.parametrize(
    "rounding, budget, expected",
    [
        ("round", 10, [2, 4, 3]),
        ("floor", 10, [1, 3, 3]),
        ("largest_remainder", 10, [2, 4, 4]),
        ("round", 0, [0, 0, 0]),
        ("largest_remainder", 1, [0, 1, 0]),
    ],
)
def test_budget_rounding(rounding, budget, expected):
    # products 2, 5, 4 with total 13: shares 10·(2, 5, 4)/13 = 1.54, 3.85, 3.08
    # largest remainder renormalises over these pairs (total 11): 1.82, 4.55, 3.64
    b = _proportional(rounding)(budget, np.array([1, 1, 2]), np.array([2, 5, 2]), 13)
    assert b.tolist() == expected


def _two_communities(x=None):
    """Two 4-cliques minus one edge each (0-3 and 4-7 missing), bridged by 3-4."""
    pairs = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (4, 5), (4, 6), (5, 6), (5, 7), (6, 7), (3, 4)]
    if x is None:
        x = np.eye(8)[:, :4] + 0.1  # every pair has some similarity
        x[0] = x[3] = [1, 0, 0, 0]
        x[4] = x[7] = [0, 1, 0, 0]
    return _graph(pairs, x)


def test_comfy_finds_the_two_communities():
    out = rewirekit.rewire(_two_communities(), "comfy", add=1)
    assert out.rewire_report.extra["num_communities"] == 2


def test_comfy_zero_budget_pairs_select_nothing():
    # |C|=4,4: products 16 each, total 48; N=1 gives B = round(1/3) = 0 for all three pairs.
    data = _two_communities()
    for rounding in ("round", "floor"):
        out = rewirekit.rewire(data, "comfy", add=1, delete=1, rounding=rounding)
        assert torch.equal(out.edge_index, data.edge_index)
        assert out.rewire_report.extra["add_allocated"] == 0
    # N=2: round gives 1 per pair (3 > N, cut in pair order); floor gives 0.
    out = rewirekit.rewire(data, "comfy", add=2, rounding="floor")
    assert out.rewire_report.edges_added == 0


def test_comfy_adds_within_and_between_pairs_in_pair_order_without_self_loops():
    data = _two_communities()
    out = rewirekit.rewire(data, "comfy", add=2, rounding="round")
    new = _pairs(out) - _pairs(data)
    # pair (C0, C0): its only non-edge 0-3 (sim 1 > mean); pair (C0, C1): most similar non-edge
    assert len(new) == 2 and (0, 3) in new
    (other,) = new - {(0, 3)}
    assert other[0] < 4 <= other[1]
    assert not (out.edge_index[0] == out.edge_index[1]).any()
    assert out.rewire_report.edges_added == 2  # one slot per undirected pair


def test_comfy_largest_remainder_spends_the_budget():
    data = _two_communities()
    out = rewirekit.rewire(data, "comfy", add=3, rounding="largest_remainder")
    report = out.rewire_report
    assert report.extra["add_allocated"] == 3
    assert report.edges_added + report.extra["add_shortfall"] == 3


def test_budget_beyond_the_graph_raises():
    data = _two_communities()
    with pytest.raises(RewireError, match="delete"):
        rewirekit.rewire(data, "comfy", delete=12)
    with pytest.raises(RewireError, match="rounding"):
        rewirekit.get_method("comfy", rounding="ceil")


# -- budgets that mean what they say (issue 13) -------------------------------------------
def test_comfy_default_moves_unfillable_slots_to_other_pairs():
    # Three pairs of 4x4 nodes share N=6 as 2/2/2; (C0, C0) has one non-edge (0-3) only,
    # so its second slot goes to the other pairs and all 6 edges are added.
    data = _two_communities()
    out = rewirekit.rewire(data, "comfy", add=6)
    report = out.rewire_report
    assert report.edges_added == 6
    assert report.edits_asked == {"add": 6, "delete": 0}
    assert report.edits_made == {"add": 6, "delete": 0} and report.shortfall == {}
    assert (0, 3) in _pairs(out) - _pairs(data)


def test_comfy_round_spends_less_and_says_so(caplog):
    data = _two_communities()
    with caplog.at_level("WARNING", logger="rewirekit.methods.base"):
        out = rewirekit.rewire(data, "comfy", add=1, rounding="round")
    report = out.rewire_report
    assert report.edges_added == 0 and report.shortfall == {"add": 1}
    assert report.budget_summary() == "added 0 of 1"
    assert "added 0 of 1" in caplog.text


def test_comfy_default_stops_only_when_candidates_run_out():
    # Deletions need similarity below the pair's mean: far fewer such edges than asked.
    data = _two_communities()
    out = rewirekit.rewire(data, "comfy", delete=10)
    report = out.rewire_report
    below = report.extra["delete_allocated"]
    assert report.edges_removed == below < 10
    assert report.shortfall == {"delete": 10 - below}


def test_comfy_spends_the_paper_budget_on_cornell():
    from rewirekit.datasets import available_offline, load, standardize

    if not available_offline("cornell"):
        pytest.skip("Cornell is not in REWIREKIT_DATA")
    out = rewirekit.rewire(standardize(load("cornell")), "comfy", add=10)
    assert out.rewire_report.budget_summary() == "added 10 of 10"


# Eight-node cases; the expected sets are what the official comsim.modify_graph selects
# (benchmarks/comfy_vs_official.py prints them: docs/comfy_vs_official.txt).
EIGHT_X = torch.tensor(
    np.stack(
        [
            np.cos(np.deg2rad([0, 80, 10, 100, 42, 130, 45, 140])),
            np.sin(np.deg2rad([0, 80, 10, 100, 42, 130, 45, 140])),
        ],
        axis=1,
    ),
    dtype=torch.float,
)


def _official(edges, labels, add, delete=0):
    from rewirekit.methods.comfy_faithful import official_comfy_edits

    ei = to_undirected(torch.tensor(edges).t(), num_nodes=8)
    added, removed = official_comfy_edits(EIGHT_X, ei, np.asarray(labels), add, delete)
    return set(map(tuple, added.tolist())), set(map(tuple, removed.tolist()))


EIGHT_EDGES = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 4)]


def test_faithful_self_loops_take_slots():
    added, _ = _official(EIGHT_EDGES, [0, 0, 0, 0, 1, 1, 1, 1], add=3)
    assert added == {(3, 3), (3, 5), (6, 6)}  # the best slot of C0 and C1 is a self-loop


def test_faithful_fills_pair_slots_with_self_loops_first():
    added, _ = _official(EIGHT_EDGES, [0, 0, 0, 0, 1, 1, 1, 1], add=6)
    # C0's two slots: (3, 3) and (2, 2); C1's: (7, 7) and (6, 6); between: (3, 5), (2, 4)
    assert added == {(2, 2), (2, 4), (3, 3), (3, 5), (6, 6), (7, 7)}


def test_faithful_zero_budget_takes_the_whole_ranking_worst_first():
    # B_00 = B_01 = 0 and B_11 = 2 at N=4: the first two pairs use up the budget.
    edges = [(0, 1), (0, 4), (2, 3), (4, 5), (6, 7)]
    added, _ = _official(edges, [0, 0, 1, 1, 1, 1, 1, 1], add=4)
    assert added == {(0, 0), (1, 1), (1, 4), (1, 6)}


def test_faithful_comfy_is_a_valid_graph_with_the_official_self_loops():
    data = _two_communities()
    out = rewirekit.rewire(data, "comfy", add=3, delete=1, faithful=True)
    assert out.rewire_report.extra["self_loops_added"] >= 1
    assert is_undirected(out.edge_index)
    with pytest.raises(RewireError, match="faithful"):
        rewirekit.get_method("comfy", faithful="yes")
