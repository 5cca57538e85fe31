"""Graph algorithms with references: pure functions on edge lists, no Data, no Rewirer."""

from rewirekit.algorithms.balanced_forman import *  # noqa: F403
from rewirekit.algorithms.ollivier_ricci import *  # noqa: F403
