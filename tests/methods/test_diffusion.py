"""DIGL: the PPR top-k of PyG's GDC, made undirected."""

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.transforms import GDC
from torch_geometric.utils import is_undirected, to_undirected

import rewirekit
from rewirekit import RewireError


def _graph(n=20, m=35, seed=0):
    ei = torch.randint(0, n, (2, m), generator=torch.Generator().manual_seed(seed))
    return Data(
        x=torch.zeros(n, 1),
        edge_index=to_undirected(ei[:, ei[0] != ei[1]], num_nodes=n),
        num_nodes=n,
    )


def _ppr(data, alpha, weight=None):
    n = data.num_nodes
    a = np.zeros((n, n))
    ei = data.edge_index.numpy()
    a[ei[0], ei[1]] = 1.0 if weight is None else weight.numpy()
    d = a.sum(0)
    inv = np.divide(1.0, np.sqrt(d), out=np.zeros(n), where=d > 0)
    t = inv[:, None] * a * inv[None, :]
    return alpha * np.linalg.inv(np.eye(n) - (1 - alpha) * t)


def _weights(out):
    return {
        (u, v): w
        for (u, v), w in zip(out.edge_index.t().tolist(), out.edge_weight.tolist(), strict=True)
    }


@pytest.mark.parametrize("alpha, k", [(0.1, 4), (0.25, 7), (0.1, 64), (1.0, 4)])
def test_digl_is_the_union_of_gdc_top_k_with_ppr_weights(alpha, k):
    data = _graph()
    out = rewirekit.rewire(data, "digl", alpha=alpha, k=k)
    assert is_undirected(out.edge_index, out.edge_weight, num_nodes=data.num_nodes)
    gdc = GDC(
        self_loop_weight=None,
        normalization_in="sym",
        normalization_out=None,
        diffusion_kwargs=dict(method="ppr", alpha=alpha),
        sparsification_kwargs=dict(method="topk", k=k, dim=0),
        exact=True,
    )
    ref = gdc(Data(edge_index=data.edge_index, num_nodes=data.num_nodes))
    selected = {
        (u, v)
        for (u, v), w in zip(ref.edge_index.t().tolist(), ref.edge_attr.tolist(), strict=True)
        if w > 0
    }
    want = selected | {(v, u) for u, v in selected}
    got = _weights(out)
    assert set(got) == want
    s = _ppr(data, alpha)
    for (u, v), w in got.items():
        assert w == pytest.approx(s[u, v], rel=1e-4)


def test_each_node_keeps_its_k_largest_ppr_entries():
    data = _graph(seed=3)
    k = 5
    out = rewirekit.rewire(data, "digl", alpha=0.15, k=k)
    s = _ppr(data, 0.15)
    got = _weights(out)
    for j in range(data.num_nodes):
        top = set(np.argsort(-s[:, j], kind="stable")[:k].tolist())
        positive = {i for i in top if s[i, j] > 1e-12}
        assert all((i, j) in got for i in positive)


def test_disconnected_nodes_get_no_zero_weight_edges():
    ei = to_undirected(torch.tensor([[0, 1, 3], [1, 2, 4]]))
    data = Data(edge_index=ei, num_nodes=6)  # components {0,1,2}, {3,4}, {5}
    out = rewirekit.rewire(data, "digl", alpha=0.1, k=64)
    comp = [0, 0, 0, 1, 1, 2]
    pairs = out.edge_index.t().tolist()
    assert all(comp[u] == comp[v] for u, v in pairs)
    assert (out.edge_weight > 0).all()
    assert [5, 5] in pairs  # an isolated node keeps its PPR self-loop (weight alpha)
    assert _weights(out)[(5, 5)] == pytest.approx(0.1)


def test_digl_uses_input_weights():
    data = _graph(seed=2)
    w = torch.rand(data.edge_index.size(1), generator=torch.Generator().manual_seed(0)) + 0.5
    data.edge_index, w = to_undirected(data.edge_index, w, reduce="max")
    data.edge_weight = w
    out = rewirekit.rewire(data, "digl", alpha=0.2, k=6)
    s = _ppr(data, 0.2, w)
    for (u, v), weight in _weights(out).items():
        assert weight == pytest.approx(s[u, v], rel=1e-4)


def test_alpha_one_keeps_only_the_self_loops():
    """S = I at alpha = 1 (the JDR yaml's setting on Texas, Cornell and Actor)."""
    data = _graph()
    out = rewirekit.rewire(data, "digl", alpha=1.0, k=64)
    assert torch.equal(out.edge_index, torch.arange(data.num_nodes).repeat(2, 1))
    assert torch.equal(out.edge_weight, torch.ones(data.num_nodes, dtype=out.edge_weight.dtype))


def test_parameter_validation():
    for alpha in (0.0, 1.5):
        with pytest.raises(RewireError, match="alpha"):
            rewirekit.get_method("digl", alpha=alpha)
    with pytest.raises(RewireError, match="k must"):
        rewirekit.get_method("digl", k=0)
