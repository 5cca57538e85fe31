"""ProxyAdd / ProxyDelete and FoSR against dense brute-force versions of their definitions."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import connected_components
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

import rewirekit
from rewirekit import RewireError
from rewirekit.algorithms import fiedler_pair
from rewirekit.graph import edge_set
from rewirekit.methods.spectral import (
    _candidate_pairs,
    _min_product_pair,
    _Neighbours,
    _pick,
    proxy_gap_change,
)


def _connected(n, extra, seed):
    """A ring plus ``extra`` random chords (connected, no isolated nodes)."""
    rng = np.random.default_rng(seed)
    ring = np.arange(n)
    chords = rng.integers(0, n, (2, extra))
    ei = np.concatenate([np.stack([ring, (ring + 1) % n]), chords[:, chords[0] != chords[1]]], 1)
    return Data(edge_index=to_undirected(torch.from_numpy(ei), num_nodes=n), num_nodes=n)


def _pairs(data):
    return {(u, v) for u, v in data.edge_index.t().tolist() if u < v}


def _added_in_order(data, name, **params):
    out = rewirekit.rewire(data, name, **params)
    return out, _pairs(out) - _pairs(data)


def _dense_fiedler(n, pairs):
    a = np.eye(n)
    for u, v in pairs:
        a[u, v] = a[v, u] = 1.0
    d = a.sum(1)
    lap = np.eye(n) - a / np.sqrt(np.outer(d, d))
    w, v = np.linalg.eigh(lap)
    return w[1], v[:, 1] / np.sqrt(d)


def _proxy(x, lam, u, v):
    return (x[u] - x[v]) ** 2 - lam * (x[u] ** 2 + x[v] ** 2)


def _oracle_proxy_add(n, pairs, add, maximize):
    pairs, chosen = set(pairs), []
    for _ in range(add):
        lam, x = _dense_fiedler(n, pairs)
        cands = [(u, v) for u, v in itertools.combinations(range(n), 2) if (u, v) not in pairs]
        scores = [
            (-_proxy(x, lam, u, v) if maximize else _proxy(x, lam, u, v), u, v) for u, v in cands
        ]
        _, u, v = min(scores)
        pairs.add((u, v))
        chosen.append((u, v))
    return chosen


def _components(n, pairs):
    pairs = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    m = sp.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    return connected_components(m, directed=False)[0]


def _oracle_proxy_delete(n, pairs, delete, maximize):
    pairs, chosen = set(pairs), []
    for _ in range(delete):
        lam, x = _dense_fiedler(n, pairs)
        ranked = sorted(
            (_proxy(x, lam, u, v) if maximize else -_proxy(x, lam, u, v), u, v) for u, v in pairs
        )
        base = _components(n, pairs)
        for _, u, v in ranked:
            if _components(n, pairs - {(u, v)}) == base:
                pairs.discard((u, v))
                chosen.append((u, v))
                break
        else:
            break
    return chosen


@pytest.mark.parametrize("lam", [0.3, 1.0, 1.7])
@pytest.mark.parametrize("maximize", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_best_non_edge_search_is_exact(lam, maximize, seed):
    rng = np.random.default_rng(seed)
    n = 30
    data = _connected(n, 40, seed)
    edges = edge_set(data)
    pairs = set(zip(edges.src.tolist(), edges.dst.tolist(), strict=True))
    # with ties: values from a small set (no zeros)
    for x in (rng.standard_normal(n), rng.choice([-0.7, -0.3, 0.2, 0.5, 0.9], n)):
        a = 1.0 - lam
        at_ends = (a >= 0) if maximize else (a <= 0)
        lo, hi = _candidate_pairs(
            x, _Neighbours(n, edges.src, edges.dst), None if at_ends else x / a
        )
        got = _pick(lo, hi, proxy_gap_change(x, lam, lo, hi), n, maximize)
        cands = [(u, v) for u, v in itertools.combinations(range(n), 2) if (u, v) not in pairs]
        want = min(cands, key=lambda p: ((-1 if maximize else 1) * _proxy(x, lam, *p), p))
        assert got == want


@pytest.mark.parametrize("seed", range(4))
def test_compiled_min_product_search_equals_the_candidate_search(seed):
    """FoSR's compiled, pruned search picks the pair of the full candidate search (every
    owner's first allowed partner in both orders), ties included, also with added edges."""
    rng = np.random.default_rng(seed)
    n = 120
    data = _connected(n, 300, seed)
    edges = edge_set(data)
    hub = np.arange(1, n - 10)  # node 0 becomes adjacent to almost everything
    nbrs = _Neighbours(
        n, np.r_[edges.src, np.zeros(hub.size, dtype=np.int64)], np.r_[edges.dst, hub]
    )
    csr = sp.csr_matrix(
        (np.ones(2 * edges.num_pairs), (np.r_[edges.src, edges.dst], np.r_[edges.dst, edges.src])),
        shape=(n, n),
    )
    head = np.full(n, -1, dtype=np.int64)
    link, other = np.zeros(2 * hub.size, dtype=np.int64), np.zeros(2 * hub.size, dtype=np.int64)
    for k, v in enumerate(hub):  # the hub's edges as added edges (linked lists)
        for slot, a, b in ((2 * k, 0, v), (2 * k + 1, v, 0)):
            other[slot], link[slot], head[a] = b, head[a], slot
    mark = np.zeros(n, dtype=bool)
    for y in (
        rng.standard_normal(n),
        rng.choice([-0.7, -0.3, 0.0, 0.2, 0.5, 0.9], n),
        rng.choice([-1.0, 1.0], n),
        np.where(np.arange(n) == 0, -5.0, 0.01),
    ):
        lo, hi = _candidate_pairs(y, nbrs, None)
        got = _min_product_pair(
            y, csr.indptr.astype(np.int64), csr.indices.astype(np.int64), head, link, other, mark
        )
        assert got == _pick(lo, hi, y[lo] * y[hi], n, False)
        assert not mark.any()


