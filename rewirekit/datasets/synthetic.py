"""Synthetic node-classification graphs: the contextual SBM and an SBM with label alignment.

Both generators draw edges block by block in ``O(E)`` time and memory, never ``O(N²)``:
for a block of ``M`` candidate node pairs that are edges independently with probability
``p``, the edge count is drawn as ``m ~ Binomial(M, p)`` and then ``m`` distinct pairs are
drawn uniformly without replacement (Floyd's algorithm, which rejects repeats in a hash
set). Conditioned on ``m`` that is exactly a uniform ``m``-subset, so the result has the
law of independent coin flips per pair. Self-pairs are never candidates.

Every random choice comes from one ``numpy.random.Generator`` seeded by ``seed``.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

from rewirekit.errors import RewireError
from rewirekit.validation import check_int, check_seed

#: The 17 homophily angles of the JDR cSBM experiments: -1, -0.875, ..., 0.875, 1.
CSBM_PHI_GRID: tuple[float, ...] = tuple(k / 8 - 1 for k in range(17))


def csbm(
    num_nodes: int = 5000,
    num_features: int = 2000,
    avg_degree: float = 5.0,
    epsilon: float = 3.25,
    phi: float = 0.0,
    *,
    seed: int = 0,
) -> Data:
    r"""Two-class contextual stochastic block model (cSBM).

    The model of Deshpande et al., "Contextual Stochastic Block Models" (NeurIPS 2018),
    parameterised as in Chien et al. (GPRGNN, ICLR 2021) and Linkerhägner et al., "Joint
    Denoising of Features and Graph Structure" (JDR). With :math:`\gamma = N/F`:

    .. math::
        \lambda = \sqrt{1+\varepsilon}\,\sin(\phi\pi/2), \qquad
        \mu = \sqrt{\gamma(1+\varepsilon)}\,\cos(\phi\pi/2),

    nodes of the same class are linked with probability :math:`c_{in}/N`, of different
    classes with :math:`c_{out}/N`, where :math:`c_{in/out} = d \pm \sqrt{d}\,\lambda`, and
    features are :math:`x_i = \sqrt{\mu/N}\, s_i u + z_i/\sqrt{F}` with :math:`s_i = \pm 1`,
    :math:`u \sim \mathcal{N}(0, I/F)` and :math:`z_i \sim \mathcal{N}(0, I)`. The angle
    :math:`\phi` moves the signal from the features (:math:`\phi = 0`) to a homophilous
    (:math:`\phi = 1`) or heterophilous (:math:`\phi = -1`) graph; the expected edge
    homophily is about :math:`1/2 + \lambda / (2\sqrt{d})`.

    Classes are exactly balanced: ``num_nodes // 2`` nodes get class 0 (:math:`s=-1`), the
    rest class 1 (:math:`s=+1`), at positions drawn by a seeded random permutation. (The
    official JDR generator gives :math:`+1` to ``N/2 + 1`` nodes and sets no seed.)

    Args:
        num_nodes: :math:`N`. JDR uses 5000.
        num_features: :math:`F`. JDR uses 2000.
        avg_degree: expected mean degree :math:`d`. JDR uses 5.
        epsilon: signal strength :math:`\varepsilon`. JDR uses 3.25.
        phi: homophily angle in :math:`[-1, 1]`; see :data:`CSBM_PHI_GRID`.
        seed: seed of the ``numpy.random.Generator`` behind every random draw.

    Returns:
        ``Data`` with float32 ``x`` ``[N, F]``, int64 ``y`` in ``{0, 1}``, an undirected,
        coalesced int64 ``edge_index`` without self-loops, and the parameters as
        attributes ``phi``, ``epsilon``, ``avg_degree``, ``lam`` (:math:`\lambda`), ``mu``,
        ``seed`` and ``name = "csbm"``.

    Raises:
        RewireError: for out-of-range arguments, including parameters whose edge
            probabilities :math:`(d \pm \sqrt{d}\lambda)/N` leave :math:`[0, 1]`.
    """
    num_nodes = check_int("num_nodes", num_nodes, minimum=2)
    num_features = check_int("num_features", num_features, minimum=1)
    seed = check_seed(seed)
    if not avg_degree > 0:
        raise RewireError(f"csbm: avg_degree must be positive, got {avg_degree!r}.")
    if not epsilon >= -1:
        raise RewireError(
            f"csbm: epsilon must be at least -1 (sqrt(1 + epsilon) must exist), got {epsilon!r}."
        )
    if not -1 <= phi <= 1:
        raise RewireError(
            f"csbm: phi must lie in [-1, 1], got {phi!r}; pick it from "
            "CSBM_PHI_GRID or any value in between."
        )

    lam = math.sqrt(1 + epsilon) * math.sin(phi * math.pi / 2)
    mu = math.sqrt(num_nodes / num_features * (1 + epsilon)) * math.cos(phi * math.pi / 2)
    c_in = avg_degree + math.sqrt(avg_degree) * lam
    c_out = avg_degree - math.sqrt(avg_degree) * lam
    if min(c_in, c_out) < 0:
        raise RewireError(
            f"csbm: c_in = {c_in:.4g} and c_out = {c_out:.4g} (= d ± sqrt(d)·lambda) must both "
            f"be >= 0, but lambda = {lam:.4g} for epsilon={epsilon}, phi={phi}; raise avg_degree "
            f"to at least lambda² = {lam * lam:.4g}, or lower epsilon or |phi|."
        )
    if max(c_in, c_out) > num_nodes:
        raise RewireError(
            f"csbm: the edge probability max(c_in, c_out)/N = {max(c_in, c_out) / num_nodes:.4g} "
            f"exceeds 1; raise num_nodes or lower avg_degree."
        )

    rng = np.random.default_rng(seed)
    y = _balanced_labels(rng, num_nodes)
    edge_index = _sbm_edges(rng, y, np.array([[c_in, c_out], [c_out, c_in]]) / num_nodes)
    sign = (2 * y - 1).astype(np.float32)
    u = rng.normal(0.0, 1.0 / math.sqrt(num_features), num_features).astype(np.float32)
    x = rng.standard_normal((num_nodes, num_features), dtype=np.float32)
    x *= np.float32(1.0 / math.sqrt(num_features))
    x += np.float32(math.sqrt(mu / num_nodes)) * sign[:, None] * u[None, :]

    data = Data(x=torch.from_numpy(x), edge_index=edge_index, y=torch.from_numpy(y))
    data.phi, data.epsilon, data.avg_degree = float(phi), float(epsilon), float(avg_degree)
    data.lam, data.mu, data.seed, data.name = lam, mu, seed, "csbm"
    return data


_CSBM_KEY = re.compile(r"csbm\(n=(\d+),f=(\d+),phi=([+-]\d+\.\d+),seed=(\d+)\)")


def csbm_key(num_nodes: int, num_features: int, phi: float, seed: int) -> str:
    """The name benchmark rows of :func:`csbm` are stored under, e.g.
    ``csbm(n=1000,f=400,phi=+0.375,seed=0)`` (the other parameters at their defaults)."""
    return f"csbm(n={num_nodes},f={num_features},phi={phi:+.3f},seed={seed})"


def parse_csbm_key(key: str) -> dict[str, Any] | None:
    """The keyword arguments of :func:`csbm` behind a :func:`csbm_key`; ``None`` for any
    other name."""
    match = _CSBM_KEY.fullmatch(key)
    if match is None:
        return None
    n, f, phi, seed = match.groups()
    return dict(num_nodes=int(n), num_features=int(f), phi=float(phi), seed=int(seed))


def aligned_sbm(
    num_nodes: int = 1000,
    p: float = 0.05,
    q: float = 0.01,
    alignment: float = 1.0,
    num_features: int = 16,
    *,
    seed: int = 0,
) -> Data:
    r"""Two-block SBM whose labels agree with the blocks with probability ``alignment``.

    The feature/structure/label alignment model of the ComFy analysis (Rubio-Madrigal
    et al., "GNNs Getting ComFy: Community and Feature Similarity Guided Rewiring",
    ICLR 2025): nodes are split into two equal blocks, a pair inside a block is an edge
    with probability :math:`p`, across blocks with probability :math:`q`. Each label equals
    its node's block with probability :math:`\psi` = ``alignment`` and is flipped
    otherwise, independently. Features follow the labels: every coordinate is drawn from
    :math:`\mathcal{N}(-1, 1)` for class 0 and :math:`\mathcal{N}(+1, 1)` for class 1.

    Blocks are exactly balanced (``num_nodes // 2`` nodes in block 0) at positions drawn by
    a seeded random permutation.

    Args:
        num_nodes: number of nodes.
        p: intra-block edge probability.
        q: inter-block edge probability.
        alignment: probability :math:`\psi \in [0, 1]` that a label equals its block.
        num_features: feature dimension.
        seed: seed of the ``numpy.random.Generator`` behind every random draw.

    Returns:
        ``Data`` with float32 ``x``, int64 ``y``, int64 ``block``, an undirected coalesced
        int64 ``edge_index`` without self-loops, the parameters ``p``, ``q``,
        ``alignment``, ``seed`` and ``name = "aligned_sbm"``.
    """
    num_nodes = check_int("num_nodes", num_nodes, minimum=2)
    num_features = check_int("num_features", num_features, minimum=1)
    seed = check_seed(seed)
    for arg, value in (("p", p), ("q", q), ("alignment", alignment)):
        if not 0 <= value <= 1:
            raise RewireError(
                f"aligned_sbm: {arg} is a probability and must lie in [0, 1], got {value!r}."
            )

    rng = np.random.default_rng(seed)
    block = _balanced_labels(rng, num_nodes)
    edge_index = _sbm_edges(rng, block, np.array([[p, q], [q, p]]))
    y = block ^ (rng.random(num_nodes) >= alignment)
    x = rng.standard_normal((num_nodes, num_features), dtype=np.float32)
    x += (2 * y - 1).astype(np.float32)[:, None]

    data = Data(
        x=torch.from_numpy(x),
        edge_index=edge_index,
        y=torch.from_numpy(y),
        block=torch.from_numpy(block),
    )
    data.p, data.q, data.alignment, data.seed = float(p), float(q), float(alignment), seed
    data.name = "aligned_sbm"
    return data


def _balanced_labels(rng: np.random.Generator, num_nodes: int) -> np.ndarray:
    """Int64 labels with ``num_nodes // 2`` zeros and the rest ones, in random order."""
    labels = (np.arange(num_nodes) >= num_nodes // 2).astype(np.int64)
    return rng.permutation(labels)


def _sbm_edges(rng: np.random.Generator, block: np.ndarray, prob: np.ndarray) -> torch.Tensor:
    """Undirected SBM edges: each ``{i, j}``, ``i != j``, w.p. ``prob[block[i], block[j]]``."""
    members = [np.flatnonzero(block == b) for b in range(prob.shape[0])]
    src, dst = [], []
    for a in range(len(members)):
        for b in range(a, len(members)):
            i, j = _block_pairs(
                rng, members[a].size, members[b].size if b != a else None, prob[a, b]
            )
            src.append(members[a][i])
            dst.append(members[b][j])
    edge_index = torch.from_numpy(np.stack([np.concatenate(src), np.concatenate(dst)]))
    return to_undirected(edge_index, num_nodes=block.size)


def _block_pairs(
    rng: np.random.Generator, rows: int, cols: int | None, prob: float
) -> tuple[np.ndarray, np.ndarray]:
    """Local indices of the edges of one SBM block, each candidate pair kept w.p. ``prob``.

    ``cols=None`` means a diagonal block: the candidates are the ``rows(rows-1)/2``
    unordered pairs of distinct nodes. Otherwise they are all ``rows * cols`` pairs.
    """
    total = rows * (rows - 1) // 2 if cols is None else rows * cols
    keys = rng.choice(total, size=rng.binomial(total, prob), replace=False, shuffle=False)
    if cols is not None:
        return keys // cols, keys % cols
    return _unordered_pair(keys, rows)


def _unordered_pair(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bijection from ``[0, n(n-1)/2)`` to unordered pairs of distinct nodes of ``[0, n)``.

    Circulant enumeration: key ``k < n·h`` with ``h = (n-1) // 2`` is the pair
    ``(k // h, k // h + k % h + 1 mod n)``; for even ``n`` the remaining ``n/2`` keys are
    the antipodal pairs ``(r, r + n/2)``.
    """
    half = (n - 1) // 2
    regular = keys < n * half
    step = np.where(regular, keys % max(half, 1) + 1, n // 2)
    src = np.where(regular, keys // max(half, 1), keys - n * half)
    return src, (src + step) % n
