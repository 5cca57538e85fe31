"""Graph algorithms as pure functions (NetworkX style): edge sets or arrays in, arrays out.

No ``Data`` and no :class:`~rewirekit.methods.Rewirer` here: methods call these. Each
module's main functions are re-exported below, one line per module.
"""

from rewirekit.algorithms.balanced_forman import balanced_forman
from rewirekit.algorithms.communities import detect_communities
from rewirekit.algorithms.connectivity import removable_in_order
from rewirekit.algorithms.ollivier_ricci import (
    Measures,
    edge_wasserstein,
    neighbour_measures,
    ollivier_ricci,
)
from rewirekit.algorithms.sampling import sample_non_edges
from rewirekit.algorithms.spectral import fiedler_pair

__all__ = [
    "Measures",
    "balanced_forman",
    "detect_communities",
    "edge_wasserstein",
    "fiedler_pair",
    "neighbour_measures",
    "ollivier_ricci",
    "removable_in_order",
    "sample_non_edges",
]
