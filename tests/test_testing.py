"""rewirekit.testing: the conformance checks pass a method that obeys the contract (the
README's example) and fail, each with its reason, methods that break one rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rewirekit import RewireError
from rewirekit.graph import EdgeSet, apply_edits
from rewirekit.methods import base
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.registry import Registry
from rewirekit.search_space import Choice, IntRange
from rewirekit.testing import CHECKS, check_rewirer, rewirer_checks
from rewirekit.validation import check_budget

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture
def readme(monkeypatch) -> type[Rewirer]:
    """The method of the README's "Write your own method" section, run as written there (it
    ends by passing itself to check_rewirer), registered in a scratch registry that vanishes
    after the test with every variant the test registers."""
    monkeypatch.setattr(base, "METHODS", Registry("method", base.METHODS.items()))
    section = README.read_text(encoding="utf-8").split("## Write your own method", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(code, namespace)
    return namespace["DropHubEdges"]


def _variant(parent: type[Rewirer], name: str, **attributes) -> type[Rewirer]:
    """A registered subclass of ``parent`` with ``attributes`` replaced."""
    doc = f"A variant of {parent.__name__}: {name}."
    return type(name, (parent,), {"name": name, "__doc__": doc, **attributes})


def _assert_check_fails(cls: type[Rewirer], check: str, match: str) -> None:
    with pytest.raises(AssertionError, match=match):
        CHECKS[check](cls)


def _no_edits() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


def test_the_readme_method_passes_every_check(readme):
    # the fixture ran the README block, which ends with check_rewirer(DropHubEdges)
    names = [name for name, _ in rewirer_checks(readme)]
    assert names == list(CHECKS) and "get_params_round_trip" in names


def test_an_undeclared_rewire_error_fails(readme):
    broken = _variant(readme, "undeclared", examples=(Example(params={"delete": 1}),))
    _assert_check_fails(broken, "output_obeys_contract", "raised RewireError on graph 'edgeless'")


def test_defaults_that_raise_declare_it_in_an_example_without_params(readme):
    def refuse_edgeless(self, data, edges):
        if edges.num_pairs == 0:
            raise RewireError("no edges to rewire around; add edges first.")
        return readme._rewire(self, data, edges)

    examples = (Example(params={"delete": 1}, raises_on={"edgeless": "no edge to delete"}),)
    strict = _variant(readme, "strict", _rewire=refuse_edgeless, examples=examples)
    _assert_check_fails(
        strict, "output_obeys_contract", "'strict' defaults raised RewireError on graph"
    )
    declared = (*examples, Example(params={}, raises_on={"edgeless": "nothing to rewire"}))
    CHECKS["output_obeys_contract"](_variant(strict, "declared", examples=declared))


def test_a_declared_error_must_happen(readme):
    declared = {"edgeless": "no edge to delete", "medium": "pretends to fail"}
    example = Example(params={"delete": 1}, raises_on=declared)
    _assert_check_fails(
        _variant(readme, "overdeclared", examples=(example,)),
        "output_obeys_contract",
        "ran on graph 'medium', declared to raise",
    )


def test_methods_must_declare_examples_that_change_a_graph(readme):
    _assert_check_fails(
        _variant(readme, "silent", examples=()), "examples_declared", "declares no examples"
    )
    idle = _variant(readme, "idle", examples=(Example(params={"delete": 0}),))
    _assert_check_fails(idle, "examples_change_the_graph", "left every suite graph unchanged")
    typo = _variant(readme, "typo", examples=(Example(params={"delet": 1}),))
    _assert_check_fails(typo, "examples_declared", "unknown parameters")


def test_the_identity_exemption_is_checked_not_assumed(readme):
    def drop_one(self, data, edges):
        first = np.arange(min(1, edges.num_pairs))
        return RewireOutput(apply_edits(edges, first, _no_edits(), _no_edits()))

    fake = _variant(readme, "fake_identity", examples=(), is_identity=True, _rewire=drop_one)
    _assert_check_fails(fake, "examples_change_the_graph", "declares is_identity but changed graph")
    CHECKS["examples_change_the_graph"](base.method_class("none"))


def test_unseeded_randomness_fails(readme):
    def shuffled(self, data, edges):
        drop = np.random.default_rng().permutation(edges.num_pairs)[: self.delete]
        return RewireOutput(apply_edits(edges, drop, _no_edits(), _no_edits()))

    unseeded = _variant(readme, "unseeded", _rewire=shuffled)
    _assert_check_fails(unseeded, "same_seed_same_output", "different outputs")


def test_parameters_must_round_trip(readme):
    def init(self, delete: int = 0) -> None:
        Rewirer.__init__(self)
        self.delete = check_budget("delete", delete) + 1

    shifted = _variant(readme, "shifted", __init__=init)
    _assert_check_fails(shifted, "get_params_round_trip", "the clone's params differ")


def test_outputs_are_checked_against_the_contract(readme):
    def directed_output(self, data, edges):
        kept = EdgeSet(edges.num_nodes, edges.src, edges.dst, None, edges.self_loops, None, True)
        return RewireOutput(kept)

    one_way = _variant(readme, "one_way", _rewire=directed_output)
    _assert_check_fails(one_way, "output_obeys_contract", "directed output")


def test_check_rewirer_lists_every_broken_rule(readme):
    broken = _variant(readme, "many_faults", examples=(Example(params={"delete": 0}),))
    with pytest.raises(AssertionError) as err:
        check_rewirer(broken)
    message = str(err.value)
    assert f"breaks 2 of {len(CHECKS)}" in message
    for rule in ("examples_change_the_graph", "usable_as_pyg_transform"):
        assert f"  {rule}: AssertionError" in message


def test_every_search_space_point_must_construct(readme):
    wide = _variant(readme, "wide_space", search_space={"delete": IntRange(-1, 5)})
    _assert_check_fails(wide, "search_space_constructs", r"point \{'delete': -1\}")
    typo = _variant(readme, "typo_space", search_space={"delet": Choice((1, 2))})
    _assert_check_fails(typo, "search_space_constructs", "unknown parameters")
    CHECKS["search_space_constructs"](
        _variant(readme, "fine", search_space={"delete": IntRange(0, 5)})
    )