@pytest.mark.parametrize("objective", ["max", "min"])
def test_proxy_add_follows_the_definition_step_by_step(objective):
    data = _connected(24, 10, seed=4)
    out = rewirekit.rewire(data, "proxy_add", objective=objective, add=4)
    want = _oracle_proxy_add(24, _pairs(data), 4, objective == "max")
    assert _pairs(out) - _pairs(data) == set(want)
    assert len(out.rewire_report.extra["gaps"]) == 4


def test_proxy_add_max_opens_the_gap_more_than_min():
    data = _connected(40, 5, seed=1)
    gap = {}
    for objective in ("max", "min"):
        out = rewirekit.rewire(data, "proxy_add", objective=objective, add=6)
        e = edge_set(out)
        gap[objective] = fiedler_pair(40, e.src, e.dst)[0]
    assert gap["max"] > gap["min"]


def test_update_period_reuses_one_eigenpair():
    data = _connected(24, 10, seed=4)
    out = rewirekit.rewire(data, "proxy_add", add=5, update_period=2)
    assert len(out.rewire_report.extra["gaps"]) == 3
    # the first two edges are the two best non-edges under the first eigenpair
    edges = edge_set(data)
    lam, x = _dense_fiedler(24, zip(edges.src.tolist(), edges.dst.tolist(), strict=True))
    ranked = sorted(
        (-_proxy(x, lam, u, v), u, v)
        for u, v in itertools.combinations(range(24), 2)
        if (u, v) not in _pairs(data)
    )
    assert {(u, v) for _, u, v in ranked[:2]} <= _pairs(out)


