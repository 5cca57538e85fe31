"""Ollivier–Ricci curvature: exact against an independent LP reference (scipy only), against
GraphRicciCurvature 0.6.1 when it is installed, and the input checks."""

from __future__ import annotations

import importlib
from pathlib import Path

import networkx as nx
import numba
import numpy as np
import pytest
import torch
from scipy.optimize import linprog
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from rewirekit.algorithms import Measures, edge_wasserstein, neighbour_measures, ollivier_ricci
from rewirekit.errors import RewireError

# --------------------------------------------------------------------------- reference


def _measure(adjacency: list[dict[int, float]], x: int, alpha: float, p: float, topk=3000):
    """μ_x written from GraphRicciCurvature's definition, one node at a time."""
    nbrs = adjacency[x]
    if not nbrs:
        return {x: 1.0}
    weights = sorted(((np.exp(-(w**p)), v) for v, w in nbrs.items()), reverse=True)[:topk]
    total = sum(w for w, _ in weights)
    if total > 1e-7:
        out = {v: (1 - alpha) * w / total for w, v in weights}
    else:
        out = {v: (1 - alpha) / len(weights) for _, v in weights}
    out[x] = alpha
    return out


def _emd_lp(mu: dict[int, float], nu: dict[int, float], dist: np.ndarray) -> float:
    """W1 by a plain LP (HiGHS) over the full transport polytope."""
    a, b = list(mu), list(nu)
    cost = dist[np.ix_(a, b)].ravel()
    m, n = len(a), len(b)
    rows = np.kron(np.eye(m), np.ones(n))
    cols = np.kron(np.ones(m), np.eye(n))
    res = linprog(
        cost,
        A_eq=np.vstack([rows, cols]),
        b_eq=np.r_[[mu[v] for v in a], [nu[v] for v in b]],
        bounds=(0, None),
        method="highs",
    )
    assert res.status == 0
    return float(res.fun)


def _reference(edges: np.ndarray, n: int, weight, alpha: float, p: float = 2.0, only=None):
    """κ of each row of ``edges`` (one direction per edge; rows ``only`` if given): APSP + an
    LP per edge."""
    w = np.ones(len(edges)) if weight is None else np.asarray(weight, dtype=float)
    adjacency: list[dict[int, float]] = [{} for _ in range(n)]
    for (u, v), length in zip(edges.tolist(), w.tolist(), strict=True):
        adjacency[u][v] = adjacency[v][u] = length
    graph = coo_matrix(
        (np.r_[w, w], (np.r_[edges[:, 0], edges[:, 1]], np.r_[edges[:, 1], edges[:, 0]])),
        shape=(n, n),
    )
    dist = shortest_path(graph.tocsr(), directed=False)
    out = []
    for u, v in (edges if only is None else edges[only]).tolist():
        if dist[u, v] < 1e-7:
            out.append(0.0)
            continue
        mu, nu = _measure(adjacency, u, alpha, p), _measure(adjacency, v, alpha, p)
        out.append(1 - _emd_lp(mu, nu, dist) / dist[u, v])
    return np.array(out)


def _random_graph(seed: int, n: int = 30, m: int = 70, weighted: bool = True):
    rng = np.random.default_rng(seed)
    g = nx.gnm_random_graph(n, m, seed=seed)
    edges = np.array(sorted(g.edges))
    weight = rng.uniform(0.2, 2.0, len(edges)) if weighted else None
    return edges, weight


def _karate() -> np.ndarray:
    return np.array(list(nx.karate_club_graph().edges))


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize(("alpha", "expected"), [(0.5, 0.111111), (0.0, 0.159722)])
def test_karate_edge_0_1(alpha, expected):
    kappa = ollivier_ricci(_karate().T, 34, alpha=alpha)
    assert kappa[0] == pytest.approx(expected, abs=1e-6)


def test_weighted_triangle():
    kappa = ollivier_ricci(np.array([[0, 1, 2], [1, 2, 0]]), 3, edge_weight=[3.0, 1.0, 1.0])
    np.testing.assert_allclose(kappa, 0.50017, atol=1e-5)


