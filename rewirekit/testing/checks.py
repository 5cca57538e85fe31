"""The conformance checks: one method class against every rule of the method contract.

In the style of scikit-learn's ``check_estimator``: :func:`check_rewirer` runs every check
of :data:`CHECKS` on a :class:`~rewirekit.methods.base.Rewirer` subclass and raises one
:class:`AssertionError` listing the rules it breaks; :func:`rewirer_checks` yields the checks
one by one, named, for a test runner to report per rule.

Each check builds the method with its defaults and with each of its declared
:attr:`~rewirekit.methods.base.Rewirer.examples`, and runs it on the suite's graphs
(:data:`~rewirekit.testing.graphs.SUITE_GRAPHS`). A :class:`~rewirekit.errors.RewireError`
fails a check unless the example declares that graph in ``raises_on`` (and then the graph
must raise); a declared example with empty ``params`` states where the defaults raise.
Every method must declare examples, and every example must change the edges,
the edge weights or the features of at least one suite graph. The single exemption is a
method that sets :attr:`~rewirekit.methods.base.Rewirer.is_identity`: it needs no examples,
and is checked instead to return every suite graph unchanged.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterator

import numpy as np
import torch
import torch_geometric.transforms as T
from torch_geometric.data import Data
from torch_geometric.transforms import BaseTransform
from torch_geometric.utils import is_undirected

from rewirekit.errors import RewireError
from rewirekit.methods.base import Example, Rewirer, get_method, method_class
from rewirekit.search_space import Choice, FloatRange, IntRange, extreme_points, sample
from rewirekit.testing.graphs import BAD_INPUTS, SUITE_GRAPHS, directed, tiny

Check = Callable[[type[Rewirer]], None]

#: The defaults of a method are exercised as this example, unless the method declares an
#: example with empty ``params`` (to state the suite graphs its defaults refuse).
DEFAULTS = Example(params={})


def _require(condition: object, message: str) -> None:
    """Raise :class:`AssertionError` with ``message`` unless ``condition`` holds (not an
    ``assert`` statement: the checks must also run under ``python -O``)."""
    if not condition:
        raise AssertionError(message)


def _examples(cls: type[Rewirer]) -> list[tuple[str, Example]]:
    """``(label, example)`` for each declared example."""
    return [(f"example {i} {ex.params}", ex) for i, ex in enumerate(cls.examples)]


def _cases(cls: type[Rewirer]) -> list[tuple[str, Example]]:
    """``(label, example)`` for the defaults and each declared example with parameters;
    the defaults are a declared example with empty ``params`` if there is one."""
    defaults = next((ex for ex in cls.examples if not ex.params), DEFAULTS)
    return [("defaults", defaults)] + [(lab, ex) for lab, ex in _examples(cls) if ex.params]


def _accepted_graphs(cls: type[Rewirer]) -> list[str]:
    """Names of the suite graphs the method must accept (the directed one only if it
    supports directed input; its refusal is :func:`check_directed_input_rule`'s)."""
    return [g for g in SUITE_GRAPHS if cls.supports_directed or g != "directed"]


def _run(cls: type[Rewirer], label: str, example: Example, graph: str) -> Data | None:
    """Run ``example`` on the suite graph ``graph``: its output, or ``None`` when it raised
    the :class:`RewireError` it declares for that graph. Any other RewireError fails."""
    data = SUITE_GRAPHS[graph]()
    reason = example.raises_on.get(graph)
    try:
        out = cls(**example.params)(data)
    except RewireError as err:
        _require(
            reason is not None,
            f"{cls.name!r} {label} raised RewireError on graph {graph!r}: {err} (if this is "
            "intended, declare it in the example's raises_on with the reason)",
        )
        _require(str(err).strip(), f"{cls.name!r} {label}: RewireError without a message")
        return None
    _require(
        reason is None, f"{cls.name!r} {label} ran on graph {graph!r}, declared to raise ({reason})"
    )
    return out


def _pairs(edge_index: torch.Tensor, directed_graph: bool) -> dict[tuple[int, int], int]:
    """Multiplicity of each edge, as ordered pairs or, if undirected, as ``(min, max)``."""
    src, dst = edge_index.tolist()
    counts: dict[tuple[int, int], int] = {}
    for u, v in zip(src, dst, strict=True):
        key = (u, v) if directed_graph or u <= v else (v, u)
        counts[key] = counts.get(key, 0) + 1
    return counts


def _weights(data: Data) -> dict[tuple[int, int], float]:
    """Weight of each ordered pair of ``data``, duplicates merged as
    :func:`~rewirekit.graph.edge_set` merges them: weights summed, unweighted ones 1."""
    pairs = [tuple(pair) for pair in data.edge_index.t().tolist()]
    if "edge_weight" not in data or data.edge_weight is None:
        return dict.fromkeys(pairs, 1.0)
    totals: dict[tuple[int, int], float] = {}
    for pair, w in zip(pairs, data.edge_weight.tolist(), strict=True):
        totals[pair] = totals.get(pair, 0.0) + w
    return totals


def _graph_changed(before: Data, after: Data) -> bool:
    """Whether the edges, their weights or the features differ (duplicates merged)."""
    return _weights(before) != _weights(after) or not torch.equal(before.x, after.x)


def _same_output(first: Data, second: Data) -> bool:
    """Bit-for-bit equality of edges, weights and features."""
    same_weights = ("edge_weight" in first) == ("edge_weight" in second) and (
        "edge_weight" not in first or torch.equal(first.edge_weight, second.edge_weight)
    )
    return (
        torch.equal(first.edge_index, second.edge_index)
        and same_weights
        and torch.equal(first.x, second.x)
    )


# -- the checks ------------------------------------------------------------------------------
def check_registration(cls: type[Rewirer]) -> None:
    """Registered under its ``name``, documented, and constructible from defaults only."""
    name = cls.__dict__.get("name")
    if not isinstance(name, str) or not name:
        raise AssertionError(f"{cls.__name__} sets no registry name of its own")
    _require(method_class(name) is cls, f"{name!r} is not registered to {cls.__name__}")
    doc = cls.__dict__.get("__doc__") or ""
    _require(doc.strip(), f"{name!r} has no docstring of its own")
    signature = inspect.signature(cls.__init__)
    for p in list(signature.parameters.values())[1:]:
        _require(
            p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY),
            f"{name!r}: the constructor takes named hyperparameters only, not *{p.name}",
        )
        _require(p.default is not p.empty, f"{name!r}: parameter {p.name!r} has no default")


