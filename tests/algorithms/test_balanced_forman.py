"""Balanced Forman curvature against dense re-implementations of the paper and of the official
CUDA kernel's logic (written here from the formulas, entry by entry)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch

from rewirekit import RewireError
from rewirekit.algorithms import balanced_forman
from rewirekit.algorithms.balanced_forman import (
    curvature_after_edit,
    curvature_of_pairs,
    curvature_with_each_candidate,
)


def _edge_index(graph: nx.Graph) -> np.ndarray:
    pairs = np.array(graph.edges(), dtype=np.int64).reshape(-1, 2).T
    return np.concatenate([pairs, pairs[::-1]], axis=1)


def dense_official(adjacency: np.ndarray) -> np.ndarray:
    """The CUDA kernel's arithmetic for every entry (i, j): degrees d_in[i], d_out[j];
    0 for non-edges and zero degrees; s and lambda from (A^2)_ik - A_ik and (A^2)_kj - A_kj."""
    a = adjacency.astype(np.float64)
    a2 = a @ a
    d_in, d_out = a.sum(0), a.sum(1)
    n = a.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            d_max, d_min = max(d_in[i], d_out[j]), min(d_in[i], d_out[j])
            if a[i, j] == 0 or d_max * d_min == 0:
                continue
            terms = np.concatenate([a[:, j] * (a2[i] - a[i]), a[i] * (a2[:, j] - a[:, j])])
            value = 2 / d_max + 2 / d_min - 2 + (2 / d_max + 1 / d_min) * a2[i, j]
            if terms.max() > 0:
                value += (terms > 0).sum() / (d_max * terms.max())
            out[i, j] = value
    return out


def dense_paper(adjacency: np.ndarray) -> np.ndarray:
    """Definition 1 with sets: triangles, 4-cycle sets and gamma_max."""
    nbr = [set(np.flatnonzero(row)) for row in adjacency]
    n = adjacency.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in nbr[i]:
            d_i, d_j = len(nbr[i]), len(nbr[j])
            if min(d_i, d_j) == 1:
                continue
            tri = len(nbr[i] & nbr[j])
            gammas: list[int] = []
            for a, b in ((i, j), (j, i)):
                for k in nbr[a] - nbr[b] - {b}:
                    gamma = len((nbr[k] & nbr[b]) - nbr[a] - {a})
                    if gamma > 0:
                        gammas.append(gamma)
            value = 2 / d_i + 2 / d_j - 2 + 2 * tri / max(d_i, d_j) + tri / min(d_i, d_j)
            if gammas:
                value += len(gammas) / (max(gammas) * max(d_i, d_j))
            out[i, j] = value
    return out


GRAPHS = {
    "p5": nx.path_graph(5),
    "k5": nx.complete_graph(5),
    "karate": nx.karate_club_graph(),
    "c4": nx.cycle_graph(4),
    "grid": nx.convert_node_labels_to_integers(nx.grid_2d_graph(4, 5)),
    "gnp_sparse": nx.gnp_random_graph(40, 0.08, seed=1),
    "gnp_dense": nx.gnp_random_graph(30, 0.3, seed=2),
    "barabasi": nx.barabasi_albert_graph(50, 3, seed=3),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("faithful", [False, True])
def test_equals_dense_reference(name, faithful):
    graph = GRAPHS[name]
    ei = _edge_index(graph)
    adjacency = nx.to_numpy_array(graph, nodelist=range(graph.number_of_nodes()), weight=None)
    dense = (dense_official if faithful else dense_paper)(adjacency)
    ours = balanced_forman(ei, graph.number_of_nodes(), faithful=faithful)
    np.testing.assert_allclose(ours, dense[ei[0], ei[1]], rtol=0, atol=1e-12)


def test_known_values_from_the_spec():
    p5, k5 = _edge_index(GRAPHS["p5"]), _edge_index(GRAPHS["k5"])
    assert np.allclose(balanced_forman(p5, 5), 0.0)
    official_p5 = balanced_forman(p5, 5, faithful=True)
    assert sorted(set(np.round(official_p5, 12))) == [1.0, 1.75]
    assert np.allclose(balanced_forman(k5, 5), 1.25)
    assert np.allclose(balanced_forman(k5, 5, faithful=True), 1.75)


def test_alignment_self_loops_duplicates_and_tensors():
    ei = torch.tensor([[0, 1, 1, 2, 2, 2, 0, 1], [1, 0, 2, 1, 2, 0, 2, 0]])  # loop (2, 2)
    values = balanced_forman(ei, 3)
    assert values.shape == (8,)
    assert values[4] == 0.0  # the self-loop
    assert values[0] == values[1] == values[7]  # duplicate (1, 0) and its reverse
    assert np.allclose(values[[0, 2, 5]], 2 / 2 + 2 / 2 - 2 + 2 / 2 + 1 / 2)  # triangle


def test_rejects_directed_and_bad_input():
    with pytest.raises(RewireError, match="both directions"):
        balanced_forman(np.array([[0], [1]]), 2)
    with pytest.raises(RewireError, match="outside"):
        balanced_forman(np.array([[0, 5], [5, 0]]), 3)
    with pytest.raises(RewireError, match="shape"):
        balanced_forman(np.array([0.0, 1.0]), 3)
    assert balanced_forman(np.zeros((2, 0), dtype=np.int64), 4).shape == (0,)


def _csr(graph: nx.Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(graph.number_of_nodes()))
    indptr = adjacency.indptr.astype(np.int64)
    return indptr[:-1].copy(), np.diff(indptr), adjacency.indices.astype(np.int64)


def _candidates(graph: nx.Graph, x: int, y: int) -> tuple[np.ndarray, np.ndarray]:
    """SDRF's candidates for the pair (x, y): non-edges a-b, a in N[x], b in N[y]."""
    pairs = [
        (a, b)
        for a in [*graph[x], x]
        for b in [*graph[y], y]
        if a != b and not graph.has_edge(a, b)
    ]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2).T


