"""Random edge additions and deletions: the control every rewiring paper needs."""

from __future__ import annotations

import numpy as np
from torch_geometric.data import Data

from rewirekit.algorithms.sampling import sample_non_edges
from rewirekit.graph import EdgeSet, apply_edits
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.search_space import COMFY_BUDGETS
from rewirekit.validation import check_budget, check_feasible, check_seed


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
    examples = (
        Example(params=dict(add=2, delete=1, seed=3), raises_on={"edgeless": "no edge to delete"}),
        Example(params=dict(add=0, delete=2, seed=0), raises_on={"edgeless": "no edge to delete"}),
        Example(params=dict(add=3, delete=0, seed=1)),
    )

    #: Stated (a control has no paper of its own): the ComFy paper's budget grid, the same
    #: budgets as the methods it controls for.
    search_space = {"add": COMFY_BUDGETS, "delete": COMFY_BUDGETS}

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