def check_examples_declared(cls: type[Rewirer]) -> None:
    """Examples are declared (unless the method is the identity) and well formed."""
    examples = cls.examples
    if cls.is_identity:
        _require(not examples, f"{cls.name!r} is the identity: it has nothing to exemplify")
        return
    _require(
        examples,
        f"{cls.name!r} declares no examples: set examples = (Example(params={{...}}), ...) "
        "with parameters that make it change the suite's graphs",
    )
    for i, example in enumerate(examples):
        _require(isinstance(example, Example), f"{cls.name!r}: example {i} is not an Example")
        unknown = sorted(set(example.params) - set(cls.param_names()))
        _require(not unknown, f"{cls.name!r}: example {i} has unknown parameters {unknown}")
        graphs = set(example.raises_on)
        _require(
            graphs <= set(SUITE_GRAPHS),
            f"{cls.name!r}: example {i} raises_on names unknown graphs "
            f"{sorted(graphs - set(SUITE_GRAPHS))}; choose from {sorted(SUITE_GRAPHS)}",
        )
        _require(
            all(isinstance(r, str) and r.strip() for r in example.raises_on.values()),
            f"{cls.name!r}: example {i} must give a reason for each graph in raises_on",
        )
        _require(
            set(_accepted_graphs(cls)) - graphs,
            f"{cls.name!r}: example {i} is declared to raise on every suite graph",
        )
    _require(
        sum(not ex.params for ex in examples) <= 1,
        f"{cls.name!r}: more than one example stands for the defaults (empty params)",
    )


