"""Spectral-gap rewiring: ProxyAdd / ProxyDelete and FoSR.

ProxyAdd/ProxyDelete: Jamadandi, Rubio-Madrigal, Burkholz, "Spectral Graph Pruning Against
Over-Squashing and Over-Smoothing", NeurIPS 2024, https://arxiv.org/abs/2404.04612.
FoSR: Karhadkar, Banerjee, Montúfar, "FoSR: First-order spectral rewiring for addressing
oversquashing in GNNs", ICLR 2023, https://arxiv.org/abs/2210.11790.

Both pick, one edge at a time, the pair that is best under a score of the form
``a·(x_u² + x_v²) − b·x_u·x_v`` of a node vector ``x``. For a fixed ``u`` the score is a
quadratic (or linear) function of ``x_v``, so its best non-neighbour ``v`` is found at the
extremes of the sorted ``x`` or next to the parabola's vertex, skipping at most
``deg(u) + 1`` excluded nodes. That gives the exact best non-edge in ``O((N + E) log N)``
per edit instead of scanning all ``O(N²)`` pairs.
"""

from __future__ import annotations

import numba
import numpy as np
from torch_geometric.data import Data

from rewirekit.algorithms.connectivity import removable_in_order
from rewirekit.algorithms.spectral import fiedler_pair
from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet, apply_edits, pair_keys, symmetric_csr
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.search_space import COMFY_BUDGETS, Choice
from rewirekit.validation import check_budget, check_feasible, check_seed


# -- exact best non-edge under a per-node quadratic score ------------------------------------
class _Neighbours:
    """Sorted directed keys ``u·N + v`` of the current edges, and neighbour counts."""

    def __init__(self, n: int, src: np.ndarray, dst: np.ndarray) -> None:
        self.n = n
        self.keys = np.sort(np.concatenate([pair_keys(src, dst, n), pair_keys(dst, src, n)]))
        self.count = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)

    def add(self, u: int, v: int) -> None:
        new = np.array([u * self.n + v, v * self.n + u], dtype=np.int64)
        self.keys = np.insert(self.keys, np.searchsorted(self.keys, new), new)
        self.count[u] += 1
        self.count[v] += 1

    def contains(self, keys: np.ndarray) -> np.ndarray:
        if self.keys.size == 0:
            return np.zeros(keys.shape, dtype=bool)
        pos = np.searchsorted(self.keys, keys).clip(max=self.keys.size - 1)
        return self.keys[pos] == keys


def _first_allowed(
    order: np.ndarray, owners: np.ndarray, start: np.ndarray, nbrs: _Neighbours
) -> np.ndarray:
    """For every ``owners[i] = u``: the first node ``order[p]``, ``p ≥ start[i]``, that is
    neither ``u`` nor a neighbour of ``u`` (``-1`` if none). Looks at ``deg(u) + 2``
    positions at most, so the work is ``O(Σ_u deg(u) + |owners|)``; ``order`` may be a
    prefix of a node order as long as it holds those positions."""
    length = np.clip(np.minimum(nbrs.count[owners] + 2, order.size - start), 0, None)
    which = np.repeat(np.arange(owners.size), length)
    offset = np.arange(which.size) - np.repeat(np.cumsum(length) - length, length)
    v = order[start[which] + offset]
    u = owners[which]
    hit = np.flatnonzero((v != u) & ~nbrs.contains(u * nbrs.n + v))
    owner_of_hit = which[hit]  # sorted: the first hit of each owner starts a new run
    first = hit[np.flatnonzero(np.r_[True, owner_of_hit[1:] != owner_of_hit[:-1]])]
    out = np.full(owners.size, -1, dtype=np.int64)
    out[which[first]] = v[first]
    return out


