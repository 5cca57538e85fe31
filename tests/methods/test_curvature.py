"""SDRF and BORF: each step against a brute-force reference written here."""

from __future__ import annotations

import networkx as nx
import numpy as np
import ot
import pytest
import torch
from algorithms.test_balanced_forman import dense_official  # tests/ is on sys.path (rootdir)
from torch_geometric.data import Data

import rewirekit
from rewirekit import RewireError
from rewirekit.algorithms import balanced_forman
from rewirekit.graph import edge_set
from rewirekit.methods.curvature import _Flow


def _data(graph: nx.Graph) -> Data:
    pairs = np.array(graph.edges(), dtype=np.int64).reshape(-1, 2).T
    ei = torch.from_numpy(np.concatenate([pairs, pairs[::-1]], axis=1))
    n = graph.number_of_nodes()
    return Data(x=torch.zeros(n, 1), edge_index=ei, num_nodes=n)


def _pairs(data: Data) -> set[tuple[int, int]]:
    return {(u, v) for u, v in data.edge_index.t().tolist() if u < v}


def _bfc_of(pairs: set[tuple[int, int]], n: int, faithful: bool) -> dict:
    arr = np.array(sorted(pairs)).T
    ei = np.concatenate([arr, arr[::-1]], axis=1)
    values = balanced_forman(ei, n, faithful=faithful)
    return dict(zip(map(tuple, ei.T.tolist()), values, strict=True))


GRAPH = nx.gnp_random_graph(30, 0.15, seed=4)


@pytest.mark.parametrize("faithful", [False, True])
def test_gains_equal_recomputed_curvature(faithful):
    edges = edge_set(_data(GRAPH))
    flow = _Flow(edges, room=5, faithful=faithful)
    x, y, eid = flow.most_negative()
    assert eid is not None
    ks, ls = flow.candidates(x, y)
    gains = flow.gains(x, y, eid, ks, ls)
    pairs = set(GRAPH.edges())
    before = _bfc_of(pairs, 30, faithful)[(x, y)]
    adjacency = nx.to_numpy_array(GRAPH, nodelist=range(30), weight=None)
    for k, m, gain in zip(ks, ls, gains, strict=True):
        if faithful:  # the official post-edit kernel adds the single entry A[k, l]
            plus = adjacency.copy()
            plus[k, m] = 1
            expected = dense_official(plus)[x, y] - before
        else:
            expected = _bfc_of(pairs | {(min(k, m), max(k, m))}, 30, False)[(x, y)] - before
        assert gain == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("faithful", [False, True])
def test_incremental_updates_match_a_full_recompute(faithful):
    edges = edge_set(_data(GRAPH))
    flow = _Flow(edges, room=40, faithful=faithful)
    rng = np.random.default_rng(0)
    for _ in range(20):
        x, y, _eid = flow.most_negative()
        ks, ls = flow.candidates(x, y)
        if ks.size:
            pick = rng.integers(ks.size)
            flow.add(int(ks[pick]), int(ls[pick]))
        flow.remove(int(rng.choice(np.flatnonzero(flow.graph.alive))))
    graph = flow.graph
    alive = np.flatnonzero(graph.alive)
    pairs = set(zip(graph.src[alive].tolist(), graph.dst[alive].tolist(), strict=True))
    full = _bfc_of(pairs, 30, faithful)
    for eid in alive:
        assert flow.value(int(eid)) == pytest.approx(
            full[(graph.src[eid], graph.dst[eid])], abs=1e-12
        )


def test_sdrf_first_step_on_p5():
    p5 = _data(nx.path_graph(5))
    paper = rewirekit.rewire(p5, "sdrf", max_iter=1, removal_bound=10.0)
    # every paper curvature is 0: the first pair (0, 1) wins, (0, 2) is the only candidate
    assert _pairs(paper) == {(0, 1), (1, 2), (2, 3), (3, 4), (0, 2)}
    official = rewirekit.rewire(p5, "sdrf", max_iter=1, faithful=True)
    # official values are all positive: the dense argmin is the zero entry (0, 0), whose
    # neighbours {1} give no candidate; the stale maximum 1.75 at (0, 1) is removed
    assert _pairs(official) == {(1, 2), (2, 3), (3, 4)}
    assert official.rewire_report.extra["additions"] == 0


def test_sdrf_reports_an_early_stop():
    triangles = _data(nx.disjoint_union(nx.complete_graph(3), nx.complete_graph(3)))
    out = rewirekit.rewire(triangles, "sdrf", max_iter=5, remove_edges=False)
    assert out.rewire_report.extra["additions"] == 0
    assert "no candidate" in out.rewire_report.extra["stopped_early"]
    assert _pairs(out) == _pairs(triangles)


def test_sdrf_large_tau_is_greedy_and_finite():
    data = _data(GRAPH)
    edges = edge_set(data)
    flow = _Flow(edges, room=1, faithful=False)
    x, y, eid = flow.most_negative()
    ks, ls = flow.candidates(x, y)
    gains = flow.gains(x, y, eid, ks, ls)
    best = {(int(k), int(m)) for k, m, g in zip(ks, ls, gains, strict=True) if g == gains.max()}
    out = rewirekit.rewire(data, "sdrf", max_iter=1, tau=1e12, remove_edges=False, seed=3)
    (added,) = _pairs(out) - set(GRAPH.edges())
    assert added in best


def test_sdrf_seeds_differ_and_repeat():
    data = _data(GRAPH)
    runs = [
        rewirekit.rewire(data, "sdrf", max_iter=15, tau=0.0, seed=s).edge_index for s in (0, 0, 1)
    ]
    assert torch.equal(runs[0], runs[1]) and not torch.equal(runs[0], runs[2])


