"""Add your own method: a ``Rewirer`` subclass with a ``name`` is registered, callable by name,
composable as a PyG transform, and checked by ``rewirekit.testing.check_rewirer`` like the
built-in methods.

    python examples/custom_method.py [--small]

``HubPrune`` deletes the ``delete`` edges whose endpoints have the largest degree product
``d_u · d_v``, a crude guard against hubs dominating message passing. It is deterministic
(no random choice, so no ``seed``); ties go to the smaller pair ``(u, v)``.
"""

import sys

import numpy as np
from torch_geometric.data import Data

import rewirekit
from rewirekit.datasets import csbm
from rewirekit.graph import EdgeSet, apply_edits
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.testing import check_rewirer
from rewirekit.validation import check_budget, check_feasible


class HubPrune(Rewirer):
    """HubPrune: delete the ``delete`` edges of largest endpoint-degree product.

    With ``d`` the degrees of the input graph, the edges ``(u, v)`` of largest
    ``d_u · d_v`` are deleted, all chosen on the input (one shot). Cost: ``O(E log E)``.

    Args:
        delete: number of edges to delete.
    """

    name = "hub_prune"
    # parameters under which the conformance checks exercise the method
    examples = (Example(params={"delete": 2}, raises_on={"edgeless": "no edge to delete"}),)

    def __init__(self, delete: int = 0) -> None:
        super().__init__()
        self.delete = check_budget("delete", delete)  # hyperparameters only, validated

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        check_feasible(edges, delete=self.delete)
        degree = np.bincount(np.concatenate([edges.src, edges.dst]), minlength=edges.num_nodes)
        score = degree[edges.src] * degree[edges.dst]
        # edges are stored in key order, so a stable sort breaks ties by the smaller pair
        removed = np.argsort(-score, kind="stable")[: self.delete]
        none = np.zeros(0, dtype=np.int64)
        return RewireOutput(apply_edits(edges, removed, none, none))


num_nodes = 300 if "--small" in sys.argv else 2000
data = csbm(num_nodes=num_nodes, num_features=num_nodes // 2, phi=0.5, seed=0)

print("registered:", "hub_prune" in rewirekit.list_methods())
out = rewirekit.rewire(data, "hub_prune", delete=25)
print(out.rewire_report)

# The conformance suite checks every rule of the contract on small graphs, with the defaults
# and with each declared example; it raises AssertionError listing the rules broken.
check_rewirer(HubPrune)
print("check_rewirer(HubPrune): every contract check passed")