def _sorted_orders(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Node ids by ``x`` ascending and by ``x`` descending, ties by node id in both."""
    return np.argsort(x, kind="stable"), np.argsort(-x, kind="stable")


def _partners(
    orders: tuple[np.ndarray, np.ndarray],
    owners: np.ndarray,
    start_up: np.ndarray,
    start_down: np.ndarray,
    nbrs: _Neighbours,
) -> tuple[np.ndarray, np.ndarray]:
    """Canonical candidate non-edges ``(min(u, v), max(u, v))``: for every owner ``u`` its
    first allowed partner in the ascending order from ``start_up`` and in the descending
    order from ``start_down``."""
    up, down = orders
    partners = np.concatenate(
        [_first_allowed(up, owners, start_up, nbrs), _first_allowed(down, owners, start_down, nbrs)]
    )
    both = np.concatenate([owners, owners])
    ok = partners >= 0
    both, partners = both[ok], partners[ok]
    return np.minimum(both, partners), np.maximum(both, partners)


def _candidate_pairs(
    x: np.ndarray, nbrs: _Neighbours, vertex: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Canonical candidate non-edges: for every node ``u`` its first allowed partner going up
    and going down in the order of ``x`` (ties by node id), either from the two ends
    (``vertex=None``) or from ``vertex[u]`` outwards."""
    n = x.size
    orders = _sorted_orders(x)
    if vertex is None:
        start_up = start_down = np.zeros(n, dtype=np.int64)
    else:
        start_up = np.searchsorted(x[orders[0]], vertex, side="left")  # first x >= vertex
        start_down = n - start_up  # first x < vertex
    return _partners(orders, np.arange(n), start_up, start_down, nbrs)


def _pick(
    lo: np.ndarray, hi: np.ndarray, score: np.ndarray, n: int, maximize: bool
) -> tuple[int, int] | None:
    """The best-scoring pair; ties go to the smallest pair key."""
    if lo.size == 0:
        return None
    best = np.lexsort((lo * n + hi, -score if maximize else score))[0]
    return int(lo[best]), int(hi[best])


def _proxy_terms(
    n: int, src: np.ndarray, dst: np.ndarray, v0: np.ndarray | None
) -> tuple[float, np.ndarray, np.ndarray]:
    """``(λ₁, x, f)`` with ``x = D^{-1/2} f`` the generalised eigenvector (``xᵀDx = 1``)."""
    lam, f, deg = fiedler_pair(n, src, dst, v0)
    return lam, f / np.sqrt(deg), f


def proxy_gap_change(x: np.ndarray, lam: float, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """First-order change of ``λ₁`` when adding the pair ``(u, v)`` with weight 1:
    ``(x_u − x_v)² − λ₁(x_u² + x_v²)``; deleting it changes ``λ₁`` by minus this."""
    return (x[u] - x[v]) ** 2 - lam * (x[u] ** 2 + x[v] ** 2)


class _Proxy(Rewirer):
    """Shared parameter checks of ProxyAdd and ProxyDelete."""

    @staticmethod
    def _check_common(objective: str, update_period: int) -> None:
        if objective not in ("max", "min"):
            raise RewireError(f"objective must be 'max' or 'min', got {objective!r}.")
        if (
            isinstance(update_period, bool)
            or not isinstance(update_period, (int, np.integer))
            or update_period < 1
        ):
            raise RewireError(f"update_period must be a positive integer, got {update_period!r}.")


class ProxyAdd(_Proxy):
    """ProxyAdd: add the edges that most raise (max) or lower (min) the estimated spectral gap.

    ``objective="max"`` is ProxyAddMax, ``"min"`` ProxyAddMin.

    With ``λ₁, f`` the Fiedler pair of ``L = I − D^{-1/2}(A + I)D^{-1/2}`` (self-loops
    added) and ``x = D^{-1/2} f``, adding ``(u, v)`` changes ``λ₁`` by about
    ``(x_u − x_v)² − λ₁(x_u² + x_v²)`` (perturbation of ``(D−A)x = λ D x``). Each step adds
    the best non-edge (``u ≠ v``) under this score; the eigenpair is recomputed every
    ``update_period`` added edges (1 in the paper; in between, the next best pairs under the
    same scores are taken). The best non-edge over all ``O(N²)`` pairs is found exactly in
    ``O((N + E) log N)`` (see the module docstring); ties go to the smaller pair ``(u, v)``.

    Decisions: the graph is read unweighted (weights are kept on the output, added edges
    get weight 1); the score uses ``x = D^{-1/2} f`` with ``‖f‖ = 1``, i.e. ``xᵀDx = 1``, as
    the first-order perturbation requires (the official code divides by ``√d`` and then
    rescales each node's row of the two-eigenvector matrix to unit norm, twice in the Max
    code: not reproduced); exact ties (graph symmetries) are decided by floating-point
    noise, as in the official code; ProxyAddMin scans all non-edges (the official code
    scores a random sample of 1500); the eigensolver is deterministic (seeded start, then
    warm starts).

    Args:
        objective: ``"max"`` (ProxyAddMax) or ``"min"`` (ProxyAddMin).
        add: number of edges to add.
        update_period: edges added between two eigenpair computations.
    """

    name = "proxy_add"
    examples = (
        Example(params=dict(objective="max", add=2)),
        Example(params=dict(objective="min", add=3, update_period=2)),
    )

    #: The ComFy paper's budget grid (it compares ProxyAdd on the same budgets), both objectives.
    search_space = {"objective": Choice(("max", "min")), "add": COMFY_BUDGETS}

    def __init__(self, objective: str = "max", add: int = 0, update_period: int = 1) -> None:
        super().__init__()
        self._check_common(objective, update_period)
        self.objective = objective
        self.add = check_budget("add", add)
        self.update_period = int(update_period)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, add=self.add)
        n, maximize = edges.num_nodes, self.objective == "max"
        nbrs = _Neighbours(n, edges.src, edges.dst)
        added_u: list[int] = []
        added_v: list[int] = []
        f = None
        gaps = []
        while len(added_u) < self.add:
            src = np.concatenate([edges.src, np.asarray(added_u, dtype=np.int64)])
            dst = np.concatenate([edges.dst, np.asarray(added_v, dtype=np.int64)])
            lam, x, f = _proxy_terms(n, src, dst, f)
            gaps.append(lam)
            a = 1.0 - lam  # score(u, v) = a x_u² + a x_v² − 2 x_u x_v
            at_ends = (a >= 0) if maximize else (a <= 0)
            for _ in range(min(self.update_period, self.add - len(added_u))):
                lo, hi = _candidate_pairs(x, nbrs, None if at_ends else x / a)
                best = _pick(lo, hi, proxy_gap_change(x, lam, lo, hi), n, maximize)
                assert best is not None  # check_feasible left a free pair for every edit
                nbrs.add(*best)
                added_u.append(best[0])
                added_v.append(best[1])
        new = apply_edits(
            edges,
            np.zeros(0, dtype=np.int64),
            np.asarray(added_u, dtype=np.int64),
            np.asarray(added_v, dtype=np.int64),
        )
        return RewireOutput(new, extra={"gaps": gaps})


class ProxyDelete(_Proxy):
    """ProxyDelete: delete the edges that most raise (max) or lower (min) the estimated gap.

    ``objective="max"`` is ProxyDelMax, ``"min"`` ProxyDelMin; deletions never split a
    connected component.

    Same estimate as :class:`ProxyAdd` with the opposite sign: deleting ``(u, v)`` changes
    ``λ₁`` by about ``−[(x_u − x_v)² − λ₁(x_u² + x_v²)]``. Each step ranks all current
    edges by this score and deletes the best one whose removal does not increase the number
    of connected components (the paper undoes deletions that disconnect the graph and moves
    to the next edge); the eigenpair is recomputed every ``update_period`` deletions. If no
    edge can be deleted without splitting a component, it stops early and
    ``extra["delete_shortfall"]`` says how many deletions are missing.

    Decisions as in :class:`ProxyAdd` (unweighted read, ``x = D^{-1/2} f``, ties to the
    smaller pair). On a disconnected input "never disconnect" means "never increase the
    number of components" (the official test ``is_connected`` would forbid every deletion).

    Args:
        objective: ``"max"`` (ProxyDelMax) or ``"min"`` (ProxyDelMin).
        delete: number of edges to delete.
        update_period: edges deleted between two eigenpair computations.
    """

    name = "proxy_delete"
    examples = (
        Example(
            params=dict(objective="max", delete=2), raises_on={"edgeless": "no edge to delete"}
        ),
        Example(
            params=dict(objective="min", delete=3, update_period=2),
            raises_on={"edgeless": "no edge to delete"},
        ),
    )

    #: The ComFy paper's budget grid (it compares ProxyDelete on the same budgets), both
    #: objectives.
    search_space = {"objective": Choice(("max", "min")), "delete": COMFY_BUDGETS}

    def __init__(self, objective: str = "max", delete: int = 0, update_period: int = 1) -> None:
        super().__init__()
        self._check_common(objective, update_period)
        self.objective = objective
        self.delete = check_budget("delete", delete)
        self.update_period = int(update_period)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, delete=self.delete)
        n, maximize = edges.num_nodes, self.objective == "max"
        alive = np.arange(edges.num_pairs)  # positions (into edges.src) still present
        removed: list[np.ndarray] = []
        done, f, gaps = 0, None, []
        while done < self.delete:
            src, dst = edges.src[alive], edges.dst[alive]
            lam, x, f = _proxy_terms(n, src, dst, f)
            gaps.append(lam)
            score = -proxy_gap_change(x, lam, src, dst)
            order = np.lexsort((pair_keys(src, dst, n), -score if maximize else score))
            current = EdgeSet(n, src, dst, None, np.zeros(0, dtype=np.int64), None, False)
            step = removable_in_order(current, order)[: min(self.update_period, self.delete - done)]
            if step.size == 0:
                break
            removed.append(alive[step])
            alive = np.delete(alive, step)
            done += step.size
        gone = np.concatenate(removed) if removed else np.zeros(0, dtype=np.int64)
        new = apply_edits(edges, gone, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        return RewireOutput(new, extra={"gaps": gaps, "delete_shortfall": int(self.delete - done)})


class FoSR(Rewirer):
    """FoSR: add the edges of largest first-order spectral-gap increase (power iteration).

    ``x`` starts uniform in ``[−1, 1]`` (seeded) and takes ``num_power_iterations`` steps of
    ``x ← P x``, ``x ← (x + D^{-1/2} A D^{-1/2} x)/‖·‖`` where ``P`` projects out ``√d``.
    Each of the ``add`` steps then adds the non-edge ``(u, v)``, ``u ≠ v``, minimising
    ``y_u·y_v`` with ``y = x/√(d + 1)``, increments both degrees and takes one more power
    step on the new graph. The argmin is exact (for fixed ``u`` the product is linear in
    ``y_v``, so only the smallest and largest allowed ``y_v`` matter), and only the nodes
    ``u`` whose lower bound ``min(y_u·min y, y_u·max y)`` can still beat the best pair found
    are searched: a sort of ``y`` plus the degrees of a few nodes per edge in the usual
    case, ``O(N log N + E)`` at worst, instead of the official dense ``N × N`` outer
    product. Ties go to the smaller pair ``(u, v)`` (as the official row-major ``argmin``).
    The loop over edges is compiled with numba, as the official one, and performs the
    official floating-point operations in its order, so the edges equal the official ones
    (``benchmarks/comfy_vs_official.py``).

    Decisions: the graph is read unweighted, input self-loops count in ``A`` and ``d`` (as
    in the official code); nodes of degree 0 get ``D^{-1/2} = 0`` (the official code
    divides by zero); the node count is ``data.num_nodes`` (the official code uses the
    largest node id in ``edge_index``). Added edges get weight 1 on weighted graphs.

    Args:
        add: number of edges to add.
        num_power_iterations: power steps before the first edge (official default 5).
        seed: seed of the initial vector.
    """

    name = "fosr"
    examples = (
        Example(params=dict(add=3, seed=1)),
        Example(params=dict(add=2, num_power_iterations=0, seed=0)),
    )

    #: The ComFy paper's budget grid (it compares FoSR on the same budgets).
    search_space = {"add": COMFY_BUDGETS}

    def __init__(self, add: int = 0, num_power_iterations: int = 5, seed: int = 0) -> None:
        super().__init__()
        self.add = check_budget("add", add)
        if (
            isinstance(num_power_iterations, bool)
            or not isinstance(num_power_iterations, (int, np.integer))
            or num_power_iterations < 0
        ):
            raise RewireError(
                "num_power_iterations must be a non-negative integer, got "
                f"{num_power_iterations!r}."
            )
        self.num_power_iterations = int(num_power_iterations)
        self.seed = check_seed(seed)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, add=self.add)
        x = 2.0 * np.random.default_rng(self.seed).random(edges.num_nodes) - 1.0
        indptr, indices, _ = symmetric_csr(edges)  # ascending rows: the official sum order
        added_u, added_v = _fosr_edges(indptr, indices, x, self.add, self.num_power_iterations)
        new = apply_edits(edges, np.zeros(0, dtype=np.int64), added_u, added_v)
        return RewireOutput(new)