def check_output_obeys_contract(cls: type[Rewirer]) -> None:
    """On every suite graph, for the defaults and each example: the input is untouched and
    the output is a new, valid graph on the same nodes with a truthful report."""
    for label, example in _cases(cls):
        for graph in _accepted_graphs(cls):
            data = SUITE_GRAPHS[graph]()
            before = data.clone()
            out = _run(cls, label, example, graph)
            where = f"{cls.name!r} {label} on {graph!r}"
            for key, value in before:
                same = (
                    torch.equal(value, data[key]) if torch.is_tensor(value) else value == data[key]
                )
                _require(same, f"{where}: input attribute {key} was modified")
            if out is not None:
                _check_output(cls(**example.params), before, out, where)


def _check_output(method: Rewirer, data: Data, out: Data, where: str) -> None:
    n = data.num_nodes
    ei = out.edge_index
    _require(out is not data, f"{where}: returned its input instead of a new Data")
    _require(out.num_nodes == n, f"{where}: node count changed")
    _require(
        ei.dtype == torch.int64 and ei.dim() == 2 and ei.size(0) == 2,
        f"{where}: edge_index must be int64 of shape [2, E]",
    )
    _require(
        ei.numel() == 0 or (int(ei.min()) >= 0 and int(ei.max()) < n),
        f"{where}: edge_index out of range",
    )
    _require(len(_pairs(ei, True)) == ei.size(1), f"{where}: duplicate edges in the output")
    if is_undirected(data.edge_index, num_nodes=n):
        _require(is_undirected(ei, num_nodes=n), f"{where}: undirected input, directed output")
    if "edge_weight" in out:
        w = out.edge_weight
        _require(w.shape == (ei.size(1),), f"{where}: edge_weight needs one value per edge")
        _require(bool(torch.isfinite(w).all()), f"{where}: edge_weight is not finite")
    _require(torch.equal(out.y, data.y), f"{where}: node order or labels changed")
    report = out.rewire_report
    _require(report.method == method.name, f"{where}: the report names another method")
    _require(report.params == method.get_params(), f"{where}: the report's params differ")
    _require(report.num_nodes == n and report.seconds >= 0, f"{where}: report header wrong")
    if report.features_changed:
        _require(out.x.shape[0] == n, f"{where}: new features need one row per node")
        _require(bool(torch.isfinite(out.x).all()), f"{where}: new features are not finite")
    else:
        _require(torch.equal(out.x, data.x), f"{where}: features changed, report says not")
    old, new = set(_pairs(data.edge_index, report.directed)), set(_pairs(ei, report.directed))
    counts = (len(old), len(new), len(new - old), len(old - new))
    reported = (report.edges_before, report.edges_after, report.edges_added, report.edges_removed)
    _require(
        counts == reported,
        f"{where}: report says (before, after, added, removed) = {reported}, edges say {counts}",
    )
    for budget, count in (("add", report.edges_added), ("delete", report.edges_removed)):
        limit = getattr(method, budget, None)
        if isinstance(limit, int):
            _require(count <= limit, f"{where}: {count} edits exceed the {budget} budget {limit}")


def check_examples_change_the_graph(cls: type[Rewirer]) -> None:
    """Each example changes edges, weights or features of at least one suite graph; the
    identity instead leaves every suite graph unchanged."""
    if cls.is_identity:
        for graph in _accepted_graphs(cls):
            out = _run(cls, "defaults", DEFAULTS, graph)
            _require(
                out is not None and not _graph_changed(SUITE_GRAPHS[graph](), out),
                f"{cls.name!r} declares is_identity but changed graph {graph!r}",
            )
        return
    for label, example in _examples(cls):
        changed = False
        for graph in _accepted_graphs(cls):
            out = _run(cls, label, example, graph)
            if out is not None and _graph_changed(SUITE_GRAPHS[graph](), out):
                changed = True
                break
        _require(changed, f"{cls.name!r} {label} left every suite graph unchanged")


def _first_run(cls: type[Rewirer], label: str, example: Example) -> tuple[str, Data]:
    """The first suite graph the example runs on (``medium`` first), with its output."""
    for graph in ["medium"] + [g for g in _accepted_graphs(cls) if g != "medium"]:
        out = _run(cls, label, example, graph)
        if out is not None:
            return graph, out
    raise AssertionError(f"{cls.name!r} {label} runs on no suite graph")


