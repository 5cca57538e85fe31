"""The shared conformance suite: every registered method against every rule of the contract.

Adding a method registers it, and this suite then runs it with its defaults and with the
example parameters listed in ``EXAMPLE_PARAMS`` (which must name every method).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch_geometric.transforms as T
from torch_geometric.data import Data
from torch_geometric.utils import is_undirected

import rewirekit
from rewirekit import RewireError
from rewirekit.methods import method_class

from .conftest import directed, medium, tiny

#: Parameters that make each method do real work on the small test graphs.
EXAMPLE_PARAMS: dict[str, list[dict]] = {
    "none": [{}],
    "jdr": [
        {"num_iterations": 2, "rank_a": 3, "rank_x": 2, "top_k": 3},
        {
            "num_iterations": 3,
            "rank_a": 100,
            "rank_x": 100,
            "eta_a": 0.5,
            "eta_x1": 0.3,
            "eta_x2": 0.5,
            "abs_ordering": True,
            "offset": 1,
            "top_k": 0,
            "eps": 0.05,
        },
        {
            "num_iterations": 2,
            "rank_a": 2,
            "rank_x": 2,
            "solver": "truncated",
            "top_k": 4,
            "seed": 1,
        },
        {
            "num_iterations": 2,
            "rank_a": 3,
            "rank_x": 2,
            "solver": "randomized",
            "krylov_passes": 2,
            "abs_ordering": True,
            "top_k": 4,
            "seed": 2,
        },
    ],
    "random": [
        {"add": 2, "delete": 1, "seed": 3},
        {"add": 0, "delete": 2, "seed": 0},
        {"add": 3, "delete": 0, "seed": 1},
    ],
    "comma": [
        {"mode": "higher", "add": 2, "delete": 1, "seed": 1},
        {"mode": "lower", "add": 2, "delete": 2, "seed": 0},
    ],
    "feast": [{"add": 3, "delete": 2}, {"add": 0, "delete": 1}, {"add": 2, "delete": 0}],
    "comfy": [
        {"add": 4, "delete": 3, "seed": 0},
        {"add": 6, "delete": 2, "seed": 1, "rounding": "floor"},
        {"add": 3, "delete": 3, "seed": 2, "rounding": "largest_remainder"},
    ],
    "proxy_add": [
        {"objective": "max", "add": 2},
        {"objective": "min", "add": 3, "update_period": 2},
    ],
    "proxy_delete": [
        {"objective": "max", "delete": 2},
        {"objective": "min", "delete": 3, "update_period": 2},
    ],
    "fosr": [{"add": 3, "seed": 1}, {"add": 2, "num_power_iterations": 0, "seed": 0}],
    "digl": [{"alpha": 0.1, "k": 3}, {"alpha": 0.3, "k": 64}],
    "orc_manl": [{"k": 3}, {"k": 4, "delta": 0.6, "lda": 0.1, "faithful": True}],
}

CASES = [
    (name, params)
    for name in rewirekit.list_methods()
    for params in [{}] + EXAMPLE_PARAMS.get(name, [])
]
CASE_IDS = [f"{n}-{'-'.join(f'{k}{v}' for k, v in p.items()) or 'default'}" for n, p in CASES]


def test_every_method_has_example_params():
    missing = set(rewirekit.list_methods()) - set(EXAMPLE_PARAMS)
    assert not missing, f"add example parameters for {sorted(missing)} to EXAMPLE_PARAMS"


def _run(name: str, params: dict, data: Data) -> Data | None:
    """Run a method; a clear RewireError is an acceptable answer for an impossible request."""
    try:
        return rewirekit.rewire(data, name, **params)
    except RewireError as err:
        assert str(err).strip(), "RewireError needs a message"
        return None


def _edge_pairs(ei: torch.Tensor) -> set[tuple[int, int]]:
    return set(map(tuple, ei.t().tolist()))


@pytest.mark.parametrize("name, params", CASES, ids=CASE_IDS)
def test_output_obeys_contract(name, params, graph):
    before = graph.clone()
    out = _run(name, params, graph)
    for key, value in before:  # the input is never modified
        same = torch.equal(value, graph[key]) if torch.is_tensor(value) else value == graph[key]
        assert same, f"input attribute {key} was modified"
    if out is None:
        return
    cls = method_class(name)
    assert out is not graph
    assert out.num_nodes == graph.num_nodes
    ei = out.edge_index
    assert ei.dtype == torch.int64 and ei.dim() == 2 and ei.size(0) == 2
    if ei.numel():
        assert int(ei.min()) >= 0 and int(ei.max()) < graph.num_nodes
    assert len(_edge_pairs(ei)) == ei.size(1), "duplicate edges in output"
    if is_undirected(graph.edge_index, num_nodes=graph.num_nodes):
        assert is_undirected(ei, num_nodes=out.num_nodes), "undirected input gave directed output"
    if "edge_weight" in out:
        assert out.edge_weight.shape == (ei.size(1),)
        assert torch.isfinite(out.edge_weight).all()
    assert torch.equal(out.y, graph.y), "node order or labels changed"
    report = out.rewire_report
    assert report.method == name and report.num_nodes == graph.num_nodes
    if not report.features_changed:
        assert torch.equal(out.x, graph.x)
    else:
        assert cls.__dict__.get("name") and out.x.shape[0] == graph.num_nodes
    assert report.edges_after == report.edges_before + report.edges_added - report.edges_removed
    assert report.seconds >= 0
    instance = rewirekit.get_method(name, **params)
    for budget, count in (("add", report.edges_added), ("delete", report.edges_removed)):
        if hasattr(instance, budget):
            assert count <= getattr(instance, budget), f"{budget} budget exceeded"


@pytest.mark.parametrize("name, params", CASES, ids=CASE_IDS)
def test_same_seed_same_output(name, params):
    data = medium(seed=1)
    first, second = _run(name, params, data), _run(name, params, data)
    if first is None:
        assert second is None
        return
    assert torch.equal(first.edge_index, second.edge_index)
    assert torch.equal(first.x, second.x)
    if "edge_weight" in first:
        assert torch.equal(first.edge_weight, second.edge_weight)


@pytest.mark.parametrize("name", rewirekit.list_methods())
def test_usable_as_pyg_transform(name):
    data = tiny()
    direct = rewirekit.rewire(data, name)
    composed = T.Compose([rewirekit.get_method(name)])(data)
    assert torch.equal(direct.edge_index, composed.edge_index)


BAD_INPUTS = {
    "empty": lambda: Data(x=torch.zeros(0, 4), edge_index=torch.zeros(2, 0, dtype=torch.long)),
    "nan_features": lambda: Data(
        x=torch.tensor([[0.0], [float("nan")], [1.0]]), edge_index=torch.tensor([[0, 1], [1, 0]])
    ),
    "out_of_range": lambda: Data(x=torch.zeros(3, 2), edge_index=torch.tensor([[0, 5], [5, 0]])),
    "negative_index": lambda: Data(
        x=torch.zeros(3, 2), edge_index=torch.tensor([[0, -1], [-1, 0]])
    ),
    "float_index": lambda: Data(
        x=torch.zeros(3, 2), edge_index=torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    ),
    "wrong_shape": lambda: Data(x=torch.zeros(3, 2), edge_index=torch.tensor([0, 1, 2])),
    "nan_weight": lambda: Data(
        x=torch.zeros(3, 2),
        edge_index=torch.tensor([[0, 1], [1, 0]]),
        edge_weight=torch.tensor([1.0, float("nan")]),
    ),
    "not_data": lambda: {"edge_index": torch.tensor([[0], [1]])},
}


@pytest.mark.parametrize("bad", sorted(BAD_INPUTS))
@pytest.mark.parametrize("name", rewirekit.list_methods())
def test_bad_input_raises_clear_error(name, bad):
    with pytest.raises(RewireError, match=r"\w+.*;|\w+.*\."):
        rewirekit.rewire(BAD_INPUTS[bad](), name)


@pytest.mark.parametrize("name", rewirekit.list_methods())
def test_directed_input_rule(name):
    cls = method_class(name)
    if cls.supports_directed:
        out = rewirekit.rewire(directed(), name)
        assert out.rewire_report.directed
    else:
        with pytest.raises(RewireError, match="ToUndirected"):
            rewirekit.rewire(directed(), name)


@pytest.mark.parametrize("name", rewirekit.list_methods())
def test_impossible_budgets_raise(name):
    cls = method_class(name)
    for budget in ("add", "delete"):
        if budget in cls.param_names():
            with pytest.raises(RewireError, match=budget):
                rewirekit.rewire(tiny(), name, **{budget: 10**6})
            with pytest.raises(RewireError, match=budget):
                rewirekit.get_method(name, **{budget: -1})


@pytest.mark.parametrize("name", rewirekit.list_methods())
def test_unknown_parameter_raises(name):
    with pytest.raises(RewireError, match="no parameter"):
        rewirekit.get_method(name, not_a_parameter=1)


def test_unknown_method_lists_choices():
    with pytest.raises(RewireError, match="random"):
        rewirekit.get_method("no-such-method")


def test_reports_count_pairs_not_directions():
    data = tiny()
    report = rewirekit.rewire(data, "none").rewire_report
    assert report.edges_before == data.edge_index.size(1) // 2 == report.edges_after
    assert np.isclose(report.edges_added + report.edges_removed, 0)