# -- FoSR's loop, compiled: tens of microseconds per edge, where numpy calls cost hundreds --
@numba.njit(cache=True)
def _fosr_edges(
    indptr: np.ndarray, indices: np.ndarray, x: np.ndarray, add: int, power_iterations: int
) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """FoSR's edges, in order, for the graph ``indptr``/``indices`` (CSR, both directions,
    self-loops once) from the start vector ``x``: ``power_iterations`` power steps, then
    ``add`` times the best non-edge followed by one power step on the grown graph. Added
    edges are kept as first-in-first-out lists (``head``/``link``/``other``) next to the
    CSR arrays."""
    n = x.size
    deg = (indptr[1:] - indptr[:-1]).astype(np.float64)
    head = np.full(n, -1, dtype=np.int64)
    tail = np.full(n, -1, dtype=np.int64)
    link = np.full(2 * add, -1, dtype=np.int64)
    other = np.empty(2 * add, dtype=np.int64)
    mark = np.zeros(n, dtype=np.bool_)
    added_u = np.empty(add, dtype=np.int64)
    added_v = np.empty(add, dtype=np.int64)
    root, root_plus_one = deg**0.5, (deg + 1.0) ** 0.5  # updated entrywise below
    for _ in range(power_iterations):
        x = _power_step(x, indptr, indices, deg, root, head, link, other)
    for k in range(add):
        u, v = _min_product_pair(x / root_plus_one, indptr, indices, head, link, other, mark)
        added_u[k], added_v[k] = u, v
        for slot, a, b in ((2 * k, u, v), (2 * k + 1, v, u)):
            other[slot] = b
            if head[a] < 0:
                head[a] = slot
            else:
                link[tail[a]] = slot
            tail[a] = slot
        for node in (u, v):
            deg[node] += 1.0
            root[node], root_plus_one[node] = deg[node] ** 0.5, (deg[node] + 1.0) ** 0.5
        x = _power_step(x, indptr, indices, deg, root, head, link, other)
    return added_u, added_v