# A hub next to a sparse graph, and a pendant edge (degree 1: flat until an edge reaches it).
HUB = nx.compose(nx.star_graph(25), nx.gnp_random_graph(26, 0.15, seed=4))
PENDANT = nx.Graph([(0, 1), (1, 2), (2, 3), (1, 3), (3, 4), (4, 5), (2, 5)])


@pytest.mark.parametrize("name", ["karate", "gnp_dense", "barabasi", "grid", "hub", "pendant"])
@pytest.mark.parametrize("faithful", [False, True])
def test_curvature_with_each_candidate_equals_a_full_recount(name, faithful):
    """SDRF's candidate scores, counted incrementally, equal pair_curvature's full recount
    bit for bit (both modes), on edges with hubs and a pendant edge; in the paper's mode they
    also equal the dense definition on the graph with the edge added."""
    graph = {"hub": HUB, "pendant": PENDANT}.get(name) or GRAPHS[name]
    start, count, nbr = _csr(graph)
    rng = np.random.default_rng(0)
    edges = np.array(graph.edges())
    picks = rng.choice(len(edges), size=min(12, len(edges)), replace=False)
    checked = 0
    for x, y in [*edges[picks], (0, 1)] if graph.has_edge(0, 1) else edges[picks]:
        ks, ls = _candidates(graph, int(x), int(y))
        if ks.size == 0:
            continue
        fast = curvature_with_each_candidate(start, count, nbr, x, y, faithful, ks, ls)
        full = curvature_of_pairs(
            start, count, nbr, np.full(ks.size, x), np.full(ks.size, y), faithful, ks, ls
        )[0]
        assert np.array_equal(fast, full)
        checked += ks.size
        if not faithful:
            for c in rng.choice(ks.size, size=min(3, ks.size), replace=False):
                grown = graph.copy()
                grown.add_edge(int(ks[c]), int(ls[c]))
                adjacency = nx.to_numpy_array(grown, nodelist=range(grown.number_of_nodes()))
                assert fast[c] == pytest.approx(dense_paper(adjacency)[x, y], abs=1e-12)
    assert checked > 0


def _tallies(graph: nx.Graph, src: np.ndarray, dst: np.ndarray, faithful: bool) -> tuple:
    start, count, nbr = _csr(graph)
    none = np.full(src.size, -1, dtype=np.int64)
    return curvature_of_pairs(start, count, nbr, src, dst, faithful, none, none)


def _edit_and_compare(graph: nx.Graph, edits: list, faithful: bool, added: bool) -> tuple:
    """Add (or remove) each edge {a, b} of ``edits`` in turn and assert that the curvatures
    and 4-cycle tallies of the edges between N(a) and N(b), not at a or b, updated from their
    tallies, equal a full recount on the edited graph, bit for bit. Returns the number of
    pairs checked and of those whose largest 4-cycle count a removal lowered (the kernel then
    counts the pair again)."""
    checked = lowered = 0
    for a, b in edits:
        edited = graph.copy()
        edited.add_edge(a, b) if added else edited.remove_edge(a, b)
        pairs = np.array(
            [(i, j) for i in graph[a] for j in graph[b] if graph.has_edge(i, j)], dtype=np.int64
        ).reshape(-1, 2)
        pairs = pairs[~np.isin(pairs, (a, b)).any(axis=1)]
        if pairs.size == 0:
            continue
        src, dst = pairs.T.copy()
        _, *tally = _tallies(graph, src, dst, faithful)
        lists_without_edge = graph if added else edited
        after = curvature_after_edit(
            *_csr(lists_without_edge), src, dst, faithful, (a, b), added, tuple(tally)
        )
        full = _tallies(edited, src, dst, faithful)
        for ours, theirs in zip(after, full, strict=True):
            assert np.array_equal(ours, theirs)
        lowered += int(np.sum((full[2] < tally[1]) & (full[1] > 0)))
        checked += src.size
    return checked, lowered


@pytest.mark.parametrize("name", ["karate", "barabasi", "gnp_dense", "hub"])
@pytest.mark.parametrize("faithful", [False, True])
@pytest.mark.parametrize("added", [True, False], ids=["addition", "removal"])
def test_curvature_after_edit_equals_a_full_recount(name, faithful, added):
    """SDRF's updates after adding or removing {a, b} equal a full recount (both modes)."""
    graph = {"hub": HUB}.get(name) or GRAPHS[name]
    nodes = graph.number_of_nodes()
    if added:
        edits = [(a, b) for a in range(nodes) for b in range(a + 1, nodes)]
        edits = [edge for edge in edits if not graph.has_edge(*edge)]
    else:
        edits = sorted(graph.edges())
    picks = np.random.default_rng(1).choice(len(edits), size=min(12, len(edits)), replace=False)
    checked, _ = _edit_and_compare(graph, [edits[pick] for pick in picks], faithful, added)
    assert checked > 0


def test_a_removal_that_lowers_a_pairs_largest_4_cycle_count_is_counted_again():
    """Removing an edge can lower the only largest 4-cycle count of a pair next to it, which
    its tally cannot tell the next largest of: those pairs are counted again, and equal a
    full recount. (Paper mode: the official count's largest is at least the degrees, which
    such a removal leaves as they are.)"""
    karate = GRAPHS["karate"]
    checked, lowered = _edit_and_compare(karate, sorted(karate.edges()), False, False)
    assert checked > 0 and lowered > 0
