"""The method contract: :class:`Rewirer`, its registry and :class:`RewireReport`.

Every rewiring method is a PyTorch Geometric transform. A subclass sets a
registry ``name``, stores hyperparameters in ``__init__`` (validated there, no
data) and implements :meth:`Rewirer._rewire` on a validated, coalesced
:class:`~rewirekit.graph.EdgeSet`. The base class does everything else the
contract asks for: input validation, directedness checks, timing, the report,
and building a new ``Data`` that keeps node count and order.
"""

from __future__ import annotations

import copy
import inspect
import logging
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np
from torch import Tensor
from torch_geometric.data import Data
from torch_geometric.transforms import BaseTransform

from rewirekit.errors import RewireError
from rewirekit.graph import (
    EdgeSet,
    edge_set,
    pair_keys,
    sorted_contains,
    to_edge_index,
    validate_data,
)
from rewirekit.registry import Registry
from rewirekit.search_space import Dimension

#: Every method class, by its ``name``; subclassing :class:`Rewirer` with a name registers it.
METHODS: Registry[type[Rewirer]] = Registry("method")
_ATTRIBUTES = {"x": "features", "pos": "positions"}
#: Parameter names that are edit budgets, reported as asked against made.
_BUDGETS = ("add", "delete")
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RewireReport:
    """What a rewiring did. Edge counts are undirected pairs for undirected graphs
    (one per ``{u, v}``) and ordered pairs for directed graphs; self-loops count once.

    ``edits_asked`` holds the budgets the method was given (its ``add`` and ``delete``
    parameters, where it has them); :attr:`edits_made` the edits it made, so that a method
    that spends less than its budget says so (:attr:`shortfall`).
    """

    method: str
    params: dict[str, Any]
    num_nodes: int
    directed: bool
    edges_before: int
    edges_after: int
    edges_added: int
    edges_removed: int
    features_changed: bool
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)
    edits_asked: dict[str, int] = field(default_factory=dict)

    @property
    def edits_made(self) -> dict[str, int]:
        """``{"add": edges_added, "delete": edges_removed}`` for the budgets in
        ``edits_asked``."""
        made = {"add": self.edges_added, "delete": self.edges_removed}
        return {kind: made[kind] for kind in self.edits_asked}

    @property
    def shortfall(self) -> dict[str, int]:
        """Budgets not spent, by kind (only the kinds with a shortfall)."""
        made = self.edits_made
        return {k: n - made[k] for k, n in self.edits_asked.items() if made[k] < n}

    def budget_summary(self) -> str:
        """``"added 10 of 10, deleted 2 of 5"``; empty for a method without budgets."""
        verbs = {"add": "added", "delete": "deleted"}
        made = self.edits_made
        return ", ".join(f"{verbs[k]} {made[k]} of {n}" for k, n in self.edits_asked.items() if n)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["edits_made"] = self.edits_made
        return out

    def compact(self) -> dict[str, Any]:
        """The report for a result row: :meth:`to_dict` without ``params`` (the row has
        them) and with only the scalar entries of ``extra`` (numbers, strings, booleans:
        the solver, alignments, shortfalls); per-step logs such as SDRF's are left out."""
        out = self.to_dict()
        del out["params"]
        scalars = {k: v for k, v in self.extra.items() if _is_scalar(v)}
        out["extra"] = {k: v.item() if isinstance(v, np.generic) else v for k, v in scalars.items()}
        return out


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, np.generic))


@dataclass(frozen=True)
class RewireOutput:
    """What :meth:`Rewirer._rewire` returns: the new edges, optionally new features,
    and method-specific diagnostics for the report."""

    edges: EdgeSet
    x: Tensor | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Example:
    """Parameters under which a method does real work on the conformance suite's graphs.

    ``raises_on`` names the suite's graphs (``tiny``, ``edgeless``, ...; see
    :data:`rewirekit.testing.graphs.SUITE_GRAPHS`) on which these parameters are expected to
    raise :class:`~rewirekit.errors.RewireError`, each with the reason. On every other graph
    the example must run and obey the contract, and it must change the edges, their weights
    or the features of at least one graph (:func:`rewirekit.testing.check_rewirer`). An
    example with empty ``params`` stands for the defaults: it declares the graphs on which
    the defaults raise (the defaults are otherwise expected to run on every graph).
    """

    params: dict[str, Any]
    raises_on: dict[str, str] = field(default_factory=dict)