@pytest.mark.parametrize(
    "params",
    [{"max_iter": -1}, {"tau": -1.0}, {"tau": float("inf")}, {"removal_bound": "x"}],
)
def test_sdrf_rejects_bad_parameters(params):
    with pytest.raises(RewireError):
        rewirekit.get_method("sdrf", **params)


# -- BORF -------------------------------------------------------------------------------------
def _uniform_but_centre(size: int) -> np.ndarray:
    """Uniform on the neighbours, 0 on the centre (last); all on a centre without any."""
    return np.r_[np.full(size - 1, 1 / (size - 1)), 0.0] if size > 1 else np.ones(1)


def _reference_curvature(graph: nx.Graph | nx.DiGraph) -> tuple[dict, dict]:
    """BORF's curvature of every edge (arc) of a networkx graph with networkx distances and
    POT, and the pair at the largest entry of each plan x cost."""
    directed = graph.is_directed()
    dist = dict(nx.all_pairs_shortest_path_length(graph))
    kappa, plans = {}, {}
    for u, v in sorted(graph.edges()):
        if not directed and u > v:
            u, v = v, u
        rows = sorted(graph.predecessors(u) if directed else graph.neighbors(u)) + [u]
        cols = sorted(graph.successors(v) if directed else graph.neighbors(v)) + [v]
        mu, nu = _uniform_but_centre(len(rows)), _uniform_but_centre(len(cols))
        cost = np.array([[dist[a][b] for b in cols] for a in rows], dtype=float)
        moved = ot.emd(mu, nu, cost) * cost
        kappa[u, v] = 1 - moved.sum()
        best = int(np.argmax(moved))
        plans[u, v] = rows[best // len(cols)], cols[best % len(cols)]
    return kappa, plans


def _reference_batch(graph: nx.Graph | nx.DiGraph, h: int, k: int) -> None:
    """One BORF batch in place on a networkx graph: the official algorithm, every edge
    recomputed, ties by (u, v)."""
    kappa, plans = _reference_curvature(graph)
    order = sorted(kappa, key=lambda e: (round(kappa[e], 12), e))
    for e in order[:h]:
        p, q = plans[e]
        if p != q and not graph.has_edge(p, q):
            graph.add_edge(p, q)
    for e in order[len(order) - k :]:
        graph.remove_edge(*e)


def test_borf_batches_equal_the_reference():
    graph = nx.gnp_random_graph(40, 0.12, seed=5)
    out = rewirekit.rewire(_data(graph), "borf", num_batches=2, batch_add=5, batch_remove=3)
    reference = graph.copy()
    for _ in range(2):
        _reference_batch(reference, 5, 3)
    assert _pairs(out) == {(min(e), max(e)) for e in reference.edges()}
    assert out.rewire_report.extra["removed_per_batch"] == [3, 3]


@pytest.mark.parametrize(
    ("seed", "batches", "add", "remove"), [(6, 2, 6, 3), (7, 3, 8, 4), (8, 4, 3, 6), (9, 3, 10, 0)]
)
def test_borf_faithful_counts_arcs_like_the_reference(seed, batches, add, remove):
    """The reference recomputes every arc in every batch; ours only the arcs an edit reaches."""
    graph = nx.gnp_random_graph(30, 0.15, seed=seed)
    out = rewirekit.rewire(
        _data(graph), "borf", num_batches=batches, batch_add=add, batch_remove=remove, faithful=True
    )
    arcs = graph.to_directed()
    for _ in range(batches):
        _reference_batch(arcs, add, remove)
    pairs = {(min(e), max(e)) for e in arcs.edges()}
    both = {p for p in pairs if arcs.has_edge(*p) and arcs.has_edge(p[1], p[0])}
    expected = {p for p in pairs if p in both or not graph.has_edge(*p)}
    assert _pairs(out) == expected
    assert out.rewire_report.extra["one_arc_pairs"] == len(pairs - both) > 0


@pytest.mark.parametrize("directed", [False, True])
def test_borf_recomputes_every_pair_an_edit_changes(directed):
    from rewirekit.methods.curvature import _reached_by_edits

    rng = np.random.default_rng(3)
    graph = nx.gnp_random_graph(40, 0.08, seed=3, directed=directed)
    before, _ = _reference_curvature(graph)
    edited = [tuple(rng.choice(40, 2, replace=False)) for _ in range(2)]
    edited += [list(graph.edges())[i] for i in rng.choice(graph.number_of_edges(), 2)]
    for a, b in edited:
        (graph.remove_edge if graph.has_edge(a, b) else graph.add_edge)(a, b)
    after, _ = _reference_curvature(graph)
    changed = {e for e in after if e not in before or abs(after[e] - before[e]) > 1e-12}
    pairs = np.array(sorted(after)).T
    keys = np.array([a * 40 + b if directed else min(a, b) * 40 + max(a, b) for a, b in edited])
    reached = _reached_by_edits(pairs[0], pairs[1], keys, 40, directed)
    assert changed and changed <= {e for e, r in zip(sorted(after), reached, strict=True) if r}
    assert not reached.all()  # the rule is local: far pairs keep their values


def test_published_parameters_run():
    from rewirekit.bench.presets import curvature_rewiring_params

    assert curvature_rewiring_params("sdrf", "Cora") == {
        "max_iter": 100,
        "tau": 163.0,
        "removal_bound": 0.95,
    }
    assert curvature_rewiring_params("borf", "texas") == {
        "num_batches": 3,
        "batch_add": 30,
        "batch_remove": 10,
    }
    rewirekit.get_method("sdrf", **curvature_rewiring_params("sdrf", "actor"))
    with pytest.raises(RewireError, match="known datasets"):
        curvature_rewiring_params("borf", "actor")