@pytest.mark.parametrize("alpha", [0.0, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_lp_reference(alpha, weighted, seed):
    edges, weight = _random_graph(seed, weighted=weighted)
    kappa = ollivier_ricci(edges.T, 30, edge_weight=weight, alpha=alpha)
    np.testing.assert_allclose(kappa, _reference(edges, 30, weight, alpha), atol=1e-9)


@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_karate_matches_lp_reference_everywhere(alpha):
    edges = _karate()
    np.testing.assert_allclose(
        ollivier_ricci(edges.T, 34, alpha=alpha), _reference(edges, 34, None, alpha), atol=1e-9
    )


def test_dense_ties_need_the_simplex():
    """A dense unweighted graph: many equal costs, degenerate plans, greedy not optimal."""
    g = nx.gnp_random_graph(24, 0.45, seed=3)
    edges = np.array(sorted(g.edges))
    for alpha in (0.0, 0.3):
        np.testing.assert_allclose(
            ollivier_ricci(edges.T, 24, alpha=alpha), _reference(edges, 24, None, alpha), atol=1e-9
        )


def test_shortcut_shorter_than_the_edge_and_heavy_weights():
    """d(x, y) may be shorter than the edge; weights >~ 4 underflow to the uniform measure."""
    edges = np.array([[0, 1], [1, 2], [0, 2], [2, 3], [3, 0], [1, 4]])
    weight = np.array([5.0, 1.0, 1.0, 4.5, 0.5, 6.0])
    np.testing.assert_allclose(
        ollivier_ricci(edges.T, 5, edge_weight=weight),
        _reference(edges, 5, weight, 0.5),
        atol=1e-9,
    )


def test_top_k_neighbours(monkeypatch):
    """A hub with more neighbours than nbr_topk keeps only the heaviest (nbr_topk lowered from
    3000 to 5 to keep the graph small)."""
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")  # not the function
    monkeypatch.setattr(module, "NBR_TOPK", 5)
    leaves = 8
    edges = np.r_[np.c_[np.zeros(leaves, dtype=np.int64), np.arange(1, leaves + 1)], [[1, 2]]]
    weight = np.r_[np.linspace(0.5, 1.5, leaves), 0.7]
    kappa = ollivier_ricci(edges.T, leaves + 1, edge_weight=weight)
    adjacency: list[dict[int, float]] = [{} for _ in range(leaves + 1)]
    for (u, v), length in zip(edges.tolist(), weight.tolist(), strict=True):
        adjacency[u][v] = adjacency[v][u] = length
    assert len(_measure(adjacency, 0, 0.5, 2.0, topk=5)) == 6
    graph = coo_matrix(
        (np.r_[weight, weight], (np.r_[edges[:, 0], edges[:, 1]], np.r_[edges[:, 1], edges[:, 0]])),
        shape=(leaves + 1,) * 2,
    )
    dist = shortest_path(graph.tocsr(), directed=False)
    expected = [
        1
        - _emd_lp(_measure(adjacency, u, 0.5, 2.0, 5), _measure(adjacency, v, 0.5, 2.0, 5), dist)
        / dist[u, v]
        for u, v in edges.tolist()
    ]
    np.testing.assert_allclose(kappa, expected, atol=1e-9)


def test_both_directions_aligned_and_self_loops():
    edges = _karate()
    both = np.r_[edges, edges[:, ::-1], [[5, 5]]].T
    kappa = ollivier_ricci(torch.from_numpy(both), 34)
    one = ollivier_ricci(edges.T, 34)
    np.testing.assert_array_equal(kappa[: len(edges)], one)
    np.testing.assert_array_equal(kappa[len(edges) : 2 * len(edges)], one)
    assert kappa[-1] == 0.0
    shuffled = np.random.default_rng(0).permutation(len(edges))
    np.testing.assert_array_equal(ollivier_ricci(edges[shuffled].T, 34), one[shuffled])


def test_empty_graph():
    assert ollivier_ricci(np.zeros((2, 0), dtype=np.int64), 3).shape == (0,)


@pytest.mark.parametrize("alpha", [0.0, 0.5])
@pytest.mark.parametrize("exp_power", [0.0, 1.0, 2.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_isolated_and_degree_one_nodes(alpha, exp_power, weighted):
    """Isolated nodes (ids with no edge), pendant nodes and a pendant path, every α and
    exp_power path, against the LP reference."""
    edges, weight = _random_graph(11, n=24, m=50, weighted=weighted)
    extra = np.array([[24, 25], [25, 26], [3, 27], [0, 28]])  # 29, 30 stay isolated
    edges = np.r_[edges, extra]
    if weighted:
        weight = np.r_[weight, [0.4, 1.7, 0.9, 1.2]]
    kappa = ollivier_ricci(edges.T, 31, edge_weight=weight, alpha=alpha, exp_power=exp_power)
    expected = _reference(edges, 31, weight, alpha, p=exp_power)
    np.testing.assert_allclose(kappa, expected, atol=1e-9)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_hubs_wider_than_one_bitset_word(alpha, weighted):
    """Two hubs of degree 150 and 90 sharing 40 neighbours, plus random edges: the hop path's
    bitsets span several 64-bit words, groups hold many edges (cached row signatures), and
    the hub is the source endpoint of some edges (the weighted path turns those around).
    The hub edges and a sample of the others against the LP reference."""
    rng = np.random.default_rng(2)
    edges, n, weight = _two_hubs(rng, weighted)
    kappa = ollivier_ricci(edges.T, n, weight, alpha=alpha)
    hub = np.flatnonzero((edges[:, 0] <= 1) | (edges[:, 1] <= 1))
    check = np.r_[hub[:: len(hub) // 12], rng.choice(len(edges), 12, replace=False)]
    expected = _reference(edges, n, weight, alpha, only=check)
    np.testing.assert_allclose(kappa[check], expected, atol=1e-9)


def _two_hubs(rng: np.random.Generator, weighted: bool) -> tuple[np.ndarray, int, np.ndarray]:
    """Hubs 0 and 1 (degrees 150 and 90, 40 neighbours shared) and 400 random edges."""
    n = 260
    spokes_a = np.c_[np.zeros(150, dtype=np.int64), np.arange(2, 152)]
    spokes_b = np.c_[np.ones(90, dtype=np.int64), np.arange(112, 202)]
    others = rng.integers(2, n, size=(400, 2))
    edges = np.r_[[[0, 1]], spokes_a, spokes_b, others[others[:, 0] != others[:, 1]]]
    edges = np.unique(np.sort(edges, axis=1), axis=0)
    weight = rng.uniform(0.5, 2.0, len(edges)) if weighted else None
    return edges, n, weight


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_pairs_get_the_whole_graphs_values(alpha, weighted):
    """``pairs`` computes a subset (in any order and orientation) with the very values the
    whole graph's computation gives them."""
    rng = np.random.default_rng(5)
    edges, n, weight = _two_hubs(rng, weighted)
    kappa = ollivier_ricci(edges.T, n, weight, alpha=alpha)
    chosen = rng.choice(len(edges), 60, replace=False)
    pairs = edges[chosen].T.copy()
    pairs[:, ::2] = pairs[::-1, ::2]
    np.testing.assert_array_equal(
        ollivier_ricci(edges.T, n, weight, alpha=alpha, pairs=pairs), kappa[chosen]
    )
    assert ollivier_ricci(edges.T, n, weight, alpha=alpha, pairs=np.zeros((2, 0), int)).size == 0


def _rows(measures: Measures, rows: np.ndarray) -> Measures:
    """The rows ``rows`` of ``measures``, in that order."""
    parts = [np.arange(measures.ptr[r], measures.ptr[r + 1]) for r in rows]
    sizes = [part.size for part in parts]
    index = np.concatenate(parts)
    return Measures(np.r_[0, np.cumsum(sizes)], measures.nodes[index], measures.mass[index])


def test_distance_table_cut_into_batches():
    """Hubs of about 380 neighbours, two joined to three: a source row's queries need more
    distances than one table holds (``_COST_TABLE``), so its group is cut into batches. The
    hub edges against the same pairs solved one by one (one row each: never cut)."""
    kernel = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    rng = np.random.default_rng(4)
    leaves, hubs = 380, 5
    edges = [[a, b] for a in range(2) for b in range(2, hubs)]
    for h in range(hubs):
        edges += [[h, hubs + h * leaves + i] for i in range(leaves)]
    edges = np.array(edges)
    n = hubs * (leaves + 1)
    weight = rng.uniform(0.5, 2.0, len(edges))
    support = 2 * leaves  # a source hub's support times the union of two target supports
    assert leaves * support > kernel._COST_TABLE
    kappa = ollivier_ricci(edges.T, n, weight)
    measures = neighbour_measures(edges.T, n, weight)
    hub_pairs = edges[:6].T
    w1, dist = edge_wasserstein(
        edges.T, n, weight, hub_pairs, _rows(measures, hub_pairs[0]), _rows(measures, hub_pairs[1])
    )
    np.testing.assert_allclose(kappa[:6], 1.0 - w1 / dist, rtol=0.0, atol=1e-12)


@pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2,  # type: ignore[attr-defined]
    reason="needs 2 numba threads",
)
@pytest.mark.parametrize("weighted", [False, True])
def test_same_values_on_one_and_two_threads(weighted):
    """Each edge (each hub group on hop costs) is solved on its own scratch, so the thread
    count and the chunk a group lands in change nothing, bit for bit."""
    rng = np.random.default_rng(3)
    n = 300
    hubs = np.c_[rng.integers(0, 4, size=500), rng.integers(4, n, size=500)]
    edges = np.unique(np.sort(np.r_[hubs, rng.integers(0, n, size=(900, 2))], axis=1), axis=0)
    edges = edges[edges[:, 0] != edges[:, 1]]
    weight = rng.uniform(0.2, 1.5, len(edges)) if weighted else None
    previous = numba.get_num_threads()
    try:
        out = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            out.append(ollivier_ricci(edges.T, n, edge_weight=weight))
    finally:
        numba.set_num_threads(previous)
    np.testing.assert_array_equal(out[0], out[1])


def test_balanced_chunks_deal_every_group_once():
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    work = np.random.default_rng(0).pareto(1.5, 1000) + 1.0
    ptr, groups = module._balanced_chunks(work, 16)
    np.testing.assert_array_equal(np.sort(groups), np.arange(work.size))
    share = np.add.reduceat(work[groups], ptr[:-1])
    assert share.max() - share.min() <= work.max()  # the longest-processing-time bound
    # Two threads each take 8 chunks: here (two groups above the mean chunk) within 3%.
    assert abs(share[:8].sum() - share[8:].sum()) <= 0.03 * work.sum()


def test_centre_queries_radii_and_lists():
    """Each node's ball radius and the queries it serves, against a plain loop."""
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    rng = np.random.default_rng(1)
    n, k = 40, 25
    reach = rng.uniform(0.1, 1.0, n)
    x, y = rng.integers(0, n, k), rng.integers(0, n, k)
    length = rng.uniform(0.1, 1.0, k)
    sizes = rng.integers(1, 5, k)
    ptr = np.r_[0, np.cumsum(sizes)]
    nodes = rng.integers(0, n, ptr[-1])
    radius, node_ptr, queries = module._centre_queries(
        n, reach, x, y, length, ptr, nodes, np.arange(k)
    )
    expected_radius = np.full(n, -1.0)
    expected = [[] for _ in range(n)]
    for q in range(k):
        far = max(reach[x[q]], reach[y[q]])
        for a in nodes[ptr[q] : ptr[q + 1]]:
            expected_radius[a] = max(expected_radius[a], min(reach[a], far) + length[q] + far)
            expected[a].append(q)
    for q in range(k):
        expected_radius[x[q]] = max(expected_radius[x[q]], length[q])
        expected[x[q]].append(q)
    np.testing.assert_array_equal(radius, expected_radius)
    for a in range(n):
        assert queries[node_ptr[a] : node_ptr[a + 1]].tolist() == expected[a]


def test_edges_shortest_first():
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    rng = np.random.default_rng(2)
    indptr = np.r_[0, np.cumsum(rng.integers(0, 6, 30))]
    lengths = rng.uniform(0.0, 1.0, indptr[-1])
    order = module._by_length(indptr, lengths)
    np.testing.assert_array_equal(np.sort(order), np.arange(lengths.size))
    for v in range(30):
        part = order[indptr[v] : indptr[v + 1]]
        assert ((part >= indptr[v]) & (part < indptr[v + 1])).all()
        assert (np.diff(lengths[part]) >= 0).all()


def test_bit_block_transpose_and_distinct_rows():
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    rng = np.random.default_rng(4)
    bits = rng.integers(0, 2, size=(64, 64)).astype(np.uint64)
    words = (bits << np.arange(64, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    module._transpose64(words)
    np.testing.assert_array_equal((words[:, None] >> np.arange(64, dtype=np.uint64)) & 1, bits.T)
    table = rng.integers(0, 3, size=(200, 3)).astype(np.uint64)
    keep, mass = module._distinct_rows(table, np.arange(200.0))
    unique, first, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
    np.testing.assert_array_equal(keep, np.sort(first))  # first occurrences, in order
    np.testing.assert_array_equal(
        mass, np.bincount(inverse.ravel(), np.arange(200.0))[np.argsort(first)]
    )


@pytest.mark.parametrize("values", [3, 40])
def test_bucket_order_is_stable_and_sorted_up_to_a_bucket(values):
    """The counting sort into 4 √cells buckets is the stable sort of the cells when fewer
    evenly spaced values than buckets fill them."""
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    cost = np.random.default_rng(5).integers(0, values, size=(9, 13)).astype(float) * 0.7
    rows, cols = module._bucket_order(cost)
    want = np.argsort(cost.ravel(), kind="stable")
    np.testing.assert_array_equal(rows.astype(np.int64) * 13 + cols, want)


def test_transport_stages_cut_the_work():
    """The profiling cut of ``_transport``: the greedy stage gives an upper bound of W1, the
    full run the exact value (as ``ollivier_ricci``), on both kernels."""
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    for weighted in (False, True):
        edges, weight = _random_graph(5, weighted=weighted)
        row, col, w, n = module._read_edges(edges.T, 30, weight)
        graph, _ = module._undirected_graph(row, col, w, n)
        m = module._neighbour_measures(graph, 0.5, 2.0)
        x, y = edges.T
        greedy, _ = module._transport(graph, x, y, m, x, m, y, 3)
        exact, dist = module._transport(graph, x, y, m, x, m, y)
        assert (greedy >= exact - 1e-12).all() and (greedy > exact + 1e-9).any()
        np.testing.assert_allclose(
            1 - exact / dist, ollivier_ricci(edges.T, 30, weight), atol=1e-12
        )


# --------------------------------------------------------------------------- the solver


@pytest.mark.parametrize("integer_costs", [False, True])
def test_transport_solver_matches_linprog(integer_costs):
    """The small dense transport problems the kernel solves (``_emd``: greedy start in bucket
    order, then the parent-pointer simplex), on random instances: real costs, and integer
    costs 1..3 whose many ties make degenerate pivots (the merged hop-cost path too)."""
    module = importlib.import_module("rewirekit.algorithms.ollivier_ricci")
    rng = np.random.default_rng(5)
    greedy_short = 0  # instances where the greedy start is not optimal: the simplex ran
    for _ in range(40):
        m, n = rng.integers(2, 13, size=2)
        if integer_costs:
            cost = rng.integers(1, 4, size=(m, n)).astype(float)
        else:
            cost = rng.uniform(0.1, 3.0, size=(m, n))
        p = rng.dirichlet(np.ones(m))
        q = rng.dirichlet(np.ones(n))
        mu, nu = dict(enumerate(p)), {m + j: w for j, w in enumerate(q)}
        ground = np.zeros((m + n, m + n))
        ground[:m, m:] = cost
        want = _emd_lp(mu, nu, ground)
        for levels in (0, 3) if integer_costs else (0,):  # 3: the hop costs' level path
            assert module._emd(p, q, cost, True, levels) == pytest.approx(want, abs=1e-10)
            bi, bj = np.empty(m + n - 1, dtype=np.int64), np.empty(m + n - 1, dtype=np.int64)
            flow = np.empty(m + n - 1)
            greedy = module._greedy_basis(cost, p, q, bi, bj, flow, levels)
            _assert_spanning_plan(bi, bj, flow, p, q)
            assert greedy == pytest.approx((flow * cost[bi, bj]).sum(), abs=1e-12)
            greedy_short += greedy > want + 1e-9
    assert greedy_short > 10


def _assert_spanning_plan(bi, bj, flow, p, q):
    """A transportation basis: ``m + n − 1`` cells spanning all rows and columns without a
    cycle, non-negative flows with row sums ``p`` and column sums ``q``."""
    m, n = p.size, q.size
    assert (flow >= 0).all()
    np.testing.assert_allclose(np.bincount(bi, flow, minlength=m), p, atol=1e-12)
    np.testing.assert_allclose(np.bincount(bj, flow, minlength=n), q, atol=1e-12)
    tree = nx.Graph()
    tree.add_nodes_from(range(m + n))
    tree.add_edges_from(zip(bi.tolist(), (m + bj).tolist(), strict=True))
    assert tree.number_of_edges() == m + n - 1 and nx.is_tree(tree)


# --------------------------------------------------------------------------- given measures


@pytest.mark.parametrize("weighted", [True, False])
def test_edge_wasserstein_with_asymmetric_measures(weighted):
    """ORC-ManL's faithful measures: μ_x uniform on N(x) minus y, μ_y uniform on N(y); with
    unit lengths the hop path's grouping by hub puts μ_x on the column side where x is the
    hub (its universe is then the union of the column supports)."""
    edges, weight = _random_graph(4, weighted=True)
    if not weighted:
        weight = np.ones(len(edges))
    n = 30
    adjacency: list[dict[int, float]] = [{} for _ in range(n)]
    for (u, v), length in zip(edges.tolist(), weight.tolist(), strict=True):
        adjacency[u][v] = adjacency[v][u] = length
    src, dst, mus, nus = [], [], [], []
    for u, v in edges.tolist():
        left = [a for a in adjacency[u] if a != v]
        if not left:
            continue
        src.append(u)
        dst.append(v)
        mus.append({a: 1 / len(left) for a in left})
        nus.append({b: 1 / len(adjacency[v]) for b in adjacency[v]})

    def ragged(ms):
        ptr = np.r_[0, np.cumsum([len(m) for m in ms])]
        nodes = np.array([a for m in ms for a in m], dtype=np.int64)
        return Measures(ptr, nodes, np.array([w for m in ms for w in m.values()]))

    w1, dist = edge_wasserstein(edges.T, n, weight, np.array([src, dst]), ragged(mus), ragged(nus))
    graph = coo_matrix(
        (np.r_[weight, weight], (np.r_[edges[:, 0], edges[:, 1]], np.r_[edges[:, 1], edges[:, 0]])),
        shape=(n, n),
    )
    apsp = shortest_path(graph.tocsr(), directed=False)
    np.testing.assert_allclose(dist, apsp[src, dst], atol=1e-12)
    expected = [_emd_lp(mu, nu, apsp) for mu, nu in zip(mus, nus, strict=True)]
    np.testing.assert_allclose(w1, expected, atol=1e-9)


def test_neighbour_measures_rows():
    m = neighbour_measures(np.array([[0, 1], [1, 2]]), 4, alpha=0.25)
    np.testing.assert_array_equal(m.ptr, [0, 2, 5, 7, 8])
    np.testing.assert_allclose(m.totals(), 1.0)
    np.testing.assert_array_equal(m.nodes[m.ptr[1] : m.ptr[2]], [0, 2, 1])
    np.testing.assert_allclose(m.mass[m.ptr[1] : m.ptr[2]], [0.375, 0.375, 0.25])
    assert m.nodes[-1] == 3 and m.mass[-1] == 1.0  # isolated node: δ_x


def _delta(v: int) -> Measures:
    return Measures(np.array([0, 1]), np.array([v]), np.array([1.0]))


def test_edge_wasserstein_rejects_bad_measures():
    path = np.array([[0, 1, 2], [1, 2, 3]])
    ones = np.ones(3)
    with pytest.raises(RewireError, match="N\\[x\\]"):
        edge_wasserstein(path, 4, ones, [[0], [1]], _delta(3), _delta(1))
    with pytest.raises(RewireError, match="equal total"):
        half = Measures(np.array([0, 1]), np.array([1]), np.array([0.5]))
        edge_wasserstein(path, 4, ones, [[0], [1]], _delta(0), half)
    with pytest.raises(RewireError, match="edge of the graph"):
        edge_wasserstein(path, 4, ones, [[0], [2]], _delta(0), _delta(2))
    with pytest.raises(RewireError, match="twice"):
        twice = Measures(np.array([0, 2]), np.array([1, 1]), np.array([0.5, 0.5]))
        edge_wasserstein(path, 4, ones, [[0], [1]], _delta(0), twice)
    with pytest.raises(RewireError, match="ptr"):
        edge_wasserstein(
            path,
            4,
            ones,
            [[0], [1]],
            Measures(np.array([0]), np.zeros(0, dtype=np.int64), np.zeros(0)),
            _delta(1),
        )
    with pytest.raises(RewireError, match="lengths"):
        edge_wasserstein(path, 4, None, [[0], [1]], _delta(0), _delta(1))


# --------------------------------------------------------------------------- input checks


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(edge_index=np.zeros((3, 2), dtype=np.int64)), "shape"),
        (dict(edge_index=np.array([[0.0], [1.0]])), "integers"),
        (dict(edge_index=np.array([[0], [9]])), "outside"),
        (dict(num_nodes=0), "num_nodes"),
        (dict(edge_weight=[1.0]), "one value per edge"),
        (dict(edge_weight=[-1.0, 1.0]), ">= 0"),
        (dict(edge_weight=[np.nan, 1.0]), "finite"),
        (dict(edge_index=np.array([[0, 1], [1, 0]]), edge_weight=[1.0, 2.0]), "different"),
        (dict(alpha=1.5), "alpha"),
        (dict(exp_power=-1.0), "exp_power"),
        (dict(method="sinkhorn"), "method"),
        (dict(pairs=[[0], [2]]), "every pair must be an edge"),
        (dict(pairs=[[1], [1]]), "every pair must be an edge"),
        (dict(pairs=[0, 1]), r"\[2, K\]"),
    ],
)
def test_bad_input(kwargs, match):
    args = dict(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=3) | kwargs
    with pytest.raises(RewireError, match=match):
        ollivier_ricci(**args)


# --------------------------------------------------------------------------- GraphRicciCurvature


def _graphricci(edges: np.ndarray, n: int, weight, alpha: float) -> np.ndarray:
    ricci = pytest.importorskip("GraphRicciCurvature.OllivierRicci")
    g = nx.Graph()
    g.add_nodes_from(range(n))
    if weight is None:
        g.add_edges_from(edges.tolist())
    else:
        g.add_weighted_edges_from(
            (u, v, w) for (u, v), w in zip(edges.tolist(), weight, strict=True)
        )
    orc = ricci.OllivierRicci(g, alpha=alpha, method="OTD", proc=1, verbose="ERROR")
    orc.compute_ricci_curvature()
    return np.array([orc.G[u][v]["ricciCurvature"] for u, v in edges.tolist()])


@pytest.mark.parametrize("alpha", [0.0, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_matches_graphricci(alpha, weighted):
    edges, weight = _random_graph(7, n=40, m=110, weighted=weighted)
    expected = _graphricci(edges, 40, weight, alpha)
    kappa = ollivier_ricci(edges.T, 40, edge_weight=weight, alpha=alpha)
    np.testing.assert_allclose(kappa, expected, atol=1e-6)


@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_karate_matches_graphricci(alpha):
    edges = _karate()
    np.testing.assert_allclose(
        ollivier_ricci(edges.T, 34, alpha=alpha), _graphricci(edges, 34, None, alpha), atol=1e-6
    )


def test_ball_radius_survives_float_rounding():
    # The 3-hop neighbourhood of edge (2448, 2548) of the circles kNN graph (n=4000, seed 42,
    # k=20, lengths = ORC-ManL's ε): a support distance summed along its path came out one ulp
    # above the ball radius, and the edge's curvature was −inf.
    case = np.load(Path(__file__).parent / "data" / "orc_ulp_case.npz")
    edge_index, weight = case["edge_index"], case["weight"]
    n = int(edge_index.max()) + 1
    kappa = ollivier_ricci(edge_index, n, weight, alpha=0.0, exp_power=0.0)
    assert np.isfinite(kappa).all()
    one_way = edge_index[0] < edge_index[1]
    rows = np.flatnonzero((edge_index[0] == case["x"]) & (edge_index[1] == case["y"]))
    only = np.flatnonzero(
        (edge_index[0][one_way] == min(case["x"], case["y"]))
        & (edge_index[1][one_way] == max(case["x"], case["y"]))
    )
    want = _reference(edge_index[:, one_way].T, n, weight[one_way], alpha=0.0, p=0.0, only=only)
    assert kappa[rows] == pytest.approx(want, abs=1e-9)
