import math

import pytest
import torch
from torch_geometric.nn import SAGEConv

from rewirekit.errors import RewireError
from rewirekit.models import GPRProp, WeightedSAGEConv, build_model, list_models, model_hparams
from rewirekit.models.gnn import feature_dropout
from rewirekit.models.layers import NormalizedAdjacency, SparseFeatures, SparseOperator

GRAPH_MODELS = [name for name in list_models() if name != "mlp"]


@pytest.fixture
def graph():
    gen = torch.Generator().manual_seed(0)
    num_nodes, num_features = 12, 6
    x = torch.randn(num_nodes, num_features, generator=gen)
    ring = torch.arange(num_nodes)
    edge_index = torch.stack([ring, (ring + 1) % num_nodes])
    chords = torch.tensor([[0, 3, 5, 8], [6, 9, 11, 2]])
    edge_index = torch.cat([edge_index, chords], dim=1)
    edge_index = torch.cat([edge_index, edge_index.flip(0)], dim=1)
    edge_weight = torch.rand(edge_index.size(1), generator=gen) + 0.1
    return x, edge_index, edge_weight


def test_registry():
    assert list_models() == ["gcn", "gprgnn", "mlp", "gat", "sage"]
    assert model_hparams("gprgnn") == {
        "hidden": 64,
        "dropout": 0.5,
        "K": 10,
        "alpha": 0.1,
        "dprate": 0.5,
    }


@pytest.mark.parametrize("name", list_models())
def test_output_shape_with_and_without_weights(name, graph):
    x, edge_index, edge_weight = graph
    model = build_model(name, x.size(1), 3, hidden=8)
    assert model(x, edge_index).shape == (x.size(0), 3)
    assert model(x, edge_index, edge_weight).shape == (x.size(0), 3)


@pytest.mark.parametrize("name", GRAPH_MODELS)
def test_edge_weights_change_the_output(name, graph):
    x, edge_index, edge_weight = graph
    torch.manual_seed(0)
    model = build_model(name, x.size(1), 3, hidden=8).eval()
    other = edge_weight.flip(0)  # same values, on other edges
    assert not torch.allclose(model(x, edge_index, edge_weight), model(x, edge_index, other))


def test_mlp_ignores_the_graph(graph):
    x, edge_index, edge_weight = graph
    model = build_model("mlp", x.size(1), 3).eval()
    empty = torch.empty(2, 0, dtype=torch.long)
    assert torch.equal(model(x, edge_index, edge_weight), model(x, empty))


@pytest.mark.parametrize("name", list_models())
def test_same_seed_same_model(name, graph):
    x, edge_index, edge_weight = graph
    outputs = []
    for _ in range(2):
        torch.manual_seed(7)
        model = build_model(name, x.size(1), 3, hidden=8)
        outputs.append(model(x, edge_index, edge_weight))  # training mode: dropout included
    assert torch.equal(*outputs)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
@pytest.mark.parametrize("name", list_models())
def test_sparse_features_give_the_same_output(name, graph):
    x, edge_index, edge_weight = graph
    x = x * (x > 0.8)
    model = build_model(name, x.size(1), 3, hidden=8).eval()
    dense = model(x, edge_index, edge_weight)
    sparse = model(x.to_sparse_csr(), edge_index, edge_weight)
    assert torch.allclose(dense, sparse, atol=1e-6)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_feature_dropout_on_sparse_values():
    x = torch.eye(50).to_sparse_csr()
    assert feature_dropout(x, 0.5, training=False) is x
    dropped = feature_dropout(x, 0.5, training=True).values()
    assert set(dropped.unique().tolist()) <= {0.0, 2.0}
    assert 0 < int((dropped == 0).sum()) < 50


def _dense_gcn_matrix(edge_index, edge_weight, n):
    """``D^{-1/2} (A + I) D^{-1/2}`` written out densely: ``A[i, j]`` the weight of the edge
    ``j -> i`` (rows are targets, as in message passing), ``D`` the row sums of ``A + I``.
    The graphs here have no self-loops, so ``A + I`` is what GCN's added self-loops give."""
    assert not bool((edge_index[0] == edge_index[1]).any())
    weight = torch.ones(edge_index.size(1)) if edge_weight is None else edge_weight
    a = torch.zeros(n, n).index_put_((edge_index[1], edge_index[0]), weight, accumulate=True)
    a = a + torch.eye(n)
    d = a.sum(1)
    return a / torch.sqrt(d[:, None] * d[None, :])


