"""The identity method: the no-rewiring baseline."""

from __future__ import annotations

from torch_geometric.data import Data

from rewirekit.graph import EdgeSet
from rewirekit.methods.base import RewireOutput, Rewirer


class Identity(Rewirer):
    """No rewiring: the baseline row of every table.

    Returns the input graph with duplicate edges merged and edges sorted; nothing else changes.
    """

    name = "none"
    supports_directed = True
    is_identity = True  # no examples: the conformance suite checks it changes nothing

    def __init__(self) -> None:
        super().__init__()

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        return RewireOutput(edges)