@numba.njit(cache=True)
def _power_step(
    x: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    deg: np.ndarray,
    root: np.ndarray,
    head: np.ndarray,
    link: np.ndarray,
    other: np.ndarray,
) -> np.ndarray:  # pragma: no cover
    """``x ← x − (x·√d)√d/Σd``, then ``x ← (x + D^{-1/2}(A + added)D^{-1/2} x)/‖·‖``
    (``root = d ** 0.5``), with the official code's floating-point operations in its order
    (neighbours in edge order, added edges last); nodes of degree 0 get ``D^{-1/2} = 0``
    where it divides by zero."""
    n = x.size
    total = 0.0
    for d in deg:
        total += d
    if total > 0:
        x = x - x.dot(root) * root / total
    z = np.zeros(n)
    for i in range(n):
        if root[i] > 0:
            z[i] = x[i] / root[i]
    y = x.copy()
    for i in range(n):
        if root[i] > 0:
            acc = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                acc += z[indices[p]]
            slot = head[i]
            while slot >= 0:
                acc += z[other[slot]]
                slot = link[slot]
            y[i] = x[i] + acc / root[i]
    norm = np.linalg.norm(y)
    return y / norm if norm > 0 else y


@numba.njit(cache=True)
def _min_product_pair(
    y: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    head: np.ndarray,
    link: np.ndarray,
    other: np.ndarray,
    mark: np.ndarray,
) -> tuple[int, int]:  # pragma: no cover
    """The non-edge ``(u, v)``, ``u < v``, minimising ``y_u·y_v``; ties to the smallest pair.

    For a fixed ``u`` the product is linear in ``y_v``, so the best partner is the first
    node that is neither ``u`` nor a neighbour of ``u`` in the order of ``y`` ascending or
    descending (ties by id: the smallest partner, hence the smallest pair); it lies within
    the first ``deg(u) + 2`` positions, so only prefixes of the two orders are sorted.
    Owners whose bound ``min(y_u·min y, y_u·max y)`` exceeds the best product found are
    skipped; the owner of the smallest bound goes first. ``mark`` is an all-false scratch
    array.
    """
    n = y.size
    length = min(n, 32)
    up, down = _order_prefix(y, length), _order_prefix(-y, length)
    low, high = y[up[0]], y[down[0]]
    first = 0
    for u in range(1, n):
        if min(y[u] * low, y[u] * high) < min(y[first] * low, y[first] * high):
            first = u
    best, best_u, best_v = np.inf, n, n
    for step in range(n):
        u = first if step == 0 else (step - 1 if step - 1 < first else step)
        if min(y[u] * low, y[u] * high) > best:
            continue
        need = min(n, _mark_neighbours(u, indptr, indices, head, link, other, mark, True) + 1)
        if need > min(up.size, down.size):
            length = max(need, min(n, 2 * length))
            up, down = _order_prefix(y, length), _order_prefix(-y, length)
        for order in (up, down):
            for v in order:
                if mark[v]:
                    continue
                score = y[u] * y[v]
                a, b = min(u, v), max(u, v)
                if score < best or (score == best and (a < best_u or (a == best_u and b < best_v))):
                    best, best_u, best_v = score, a, b
                break
        _mark_neighbours(u, indptr, indices, head, link, other, mark, False)
    return best_u, best_v


