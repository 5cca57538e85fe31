"""rewirekit.testing: the conformance checks pass a method that obeys the contract and fail,
each with its reason, methods that break one rule."""

from __future__ import annotations

import numpy as np
import pytest
from torch_geometric.data import Data

from rewirekit.graph import EdgeSet, apply_edits
from rewirekit.methods import base
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.testing import CHECKS, check_rewirer, rewirer_checks
from rewirekit.validation import check_budget, check_feasible

NO_EDGES = {"edgeless": "no edge to delete"}


class _DropHubEdges(Rewirer):
    """Delete the ``delete`` edges of largest degree product (a method that obeys the contract;
    left unregistered here: each test registers its own subclass in a scratch registry)."""

    examples = (Example(params={"delete": 1}, raises_on=NO_EDGES),)

    def __init__(self, delete: int = 0) -> None:
        super().__init__()
        self.delete = check_budget("delete", delete)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, delete=self.delete)
        degree = np.bincount(np.r_[edges.src, edges.dst], minlength=edges.num_nodes)
        order = np.argsort(-(degree[edges.src] * degree[edges.dst]), kind="stable")
        empty = np.zeros(0, dtype=np.int64)
        return RewireOutput(apply_edits(edges, order[: self.delete], empty, empty))


@pytest.fixture(autouse=True)
def scratch_registry(monkeypatch):
    """Methods registered by a test vanish after it."""
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))


def _method(name: str, **attributes) -> type[Rewirer]:
    doc = {"__doc__": f"A variant of _DropHubEdges: {name}."}
    return type(name, (_DropHubEdges,), {"name": name, **doc, **attributes})


def _fails(cls: type[Rewirer], check: str, match: str) -> None:
    with pytest.raises(AssertionError, match=match):
        CHECKS[check](cls)


def test_a_method_that_obeys_the_contract_passes_every_check():
    check_rewirer(_method("drop_hub_edges"))
    names = [name for name, _ in rewirer_checks(_method("drop_hub_edges_2"))]
    assert names == list(CHECKS) and "get_params_round_trip" in names


def test_an_undeclared_rewire_error_fails():
    broken = _method("undeclared", examples=(Example(params={"delete": 1}),))
    _fails(broken, "output_obeys_contract", "raised RewireError on graph 'edgeless'")


def test_a_declared_error_must_happen():
    declared = {**NO_EDGES, "medium": "pretends to fail"}
    broken = _method("overdeclared", examples=(Example(params={"delete": 1}, raises_on=declared),))
    _fails(broken, "output_obeys_contract", "ran on graph 'medium', declared to raise")


def test_methods_must_declare_examples_that_change_a_graph():
    _fails(_method("silent", examples=()), "examples_declared", "declares no examples")
    idle = _method("idle", examples=(Example(params={"delete": 0}),))
    _fails(idle, "examples_change_the_graph", "left every suite graph unchanged")
    typo = _method("typo", examples=(Example(params={"delet": 1}),))
    _fails(typo, "examples_declared", "unknown parameters")


def test_the_identity_exemption_is_checked_not_assumed():
    fake = _method("fake_identity", examples=(), is_identity=True)

    def keep_one_fewer(self, data, edges):
        empty = np.zeros(0, dtype=np.int64)
        return RewireOutput(apply_edits(edges, np.arange(min(1, edges.num_pairs)), empty, empty))

    fake._rewire = keep_one_fewer
    _fails(fake, "examples_change_the_graph", "declares is_identity but changed graph")
    CHECKS["examples_change_the_graph"](base.method_class("none"))


def test_unseeded_randomness_fails():
    def shuffled(self, data, edges):
        empty = np.zeros(0, dtype=np.int64)
        drop = np.random.default_rng().permutation(edges.num_pairs)[: self.delete]
        return RewireOutput(apply_edits(edges, drop, empty, empty))

    _fails(_method("unseeded", _rewire=shuffled), "same_seed_same_output", "different outputs")


def test_parameters_must_round_trip():
    def init(self, delete: int = 0) -> None:
        Rewirer.__init__(self)
        self.delete = check_budget("delete", delete) + 1

    _fails(_method("shifted", __init__=init), "get_params_round_trip", "the clone's params differ")


def test_outputs_are_checked_against_the_contract():
    def directed_output(self, data, edges):
        kept = EdgeSet(edges.num_nodes, edges.src, edges.dst, None, edges.self_loops, None, True)
        return RewireOutput(kept)

    _fails(_method("one_way", _rewire=directed_output), "output_obeys_contract", "directed output")


def test_check_rewirer_lists_every_broken_rule():
    broken = _method("many_faults", examples=(Example(params={"delete": 0}),))
    with pytest.raises(AssertionError) as err:
        check_rewirer(broken)
    message = str(err.value)
    assert f"breaks 2 of {len(CHECKS)}" in message
    for rule in ("examples_change_the_graph", "usable_as_pyg_transform"):
        assert f"  {rule}: AssertionError" in message
