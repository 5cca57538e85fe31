"""Uniform sampling of non-edges, optionally restricted by a node partition.

Random rewiring (the control of every rewiring paper) and ComMa (Rubio-Madrigal, Jamadandi,
Burkholz, "GNNs Getting ComFy", ICLR 2025) add edges drawn uniformly among the pairs that
are not edges: all of them, or only those inside (or between) communities.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet, canonical_pairs, sorted_contains

#: Candidate pair sets up to this size are enumerated; larger ones are rejection-sampled.
ENUMERATE_BELOW = 4_000_000


def sample_non_edges(
    edges: EdgeSet,
    count: int,
    rng: np.random.Generator,
    communities: np.ndarray | None = None,
    inside: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``count`` distinct non-edges of ``edges`` uniformly at random, without self-pairs.

    With ``communities`` (one label per node), only pairs whose endpoints share a label
    (``inside=True``) or have different labels (``inside=False``) are eligible. Pairs are
    canonical (``u < v``) on undirected graphs and ordered on directed ones.

    Two regimes, both exactly uniform over the eligible non-edges:

    * at most :data:`ENUMERATE_BELOW` eligible pairs, or a budget of more than a quarter of
      the eligible non-edges: the eligible non-edges are enumerated in a fixed order and
      ``count`` of them drawn without replacement;
    * otherwise rejection sampling with ``O(count)`` memory: draw node pairs uniformly
      among eligible pairs (two uniform nodes; inside communities, a community with
      probability proportional to its number of pairs, then two distinct members), reject
      edges, ineligible pairs and repeats, and redraw until ``count`` are found, about
      ``count · P / (P − |E_P|)`` draws for ``P`` eligible pairs of which ``|E_P|`` edges.

    Returns:
        ``(src, dst)``: int64 arrays of length ``count``.

    Raises:
        RewireError: fewer than ``count`` eligible non-edges exist (the message names the
            ``add`` budget).

    Example::

        >>> src, dst = sample_non_edges(edge_set(data), 10, np.random.default_rng(0))
    """
    n = edges.num_nodes
    if communities is None:
        eligible_pairs, existing = edges.max_pairs, edges.keys
        where = ""
    else:
        same = communities[edges.src] == communities[edges.dst]
        intra = _intra_pairs(communities, edges.directed)
        eligible_pairs = intra if inside else edges.max_pairs - intra
        existing = edges.keys[same if inside else ~same]
        where = " inside communities" if inside else " between communities"
    available = eligible_pairs - existing.size
    if count > available:
        raise RewireError(
            f"cannot add {count} edges{where}: the graph has only {available} non-edges{where}; "
            "lower the add budget."
        )
    if count == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    if eligible_pairs <= ENUMERATE_BELOW or available <= 4 * count:
        keys = _eligible_keys(n, edges.directed, communities, inside)
        candidates = np.setdiff1d(keys, existing, assume_unique=True)
        chosen = rng.choice(candidates, size=count, replace=False)
        return chosen // n, chosen % n
    draw = _pair_drawer(n, communities, inside, rng)
    chosen = np.zeros(0, dtype=np.int64)
    while chosen.size < count:
        src, dst = canonical_pairs(*draw(2 * (count - chosen.size) + 16), edges.directed)
        keys = src * n + dst
        keys = keys[~sorted_contains(existing, keys)]
        keys = np.concatenate([chosen, keys])
        _, first = np.unique(keys, return_index=True)
        chosen = keys[np.sort(first)][:count]
    return chosen // n, chosen % n


def _layout(communities: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes grouped by community (ids ascending inside), community sizes and offsets."""
    members = np.argsort(communities, kind="stable")
    sizes = np.bincount(communities, minlength=int(communities.max()) + 1)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return members, sizes, offsets


def _intra_pairs(communities: np.ndarray, directed: bool) -> int:
    """Number of non-loop pairs inside communities (ordered pairs if ``directed``)."""
    sizes = np.bincount(communities)
    pairs = int((sizes * (sizes - 1)).sum())
    return pairs if directed else pairs // 2


def _eligible_keys(
    n: int, directed: bool, communities: np.ndarray | None, inside: bool
) -> np.ndarray:
    """Keys ``u·n + v`` of every eligible non-loop pair: the pairs ``u < v`` in key order,
    followed on directed graphs by their reverses in the same order."""
    if communities is not None and inside:
        members, sizes, offsets = _layout(communities)
        position = np.arange(n)
        later = (offsets + sizes)[communities[members]] - position - 1  # members after each
        first = np.repeat(position, later)
        step = np.arange(first.size) - np.repeat(np.cumsum(later) - later, later)
        src, dst = members[first], members[first + 1 + step]  # src < dst: ids ascend inside
        order = np.argsort(src * n + dst)
        src, dst = src[order], dst[order]
    else:
        src, dst = np.triu_indices(n, k=1)
        if communities is not None:
            keep = communities[src] != communities[dst]
            src, dst = src[keep], dst[keep]
    if directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    return src.astype(np.int64) * n + dst


def _pair_drawer(
    n: int, communities: np.ndarray | None, inside: bool, rng: np.random.Generator
) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    """``draw(m)``: up to ``m`` ordered pairs of distinct nodes, uniform over the eligible
    pairs. Inside communities: a community with probability proportional to its number of
    pairs, then two distinct members; otherwise two uniform nodes, ineligible pairs dropped."""
    if communities is None or not inside:

        def draw_any(m: int) -> tuple[np.ndarray, np.ndarray]:
            u, v = rng.integers(0, n, m), rng.integers(0, n, m)
            ok = u != v if communities is None else communities[u] != communities[v]
            return u[ok], v[ok]

        return draw_any
    members, sizes, offsets = _layout(communities)
    pairs = sizes * (sizes - 1)
    prob = pairs / pairs.sum()

    def draw_inside(m: int) -> tuple[np.ndarray, np.ndarray]:
        c = rng.choice(sizes.size, size=m, p=prob)
        a = rng.integers(0, sizes[c])
        b = (a + 1 + rng.integers(0, sizes[c] - 1)) % sizes[c]
        return members[offsets[c] + a], members[offsets[c] + b]

    return draw_inside