@numba.njit(cache=True)
def _order_prefix(values: np.ndarray, length: int) -> np.ndarray:  # pragma: no cover
    """At least the first ``length`` node ids of the order of ``values`` ascending, ties by
    id: every node whose value is at most the ``length``-th smallest, sorted stably."""
    if length >= values.size:
        return np.argsort(values, kind="mergesort")
    cut = np.partition(values, length - 1)[length - 1]
    ids = np.flatnonzero(values <= cut)
    return ids[np.argsort(values[ids], kind="mergesort")]


@numba.njit(cache=True)
def _mark_neighbours(
    u: int,
    indptr: np.ndarray,
    indices: np.ndarray,
    head: np.ndarray,
    link: np.ndarray,
    other: np.ndarray,
    mark: np.ndarray,
    value: bool,
) -> int:  # pragma: no cover
    """Set ``mark`` to ``value`` at ``u`` and at its neighbours (CSR and added edges); return
    how many entries that visited (at least the number of nodes marked)."""
    mark[u] = value
    count = 1
    for p in range(indptr[u], indptr[u + 1]):
        mark[indices[p]] = value
        count += 1
    slot = head[u]
    while slot >= 0:
        mark[other[slot]] = value
        slot = link[slot]
        count += 1
    return count


__all__ = ["ProxyAdd", "ProxyDelete", "FoSR", "proxy_gap_change"]