@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("one_way", [True, False])
def test_gcn_normalisation_matches_the_dense_formula(graph, weighted, one_way):
    x, edge_index, edge_weight = graph
    if one_way:  # a directed graph: in-degrees normalise, the matrix is not symmetric
        keep = edge_index[0] < edge_index[1]
        edge_index, edge_weight = edge_index[:, keep], edge_weight[keep]
    weight = edge_weight if weighted else None
    got = NormalizedAdjacency()(edge_index, weight, x.size(0), x.dtype).matrix.to_dense()
    want = _dense_gcn_matrix(edge_index, weight, x.size(0))
    assert torch.allclose(got, want, atol=1e-6)
    if weighted:  # the fixture's weights differ per direction: a transposed matrix would fail
        assert not torch.allclose(want, want.T)
    else:
        assert torch.allclose(got, got.T) != one_way
    gcn = build_model("gcn", x.size(1), 3, hidden=8, dropout=0.0, num_layers=1)
    layer = gcn.layers[0]
    expected = want @ (x @ layer.lin.weight.T) + layer.bias
    assert torch.allclose(gcn.eval()(x, edge_index, weight), expected, atol=1e-5)


def test_gpr_prop_matches_dense_formula(graph):
    x, edge_index, edge_weight = graph
    K, alpha = 3, 0.2
    prop = GPRProp(K, alpha)
    gamma = [alpha * (1 - alpha) ** k for k in range(K)] + [(1 - alpha) ** K]
    assert torch.allclose(prop.temp, torch.tensor(gamma))
    a_hat = _dense_gcn_matrix(edge_index, edge_weight, x.size(0))
    expected = sum(g * torch.linalg.matrix_power(a_hat, k) @ x for k, g in enumerate(gamma))
    assert torch.allclose(prop(x, edge_index, edge_weight), expected, atol=1e-5)


def test_weighted_sage_equals_pyg_sage_with_unit_weights(graph):
    x, edge_index, _ = graph
    ours, pyg = WeightedSAGEConv(x.size(1), 4), SAGEConv(x.size(1), 4, aggr="mean")
    with torch.no_grad():
        pyg.lin_l.weight.copy_(ours.lin_neighbors.weight)
        pyg.lin_l.bias.copy_(ours.lin_root.bias)
        pyg.lin_r.weight.copy_(ours.lin_root.weight)
    assert torch.allclose(ours(x, edge_index), pyg(x, edge_index), atol=1e-6)


def test_weighted_sage_is_a_weighted_mean():
    x = torch.tensor([[1.0], [3.0], [0.0]])
    edge_index = torch.tensor([[0, 1], [2, 2]])
    conv = WeightedSAGEConv(1, 1)
    with torch.no_grad():
        conv.lin_neighbors.weight.fill_(1.0)
        conv.lin_root.weight.fill_(0.0)
        conv.lin_root.bias.fill_(0.0)
    out = conv(x, edge_index, torch.tensor([1.0, 3.0]))
    assert out[2].item() == pytest.approx((1 * 1 + 3 * 3) / 4)
    assert out[0].item() == 0.0  # no in-edges


def test_weight_decay_hooks():
    gcn = build_model("gcn", 5, 2)
    assert gcn.first_layer is gcn.layers[0]
    gpr = build_model("gprgnn", 5, 2)
    assert gpr.first_layer is gpr.lin1
    assert gpr.no_weight_decay() <= dict(gpr.named_parameters()).keys()


@pytest.mark.parametrize(
    "name, hparams",
    [
        ("transformer", {}),
        ("gcn", {"K": 3}),
        ("gcn", {"hidden": 0}),
        ("sage", {"num_layers": 1.5}),
        ("mlp", {"dropout": 1.0}),
        ("gprgnn", {"K": 0}),
        ("gprgnn", {"alpha": 1.5}),
        ("gprgnn", {"dprate": -0.1}),
        ("gat", {"heads": 0}),
    ],
)
def test_bad_arguments_raise(name, hparams):
    with pytest.raises(RewireError):
        build_model(name, 5, 2, **hparams)


