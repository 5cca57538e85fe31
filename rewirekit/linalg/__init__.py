"""Shared numerics: truncated eigensolvers, sparse-plus-low-rank matrices, blocked top-k."""

from rewirekit.linalg.eigen import (
    block_krylov_ritz_pairs,
    dense_eigh,
    dense_svd,
    extreme_eigenpairs,
    largest_eigenpair,
    largest_magnitude_eigenpairs,
    top_singular_triplets,
)
from rewirekit.linalg.lowrank import SparsePlusLowRank
from rewirekit.linalg.symmetric import fill_lower_triangle, symmetric_rank_update
from rewirekit.linalg.threads import single_threaded_blas
from rewirekit.linalg.topk import blocked_select, select_block

__all__ = [
    "block_krylov_ritz_pairs",
    "dense_eigh",
    "dense_svd",
    "extreme_eigenpairs",
    "fill_lower_triangle",
    "largest_eigenpair",
    "largest_magnitude_eigenpairs",
    "single_threaded_blas",
    "symmetric_rank_update",
    "top_singular_triplets",
    "SparsePlusLowRank",
    "blocked_select",
    "select_block",
]