@pytest.mark.parametrize("objective", ["max", "min"])
def test_proxy_delete_follows_the_definition_and_never_disconnects(objective):
    # a 12-cycle with chords (no symmetry, so no exact ties) and a pendant path 11-12-13
    pairs = [(i, (i + 1) % 12) for i in range(12)] + [(11, 12), (12, 13), (2, 7), (4, 10)]
    data = Data(edge_index=to_undirected(torch.tensor(pairs).t()), num_nodes=14)
    out = rewirekit.rewire(data, "proxy_delete", objective=objective, delete=6)
    want = _oracle_proxy_delete(14, _pairs(data), 6, objective == "max")
    assert _pairs(data) - _pairs(out) == set(want)
    assert _components(14, _pairs(out)) == 1
    report = out.rewire_report
    assert report.edges_removed == len(want)
    assert report.extra["delete_shortfall"] == 6 - len(want)


def test_proxy_delete_keeps_components_of_a_disconnected_graph():
    pairs = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (5, 6)]
    data = Data(edge_index=to_undirected(torch.tensor(pairs).t()), num_nodes=8)
    out = rewirekit.rewire(data, "proxy_delete", delete=7)
    assert _components(8, _pairs(out)) == _components(8, _pairs(data)) == 3
    assert out.rewire_report.edges_removed == 2  # one edge per triangle
    with pytest.raises(RewireError, match="delete"):
        rewirekit.rewire(data, "proxy_delete", delete=8)


def _oracle_fosr(data, add, iters, seed):
    """The official algorithm written densely: outer product, edges and diagonal masked."""
    n = data.num_nodes
    a = np.zeros((n, n))
    ei = data.edge_index.numpy()
    a[ei[0], ei[1]] = 1.0
    deg = a.sum(1)

    def step(x):
        x = x - x.dot(deg**0.5) * (deg**0.5) / deg.sum()
        y = x + a @ (x / deg**0.5) / deg**0.5
        return y / np.linalg.norm(y)

    x = 2 * np.random.default_rng(seed).random(n) - 1
    for _ in range(iters):
        x = step(x)
    chosen = []
    for _ in range(add):
        y = x / (deg + 1) ** 0.5
        prod = np.outer(y, y)
        prod[a > 0] = np.inf
        np.fill_diagonal(prod, np.inf)
        i, j = divmod(int(np.argmin(prod)), n)
        chosen.append((min(i, j), max(i, j)))
        a[i, j] = a[j, i] = 1.0
        deg[i] += 1
        deg[j] += 1
        x = step(x)
    return chosen


@pytest.mark.parametrize("seed", range(3))
def test_fosr_matches_the_dense_official_algorithm(seed):
    data = _connected(35, 15, seed=seed)
    out, added = _added_in_order(data, "fosr", add=6, num_power_iterations=5, seed=seed)
    assert added == set(_oracle_fosr(data, 6, 5, seed))


def test_fosr_adds_the_argmin_pair_first():
    data = _connected(35, 15, seed=7)
    out, added = _added_in_order(data, "fosr", add=1, num_power_iterations=3, seed=2)
    assert added == {_oracle_fosr(data, 1, 3, 2)[0]}
    assert out.rewire_report.edges_added == 1


def test_fosr_handles_isolated_nodes_and_edgeless_graphs():
    data = Data(edge_index=torch.zeros(2, 0, dtype=torch.long), num_nodes=5)
    out = rewirekit.rewire(data, "fosr", add=4, seed=0)
    assert out.rewire_report.edges_added == 4
    with pytest.raises(RewireError, match="add"):
        rewirekit.rewire(data, "fosr", add=11)


def test_parameter_validation():
    with pytest.raises(RewireError, match="objective"):
        rewirekit.get_method("proxy_add", objective="largest")
    with pytest.raises(RewireError, match="update_period"):
        rewirekit.get_method("proxy_delete", update_period=0)
    with pytest.raises(RewireError, match="num_power_iterations"):
        rewirekit.get_method("fosr", num_power_iterations=-1)
