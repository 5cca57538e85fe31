"""cSBM and aligned SBM generators: seeding, graph validity, and agreement with the model."""

import math
import time
from itertools import pairwise

import pytest
import torch
from torch_geometric.utils import contains_self_loops, homophily, is_undirected

from rewirekit.datasets import CSBM_PHI_GRID, aligned_sbm, csbm
from rewirekit.errors import RewireError


def assert_simple_undirected(data):
    edge_index = data.edge_index
    assert edge_index.dtype == torch.int64
    assert is_undirected(edge_index) and not contains_self_loops(edge_index)
    keys = edge_index[0] * data.num_nodes + edge_index[1]
    assert keys.unique().numel() == keys.numel()


def expected_csbm_homophily(num_nodes: int, avg_degree: float, lam: float) -> float:
    """Expected share of same-class edges given exactly balanced classes."""
    half = num_nodes // 2
    within = half * (half - 1) // 2 + (num_nodes - half) * (num_nodes - half - 1) // 2
    c_in, c_out = avg_degree + math.sqrt(avg_degree) * lam, avg_degree - math.sqrt(avg_degree) * lam
    return within * c_in / (within * c_in + half * (num_nodes - half) * c_out)


@pytest.mark.parametrize("generator", [csbm, aligned_sbm])
def test_same_seed_same_graph_other_seed_other_graph(generator):
    kwargs = {"num_nodes": 400, "num_features": 30}
    first, again, other = (generator(**kwargs, seed=seed) for seed in (3, 3, 4))
    for key in ("x", "y", "edge_index"):
        assert torch.equal(first[key], again[key])
        assert not torch.equal(first[key], other[key])


@pytest.mark.parametrize("phi, tolerance", [(-1.0, 0.02), (0.0, 0.03), (1.0, 0.02)])
def test_csbm_homophily_and_degree_follow_the_model(phi, tolerance):
    data = csbm(num_nodes=3000, num_features=50, avg_degree=5.0, phi=phi, seed=0)
    assert_simple_undirected(data)
    assert data.phi == phi and data.name == "csbm"
    expected = expected_csbm_homophily(3000, 5.0, data.lam)
    assert abs(homophily(data.edge_index, data.y) - expected) < tolerance  # about 5 sigma
    assert data.num_edges / data.num_nodes == pytest.approx(5.0, rel=0.05)
    assert data.y.bincount().tolist() == [1500, 1500]


@pytest.mark.parametrize("phi, paper_value", [(-1.0, 0.04), (1.0, 0.96)])
def test_csbm_jdr_setting_reaches_the_paper_homophily(phi, paper_value):
    data = csbm(num_features=100, phi=phi, seed=0)  # JDR: N=5000, d=5, epsilon=3.25
    assert homophily(data.edge_index, data.y) == pytest.approx(paper_value, abs=0.01)


@pytest.mark.parametrize("phi", [0.0, 1.0])
def test_csbm_features_carry_the_signal_mu(phi):
    # The class-mean difference is 2·sqrt(mu/N)·u + noise, so N/4·|diff|² ≈ mu·|u|² + 1.
    data = csbm(num_nodes=3000, num_features=400, phi=phi, seed=1)
    diff = data.x[data.y == 1].mean(0) - data.x[data.y == 0].mean(0)
    assert data.x.dtype == torch.float32 and data.x.shape == (3000, 400)
    assert 3000 / 4 * diff.square().sum().item() == pytest.approx(data.mu + 1, rel=0.25)


def test_csbm_phi_grid():
    assert len(CSBM_PHI_GRID) == 17
    assert CSBM_PHI_GRID[0] == -1 and CSBM_PHI_GRID[8] == 0 and CSBM_PHI_GRID[-1] == 1
    assert all(b - a == 0.125 for a, b in pairwise(CSBM_PHI_GRID))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"phi": 1.5}, "phi must lie in"),
        ({"avg_degree": 1.0, "phi": 1.0}, "raise avg_degree"),
        ({"avg_degree": 0.0}, "avg_degree must be positive"),
        ({"num_nodes": 10, "avg_degree": 20.0}, "raise num_nodes"),
        ({"num_features": 0}, "num_features must be an integer"),
        ({"seed": -1}, "seed"),
    ],
)
def test_csbm_rejects_bad_parameters(kwargs, match):
    with pytest.raises(RewireError, match=match):
        csbm(**kwargs)


@pytest.mark.slow
def test_csbm_scales_linearly_to_ogbn_arxiv_size():
    start = time.perf_counter()
    data = csbm(num_nodes=169_343, num_features=128, avg_degree=14.0, phi=0.5, seed=0)
    assert time.perf_counter() - start < 20
    assert data.num_edges / data.num_nodes == pytest.approx(14.0, rel=0.02)


def test_aligned_sbm_labels_agree_with_blocks_at_the_alignment_rate():
    data = aligned_sbm(num_nodes=4000, alignment=0.8, seed=0)
    assert_simple_undirected(data)
    agreement = (data.y == data.block).float().mean().item()
    assert agreement == pytest.approx(0.8, abs=0.03)  # about 5 sigma
    aligned = aligned_sbm(num_nodes=500, alignment=1.0, seed=0)
    assert torch.equal(aligned.y, aligned.block)


def test_aligned_sbm_edges_and_features_follow_the_model():
    data = aligned_sbm(num_nodes=2000, p=0.02, q=0.005, alignment=0.9, num_features=8, seed=2)
    src, dst = data.edge_index
    intra = (data.block[src] == data.block[dst]).float().mean().item()
    assert intra == pytest.approx(0.02 * 999 / (0.02 * 999 + 0.005 * 1000), abs=0.02)
    assert data.x[data.y == 0].mean().item() == pytest.approx(-1.0, abs=0.05)
    assert data.x[data.y == 1].mean().item() == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize("num_nodes", [8, 9])
def test_probability_one_gives_the_complete_graph(num_nodes):
    data = aligned_sbm(num_nodes=num_nodes, p=1.0, q=1.0)
    assert_simple_undirected(data)
    assert data.num_edges == num_nodes * (num_nodes - 1)


def test_aligned_sbm_rejects_probabilities_outside_unit_interval():
    with pytest.raises(RewireError, match="alignment is a probability"):
        aligned_sbm(alignment=1.2)


def test_csbm_keys_round_trip_and_other_names_do_not_parse():
    from rewirekit.bench.runner import DatasetSpec
    from rewirekit.datasets import csbm_key, parse_csbm_key

    key = csbm_key(1000, 400, -0.375, 2)
    assert key == "csbm(n=1000,f=400,phi=-0.375,seed=2)"
    assert parse_csbm_key(key) == dict(num_nodes=1000, num_features=400, phi=-0.375, seed=2)
    assert parse_csbm_key("texas") is None and parse_csbm_key(key + "x") is None
    spec = DatasetSpec.from_key(csbm_key(50, 5, 0.5, 1))
    assert spec is not None and spec.key == csbm_key(50, 5, 0.5, 1)
    assert spec.load().phi == 0.5 and spec.load().num_nodes == 50
    assert DatasetSpec.from_key("mine@0123456789") is None