def test_error_message_lists_choices():
    with pytest.raises(RewireError, match="gcn, gprgnn"):
        build_model("transformer", 5, 2)
    with pytest.raises(RewireError, match=r"accepts: hidden"):
        build_model("gcn", 5, 2, alpha=math.pi)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_sparse_operator_product_and_gradient_match_dense():
    gen = torch.Generator().manual_seed(1)
    dense = torch.randn(7, 5, generator=gen) * (torch.rand(7, 5, generator=gen) > 0.5)
    operator = SparseOperator(dense.to_sparse_csr())
    assert torch.equal(operator.transposed.to_dense(), dense.T)
    h = torch.randn(5, 3, generator=gen, requires_grad=True)
    weights = torch.randn(7, 3, generator=gen)
    (operator @ h * weights).sum().backward()
    expected = h.detach().clone().requires_grad_(True)
    (dense @ expected * weights).sum().backward()
    assert torch.allclose(operator @ h, dense @ h, atol=1e-6)
    assert torch.allclose(h.grad, expected.grad, atol=1e-6)


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_sparse_operator_with_values_keeps_both_orders_consistent():
    dense = torch.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0], [0.0, 5.0, 6.0]])
    operator = SparseOperator(dense.to_sparse_csr())
    halved = operator.with_values(operator.values() / 2)
    assert torch.equal(halved.matrix.to_dense(), dense / 2)
    assert torch.equal(halved.transposed.to_dense(), dense.T / 2)
    dropped = feature_dropout(operator, 0.5, training=True)
    assert torch.equal(dropped.transposed.to_dense(), dropped.matrix.to_dense().T)
    assert feature_dropout(operator, 0.5, training=False) is operator


@pytest.mark.parametrize("name", ["gcn", "gprgnn"])
def test_parameter_gradients_on_a_directed_graph_match_a_dense_product(name, graph):
    x, edge_index, edge_weight = graph
    keep = edge_index[0] < edge_index[1]  # one direction only: the operator is not symmetric
    edge_index, edge_weight = edge_index[:, keep], edge_weight[keep]
    x = x * (x > 0.5)
    grads = []
    for features in (x, x.to_sparse_csr()):
        torch.manual_seed(0)
        model = build_model(name, x.size(1), 3, hidden=8, dropout=0.0)
        model(features, edge_index, edge_weight).square().sum().backward()
        grads.append([p.grad.clone() for p in model.parameters()])
    torch.manual_seed(0)
    reference = build_model(name, x.size(1), 3, hidden=8, dropout=0.0)
    _patch_dense_propagation(reference, _dense_gcn_matrix(edge_index, edge_weight, x.size(0)))
    reference(x, edge_index, edge_weight).square().sum().backward()
    for computed in grads:
        for got, want in zip(computed, (p.grad for p in reference.parameters()), strict=True):
            assert torch.allclose(got, want, atol=1e-5)


def _patch_dense_propagation(model, matrix):
    """Make ``model`` propagate with the dense matrix ``matrix`` (autograd's own gradient of
    a dense product is the reference)."""

    class Dense:
        def __matmul__(self, h):
            return matrix @ h

    if hasattr(model, "prop"):
        model.prop.adjacency = lambda *args: Dense()
    else:
        model.adjacency = lambda *args: Dense()


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_sparse_operators_are_built_once_per_graph_and_feature_tensor(graph):
    x, edge_index, edge_weight = graph
    adjacency = NormalizedAdjacency()
    first = adjacency(edge_index, edge_weight, x.size(0), x.dtype)
    assert adjacency(edge_index, edge_weight, x.size(0), x.dtype) is first
    reweighted = adjacency(edge_index, edge_weight * 2, x.size(0), x.dtype)
    assert reweighted is not first
    assert adjacency(edge_index, None, x.size(0), x.dtype) is not reweighted
    features, sparse_x = SparseFeatures(), (x * (x > 0.5)).to_sparse_csr()
    assert features(sparse_x) is features(sparse_x)
    assert torch.equal(features(sparse_x).matrix.to_dense(), sparse_x.to_dense())
    assert features(x) is x  # dense features pass through
