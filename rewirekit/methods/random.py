"""Random edge additions and deletions: the control every rewiring paper needs."""

from __future__ import annotations

import numpy as np
from torch_geometric.data import Data

from rewirekit.graph import EdgeSet, apply_edits, canonical_pairs, sorted_contains
from rewirekit.methods.base import RewireOutput, Rewirer
from rewirekit.validation import check_budget, check_feasible, check_seed

#: Below this many possible pairs, non-edges are enumerated instead of rejection-sampled.
_ENUMERATE_BELOW = 4_000_000


def sample_non_edges(
    edges: EdgeSet, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``count`` distinct non-edges uniformly at random, without self-loops.

    Small or dense graphs enumerate the complement; large sparse graphs draw node
    pairs uniformly and reject edges, self-pairs and repeats, which needs
    ``O(count)`` memory and about ``count · P / (P − |E|)`` draws for ``P`` possible pairs.
    Raises :class:`RewireError` if fewer than ``count`` non-edges exist.
    """
    n = edges.num_nodes
    check_feasible(edges, add=count)
    available = edges.max_pairs - edges.num_pairs
    existing = edges.keys
    if edges.max_pairs <= _ENUMERATE_BELOW or available <= 4 * count:
        src, dst = _all_pairs(n, edges.directed)
        candidates = np.setdiff1d(src * n + dst, existing, assume_unique=True)
        chosen = rng.choice(candidates, size=count, replace=False)
    else:
        chosen = np.empty(0, dtype=np.int64)
        while chosen.size < count:
            draws = 2 * (count - chosen.size) + 16
            src, dst = canonical_pairs(
                rng.integers(0, n, draws), rng.integers(0, n, draws), edges.directed
            )
            keys = (src * n + dst)[src != dst]
            keys = keys[~sorted_contains(existing, keys)]
            keys = np.concatenate([chosen, keys])
            _, first = np.unique(keys, return_index=True)
            chosen = keys[np.sort(first)][:count]
    return chosen // n, chosen % n


def _all_pairs(n: int, directed: bool) -> tuple[np.ndarray, np.ndarray]:
    src, dst = np.triu_indices(n, k=1)
    if directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    return src.astype(np.int64), dst.astype(np.int64)


class RandomRewirer(Rewirer):
    """Delete ``delete`` uniformly random edges and add ``add`` uniformly random non-edges.

    Both are drawn from the *input* graph: deleted edges are never re-added, added
    edges were absent before. Self-loops in the input are kept and never drawn.
    Added edges get weight 1 when the graph is weighted. Budgets count undirected
    pairs ``{u, v}`` on undirected graphs and ordered pairs on directed ones.

    Args:
        add: number of edges to add.
        delete: number of edges to delete.
        seed: seed of the random draws.
    """

    name = "random"
    supports_directed = True

    def __init__(self, add: int = 0, delete: int = 0, seed: int = 0) -> None:
        super().__init__()
        self.add = check_budget("add", add)
        self.delete = check_budget("delete", delete)
        self.seed = check_seed(seed)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, self.add, self.delete)
        rng = np.random.default_rng(self.seed)
        removed = rng.choice(edges.num_pairs, size=self.delete, replace=False)
        add_src, add_dst = sample_non_edges(edges, self.add, rng)
        return RewireOutput(apply_edits(edges, removed, add_src, add_dst))