class Rewirer(BaseTransform):
    """Base class of all rewiring methods (a ``torch_geometric`` transform).

    Subclasses define ``name`` (registry key) and may set ``supports_directed``
    (accept directed input; otherwise it is rejected with advice to symmetrise),
    ``needs_features`` (require ``data.x``) and ``needs_positions`` (require ``data.pos``).
    ``search_space`` maps hyperparameters to the ranges a tuner searches
    (:mod:`rewirekit.search_space`): the paper's published ranges, or ranges the method
    states where the paper gives none. ``examples`` lists the parameters under which
    the conformance suite (:func:`rewirekit.testing.check_rewirer`) exercises the method;
    every method declares some, except the one that sets ``is_identity``: the no-rewiring
    baseline, which the suite checks to return every graph unchanged instead.

    Example::

        >>> import rewirekit
        >>> out = rewirekit.get_method("random", add=10, seed=0)(data)
        >>> out.rewire_report.edges_added
        10
    """

    name: ClassVar[str]
    supports_directed: ClassVar[bool] = False
    needs_features: ClassVar[bool] = False
    needs_positions: ClassVar[bool] = False
    search_space: ClassVar[Mapping[str, Dimension]] = {}
    examples: ClassVar[tuple[Example, ...]] = ()
    is_identity: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if name is None:
            return
        METHODS.register(name, cls)

    # -- parameters -----------------------------------------------------------------
    @classmethod
    def param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [p for p in signature.parameters if p != "self"]

    @classmethod
    def unmet_needs(cls, data: Data) -> str | None:
        """Why the method cannot run on ``data`` (it lacks features or positions the method
        needs), or ``None`` when it can."""
        for needed, attribute in ((cls.needs_features, "x"), (cls.needs_positions, "pos")):
            if needed and getattr(data, attribute, None) is None:
                return f"{cls.name!r} needs node {_ATTRIBUTES[attribute]} in data.{attribute}"
        return None

    def get_params(self) -> dict[str, Any]:
        """The hyperparameters this instance was built with (scikit-learn style)."""
        return {p: getattr(self, p) for p in self.param_names()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # -- the transform --------------------------------------------------------------
    def forward(self, data: Data) -> Data:
        validate_data(data)
        if "edge_attr" in data and data.edge_attr is not None:
            raise RewireError(
                "data.edge_attr cannot follow rewired edges; delete it, or store "
                "1-d weights as data.edge_weight."
            )
        unmet = self.unmet_needs(data)
        if unmet is not None:
            raise RewireError(f"method {unmet}.")
        start = time.perf_counter()
        edges = edge_set(data)
        if edges.directed and not self.supports_directed:
            raise RewireError(
                f"method {self.name!r} needs an undirected graph but got a directed "
                "one; apply torch_geometric.transforms.ToUndirected() first."
            )
        result = self._rewire(data, edges)
        out = self._build_output(data, result)
        seconds = time.perf_counter() - start
        out.rewire_report = report = self._report(edges, result, seconds)
        if report.shortfall:
            _log.warning(
                "%s made fewer edits than asked: %s (see rewire_report.extra)",
                self.name,
                report.budget_summary(),
            )
        return out

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        """Compute the new graph. ``edges`` is ``data``'s validated, coalesced edge set."""
        raise NotImplementedError

    def _build_output(self, data: Data, result: RewireOutput) -> Data:
        out = copy.copy(data)  # a new Data sharing the unchanged tensors, as PyG's transforms
        out.edge_index, weight = to_edge_index(result.edges)
        if weight is not None:
            out.edge_weight = weight
        elif "edge_weight" in out:
            del out.edge_weight
        if result.x is not None:
            out.x = result.x
        return out

    def _report(self, before: EdgeSet, result: RewireOutput, seconds: float) -> RewireReport:
        old, new = _all_keys(before), _all_keys(result.edges)
        kept = int(sorted_contains(old, new).sum())
        return RewireReport(
            method=self.name,
            params=self.get_params(),
            num_nodes=before.num_nodes,
            directed=before.directed,
            edges_before=int(old.size),
            edges_after=int(new.size),
            edges_added=int(new.size) - kept,
            edges_removed=int(old.size) - kept,
            features_changed=result.x is not None,
            seconds=seconds,
            extra=dict(result.extra),
            edits_asked={k: int(v) for k, v in self.get_params().items() if k in _BUDGETS},
        )


def _all_keys(edges: EdgeSet) -> np.ndarray:
    keys = edges.keys
    if edges.self_loops.size == 0 and np.all(keys[1:] > keys[:-1]):
        return keys  # already sorted and unique, the usual case: skip the sort
    loops = pair_keys(edges.self_loops, edges.self_loops, edges.num_nodes)
    return np.union1d(keys, loops)


# -- registry API -------------------------------------------------------------------
def list_methods() -> list[str]:
    """Names of all registered methods, sorted."""
    return sorted(METHODS)


def method_class(name: str) -> type[Rewirer]:
    """The method class registered as ``name`` (RewireError listing the methods if none)."""
    return METHODS[name]


def get_method(name: str, **params: Any) -> Rewirer:
    """Build the method registered as ``name`` with hyperparameters ``params``."""
    cls = method_class(name)
    unknown = sorted(set(params) - set(cls.param_names()))
    if unknown:
        raise RewireError(
            f"method {cls.name!r} has no parameter(s) {', '.join(unknown)}; "
            f"its parameters are: {', '.join(cls.param_names()) or 'none'}."
        )
    return cls(**params)


def rewire(data: Data, name: str, **params: Any) -> Data:
    """Rewire ``data`` with method ``name``: ``get_method(name, **params)(data)``."""
    return get_method(name, **params)(data)


def describe(name: str) -> str:
    """First line of a method's docstring."""
    doc = inspect.getdoc(method_class(name)) or ""
    return doc.splitlines()[0] if doc else ""


__all__ = [
    "METHODS",
    "Example",
    "Rewirer",
    "RewireReport",
    "RewireOutput",
    "list_methods",
    "get_method",
    "rewire",
    "describe",
    "method_class",
]
