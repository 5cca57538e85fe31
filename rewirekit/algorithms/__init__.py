from rewirekit.algorithms.ollivier_ricci import *  # noqa: F403
