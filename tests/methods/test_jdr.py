"""JDR: agreement with a plain numpy reference of the algorithm, the two solvers, the modes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

import rewirekit
from rewirekit import RewireError
from rewirekit.linalg import SparsePlusLowRank, blocked_select


# -- test graphs -----------------------------------------------------------------------
def weighted_graph(n: int = 40, f: int = 12, p: float = 0.3, seed: int = 0) -> Data:
    """Random graph with random positive weights (a spectrum without degeneracies)."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)) < p, k=1)
    src, dst = np.nonzero(upper)
    weight = torch.tensor(rng.random(src.size) + 0.5)
    ei, w = to_undirected(torch.tensor(np.stack([src, dst])), weight)
    x = torch.tensor(rng.standard_normal((n, f)))
    return Data(x=x, edge_index=ei, edge_weight=w, y=torch.zeros(n, dtype=torch.long))


def small_csbm(
    n: int = 300, f: int = 30, degree: float = 8, lam: float = 2.0, mu: float = 1.0, seed: int = 0
) -> Data:
    """Two-class contextual SBM: homophilous graph and weakly informative features."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 2)
    same = y[:, None] == y[None, :]
    prob = np.where(same, degree + np.sqrt(degree) * lam, degree - np.sqrt(degree) * lam) / n
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < prob, k=1))
    ei = to_undirected(torch.tensor(np.stack([src, dst])), num_nodes=n)
    u = rng.standard_normal(f) / np.sqrt(f)
    x = np.sqrt(mu / n) * (2 * y - 1)[:, None] * u + rng.standard_normal((n, f)) / np.sqrt(f)
    return Data(x=torch.tensor(x, dtype=torch.float32), edge_index=ei, y=torch.tensor(y))


def dense_adjacency(edge_index: torch.Tensor, weight: torch.Tensor | None, n: int) -> np.ndarray:
    out = np.zeros((n, n))
    w = np.ones(edge_index.size(1)) if weight is None else weight.double().numpy()
    out[edge_index[0].numpy(), edge_index[1].numpy()] = w
    return out


# -- a plain reference of the official algorithm (spec: /work/shared/specs/jdr.md) -------
def reference_jdr(
    a, x, num_iterations, rank_a, rank_x, eta_a, eta_x1, eta_x2, top_k, abs_ordering, offset
):
    """The official ``denoise_jointly`` written out with numpy, loops and all."""
    n = a.shape[0]
    x0 = x.copy()
    lam0 = np.linalg.eigvalsh(a)
    perm = np.argsort(np.abs(lam0), kind="stable") if abs_ordering else np.arange(n)
    for _ in range(num_iterations):
        lam, v = np.linalg.eigh(a)
        v, lam = v[:, perm], lam[perm]
        u, s, wt = np.linalg.svd(x, full_matrices=False)
        u_new = u.copy()
        window = v[:, n - rank_x - offset : n - offset]
        for i in range(min(rank_x, s.size)):
            overlap = u[:, i] @ window
            j = int(np.argmax(np.abs(overlap)))
            sign = np.sign(overlap[j - offset])  # the official off-by-one when offset > 0
            u_new[:, i] = (1 - eta_x1) * u[:, i] + eta_x1 * sign * window[:, j]
        v_new = v.copy()
        for i in range(n - rank_a - offset, n - offset):
            overlap = v[:, i] @ u[:, :rank_a]
            j = int(np.argmax(np.abs(overlap)))
            v_new[:, i] = (1 - eta_a) * v[:, i] + eta_a * np.sign(overlap[j]) * u[:, j]
        a = v_new @ np.diag(lam) @ v_new.T
        x = u_new @ np.diag(s) @ wt
    keep = np.zeros((n, n), dtype=bool)
    keep[np.argsort(-a, axis=0, kind="stable")[:top_k], np.arange(n)] = True
    return np.where(keep, a, 0.0), (1 - eta_x2) * x0 + eta_x2 * x


@pytest.mark.parametrize("abs_ordering, offset", [(False, 0), (True, 0), (False, 1), (True, 1)])
def test_faithful_matches_numpy_reference(abs_ordering, offset):
    data = weighted_graph()
    n = data.num_nodes
    params = dict(
        num_iterations=3,
        rank_a=8,
        rank_x=5,
        eta_a=0.3,
        eta_x1=0.4,
        eta_x2=0.5,
        top_k=6,
        abs_ordering=abs_ordering,
        offset=offset,
    )
    out = rewirekit.rewire(data, "jdr", faithful=True, solver="dense", dtype="float64", **params)
    a = dense_adjacency(data.edge_index, data.edge_weight, n)
    want_a, want_x = reference_jdr(a, data.x.numpy(), **params)
    got_a = dense_adjacency(out.edge_index, out.edge_weight, n)
    assert np.array_equal(got_a != 0, want_a != 0)
    np.testing.assert_allclose(got_a, want_a, rtol=1e-5, atol=1e-6)  # weights are float32
    np.testing.assert_allclose(out.x.numpy(), want_x, rtol=1e-9, atol=1e-9)
    assert out.rewire_report.extra["directed_output"]


@pytest.mark.parametrize(
    "solver, nodes, options",
    [
        ("truncated", 120, {}),
        # 40 nodes, 5 wanted pairs: a block of 10 and 12 passes span all of R^40, so the
        # randomized solver's Ritz pairs are exact
        ("randomized", 40, {"krylov_passes": 12}),
    ],
)
def test_truncated_solvers_agree_with_the_dense_one(solver, nodes, options):
    data = weighted_graph(n=nodes, f=20, p=8 / nodes, seed=3)
    for abs_ordering in (False, True):
        params = dict(
            num_iterations=3,
            rank_a=5,
            rank_x=4,
            eta_a=0.4,
            eta_x1=0.3,
            eta_x2=0.6,
            top_k=5,
            abs_ordering=abs_ordering,
            dtype="float64",
        )
        dense = rewirekit.rewire(data, "jdr", solver="dense", **params)
        other = rewirekit.rewire(data, "jdr", solver=solver, **options, **params)
        assert other.rewire_report.extra["solver"] == solver
        assert torch.equal(dense.edge_index, other.edge_index)
        torch.testing.assert_close(dense.edge_weight, other.edge_weight, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(dense.x, other.x, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("rank", [3, 26])  # 2·rank below and above N: update, rebuild
def test_clean_dense_replace_swaps_the_window_pairs(rank):
    """``A − VΛVᵀ + ṼΛṼᵀ`` over the window, whether the clean dense graph updates A by the
    changed pairs or rebuilds it from the unchanged and the new ones."""
    from rewirekit.methods import jdr as jdr_module

    data = weighted_graph(n=40, seed=5)
    adjacency = sp.csr_matrix(dense_adjacency(data.edge_index, data.edge_weight, 40))
    graph = jdr_module._DenseGraph(adjacency, torch.float64, jdr_module.JDR())
    lam, vectors = graph.leading(rank)
    noise = torch.from_numpy(np.random.default_rng(0).standard_normal((40, rank)))
    new = torch.linalg.qr(vectors + 0.3 * noise).Q
    expected = adjacency.toarray() - ((vectors * lam) @ vectors.T - (new * lam) @ new.T).numpy()
    graph.replace(np.arange(rank), new)
    got = graph.column_reader()(0, 40).T
    np.testing.assert_allclose(got, expected, atol=1e-12)
    np.testing.assert_array_equal(got, got.T)


def test_randomized_solver_approximates_the_truncated_one_on_csbm():
    """Fewer passes than needed to span the space: close to the exact solver, not equal,
    and closer with more passes."""
    from rewirekit.datasets import csbm

    data = csbm(num_nodes=3000, num_features=32, avg_degree=8, phi=0.5, seed=1)
    params = dict(num_iterations=3, rank_a=8, rank_x=8, top_k=8, dtype="float64")
    exact = rewirekit.rewire(data, "jdr", solver="truncated", **params)

    def gap(passes: int) -> float:
        out = rewirekit.rewire(data, "jdr", solver="randomized", krylov_passes=passes, **params)
        return float((out.x - exact.x).norm() / (exact.x - data.x.double()).norm())

    coarse, fine = gap(2), gap(16)
    assert 0 < fine < coarse < 1


def test_clean_output_is_symmetric_positive_without_self_loops():
    data = weighted_graph(n=50, seed=1)
    loops = torch.arange(5).repeat(2, 1)
    data.edge_index = torch.cat([data.edge_index, loops], dim=1)
    data.edge_weight = torch.cat([data.edge_weight, torch.full((5,), 3.0, dtype=torch.float64)])
    out = rewirekit.rewire(data, "jdr", num_iterations=4, rank_a=10, rank_x=6, eta_a=0.5, top_k=4)
    a = dense_adjacency(out.edge_index, out.edge_weight, data.num_nodes)
    assert np.array_equal(a, a.T)
    assert (out.edge_weight > 0).all()
    assert not (out.edge_index[0] == out.edge_index[1]).any()
    assert not out.rewire_report.extra["directed_output"]
    in_degree = np.bincount(out.edge_index[1].numpy(), minlength=data.num_nodes)
    assert in_degree.min() >= 4  # every node keeps its top 4 (plus those choosing it)


def test_faithful_output_is_directed_and_keeps_top_k_per_column():
    data = weighted_graph(n=30, seed=2)
    out = rewirekit.rewire(
        data, "jdr", faithful=True, num_iterations=2, rank_a=6, rank_x=3, eta_a=0.5, top_k=5
    )
    assert out.rewire_report.extra["directed_output"]
    per_column = np.bincount(out.edge_index[1].numpy(), minlength=30)
    assert (per_column == 5).all()


def test_zero_rates_and_zero_iterations_change_nothing():
    data = weighted_graph()
    same_graph = rewirekit.rewire(data, "jdr", eta_a=0.0, rank_a=5, rank_x=5)
    assert torch.equal(same_graph.edge_index, data.edge_index)
    assert torch.equal(same_graph.edge_weight, data.edge_weight.float())
    assert same_graph.rewire_report.features_changed
    for params in ({"eta_x1": 0.0}, {"eta_x2": 0.0}):
        same_x = rewirekit.rewire(data, "jdr", rank_a=5, rank_x=5, **params)
        assert torch.equal(same_x.x, data.x) and not same_x.rewire_report.features_changed
    nothing = rewirekit.rewire(data, "jdr", num_iterations=0)
    report = nothing.rewire_report
    assert report.edges_added == report.edges_removed == 0 and not report.features_changed
    before, after = report.extra["alignment_before"], report.extra["alignment_after"]
    assert before == pytest.approx(after, rel=1e-4)


def test_ranks_beyond_the_graph_are_clamped():
    data = weighted_graph(n=25)
    out = rewirekit.rewire(data, "jdr", rank_a=1000, rank_x=500, offset=1, num_iterations=2)
    assert out.rewire_report.extra["rank_a"] == out.rewire_report.extra["rank_x"] == 24
    with pytest.raises(RewireError, match="offset"):
        rewirekit.rewire(data, "jdr", offset=25)
    with pytest.raises(RewireError, match="truncated"):
        rewirekit.rewire(data, "jdr", rank_a=24, solver="truncated")


def test_alignment_increases_on_csbm():
    data = small_csbm()
    out = rewirekit.rewire(
        data,
        "jdr",
        num_iterations=10,
        rank_a=2,
        rank_x=2,
        eta_a=0.5,
        eta_x1=0.5,
        eta_x2=1.0,
        top_k=16,
    )
    extra = out.rewire_report.extra
    assert extra["alignment_after"] > extra["alignment_before"] + 0.1


def test_truncated_solver_is_deterministic_per_seed():
    data = weighted_graph(n=150, f=10, p=0.05, seed=4)
    params = dict(num_iterations=2, rank_a=4, rank_x=3, solver="truncated", top_k=5)
    first = rewirekit.rewire(data, "jdr", seed=7, **params)
    again = rewirekit.rewire(data, "jdr", seed=7, **params)
    other = rewirekit.rewire(data, "jdr", seed=8, **params)
    assert torch.equal(first.edge_index, again.edge_index)
    assert torch.equal(first.edge_weight, again.edge_weight) and torch.equal(first.x, again.x)
    assert torch.equal(first.edge_index, other.edge_index)  # start vectors do not matter
    torch.testing.assert_close(first.edge_weight, other.edge_weight, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "params",
    [
        {"rank_a": 0},
        {"eta_a": 1.5},
        {"eta_x2": -0.1},
        {"top_k": -1},
        {"num_iterations": 2.0},
        {"solver": "eig"},
        {"dtype": "float16"},
        {"abs_ordering": "yes"},
        {"eps": float("nan")},
        {"seed": -1},
        {"krylov_passes": 0},
    ],
)
def test_bad_parameters_raise(params):
    with pytest.raises(RewireError):
        rewirekit.get_method("jdr", **params)


def test_threshold_mode_keeps_entries_above_eps():
    data = weighted_graph(n=30)
    out = rewirekit.rewire(data, "jdr", top_k=0, eps=0.05, rank_a=5, rank_x=3, faithful=True)
    assert (out.edge_weight >= 0.05).all()


# -- the numerics underneath -----------------------------------------------------------
def test_sparse_plus_low_rank_adds_exactly():
    rng = np.random.default_rng(0)
    base = sp.random(60, 60, density=0.1, random_state=0)
    base = base + base.T
    matrix, expected = SparsePlusLowRank(base), base.toarray()
    for _ in range(3):
        y = rng.standard_normal((60, 4))
        core = rng.standard_normal((4, 4))
        core += core.T
        matrix.add(
            np.hstack([y, y[:, :2]]),
            np.block([[core, np.zeros((4, 2))], [np.zeros((2, 4)), np.eye(2)]]),
        )
        expected += y @ core @ y.T + y[:, :2] @ y[:, :2].T
    assert matrix.rank == 12  # repeated directions do not grow the basis
    np.testing.assert_allclose(matrix.row_reader()(0, 60), expected, atol=1e-10)
    block = matrix.row_reader(np.float32)(7, 23)
    assert block.dtype == np.float32
    np.testing.assert_allclose(block, expected[7:23], atol=1e-5)
    x = rng.standard_normal((60, 3))
    np.testing.assert_allclose(matrix.matmat(x), expected @ x, atol=1e-10)
    np.testing.assert_allclose(matrix.block_product(np.float64)(x), expected @ x, atol=1e-10)
    single = matrix.block_product(np.float32)(x)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected @ x, atol=1e-4)


def test_sparse_plus_low_rank_reads_duplicate_sparse_entries_summed():
    duplicated = sp.csr_matrix(
        (np.array([1.0, 2.0, 3.0]), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2)
    )
    assert duplicated.nnz == 3  # two stored entries at (0, 1)
    np.testing.assert_array_equal(
        SparsePlusLowRank(duplicated).row_reader()(0, 2), [[0.0, 3.0], [3.0, 0.0]]
    )


def test_blocked_select_breaks_ties_by_lowest_index():
    matrix = np.array([[1.0, 2.0, 0.0], [2.0, 2.0, 5.0], [2.0, 2.0, -1.0]])
    rows, cols, values = blocked_select(
        lambda a, b: matrix[:, a:b].T.copy(), 3, top_k=2, block_size=2
    )
    kept = sorted(zip(cols.tolist(), rows.tolist(), strict=True))
    assert kept == [(0, 1), (0, 2), (1, 0), (1, 1), (2, 1)]  # column 2 drops its 0
    rows, cols, _ = blocked_select(
        lambda a, b: matrix[:, a:b].T.copy(), 3, top_k=2, skip_diagonal=True, positive=True
    )
    assert sorted(zip(cols.tolist(), rows.tolist(), strict=True)) == [
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 2),
        (2, 1),
    ]


def test_truncated_scale_path_never_builds_n_by_n(monkeypatch):
    """CI-sized run of the scale path (cSBM, 2000 nodes): no dense solver, no N×N array in
    any eigensolve or top-k block, and the same result as the dense solver."""
    from rewirekit.datasets import csbm
    from rewirekit.methods import jdr as jdr_module

    data = csbm(num_nodes=2000, num_features=32, avg_degree=8, phi=0.5, seed=1)
    n = data.num_nodes
    params = dict(num_iterations=3, rank_a=8, rank_x=8, top_k=8, dtype="float64")
    dense = rewirekit.rewire(data, "jdr", solver="dense", **params)

    real_eigh, real_reader = np.linalg.eigh, jdr_module._TruncatedGraph.column_reader

    def small_eigh(matrix, *args, **kwargs):
        assert matrix.shape[0] < n, "an N×N eigenproblem on the truncated path"
        return real_eigh(matrix, *args, **kwargs)

    def checked_reader(self):
        read = real_reader(self)

        def blocks(start, stop):
            assert stop - start < n, "an N×N block in the final top-k"
            return read(start, stop)

        return blocks

    def no_dense(*args, **kwargs):
        raise AssertionError("the dense solver ran")

    monkeypatch.setattr(np.linalg, "eigh", small_eigh)
    monkeypatch.setattr(jdr_module._TruncatedGraph, "column_reader", checked_reader)
    monkeypatch.setattr(jdr_module._DenseGraph, "__init__", no_dense)
    monkeypatch.setattr(torch.linalg, "eigh", no_dense)
    monkeypatch.setattr("rewirekit.linalg.topk.BLOCK_BYTES", 8 * n * 100)  # 100 columns
    truncated = rewirekit.rewire(data, "jdr", solver="truncated", **params)
    assert truncated.rewire_report.extra["solver"] == "truncated"
    assert torch.equal(dense.edge_index, truncated.edge_index)
    torch.testing.assert_close(dense.edge_weight, truncated.edge_weight, rtol=1e-6, atol=1e-8)
    torch.testing.assert_close(dense.x, truncated.x, rtol=1e-6, atol=1e-8)


def test_progress_is_logged_per_iteration_and_for_the_sparsification(caplog):
    data = weighted_graph()
    with caplog.at_level("INFO", logger="rewirekit.methods.jdr"):
        out = rewirekit.rewire(data, "jdr", num_iterations=3, rank_a=5, rank_x=4, top_k=6)
    messages = [record.getMessage() for record in caplog.records]
    assert [m.split(":")[0] for m in messages] == [
        "JDR solver",
        "JDR iteration 1/3",
        "JDR iteration 2/3",
        "JDR iteration 3/3",
        "JDR sparsification (top 6 per column)",
    ]
    kept = int(messages[-1].split(": ")[1].split()[0])
    assert 0 < kept <= 40 * 6 and out.edge_index.size(1) >= kept


def test_auto_picks_dense_on_a_small_graph_and_says_why(caplog):
    data = weighted_graph()
    with caplog.at_level("INFO", logger="rewirekit.methods.jdr"):
        out = rewirekit.rewire(data, "jdr", num_iterations=2, rank_a=5, rank_x=4, top_k=6)
    extra = out.rewire_report.extra
    assert extra["solver"] == "dense" and extra["solver_reason"] == "auto: N = 40 <= 4096"
    assert caplog.records[0].getMessage() == "JDR solver: dense (auto: N = 40 <= 4096)"
    asked = rewirekit.rewire(data, "jdr", num_iterations=1, rank_a=3, rank_x=2, solver="truncated")
    assert asked.rewire_report.extra["solver_reason"] == "asked for"


def test_auto_picks_randomized_above_the_exact_solve_budget(monkeypatch, caplog):
    """With the dense cut moved below this graph's size, ``auto`` runs the exact truncated
    solver within the budget and the randomized one above it (a tiny budget stands in for a
    large graph)."""
    import rewirekit.methods.jdr as jdr

    data = weighted_graph(n=60, f=10)
    params = dict(num_iterations=2, rank_a=3, rank_x=2, top_k=4)
    monkeypatch.setattr(jdr, "DENSE_MAX_NODES", 20)
    cost = jdr.truncated_solve_cost(60, data.edge_index.size(1) // 2, 3, 2, 3)
    monkeypatch.setattr(jdr, "EXACT_SOLVE_BUDGET", cost)
    within = rewirekit.rewire(data, "jdr", **params).rewire_report.extra
    assert within["solver"] == "truncated" and "<= budget" in within["solver_reason"]
    monkeypatch.setattr(jdr, "EXACT_SOLVE_BUDGET", cost / 2)
    with caplog.at_level("INFO", logger="rewirekit.methods.jdr"):
        above = rewirekit.rewire(data, "jdr", **params)
    extra = above.rewire_report.extra
    assert extra["solver"] == "randomized" and "> budget" in extra["solver_reason"]
    assert caplog.records[0].getMessage().startswith("JDR solver: randomized (auto: estimated")
    # the same output as asking for the randomized solver by name
    named = rewirekit.rewire(data, "jdr", solver="randomized", **params)
    assert torch.equal(above.edge_index, named.edge_index)


def test_truncated_solve_cost_is_the_stated_formula():
    """(K + 1) · 25 p · (2|E| + 2 N K L_A + 2 N (2p + 1)), and the documented picks of the
    cSBM scale runs (mean degree 14, K = 10, L_A = L_X = 64)."""
    import rewirekit.methods.jdr as jdr

    assert jdr.truncated_solve_cost(100, 300, 4, 2, 3) == 3 * 100 * (600 + 1200 + 1800)
    picks = [jdr._auto_solver(n, 7 * n, 64, 10, 64)[0] for n in (20_000, 50_000, 169_343)]
    assert picks == ["truncated", "truncated", "randomized"]