def check_same_seed_same_output(cls: type[Rewirer]) -> None:
    """Same input and parameters, same output bit for bit: from a fresh instance and when
    one instance is called twice (no state kept between calls)."""
    for label, example in _cases(cls):
        graph, first = _first_run(cls, label, example)
        method = cls(**example.params)
        data = SUITE_GRAPHS[graph]()
        for again in (cls(**example.params)(data), method(data), method(data)):
            _require(
                _same_output(first, again),
                f"{cls.name!r} {label}: two runs on {graph!r} gave different outputs",
            )


def check_get_params_round_trip(cls: type[Rewirer]) -> None:
    """``get_params`` returns the constructor's parameters as given, and
    ``cls(**m.get_params())`` has equal parameters and gives the same output."""
    for label, example in _cases(cls):
        method = cls(**example.params)
        params = method.get_params()
        _require(
            list(params) == cls.param_names(),
            f"{cls.name!r} {label}: get_params keys {list(params)} != {cls.param_names()}",
        )
        for key, value in example.params.items():
            _require(
                params[key] == value,
                f"{cls.name!r} {label}: {key}={value!r} is stored as {params[key]!r}",
            )
        clone = cls(**params)
        _require(clone.get_params() == params, f"{cls.name!r} {label}: the clone's params differ")
        graph, out = _first_run(cls, label, example)
        _require(
            _same_output(out, clone(SUITE_GRAPHS[graph]())),
            f"{cls.name!r} {label}: cls(**get_params()) gives another output on {graph!r}",
        )


def check_usable_as_pyg_transform(cls: type[Rewirer]) -> None:
    """A ``torch_geometric`` transform: inside ``T.Compose`` it gives what a direct call
    gives, shown on an example that changes the graph (the identity: its defaults)."""
    _require(issubclass(cls, BaseTransform), f"{cls.__name__} is not a BaseTransform")
    cases = [("defaults", DEFAULTS)] if cls.is_identity else _examples(cls)
    for label, example in cases:
        for graph in _accepted_graphs(cls):
            direct = _run(cls, label, example, graph)
            data = SUITE_GRAPHS[graph]()
            if direct is None or (not cls.is_identity and not _graph_changed(data, direct)):
                continue
            composed = T.Compose([cls(**example.params)])(data)
            _require(
                _same_output(direct, composed),
                f"{cls.name!r} {label}: T.Compose output on {graph!r} differs from a direct call",
            )
            return
    raise AssertionError(f"{cls.name!r}: no example changes a suite graph to compose with")


_CLEAR_MESSAGE = re.compile(r"\w+.*[;.]")


def check_bad_input_raises_clear_error(cls: type[Rewirer]) -> None:
    """Every invalid input of :data:`~rewirekit.testing.graphs.BAD_INPUTS` raises a
    RewireError whose message says what to do; methods that need features refuse a graph
    without ``x`` in the same way (others may run on it or refuse it so)."""
    for bad, build in BAD_INPUTS.items():
        try:
            cls()(build())
        except RewireError as err:
            _require(_CLEAR_MESSAGE.search(str(err)), f"{cls.name!r} on {bad}: unclear {err}")
        else:
            raise AssertionError(f"{cls.name!r} accepted the invalid input {bad!r}")
    bare = tiny()
    bare.num_nodes = bare.x.size(0)
    del bare.x
    try:
        cls()(bare)
    except RewireError as err:
        _require(_CLEAR_MESSAGE.search(str(err)), f"{cls.name!r} without x: unclear {err}")
    else:
        _require(not cls.needs_features, f"{cls.name!r} needs features but ran without them")


def check_directed_input_rule(cls: type[Rewirer]) -> None:
    """Directed input: kept directed by methods that support it; refused with the advice to
    apply ``ToUndirected`` by the others, and that advice works."""
    if cls.supports_directed:
        out = cls()(directed())
        _require(out.rewire_report.directed, f"{cls.name!r}: directed input not reported")
        return
    try:
        cls()(directed())
    except RewireError as err:
        _require("ToUndirected" in str(err), f"{cls.name!r}: no ToUndirected advice in {err}")
    else:
        raise AssertionError(f"{cls.name!r} is undirected-only but accepted directed input")
    out = T.Compose([T.ToUndirected(), cls()])(directed())
    _require(not out.rewire_report.directed, f"{cls.name!r}: ToUndirected advice did not work")


