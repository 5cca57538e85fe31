"""Feature-similarity rewiring: FeaSt and ComFy.

Paper: Rubio-Madrigal, Jamadandi, Burkholz, "GNNs Getting ComFy: Community and Feature
Similarity Guided Rewiring", ICLR 2025, https://openreview.net/forum?id=g6v09VxgFw.

Both methods score a pair by the cosine similarity of its feature rows. Adding a non-edge
of similarity ``s`` to an edge set ``E`` of mean similarity ``s̄`` changes the mean to
``(s̄|E| + s)/(|E| + 1)``; deleting an edge changes it to ``(s̄|E| − s)/(|E| − 1)``. Both
methods are one-shot (``s̄`` is not updated between edits), so the best additions are the
most similar non-edges with ``s > s̄`` and the best deletions the least similar edges with
``s < s̄``. The similarity top-k is computed block by block (never ``O(N²)`` memory); see
:mod:`rewirekit.linalg.similarity`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from torch_geometric.data import Data

from rewirekit.algorithms.communities import check_algorithm, detect_communities
from rewirekit.graph import EdgeSet, apply_edits
from rewirekit.linalg.similarity import (
    UnitRows,
    normalized_rows,
    pair_similarity,
    top_similar_pairs,
)
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.methods.comfy_faithful import faithful_edge_set, official_comfy_edits
from rewirekit.search_space import COMFY_BUDGETS
from rewirekit.validation import check_bool, check_budget, check_choice, check_feasible, check_seed

#: ``budget(total, size_i, size_j, sum_of_products) -> per-pair budgets`` (int64 arrays).
BudgetRule = Callable[[int, np.ndarray, np.ndarray, int], np.ndarray]


def similarity_rewire(
    edges: EdgeSet,
    xn: UnitRows,
    labels: np.ndarray,
    add: int,
    delete: int,
    rule: BudgetRule,
    refill: bool = False,
) -> tuple[EdgeSet, dict]:
    """Per community pair ``(i, j)``, ``i ≤ j``, that has edges: add the ``B⁺_ij`` most similar
    non-edges between ``C_i`` and ``C_j`` with similarity above the pair's mean edge
    similarity ``s̄_ij``, delete its ``B⁻_ij`` least similar edges below ``s̄_ij``.

    ``B_ij = rule(budget, |C_i|, |C_j|, Σ_{x≤y}|C_x||C_y|)``. With ``refill``, the slots a
    pair cannot fill (too few candidates pass its filter) go to the pairs that still have
    candidates, shared by the largest-remainder rule in proportion to ``|C_i||C_j|``, until
    the budget is spent or no candidates are left. Selections are concatenated in pair order
    ``(i, j)`` (best first inside a pair) and cut at the global budget. Ties in similarity go
    to the smaller pair ``(u, v)``. FeaSt is the case of one community.
    """
    n = edges.num_nodes
    num_comm = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=num_comm).astype(np.int64)
    total = int((int(sizes.sum()) ** 2 + int((sizes**2).sum())) // 2)
    members = np.argsort(labels, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    position = np.empty(n, dtype=np.int64)
    position[members] = np.arange(n) - offsets[labels[members]]

    src, dst = edges.src, edges.dst
    sim = pair_similarity(xn, src, dst)
    cu, cv = labels[src], labels[dst]
    ci, cj = np.minimum(cu, cv), np.maximum(cu, cv)
    groups, group_of, counts = np.unique(
        ci * num_comm + cj, return_inverse=True, return_counts=True
    )
    group_of = group_of.reshape(-1)
    sums = np.bincount(group_of, weights=sim.astype(np.float64), minlength=groups.size)
    mean = sums / np.maximum(counts, 1)
    gi, gj = groups // num_comm, groups % num_comm
    b_add = rule(add, sizes[gi], sizes[gj], total)
    b_del = rule(delete, sizes[gi], sizes[gj], total)

    # -- additions: one blocked top-k per community pair with a budget --------------------
    by_group = np.argsort(group_of, kind="stable")
    bounds = np.searchsorted(group_of[by_group], np.arange(groups.size + 1))
    row_first = cu == ci  # the edge's src lies in the row community
    chosen: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def top_additions(g: int, count: int) -> int:
        """Select the ``count`` best additions of pair ``g``; return how many exist."""
        if count == 0 or (g in chosen and chosen[g][0].size >= count):
            return min(count, chosen[g][0].size) if g in chosen else 0
        rows = members[offsets[gi[g]] : offsets[gi[g] + 1]]
        cols = members[offsets[gj[g]] : offsets[gj[g] + 1]]
        mine = by_group[bounds[g] : bounds[g + 1]]
        ex_row = np.where(row_first[mine], position[src[mine]], position[dst[mine]])
        ex_col = np.where(row_first[mine], position[dst[mine]], position[src[mine]])
        u, v, _ = top_similar_pairs(
            xn,
            rows,
            cols,
            count,
            above=float(mean[g]),
            exclude_row=ex_row,
            exclude_col=ex_col,
            triangle=bool(gi[g] == gj[g]),
        )
        chosen[g] = (u, v)
        return int(u.size)

    def filled(alloc: np.ndarray) -> np.ndarray:  # loop over community pairs, vectorised inside
        return np.array([top_additions(g, int(b)) for g, b in enumerate(alloc)], dtype=np.int64)

    weights = sizes[gi] * sizes[gj]
    got_add = _spend(add, b_add, filled, weights) if refill else filled(b_add)
    add_u = np.concatenate(
        [np.zeros(0, np.int64)] + [chosen[g][0][: got_add[g]] for g in sorted(chosen)]
    )
    add_v = np.concatenate(
        [np.zeros(0, np.int64)] + [chosen[g][1][: got_add[g]] for g in sorted(chosen)]
    )
    add_u, add_v = add_u[:add], add_v[:add]

    # -- deletions: least similar edges below their pair's mean, B⁻ per pair ---------------
    below = np.flatnonzero(sim < mean[group_of])
    capacity = np.bincount(group_of[below], minlength=groups.size)
    if refill:
        b_del = _spend(delete, b_del, lambda alloc: np.minimum(alloc, capacity), weights)
    order = below[np.lexsort((edges.keys[below], sim[below], group_of[below]))]
    first = np.searchsorted(group_of[order], group_of[order], side="left")
    rank = np.arange(order.size) - first
    removed = order[rank < b_del[group_of[order]]][:delete]

    extra: dict[str, int | float | None] = {
        "num_communities": num_comm,
        "community_pairs_with_edges": int(groups.size),
        "add_allocated": int(min(b_add.sum(), add)),
        "delete_allocated": int(min(b_del.sum(), delete)),
        "add_shortfall": int(add - add_u.size),
        "delete_shortfall": int(delete - removed.size),
    }
    if num_comm == 1:
        extra["mean_similarity"] = float(mean[0]) if groups.size else None
    return apply_edits(edges, removed, add_u, add_v), extra


def _whole_budget(budget: int, size_i: np.ndarray, size_j: np.ndarray, total: int) -> np.ndarray:
    return np.full(size_i.shape, budget, dtype=np.int64)


def _proportional(rounding: str) -> BudgetRule:
    def rule(budget: int, size_i: np.ndarray, size_j: np.ndarray, total: int) -> np.ndarray:
        share = budget * size_i * size_j  # exact integers: B = share / total, rounded
        if rounding == "floor":
            return share // total
        if rounding == "round":
            return (2 * share + total) // (2 * total)  # round half up
        return largest_remainder(budget, size_i * size_j)  # over the pairs that have edges

    return rule


def largest_remainder(budget: int, weights: np.ndarray) -> np.ndarray:
    """Integers proportional to ``weights`` that sum to exactly ``budget`` (Hamilton's method:
    floors first, then one more to the largest remainders, ties to the earlier entry)."""
    weights = weights.astype(np.int64)
    total = int(weights.sum())
    if budget == 0 or total == 0:
        return np.zeros(weights.size, dtype=np.int64)
    share = budget * weights
    base, rest = share // total, share % total
    leftover = budget - int(base.sum())
    base[np.lexsort((np.arange(rest.size), -rest))[:leftover]] += 1
    return base


def _spend(
    budget: int,
    alloc: np.ndarray,
    filled: Callable[[np.ndarray], np.ndarray],
    weights: np.ndarray,
) -> np.ndarray:
    """Per-pair counts that spend ``budget``: ``filled(alloc)`` says how much of ``alloc``
    each pair can take; what the pairs cannot take is shared again, by
    :func:`largest_remainder` over the pairs that have never taken less than they were given,
    until the budget is spent or every pair is out of candidates."""
    got = filled(alloc)
    exhausted = weights <= 0
    while True:
        exhausted |= got < alloc  # a pair that took less than it was given has no more
        short = budget - int(got.sum())
        if short <= 0 or exhausted.all():
            return got
        alloc = got + largest_remainder(short, np.where(exhausted, 0, weights))
        got = filled(alloc)


class FeaSt(Rewirer):
    """FeaSt: add the most feature-similar non-edges and delete the least similar edges.

    With ``sim(u, v)`` the cosine similarity of the feature rows and ``s̄`` the mean
    similarity over the input's edges, FeaSt adds the ``add`` non-edges of largest
    similarity among those with ``sim > s̄`` and deletes the ``delete`` edges of smallest
    similarity among those with ``sim < s̄`` (the one-shot greedy of the paper's scores
    ``(s̄|E| ± sim)/(|E| ± 1)``). Both are chosen on the input graph.

    Decisions: pairs are unordered and self-pairs never candidates; feature rows of norm 0
    have similarity 0 with everything; ties go to the smaller pair ``(u, v)``; self-loops
    of the input are kept and not part of ``s̄`` (the official code averages over them too);
    the filters are strict (the official FeaSt code keeps ties with ``s̄``). If fewer pairs
    pass the filter than the budget, fewer edits are made and ``extra["add_shortfall"]`` /
    ``extra["delete_shortfall"]`` say how many; budgets beyond the number of non-edges /
    edges raise :class:`RewireError`. A graph without edges has no ``s̄``: nothing changes.
    Cost: ``O(N² F)`` time in blocks (``O(N · nnz(X))`` for sparse features such as
    bag-of-words), ``O(block + add)`` memory (official: a Python loop over all ``O(N²)``
    non-edges).

    Args:
        add: number of edges to add.
        delete: number of edges to delete.
    """

    name = "feast"
    needs_features = True
    examples = (
        Example(params=dict(add=3, delete=2), raises_on={"edgeless": "no edge to delete"}),
        Example(params=dict(add=0, delete=1), raises_on={"edgeless": "no edge to delete"}),
        Example(params=dict(add=2, delete=0)),
    )

    #: The ComFy paper's budget grid (its code's Planetoid grid, Rubio-Madrigal et al., 2025).
    search_space = {"add": COMFY_BUDGETS, "delete": COMFY_BUDGETS}

    def __init__(self, add: int = 0, delete: int = 0) -> None:
        super().__init__()
        self.add = check_budget("add", add)
        self.delete = check_budget("delete", delete)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, self.add, self.delete)
        labels = np.zeros(edges.num_nodes, dtype=np.int64)
        new, extra = similarity_rewire(
            edges, normalized_rows(data.x), labels, self.add, self.delete, _whole_budget
        )
        for key in (
            "num_communities",
            "community_pairs_with_edges",
            "add_allocated",
            "delete_allocated",
        ):
            extra.pop(key)
        return RewireOutput(new, extra=extra)


class ComFy(Rewirer):
    """ComFy: FeaSt inside every pair of communities, with budgets by block size.

    Communities ``C_1..C_K`` are modularity communities of the input, seeded with ``seed``:
    Leiden by default, Louvain as in the paper with ``communities="louvain"`` (see
    :func:`rewirekit.algorithms.detect_communities`). For each community pair
    ``i ≤ j`` (``i = j`` included) with at least one edge, ``E_ij`` are its edges and
    ``s̄_ij`` their mean cosine similarity; ComFy adds the ``B⁺_ij`` most similar non-edges
    of ``C_i × C_j`` with ``sim > s̄_ij`` and deletes the ``B⁻_ij`` least similar edges of
    ``E_ij`` with ``sim < s̄_ij``, with ``B_ij ∝ |C_i||C_j|`` for the budget ``N`` (``add``
    or ``delete``).

    Budgets: by default (``rounding="largest_remainder"``) the ``B_ij`` are the
    largest-remainder rounding of ``N·|C_i||C_j| / Σ|C_x||C_y|`` over the pairs that have
    edges, so they sum to exactly ``N``; slots that a pair cannot fill (too few candidates
    pass its filter) go to the pairs that still have candidates, in the same proportion.
    Fewer than ``N`` edits are made only when candidates run out everywhere; the report
    says so (``rewire_report.edits_asked`` against ``edits_made``, and
    ``extra["*_shortfall"]``). ``rounding="round"`` (half up, the paper's formula) and
    ``"floor"`` (the official code's) keep the rounded ``B_ij`` as they are; with many
    communities most of them are 0 and little of ``N`` is spent.

    ``faithful=True`` runs the official selection instead (RelationalML/ComFy,
    ``Comm+Sim/comsim.py``; see :mod:`rewirekit.methods.comfy_faithful`): floored float
    budgets, ``ranking[-0:]`` taking a whole pair's ranking worst first when its budget is
    0, both orientations ranked inside a community (one slot lost per duplicate), self-loops
    added, float32 scores with ties to the larger ``(u, v)``. It needs ``O(N²)`` memory and
    ignores ``rounding``. Use it to run what the paper ran.

    The clean selection (``faithful=False``) takes pairs in order ``(i, j)``, best first
    inside a pair; no self-pairs are candidates; each unordered pair is ranked once; as in
    :class:`FeaSt`: strict filters, zero-norm rows have similarity 0, ties to the smaller
    pair, budgets beyond the number of non-edges / edges raise :class:`RewireError`.

    Args:
        add: number of edges to add (``N`` for additions).
        delete: number of edges to delete (``N`` for deletions).
        seed: seed of the community detection.
        rounding: ``"largest_remainder"`` (spend exactly the budget), ``"round"`` (half up)
            or ``"floor"`` for the per-pair budgets.
        communities: ``"leiden"`` or ``"louvain"``; see
            :func:`~rewirekit.algorithms.detect_communities`.
        faithful: run the official code's selection (see above).
    """

    name = "comfy"
    needs_features = True
    examples = (
        Example(params=dict(add=4, delete=3, seed=0), raises_on={"edgeless": "no edge to delete"}),
        Example(
            params=dict(add=5, delete=2, seed=1, rounding="floor"),
            raises_on={"edgeless": "no edge to delete"},
        ),
        Example(
            params=dict(add=3, delete=3, seed=2, rounding="round"),
            raises_on={"edgeless": "no edge to delete"},
        ),
        Example(
            params=dict(add=3, delete=2, seed=0, faithful=True),
            raises_on={"edgeless": "no edge to delete"},
        ),
    )

    #: The ComFy paper's budget grid (its code's Planetoid grid, Rubio-Madrigal et al., 2025).
    search_space = {"add": COMFY_BUDGETS, "delete": COMFY_BUDGETS}

    def __init__(
        self,
        add: int = 0,
        delete: int = 0,
        seed: int = 0,
        rounding: str = "largest_remainder",
        communities: str = "leiden",
        faithful: bool = False,
    ) -> None:
        super().__init__()
        self.add = check_budget("add", add)
        self.delete = check_budget("delete", delete)
        self.seed = check_seed(seed)
        self.rounding = check_choice("rounding", rounding, ("largest_remainder", "round", "floor"))
        self.communities = check_algorithm(communities)
        self.faithful = check_bool("faithful", faithful)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, self.add, self.delete)
        labels = detect_communities(edges, seed=self.seed, algorithm=self.communities)
        if self.faithful:
            added, removed = official_comfy_edits(
                data.x, data.edge_index, labels, self.add, self.delete
            )
            extra = {
                "num_communities": int(labels.max()) + 1,
                "self_loops_added": int((added[:, 0] == added[:, 1]).sum()),
            }
            return RewireOutput(faithful_edge_set(edges, added, removed), extra=extra)
        new, extra = similarity_rewire(
            edges,
            normalized_rows(data.x),
            labels,
            self.add,
            self.delete,
            _proportional(self.rounding),
            refill=self.rounding == "largest_remainder",
        )
        return RewireOutput(new, extra=extra)


__all__ = ["FeaSt", "ComFy", "similarity_rewire", "largest_remainder"]
