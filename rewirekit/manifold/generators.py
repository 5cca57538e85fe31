"""Noisy samples of curves and surfaces with known structure, for ORC-ManL's evaluation.

The ten data sets of Saidi et al., "Recovering Manifold Structure Using Ollivier-Ricci
Curvature" (ICLR 2025), section 5 and appendix: 1-d manifolds in the plane (two circles,
two moons, an S-curve, a Cassini oval, three Gaussian blobs) and 2-d surfaces in space (two
linked tori, two nested hyperboloids, a paraboloid over a hyperboloid, two paraboloids, a
swiss roll). Each point is a clean sample plus truncated Gaussian noise: ``z ~ N(0, σ²I)``
redrawn until ``‖z‖ <= threshold``, with the paper's ``(σ, threshold)`` as defaults.

Clean samples follow the official generators' shapes and parameters (``data/data.py`` and
``data/manifold.py`` of TristanSaidi/orcml), re-implemented here on a seeded
:class:`numpy.random.Generator`; the random streams differ, so the samples do too.

Ground truth for the kNN edges (see :func:`rewirekit.manifold.labels.edge_labels`):

- data sets made of several pieces carry ``cluster`` ids; an edge is good iff both ends
  lie on the same piece;
- the connected ones (S-curve, Cassini oval, swiss roll) instead carry a noise-free
  ``supersample`` that contains every clean point (``supersample[subsample[i]]`` is point
  ``i`` before noise), whose kNN graph measures geodesic distance along the manifold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rewirekit.errors import RewireError
from rewirekit.validation import check_choice, check_int, check_seed


@dataclass(frozen=True)
class ManifoldSample:
    """A noisy point cloud and what is known about it.

    Attributes:
        name: the data set's name in :data:`MANIFOLDS`.
        points: ``[n, d]`` noisy points.
        cluster: ``[n]`` int piece ids, or ``None`` for a connected manifold.
        supersample: ``[N, d]`` noise-free dense sample containing the clean points, or
            ``None`` when ``cluster`` decides the labels.
        subsample: ``[n]`` row of each point in ``supersample``, or ``None``.
        label_scale: an edge ``{i, j}`` of a connected manifold is bad iff its geodesic
            exceeds ``label_scale`` times the longest kNN edge at ``i`` or ``j``.
    """

    name: str
    points: np.ndarray
    cluster: np.ndarray | None
    supersample: np.ndarray | None
    subsample: np.ndarray | None
    label_scale: float


@dataclass(frozen=True)
class _Spec:
    clean: Callable[[int, np.random.Generator], tuple[np.ndarray, np.ndarray | None]]
    noise: float
    threshold: float
    supersample_factor: float | None = None  # None: no supersample (cluster ids decide)
    label_scale: float = 10.0


# -- clean samples: (points, cluster ids or None) -----------------------------------
def _circles(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """Two concentric circles, radii 1 and 0.385, points evenly spaced on each."""
    outer = n // 2
    angles = np.r_[
        np.linspace(0, 2 * np.pi, outer, endpoint=False),
        np.linspace(0, 2 * np.pi, n - outer, endpoint=False),
    ]
    radius = np.r_[np.ones(outer), np.full(n - outer, 0.385)]
    points = radius[:, None] * np.c_[np.cos(angles), np.sin(angles)]
    return points, np.r_[np.zeros(outer), np.ones(n - outer)].astype(np.int64)


def _moons(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """Two interleaved half circles (scikit-learn's ``make_moons`` shape), evenly spaced."""
    upper = n // 2
    t_up, t_low = np.linspace(0, np.pi, upper), np.linspace(0, np.pi, n - upper)
    points = np.r_[np.c_[np.cos(t_up), np.sin(t_up)], np.c_[1 - np.cos(t_low), 0.5 - np.sin(t_low)]]
    return points, np.r_[np.zeros(upper), np.ones(n - upper)].astype(np.int64)


def _s_curve(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """The planar S: ``(sin t, sign(t)(cos t - 1))``, ``t ~ U(-3π/2, 3π/2)``."""
    t = 3 * np.pi * (rng.random(n) - 0.5)
    return np.c_[np.sin(t), np.sign(t) * (np.cos(t) - 1)], None


def _cassini(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """A Cassini oval ``r(θ)² = cos 2θ + sqrt(e⁴ - 1 + cos² 2θ)``, ``e = 1.01``, nearly
    pinched at the origin; ``θ`` uniform."""
    theta = 2 * np.pi * rng.random(n)
    c = np.cos(2 * theta)
    r = np.sqrt(c + np.sqrt(1.01**4 - 1 + c**2))
    return r[:, None] * np.c_[np.cos(theta), np.sin(theta)], None


def _gaussians(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """Three blob centres on a triangle; the (truncated) noise makes the blobs."""
    means = np.array([[-0.5, 0.0], [0.5, 0.0], [0.0, 0.86]])
    cluster = np.repeat(np.arange(3), n // 3)
    return means[cluster], cluster


def _torus(n: int, rng: np.random.Generator) -> np.ndarray:
    """Area-uniform torus, radii R = 5, r = 1.5 (θ by rejection, density ∝ R + r cos θ)."""
    big, small = 5.0, 1.5
    theta = _rejection(n, rng, lambda t: (1 + (small / big) * np.cos(t)) / 2, 0.0, 2 * np.pi)
    psi = 2 * np.pi * rng.random(n)
    ring = big + small * np.cos(theta)
    return np.c_[ring * np.cos(psi), ring * np.sin(psi), small * np.sin(theta)]


def _tori(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """Two linked tori: a random half turned by π/2 about the x axis and moved by R."""
    points = _torus(n, rng)
    cluster = np.zeros(n, dtype=np.int64)
    cluster[rng.choice(n, n // 2, replace=False)] = 1
    moved = cluster == 1
    x, y, z = points[moved].T
    points[moved] = np.c_[x + 5.0, z, -y]
    return points, cluster


def _hyperboloid(n: int, rng: np.random.Generator, a: float, c: float, bound: float) -> np.ndarray:
    """One-sheet hyperboloid ``(a cos θ √(u²+1), a sin θ √(u²+1), c u)``, area-uniform in
    ``u ∈ [-B, B]`` and kept for ``|u| <= B/2`` (the official sampler's ``within_halfB``)."""

    def area_density(u: np.ndarray) -> np.ndarray:
        return np.sqrt(a**4 * u**2 + a**2 * (u**2 + 1) * c**2)

    top = area_density(np.asarray(bound))
    u = _rejection(n, rng, lambda u: area_density(u) / top, -bound / 2, bound / 2)
    theta = 2 * np.pi * rng.random(n)
    radius = a * np.sqrt(u**2 + 1)
    return np.c_[radius * np.cos(theta), radius * np.sin(theta), c * u]


def _hyperboloids(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """Two coaxial hyperboloids (a = 2, c = 1, B = 2): a random half shrunk by 0.6 in x, y."""
    points = _hyperboloid(n, rng, a=2.0, c=1.0, bound=2.0)
    cluster = np.zeros(n, dtype=np.int64)
    cluster[rng.choice(n, n // 2, replace=False)] = 1
    points[cluster == 1, :2] *= 0.6
    return points, cluster


def _paraboloid(n: int, rng: np.random.Generator, r: float, z_max: float, lift: float):
    """``(ρ cos θ, ρ sin θ, z_max ρ² + lift)`` with ``ρ ~ U(0, r)`` (not area-uniform, as in
    the official sampler)."""
    rho, theta = r * rng.random(n), 2 * np.pi * rng.random(n)
    return np.c_[rho * np.cos(theta), rho * np.sin(theta), z_max * rho**2 + lift]


def _paraboloid_hyperboloid(n: int, rng: np.random.Generator):
    """A paraboloid cap (r = 2, z_max = .75, lifted 1.75) above a hyperboloid (a = .6,
    c = 1, B = 4) laid along the y axis."""
    half = n // 2
    cap = _paraboloid(half, rng, r=2.0, z_max=0.75, lift=1.75)
    x, y, z = _hyperboloid(n - half, rng, a=0.6, c=1.0, bound=4.0).T
    points = np.r_[cap, np.c_[x, -z, y]]
    return points, np.r_[np.zeros(half), np.ones(n - half)].astype(np.int64)


def _double_paraboloid(n: int, rng: np.random.Generator):
    """Two flat paraboloids (r = 4, z_max = .1, lifted .75) mirrored through the origin."""
    half = n // 2
    upper = _paraboloid(half, rng, r=4.0, z_max=0.1, lift=0.75)
    lower = -_paraboloid(n - half, rng, r=4.0, z_max=0.1, lift=0.75)
    return np.r_[upper, lower], np.r_[np.zeros(half), np.ones(n - half)].astype(np.int64)


def _swiss_roll(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """The 3-d swiss roll ``(t cos t, 21 s, t sin t)``, ``t ~ U(3π/2, 9π/2)``, ``s ~ U(0, 1)``."""
    t = 1.5 * np.pi * (1 + 2 * rng.random(n))
    return np.c_[t * np.cos(t), 21 * rng.random(n), t * np.sin(t)], None


def _rejection(n, rng, accept, low, high):
    """``n`` draws on ``[low, high]`` with density ∝ ``accept`` (values in [0, 1])."""
    out = np.empty(0)
    while out.size < n:
        draw = low + (high - low) * rng.random(2 * (n - out.size) + 16)
        out = np.r_[out, draw[rng.random(draw.size) < accept(draw)]]
    return out[:n]


#: name -> clean sampler, (σ, threshold) of the paper's noise, supersampling, label scale.
MANIFOLDS: dict[str, _Spec] = {
    "circles": _Spec(_circles, 0.09, 0.275, supersample_factor=2.5),
    "moons": _Spec(_moons, 0.2, 0.1925, supersample_factor=2.5),
    "s_curve": _Spec(_s_curve, 0.28, 0.52, supersample_factor=2.5, label_scale=12.0),
    "cassini": _Spec(_cassini, 0.05, 0.135, supersample_factor=2.5, label_scale=20.0),
    "gaussians": _Spec(_gaussians, 0.175, 0.45),
    "tori": _Spec(_tori, 0.4, 0.75),
    "hyperboloids": _Spec(_hyperboloids, 0.2, 0.25),
    "paraboloid_hyperboloid": _Spec(_paraboloid_hyperboloid, 0.4, 0.475),
    "double_paraboloid": _Spec(_double_paraboloid, 0.6, 0.7),
    "swiss_roll": _Spec(_swiss_roll, 6.25, 2.25, supersample_factor=1.5),
}


def truncated_gaussian_noise(
    shape: tuple[int, int], sigma: float, threshold: float, rng: np.random.Generator
) -> np.ndarray:
    """Rows ``z ~ N(0, σ²I)`` conditioned on ``‖z‖ <= threshold`` (each row redrawn until it
    fits, in vectorised rounds)."""
    if sigma < 0 or threshold <= 0:
        raise RewireError(f"need sigma >= 0 and threshold > 0, got {sigma} and {threshold}.")
    noise = sigma * rng.standard_normal(shape)
    redraw = np.flatnonzero(np.linalg.norm(noise, axis=1) > threshold)
    while redraw.size:
        noise[redraw] = sigma * rng.standard_normal((redraw.size, shape[1]))
        redraw = redraw[np.linalg.norm(noise[redraw], axis=1) > threshold]
    return noise


def make_manifold(
    name: str,
    n_points: int = 4000,
    seed: int = 0,
    noise: float | None = None,
    noise_threshold: float | None = None,
) -> ManifoldSample:
    """Sample the data set ``name`` (a key of :data:`MANIFOLDS`) with the paper's noise.

    Args:
        name: ``circles``, ``moons``, ``s_curve``, ``cassini``, ``gaussians``, ``tori``,
            ``hyperboloids``, ``paraboloid_hyperboloid``, ``double_paraboloid`` or
            ``swiss_roll``.
        n_points: number of noisy points (the paper uses 4000).
        seed: seeds everything; the same seed gives the same sample.
        noise, noise_threshold: override the paper's ``σ`` and truncation radius.
    """
    name = check_choice("name", name, tuple(MANIFOLDS))
    n = check_int("n_points", n_points, 3)
    rng = np.random.default_rng(check_seed(seed))
    spec = MANIFOLDS[name]
    sigma = spec.noise if noise is None else float(noise)
    threshold = spec.threshold if noise_threshold is None else float(noise_threshold)
    supersample = subsample = None
    if spec.supersample_factor is None:
        clean, cluster = spec.clean(n, rng)
    else:
        supersample, dense_cluster = spec.clean(int(n * spec.supersample_factor), rng)
        subsample = np.sort(rng.choice(supersample.shape[0], n, replace=False))
        clean = supersample[subsample]
        cluster = None if dense_cluster is None else dense_cluster[subsample]
        if cluster is not None:
            supersample = subsample = None  # piece ids decide the labels
    points = clean + truncated_gaussian_noise(clean.shape, sigma, threshold, rng)
    return ManifoldSample(name, points, cluster, supersample, subsample, spec.label_scale)
