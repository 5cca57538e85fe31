"""Graph algorithms as pure functions (NetworkX style): edge sets or arrays in, arrays out.

No ``Data`` and no :class:`~rewirekit.methods.Rewirer` here: methods call these. Each
module's main functions are re-exported below, one line per module.
"""

from rewirekit.algorithms.balanced_forman import balanced_forman as balanced_forman
from rewirekit.algorithms.communities import detect_communities as detect_communities
from rewirekit.algorithms.connectivity import removable_in_order as removable_in_order
from rewirekit.algorithms.ollivier_ricci import Measures as Measures
from rewirekit.algorithms.ollivier_ricci import edge_wasserstein as edge_wasserstein
from rewirekit.algorithms.ollivier_ricci import neighbour_measures as neighbour_measures
from rewirekit.algorithms.ollivier_ricci import ollivier_ricci as ollivier_ricci
from rewirekit.algorithms.sampling import sample_non_edges as sample_non_edges
from rewirekit.algorithms.spectral import fiedler_pair as fiedler_pair
