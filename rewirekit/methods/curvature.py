"""Curvature rewiring: SDRF (balanced Forman curvature) and BORF (Ollivier-Ricci curvature).

SDRF: Topping, Di Giovanni, Chamberlain, Dong, Bronstein, "Understanding over-squashing and
bottlenecks on graphs via curvature", ICLR 2022, https://arxiv.org/abs/2111.14522 (Algorithm 1);
official code https://github.com/jctops/understanding-oversquashing (``gdl/curvature/cuda.py``).

BORF: Nguyen, Hieu, Nguyen, Ho, Osher, Nguyen, "Revisiting over-smoothing and over-squashing
using Ollivier-Ricci curvature", ICML 2023, https://arxiv.org/abs/2211.15779 (Algorithm 1);
official code https://github.com/hieubkvn123/revisiting-gnn-curvature
(``preprocessing/borf.py::borf3``).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
import ot
from scipy import sparse
from torch_geometric.data import Data

from rewirekit.algorithms.balanced_forman import (
    curvature_after_edit,
    curvature_of_pairs,
    curvature_with_each_candidate,
)
from rewirekit.algorithms.dynamic_graph import DynamicGraph
from rewirekit.algorithms.ollivier_ricci import ollivier_ricci
from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet, apply_edits, pair_keys, sorted_contains
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.methods.memo import LastGraphMemo
from rewirekit.search_space import Choice, FloatRange, IntRange
from rewirekit.validation import check_bool, check_int, check_number, check_seed

#: The curvature of the last input graph each method rewired (:mod:`rewirekit.methods.memo`).
_SDRF_START = LastGraphMemo()
_BORF_START = LastGraphMemo()


def _require_edges(method: str, edges: EdgeSet) -> None:
    if edges.num_pairs == 0:
        raise RewireError(
            f"{method} rewires around existing edges and the graph has none; "
            "add edges first or use another method."
        )


def softmax_choice(scores: np.ndarray, tau: float, rng: np.random.Generator) -> int:
    """Draw an index with probability proportional to ``exp(tau * score)``, shifted by the
    largest score first so that no exponential overflows."""
    weights = np.exp(tau * (scores - scores.max()))
    return int(rng.choice(scores.size, p=weights / weights.sum()))


class SDRF(Rewirer):
    r"""Stochastic Discrete Ricci Flow: add edges around the most negatively curved edge.

    Each of ``max_iter`` iterations (Algorithm 1 of Topping et al., ICLR 2022):

    1. take the edge :math:`(x, y)` of lowest balanced Forman curvature
       :math:`\mathrm{Ric}` (:func:`~rewirekit.algorithms.balanced_forman`);
    2. score every non-edge :math:`(k, l)`, :math:`k \in N(x) \cup \{x\}`,
       :math:`l \in N(y) \cup \{y\}`, by the gain
       :math:`\mathrm{Ric}_{G + kl}(x, y) - \mathrm{Ric}_G(x, y)` and add one drawn with
       probability :math:`\propto \exp(\tau \cdot \text{gain})`;
    3. if ``remove_edges``, remove the edge of highest curvature if it exceeds
       ``removal_bound`` (:math:`C^+`).

    It stops early when step 2 has no candidate and step 3 removes nothing (or
    ``remove_edges`` is off). Curvatures are updated after every edit, only on the edges
    whose value can change (those between the neighbourhoods of the edited edge's ends), and
    ties go to the lowest ``(min(u, v), max(u, v))``. Step 2 recounts, per candidate, only the
    4-cycles through its two ends
    (:func:`~rewirekit.algorithms.balanced_forman.curvature_with_each_candidate`); after an
    addition or a removal, the edges between the two ends' neighbourhoods are updated the
    same way from their stored 4-cycle tallies (``curvature_after_edit``). Both equal a full
    recount.

    ``faithful=True`` keeps the choices of the official code (``sdrf(is_undirected=True)``
    in ``gdl/curvature/cuda.py``): the official curvature counting (``faithful=True`` of
    :func:`~rewirekit.algorithms.balanced_forman`); the lowest entry of the dense
    ``N x N`` curvature matrix, so when no edge is negative its first zero, the diagonal
    entry ``(0, 0)``, wins (then the candidates are the non-adjacent neighbour pairs of node
    0, all with the same score); the gain read by its post-edit kernel, which adds only the
    arc ``k -> l`` to the matrix (so a new edge ``(x, l)`` does not raise ``x``'s degree);
    candidates as ordered pairs (a pair reachable both ways is listed twice); and the removal
    chosen from the curvature *before* this iteration's addition (stale). The official
    softmax has no shift and overflows for large ``tau`` (NaN probabilities); ours never
    does. The official numba kernels' ``break`` bug (issue #4) is not reproduced.

    The curvature of the input graph is kept for the next call on the same graph in this
    process (:class:`~rewirekit.methods.memo.LastGraphMemo`): tuning calls SDRF on one graph
    with many parameter sets, and that first count is most of a short run on a large graph.

    Edge weights are ignored by the curvature; kept edges keep them, added edges get 1.
    ``rewire_report.extra`` records the additions and removals made out of ``max_iter``,
    why the loop stopped early, if it did, whether the start's curvature was reused
    (``start_curvature_reused``), and each iteration in ``steps``: the pair ``(x, y)``
    worked on, the edge added and its gain, the edge removed (``None`` where there was
    none; an iteration that stopped the loop is not listed).

    Args:
        max_iter: number of iterations (``loops`` in the official code).
        tau: softmax temperature :math:`\tau` (``0`` samples uniformly).
        removal_bound: :math:`C^+`; only edges above it are removed.
        remove_edges: whether step 3 runs.
        faithful: keep the official code's choices listed above.
        seed: seed of the sampling.
    """

    name = "sdrf"
    examples = (
        Example(params={}, raises_on={"edgeless": "no edges to rewire"}),
        Example(
            params={"max_iter": 3, "tau": 2.0, "seed": 0},
            raises_on={"edgeless": "no edges to rewire", "directed": "undirected only"},
        ),
        Example(
            params={"max_iter": 4, "removal_bound": 0.2, "faithful": True, "seed": 1},
            raises_on={"edgeless": "no edges to rewire", "directed": "undirected only"},
        ),
        Example(
            params={"max_iter": 2, "tau": 0.0, "removal_bound": 0.0, "seed": 2},
            raises_on={"edgeless": "no edges to rewire", "directed": "undirected only"},
        ),
    )

    #: Stated (the SDRF paper's search ranges were not read): ranges that span the published
    #: per-dataset values of Cora to Wisconsin (max_iter 84–166, τ 12–180, C+ 0.22–14.43;
    #: the third-party table, spec curvature.md), log-uniform for τ and C+.
    search_space = {
        "max_iter": IntRange(20, 200),
        "tau": FloatRange(10.0, 200.0, log=True),
        "removal_bound": FloatRange(0.2, 15.0, log=True),
    }

    def __init__(
        self,
        max_iter: int = 10,
        tau: float = 1.0,
        removal_bound: float = 0.5,
        remove_edges: bool = True,
        faithful: bool = False,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.max_iter = check_int("max_iter", max_iter, 0)
        self.tau = check_number("tau", tau, minimum=0.0)
        self.removal_bound = check_number("removal_bound", removal_bound)
        self.remove_edges = check_bool("remove_edges", remove_edges)
        self.faithful = check_bool("faithful", faithful)
        self.seed = check_seed(seed)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        _require_edges("SDRF", edges)
        flow = _Flow(edges, self.max_iter, self.faithful)
        rng = np.random.default_rng(self.seed)
        steps: list[dict[str, Any]] = []
        stopped = None
        for _ in range(self.max_iter):
            x, y, target = flow.most_negative()
            stale = flow.most_positive() if self.faithful else None  # the official choice
            stale_value = flow.value(stale) if stale is not None else 0.0
            step: dict[str, Any] = {"pair": (x, y), "added": None, "gain": None, "removed": None}
            ks, ls = flow.candidates(x, y)
            if ks.size:
                gains = flow.gains(x, y, target, ks, ls)
                pick = softmax_choice(gains, self.tau, rng)
                step["added"], step["gain"] = (int(ks[pick]), int(ls[pick])), float(gains[pick])
                flow.add(*step["added"])
            elif not self.remove_edges:
                stopped = "no candidate edge next to the most negatively curved pair"
                break
            if self.remove_edges:
                top, top_value = stale, stale_value
                if not self.faithful:  # the paper: the curvature after the addition
                    top = flow.most_positive()
                    top_value = flow.value(top) if top is not None else 0.0
                if top is not None and top_value > self.removal_bound:
                    step["removed"] = flow.pair(top)
                    flow.remove(top)
                elif ks.size == 0:
                    stopped = (
                        "no candidate edge next to the most negatively curved pair and no "
                        f"edge curvature above removal_bound={self.removal_bound}"
                    )
                    break
            steps.append(step)
        extra: dict[str, Any] = {
            "max_iter": self.max_iter,
            "additions": sum(step["added"] is not None for step in steps),
            "removals": sum(step["removed"] is not None for step in steps),
            "stopped_early": stopped,
            "start_curvature_reused": flow.start_reused,
            "steps": steps,
        }
        return RewireOutput(flow.result(edges), extra=extra)


class _Flow:
    """The graph being rewired by SDRF and the curvature of each of its edges."""

    def __init__(self, edges: EdgeSet, room: int, faithful: bool) -> None:
        self.graph = DynamicGraph(edges.num_nodes, edges.src, edges.dst, room)
        self.faithful = faithful
        size = self.graph.src.size
        self.low = np.full(size, np.inf)  # curvature, +inf where no edge: for the minimum
        self.high = np.full(size, -np.inf)  # the same, -inf where no edge: for the maximum
        # 4-cycle tallies (cycles, largest, ties) of curvature_of_pairs
        self.tally = tuple(np.zeros(size, dtype=np.int64) for _ in range(3))
        ids = np.arange(edges.num_pairs)
        terms, self.start_reused = _SDRF_START.get(edges, faithful, lambda: self._count(ids))
        self._store(ids, terms)

    def value(self, eid: int) -> float:
        return float(self.low[eid])

    def pair(self, eid: int) -> tuple[int, int]:
        return int(self.graph.src[eid]), int(self.graph.dst[eid])

    def most_negative(self) -> tuple[int, int, int | None]:
        """``(x, y, edge id)`` of the pair SDRF works on; the id is ``None`` for the official
        code's non-edge ``(0, 0)``, its first zero entry when no edge is negative."""
        eid = self._extreme(self.low, np.min)
        if self.faithful and not self.low[eid] < 0:
            return 0, 0, None
        return int(self.graph.src[eid]), int(self.graph.dst[eid]), eid

    def most_positive(self) -> int | None:
        """Id of the edge of highest curvature; ``None`` for the official code when no
        edge is positive (its maximum is then a zero entry, not an edge)."""
        eid = self._extreme(self.high, np.max)
        if self.faithful and not self.high[eid] > 0:
            return None
        return eid

    def _extreme(self, values: np.ndarray, pick: Any) -> int:
        """Id of an edge of extreme value: the lowest ``(src, dst)`` among ties."""
        tied = np.flatnonzero(values == pick(values))
        graph = self.graph
        return int(tied[np.argmin(graph.src[tied] * graph.num_nodes + graph.dst[tied])])

    def candidates(self, x: int, y: int) -> tuple[np.ndarray, np.ndarray]:
        """Non-edges ``(k, l)``, ``k`` in ``N(x) + [x]``, ``l`` in ``N(y) + [y]``, ``k != l``:
        ordered pairs in that order when faithful, else distinct pairs ``k < l`` sorted."""
        graph = self.graph
        near_x = np.append(np.sort(graph.neighbours(x)), x)
        near_y = np.append(np.sort(graph.neighbours(y)), y)
        ks, ls = np.repeat(near_x, near_y.size), np.tile(near_y, near_x.size)
        free = (ks != ls) & ~graph.has_edges(ks, ls)
        ks, ls = ks[free], ls[free]
        if not self.faithful:
            keys = np.unique(np.minimum(ks, ls) * graph.num_nodes + np.maximum(ks, ls))
            ks, ls = keys // graph.num_nodes, keys % graph.num_nodes
        return ks, ls

    def gains(self, x: int, y: int, eid: int | None, ks: np.ndarray, ls: np.ndarray) -> np.ndarray:
        """Curvature of ``(x, y)`` after adding each candidate, minus its value now."""
        if eid is None:  # the official non-edge (0, 0): only its degree terms, unchanged
            degree = self.graph.count[x]
            return np.full(ks.size, 4.0 / degree - 2.0 if degree else 0.0)
        graph = self.graph
        after = curvature_with_each_candidate(
            graph.start, graph.count, graph.nbr, x, y, self.faithful, ks, ls
        )
        return after - self.low[eid]

    def add(self, u: int, v: int) -> None:
        """Add the edge ``{u, v}`` and update every curvature it can change: the edges between
        ``N(u)`` and ``N(v)`` from their 4-cycle tallies, those at ``u`` or ``v`` in full."""
        graph = self.graph
        between = graph.edges_near(u, v)  # before the addition: none is at u or v
        self._edited(between, (u, v), added=True)
        graph.add(u, v)
        self._update(graph.edges_at(u, v))

    def remove(self, eid: int) -> None:
        """Remove the edge ``eid`` and update every curvature it can change, as :meth:`add`
        does."""
        graph = self.graph
        u, v = self.pair(eid)
        at = graph.edges_at(u, v)
        between = np.setdiff1d(graph.edges_near(u, v), at, assume_unique=True)
        graph.remove(eid)
        self.low[eid], self.high[eid] = np.inf, -np.inf
        self._edited(between, (u, v), added=False)
        self._update(at[at != eid])

    def _edited(self, ids: np.ndarray, edge: tuple[int, int], added: bool) -> None:
        """Update the edges ``ids``, none at an end of ``edge``, from their tallies; the
        graph must lack ``edge`` (before its addition, after its removal)."""
        graph = self.graph
        tally = tuple(counts[ids] for counts in self.tally)
        self._store(
            ids,
            curvature_after_edit(
                graph.start, graph.count, graph.nbr, graph.src[ids], graph.dst[ids],
                self.faithful, edge, added, tally,
            ),
        )  # fmt: skip

    def _update(self, ids: np.ndarray) -> None:
        """Count the curvature of the edges ``ids`` in full."""
        self._store(ids, self._count(ids))

    def _count(self, ids: np.ndarray) -> tuple[np.ndarray, ...]:
        graph = self.graph
        none = np.full(ids.size, -1, dtype=np.int64)
        return curvature_of_pairs(
            graph.start, graph.count, graph.nbr, graph.src[ids], graph.dst[ids],
            self.faithful, none, none,
        )  # fmt: skip

    def _store(self, ids: np.ndarray, terms: tuple[np.ndarray, ...]) -> None:
        values, *tally = terms
        for counts, new in zip(self.tally, tally, strict=True):
            counts[ids] = new
        self.low[ids], self.high[ids] = values, values

    def result(self, edges: EdgeSet) -> EdgeSet:
        graph = self.graph
        first = edges.num_pairs
        removed = np.flatnonzero(~graph.alive[:first])
        added = first + np.flatnonzero(graph.alive[first : graph.num_edges])
        return apply_edits(edges, removed, graph.src[added], graph.dst[added])


class BORF(Rewirer):
    r"""Batch Ollivier-Ricci Flow: per batch, add a shortcut at the most negatively curved
    edges and remove the most positively curved ones.

    Each of ``num_batches`` batches (Algorithm 1 of Nguyen et al., ICML 2023) computes the
    Ollivier-Ricci curvature :math:`\kappa = 1 - W_1(\mu_u, \mu_v)` of every edge with
    :math:`\alpha = 0` and unit lengths (:math:`\mu_u` uniform on :math:`N(u)`;
    :func:`~rewirekit.algorithms.ollivier_ricci`), then

    * for each of the ``batch_add`` edges of lowest :math:`\kappa`, takes the optimal
      transport plan :math:`\pi` between :math:`\mu_u` and :math:`\mu_v` (exact, POT's
      ``ot.emd``, ground cost the hop distance :math:`d`) and adds the pair
      :math:`(p, q) = \arg\max \pi \circ d` (the first in row-major order, rows
      :math:`N(u)` and columns :math:`N(v)` ascending, the centre last with mass 0 as in the
      official code) if :math:`p \ne q` and it is not an edge yet;
    * removes the ``batch_remove`` edges of highest :math:`\kappa` (if still present).

    :math:`\kappa` is not recomputed inside a batch; between batches only the edges with an
    end next to an edited pair are (the others' supports and distances did not change). Ties
    in :math:`\kappa` (values equal to 12 decimals) go to the lower ``(u, v)``. By default the
    graph is undirected and ``batch_add``/``batch_remove`` count undirected edges. The method
    is deterministic (no seed).

    ``faithful=True`` keeps the official code's directed counting: it works on the
    directed graph holding both arcs of every edge, as ``borf3`` does (a networkx DiGraph).
    Curvature is computed per arc, with :math:`\mu_u` on the in-neighbours of ``u``,
    :math:`\mu_v` on the out-neighbours of ``v`` and directed distances (its vendored
    GraphRicciCurvature). The first batch's arc set is symmetric, so each arc's value is its
    edge's, from the exact kernel; later batches recompute, one POT problem per arc, the arcs
    an edit can reach (``u`` is ``a``, ``b`` or an out-neighbour of ``a``, or ``v`` is ``a``,
    ``b`` or an in-neighbour of ``b``, for an edited arc ``(a, b)``), where the official
    code recomputes every arc with the same values. The lowest and highest arcs are chosen,
    and each addition or removal touches one arc only, so later batches see an asymmetric
    graph. To return an undirected graph, an input edge is kept only if both its arcs
    survive and a new pair is added if either arc was added; ``rewire_report.extra`` counts
    the pairs left with one arc. The official code also keeps ties in networkx edge order,
    where an added arc comes after its source's other arcs (ours: by ``(u, v)``), and caches
    rewired graphs on disk (ours computes).

    The first batch's curvature is kept for the next call on the same graph, as SDRF's is.

    Edge weights are ignored by the curvature; kept edges keep them, added edges get 1.
    ``rewire_report.extra`` records the edges added and removed in each batch (fewer than
    ``batch_add`` when a plan's pair is already an edge or a node with itself) and whether
    the first batch's curvature was reused (``start_curvature_reused``).

    Args:
        num_batches: number of batches :math:`N` (``loops`` in the official code).
        batch_add: :math:`h`, edges of lowest curvature to add a shortcut at, per batch.
        batch_remove: :math:`k`, edges of highest curvature to remove, per batch.
        faithful: keep the official directed-arc counting described above.
    """

    name = "borf"
    examples = (
        Example(params={}, raises_on={"edgeless": "no edges to rewire"}),
        Example(
            params={"num_batches": 2, "batch_add": 3, "batch_remove": 1},
            raises_on={"edgeless": "no edges to rewire", "directed": "undirected only"},
        ),
        Example(
            params={"num_batches": 1, "batch_add": 2, "batch_remove": 2, "faithful": True},
            raises_on={"edgeless": "no edges to rewire", "directed": "undirected only"},
        ),
    )

    #: The grid of the BORF repository (spec curvature.md): h ∈ 10–80, k ∈ {10, 20, 30},
    #: N ∈ {1, 2, 3}.
    search_space = {
        "num_batches": Choice((1, 2, 3)),
        "batch_add": IntRange(10, 80),
        "batch_remove": Choice((10, 20, 30)),
    }

    def __init__(
        self,
        num_batches: int = 50,
        batch_add: int = 4,
        batch_remove: int = 2,
        faithful: bool = False,
    ) -> None:
        super().__init__()
        self.num_batches = check_int("num_batches", num_batches, 0)
        self.batch_add = check_int("batch_add", batch_add, 0)
        self.batch_remove = check_int("batch_remove", batch_remove, 0)
        self.faithful = check_bool("faithful", faithful)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        _require_edges("BORF", edges)
        n = edges.num_nodes
        if self.faithful:
            src, dst = np.r_[edges.src, edges.dst], np.r_[edges.dst, edges.src]
        else:
            src, dst = edges.src, edges.dst
        keys = np.sort(pair_keys(src, dst, n))
        added, removed = [], []
        previous = None
        reused = False
        for _ in range(self.num_batches):
            if keys.size == 0:
                break
            if previous is None:
                (kappa,), reused = _BORF_START.get(
                    edges, self.faithful, partial(_all_curvatures, keys, n)
                )
            else:
                kappa = self._curvature(keys, n, previous)
            new, gone = self._batch(keys, kappa, n)
            kept = ~sorted_contains(gone, keys)
            previous = keys[kept], kappa[kept], np.r_[new, gone]
            keys = np.union1d(keys[kept], new)
            added.append(int(new.size))
            removed.append(int(gone.size))
        extra: dict[str, Any] = {
            "added_per_batch": added,
            "removed_per_batch": removed,
            "start_curvature_reused": reused,
        }
        if self.faithful:
            keys, extra["one_arc_pairs"] = _undirected_from_arcs(edges, keys)
        result = _edit_to(edges, keys)
        return RewireOutput(result, extra=extra)

    def _curvature(
        self, keys: np.ndarray, n: int, previous: tuple[np.ndarray, np.ndarray, np.ndarray]
    ) -> np.ndarray:
        """Curvature of the pairs (arcs when faithful) ``keys`` after a batch: ``previous``
        holds that batch's surviving keys, their values and the keys it edited, and only the
        pairs an edit can reach are recomputed (:func:`_reached_by_edits`); the others keep
        their values."""
        src, dst = keys // n, keys % n
        old_keys, old_kappa, edited = previous
        redo = _reached_by_edits(src, dst, edited, n, self.faithful)
        redo |= ~sorted_contains(old_keys, keys)
        kappa = np.empty(keys.size)
        kappa[~redo] = old_kappa[np.searchsorted(old_keys, keys[~redo])]
        if not redo.any():
            return kappa
        x, y = src[redo], dst[redo]
        if self.faithful:
            arcs = _Arcs(src, dst, n, all_paths=True)
            # one exact transport problem per arc, as the official code solves them
            w1 = np.array([_transport(arcs, u, v)[0] for u, v in zip(x, y, strict=True)])
            kappa[redo] = 1.0 - w1  # unit lengths: d(x, y) = 1
        else:
            kappa[redo] = ollivier_ricci(np.stack([src, dst]), n, alpha=0.0, pairs=(x, y))
        return kappa

    def _batch(self, keys: np.ndarray, kappa: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Keys of the pairs (arcs when faithful) one batch adds and removes."""
        src, dst = keys // n, keys % n
        if self.faithful:
            arcs = _Arcs(src, dst, n, all_paths=False)
        else:
            arcs = _Arcs(np.r_[src, dst], np.r_[dst, src], n, all_paths=False)
        # keys are sorted, so ties (values within 1e-12, the solvers' rounding) go by (u, v)
        order = np.argsort(np.round(kappa, 12), kind="stable")
        new: list[int] = []
        for e in order[: self.batch_add]:
            p, q = _transport(arcs, int(src[e]), int(dst[e]))[1]
            if not self.faithful:
                p, q = min(p, q), max(p, q)
            key = p * n + q
            if p != q and not sorted_contains(keys, np.array([key]))[0] and key not in new:
                new.append(key)
        gone = keys[order[keys.size - min(self.batch_remove, keys.size) :]]
        return np.array(new, dtype=np.int64), np.sort(gone)


def _all_curvatures(keys: np.ndarray, n: int) -> tuple[np.ndarray]:
    """Curvature of the input graph's pairs ``keys`` (both arcs of every edge when faithful:
    a symmetric arc set, where each arc's curvature is its edge's), all computed by
    :func:`~rewirekit.algorithms.ollivier_ricci`."""
    return (ollivier_ricci(np.stack([keys // n, keys % n]), n, alpha=0.0),)


def _reached_by_edits(
    src: np.ndarray, dst: np.ndarray, edited: np.ndarray, n: int, directed: bool
) -> np.ndarray:
    """Which pairs ``(src, dst)`` (of the graph after the edits) may have a new curvature after
    the pairs ``edited`` (keys ``a·n + b``) were added or removed.

    With α = 0 and unit lengths the curvature of ``(u, v)`` reads the neighbours of ``u`` and
    of ``v`` and the hop distances (at most 3) between them, and an edit ``(a, b)`` changes a
    distance only as a 1- or 2-hop path through it. Undirected: ``(u, v)`` is reached if an
    end lies in ``N[a] ∪ N[b]``. Directed (in-neighbours of ``u``, out-neighbours of ``v``):
    if ``u`` is ``a``, ``b`` or an out-neighbour of ``a``, or ``v`` is ``a``, ``b`` or an
    in-neighbour of ``b``. Neighbours are read after the edits; the ones an edit removed are
    ends of an edit themselves."""
    a, b = edited // n, edited % n
    adjacency = sparse.csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), (n, n))
    if not directed:
        adjacency = adjacency + adjacency.T
    from_u = np.zeros(n, dtype=bool)
    from_u[a] = from_u[b] = True
    from_u[adjacency[a].indices] = True
    if not directed:
        from_u[adjacency[b].indices] = True
        return from_u[src] | from_u[dst]
    from_v = np.zeros(n, dtype=bool)
    from_v[a] = from_v[b] = True
    from_v[adjacency.T.tocsr()[b].indices] = True
    return from_u[src] | from_v[dst]


class _Arcs:
    """Out- and in-neighbour lists of a directed graph given by its arcs (both arcs of every
    edge for an undirected graph). ``all_paths`` precomputes every 2-path (``A @ A``): worth
    it when most arcs need their distances (the faithful mode), not for a few plans."""

    def __init__(self, src: np.ndarray, dst: np.ndarray, n: int, all_paths: bool) -> None:
        out = sparse.csr_matrix((np.ones(src.size, dtype=np.int32), (src, dst)), shape=(n, n))
        out.sort_indices()
        into = out.T.tocsr()
        into.sort_indices()
        self.n, self.out, self.into = n, out, into
        self.arc_keys = np.sort(pair_keys(src, dst, n))
        self.path_keys = None
        if all_paths:
            two = (out @ out).tocoo()
            self.path_keys = np.sort(pair_keys(two.row, two.col, n))

    def hops(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Directed hop distance from each of ``rows`` to each of ``cols``, for supports of an
        arc ``(u, v)`` (in-neighbours of ``u`` and ``u``, out-neighbours of ``v`` and ``v``),
        where ``u -> v`` bounds every distance by 3."""
        query = (rows[:, None] * self.n + cols[None, :]).ravel()
        one = sorted_contains(self.arc_keys, query).reshape(rows.size, cols.size)
        if self.path_keys is not None:
            two = sorted_contains(self.path_keys, query).reshape(rows.size, cols.size)
        else:
            two = (self.out[rows] @ self.into[cols].T).toarray() > 0
        hops = np.where(one, 1.0, np.where(two, 2.0, 3.0))
        hops[rows[:, None] == cols[None, :]] = 0.0
        return hops


def _transport(arcs: _Arcs, u: int, v: int) -> tuple[float, tuple[int, int]]:
    """``W1`` between the uniform measures on the in-neighbours of ``u`` and the
    out-neighbours of ``v`` (the centre last, with mass 0; a node without such neighbours
    puts its mass on itself), and the pair at the first largest entry of plan x cost."""
    rows = np.append(arcs.into.indices[arcs.into.indptr[u] : arcs.into.indptr[u + 1]], u)
    cols = np.append(arcs.out.indices[arcs.out.indptr[v] : arcs.out.indptr[v + 1]], v)
    mu, nu = _uniform_but_last(rows.size), _uniform_but_last(cols.size)
    cost = arcs.hops(rows, cols)
    plan = ot.emd(mu, nu, cost)
    moved = plan * cost
    best = int(np.argmax(moved))
    return float(moved.sum()), (int(rows[best // cols.size]), int(cols[best % cols.size]))


def _uniform_but_last(size: int) -> np.ndarray:
    """Uniform mass on all but the last point (the centre, mass 0), or all on a lone centre.
    The masses are GraphRicciCurvature's ``w / sum(w)`` with ``w = exp(-1)`` summed in order,
    not ``1 / deg``: the last bit decides which of several optimal plans ``ot.emd`` returns."""
    mass = np.zeros(size)
    if size == 1:
        mass[0] = 1.0
    else:
        weight = math.exp(-1.0)
        mass[:-1] = weight / sum([weight] * (size - 1))
    return mass


def _undirected_from_arcs(edges: EdgeSet, arcs: np.ndarray) -> tuple[np.ndarray, int]:
    """Undirected pair keys from the faithful run's arcs: an input edge stays if both its
    arcs do, a new pair appears if either arc was added. Also the number of pairs with one
    arc."""
    n = edges.num_nodes
    src, dst = arcs // n, arcs % n
    low, high = np.minimum(src, dst), np.maximum(src, dst)
    pairs, arcs_per_pair = np.unique(low * n + high, return_counts=True)
    original = sorted_contains(edges.keys, pairs)
    keep = (arcs_per_pair == 2) | ~original
    return pairs[keep], int((arcs_per_pair == 1).sum())


def _edit_to(edges: EdgeSet, keys: np.ndarray) -> EdgeSet:
    """``edges`` edited to hold exactly the canonical pairs ``keys`` (sorted)."""
    n = edges.num_nodes
    removed = np.flatnonzero(~sorted_contains(keys, edges.keys))
    new = keys[~sorted_contains(edges.keys, keys)]
    return apply_edits(edges, removed, new // n, new % n)
