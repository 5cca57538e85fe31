"""Community-structure rewiring (ComMa).

Paper: Rubio-Madrigal, Jamadandi, Burkholz, "GNNs Getting ComFy: Community and Feature
Similarity Guided Rewiring", ICLR 2025, https://openreview.net/forum?id=g6v09VxgFw.
"""

from __future__ import annotations

import numpy as np
from torch_geometric.data import Data

from rewirekit.algorithms.communities import check_algorithm, detect_communities
from rewirekit.algorithms.connectivity import removable_in_order
from rewirekit.algorithms.sampling import sample_non_edges
from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet, apply_edits
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.methods.comfy_faithful import faithful_edge_set
from rewirekit.methods.comma_faithful import official_comma_edits
from rewirekit.search_space import COMFY_BUDGETS, Choice
from rewirekit.validation import check_bool, check_budget, check_seed


class ComMa(Rewirer):
    """ComMa: random rewiring that strengthens or weakens the graph's community structure.

    Communities are modularity communities of the input (Leiden by default, Louvain as in
    the paper with ``communities="louvain"``; see
    :func:`~rewirekit.algorithms.detect_communities`, seeded with ``seed``). With
    ``mode="higher"`` (HigherComMa) ``add`` random non-edges *inside* communities are added
    and ``delete`` random edges *between* communities are deleted; ``mode="lower"``
    (LowerComMa) does the opposite (add between, delete inside).

    Decisions (paper: Rubio-Madrigal et al., ICLR 2025):

    * Added pairs are drawn uniformly among all eligible non-edges, so each community
      block receives edges in proportion to its number of free pairs (the paper splits the
      budget by block size; the official code instead picks a community uniformly and so
      over-fills small communities).
    * Deletions never increase the number of connected components: eligible edges are
      visited in a uniformly random order and one is skipped when its removal would split
      a component (the official code tests connectivity on a prefix of the edge list, not
      on the edges it removes). If the budget cannot be met this way, fewer edges are
      deleted and ``extra["delete_shortfall"]`` says how many.
    * Budgets larger than the number of eligible pairs raise :class:`RewireError`.

    ``faithful=True`` makes the official code's edits instead (RelationalML/ComFy,
    ``CommunityRewiring/methods.py``; see :mod:`rewirekit.methods.comma_faithful`): Python's
    ``random`` stream, a community drawn uniformly for each added pair, at most ``10·add``
    draws, and deletions sampled from all eligible edges but capped by the longest prefix of
    them whose removal keeps the graph connected. It can make fewer edits than asked; the
    report says so. Use it to run what the paper ran.

    Args:
        mode: ``"higher"`` or ``"lower"``.
        add: number of edges to add.
        delete: number of edges to delete.
        seed: seed of the community detection and of the random draws.
        communities: ``"leiden"`` or ``"louvain"``; see
            :func:`~rewirekit.algorithms.detect_communities`.
        faithful: make the official code's edits (see above).
    """

    name = "comma"
    examples = (
        Example(
            params=dict(mode="higher", add=1, seed=1),
            raises_on=dict.fromkeys(
                ("tiny", "disconnected", "isolated_nodes", "edgeless"),
                "its communities are cliques or single nodes: no non-edge inside one",
            ),
        ),
        Example(
            params=dict(mode="higher", delete=1, seed=1),
            raises_on=dict.fromkeys(
                ("disconnected", "weighted", "with_self_loops_and_duplicates", "edgeless"),
                "no edge joins two of its communities",
            ),
        ),
        Example(
            params=dict(mode="lower", add=2, delete=2, seed=0),
            raises_on={"edgeless": "no edge to delete"},
        ),
        Example(params=dict(mode="lower", add=2, delete=1, seed=3, faithful=True)),
    )

    #: The ComFy paper's budget grid for ComMa (its code's Planetoid grid), both modes.
    search_space = {
        "mode": Choice(("higher", "lower")),
        "add": COMFY_BUDGETS,
        "delete": COMFY_BUDGETS,
    }

    def __init__(
        self,
        mode: str = "higher",
        add: int = 0,
        delete: int = 0,
        seed: int = 0,
        communities: str = "leiden",
        faithful: bool = False,
    ) -> None:
        super().__init__()
        if mode not in ("higher", "lower"):
            raise RewireError(f"mode must be 'higher' or 'lower', got {mode!r}.")
        self.mode = mode
        self.add = check_budget("add", add)
        self.delete = check_budget("delete", delete)
        self.seed = check_seed(seed)
        self.communities = check_algorithm(communities)
        self.faithful = check_bool("faithful", faithful)

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        labels = detect_communities(edges, seed=self.seed, algorithm=self.communities)
        if self.faithful:
            return self._official_edits(data, edges, labels)
        same = labels[edges.src] == labels[edges.dst]
        higher = self.mode == "higher"
        eligible = np.flatnonzero(~same if higher else same)
        where = "between communities" if higher else "inside communities"
        if self.delete > eligible.size:
            raise RewireError(
                f"cannot delete {self.delete} edges {where}: the graph has only "
                f"{eligible.size}; lower the delete budget."
            )
        rng = np.random.default_rng(self.seed)
        order = rng.permutation(eligible)
        removed = removable_in_order(edges, order)[: self.delete] if self.delete else order[:0]
        add_src, add_dst = sample_non_edges(edges, self.add, rng, communities=labels, inside=higher)
        extra = {
            "num_communities": int(labels.max()) + 1 if labels.size else 0,
            "delete_shortfall": int(self.delete - removed.size),
        }
        return RewireOutput(apply_edits(edges, removed, add_src, add_dst), extra=extra)

    def _official_edits(self, data: Data, edges: EdgeSet, labels: np.ndarray) -> RewireOutput:
        num_communities = int(labels.max()) + 1 if labels.size else 0
        if self.mode == "lower" and self.add and num_communities < 2:
            raise RewireError(
                f"cannot add edges between communities: the graph has {num_communities}."
            )
        added, removed = official_comma_edits(
            data.edge_index, edges.num_nodes, labels, self.mode, self.add, self.delete, self.seed
        )
        extra = {"num_communities": num_communities}
        return RewireOutput(faithful_edge_set(edges, added, removed), extra=extra)


__all__ = ["ComMa"]