def check_impossible_budgets_raise(cls: type[Rewirer]) -> None:
    """``add``/``delete`` budgets that are negative or larger than possible raise a
    RewireError naming the budget; a negative ``seed`` is refused."""
    for budget in ("add", "delete"):
        if budget not in cls.param_names():
            continue
        for value, build in ((10**6, tiny), (-1, None)):
            try:
                method = cls(**{budget: value})
                if build is not None:
                    method(build())
            except RewireError as err:
                _require(budget in str(err), f"{cls.name!r}: {budget}={value} error {err}")
            else:
                raise AssertionError(f"{cls.name!r} accepted the budget {budget}={value}")
    if "seed" in cls.param_names():
        try:
            cls(seed=-1)
        except RewireError:
            pass
        else:
            raise AssertionError(f"{cls.name!r} accepted seed=-1")


#: Random draws from a method's search space that :func:`check_search_space_constructs` builds,
#: besides the points that visit every bound and choice.
SEARCH_SPACE_DRAWS = 16


def check_search_space_constructs(cls: type[Rewirer]) -> None:
    """The search space names constructor parameters only, and the method can be built from
    every bound, every choice and :data:`SEARCH_SPACE_DRAWS` seeded random draws of it."""
    space = cls.search_space
    unknown = sorted(set(space) - set(cls.param_names()))
    _require(not unknown, f"{cls.name!r}: search_space names unknown parameters {unknown}")
    for name, dim in space.items():
        _require(
            isinstance(dim, (IntRange, FloatRange, Choice)),
            f"{cls.name!r}: search_space[{name!r}] is {dim!r}, not an IntRange, FloatRange "
            "or Choice",
        )
    rng = np.random.default_rng(0)
    points = extreme_points(space) + [sample(space, rng) for _ in range(SEARCH_SPACE_DRAWS)]
    for params in points if space else []:
        try:
            cls(**params)
        except RewireError as err:
            raise AssertionError(
                f"{cls.name!r}: the search-space point {params} does not construct: {err}"
            ) from err


def check_unknown_parameter_raises(cls: type[Rewirer]) -> None:
    """The registry refuses parameters the method does not have, listing those it has."""
    try:
        get_method(cls.name, not_a_parameter=1)
    except RewireError as err:
        _require("no parameter" in str(err), f"{cls.name!r}: unclear error {err}")
    else:
        raise AssertionError(f"{cls.name!r} accepted an unknown parameter")


#: Every rule, by name, in the order :func:`check_rewirer` runs them.
CHECKS: dict[str, Check] = {
    check.__name__.removeprefix("check_"): check
    for check in (
        check_registration,
        check_examples_declared,
        check_output_obeys_contract,
        check_examples_change_the_graph,
        check_same_seed_same_output,
        check_get_params_round_trip,
        check_usable_as_pyg_transform,
        check_bad_input_raises_clear_error,
        check_directed_input_rule,
        check_impossible_budgets_raise,
        check_search_space_constructs,
        check_unknown_parameter_raises,
    )
}


def rewirer_checks(cls: type[Rewirer]) -> Iterator[tuple[str, Callable[[], None]]]:
    """The checks of :data:`CHECKS` bound to ``cls``, as ``(name, check)`` pairs; each
    ``check()`` raises :class:`AssertionError` (or the method's own exception) on failure.

    Example::

        >>> for name, check in rewirer_checks(MyRewirer):
        ...     check()
    """
    for name, check in CHECKS.items():
        yield name, functools.partial(check, cls)


def check_rewirer(cls: type[Rewirer]) -> None:
    """Run every conformance check on the method class ``cls``.

    Raises:
        AssertionError: listing each rule that ``cls`` breaks, with the first reason.

    Example::

        >>> from rewirekit.testing import check_rewirer
        >>> check_rewirer(MyRewirer)  # silent when MyRewirer obeys the contract
    """
    failures = []
    for name, check in rewirer_checks(cls):
        try:
            check()
        except Exception as err:  # every broken rule is reported, not only the first
            failures.append(f"  {name}: {type(err).__name__}: {err}")
    if failures:
        raise AssertionError(
            f"{cls.__name__} breaks {len(failures)} of {len(CHECKS)} conformance checks:\n"
            + "\n".join(failures)
        )
