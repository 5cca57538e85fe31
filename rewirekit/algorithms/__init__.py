"""Graph algorithms with references: pure functions on edge lists, no Data, no Rewirer."""

from rewirekit.algorithms.balanced_forman import balanced_forman

__all__ = ["balanced_forman"]
