r"""Closed-form neural tangent kernels of infinitely wide GNNs.

The kernels of Sabanayagam, Esser and Ghoshdastidar, "Analysis of Convolutions, Non-linearity
and Depth in Graph Neural Networks using Neural Tangent Kernel" (TMLR 2023), in the form that
QPCert (Sabanayagam, Gosch, Günnemann, Ghoshdastidar, "Exact Certification of (Graph) Neural
Networks Against Label Poisoning", ICLR 2025) certifies. Weights are standard normal, every
layer after the first is scaled by :math:`1/\sqrt{\text{width}}`, and the ReLU carries the
factor :math:`\sqrt 2` (:math:`c_\sigma = 1`). For a covariance :math:`\Sigma` with
:math:`\rho_{ij} = \Sigma_{ij}/\sqrt{\Sigma_{ii}\Sigma_{jj}}`,

.. math::
    E_{ij} = \sqrt{\Sigma_{ii}\Sigma_{jj}}\,\kappa_1(\rho_{ij}), \qquad
    \dot E_{ij} = \kappa_0(\rho_{ij}), \qquad
    \kappa_0(\rho) = \frac{\pi - \arccos\rho}{\pi}, \qquad
    \kappa_1(\rho) = \frac{\rho\,(\pi - \arccos\rho) + \sqrt{1-\rho^2}}{\pi}

are :math:`\mathbb E[\sigma(u)\sigma(v)]` and :math:`\mathbb E[\sigma'(u)\sigma'(v)]`
(for a linear activation, :math:`E = \Sigma` and :math:`\dot E = 1`). With the diffusion
:math:`S`, a GCN of depth :math:`L` starts from :math:`\Sigma_0 = \Theta_0 = S X X^\top S^\top`
and, per layer, :math:`\Theta \leftarrow S(\Theta \odot \dot E)S^\top + \Sigma'` with
:math:`\Sigma' = S E S^\top`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from rewirekit.errors import RewireError

#: Architectures with a closed-form kernel here.
MODELS = ("gcn", "sgc", "sage", "gin", "appnp", "mlp")
#: Diffusions a GCN or SGC may use: row ``D^-1(A+I)`` or symmetric ``D^-1/2(A+I)D^-1/2``.
NORMALIZATIONS = ("row", "sym")
#: Skip connections of a GCN or SGC (see :class:`Architecture`).
SKIPS = (None, "pc", "alpha")


@dataclass(frozen=True)
class Architecture:
    r"""An infinitely wide architecture whose NTK :func:`ntk` computes.

    Args:
        model: ``"gcn"`` (ReLU), ``"sgc"`` (the same network, linear), ``"sage"`` (GCN with
            :math:`S = D^{-1}A + I`), ``"gin"`` (:math:`\sigma((A+I)XW_1)W_2`, one hidden
            layer), ``"appnp"`` (:math:`P(\sigma(XW_1+b_1)W_2+b_2)` with the APPNP
            propagation :math:`P`) or ``"mlp"`` (APPNP with :math:`P = I`).
        depth: hidden layers :math:`L` of a GCN, SGC or SAGE (the others have one).
        normalization: the GCN/SGC diffusion, ``"row"`` (QPCert's default) or ``"sym"``.
        skip: ``"pc"`` adds :math:`\Sigma_0` to every layer's covariance (a linear skip from
            the first layer); ``"alpha"`` mixes the input in: :math:`\Sigma_0 = TXX^\top
            T^\top` with :math:`T = (1-s)S + sI` and :math:`\Sigma' = (1-s)^2 SES^\top +
            s^2 XX^\top`. As in the official kernel, the recursion of :math:`\Theta` keeps no
            :math:`(1-s)^2` factor (a network with learning rate :math:`(1-s)^{-2}` per
            layer below the output has this NTK).
        skip_alpha: :math:`s` for ``skip="alpha"``.
        appnp_alpha: teleport :math:`a` of APPNP, whose propagation is 10 steps of
            :math:`P \leftarrow (1-a)\hat S P + aI` from :math:`P = I`, with :math:`\hat S` the
            symmetric diffusion. QPCert uses :math:`a = 0.3` on the CSBM and :math:`a=0` on
            Cora-MLb.
        appnp_steps: propagation steps of APPNP.
    """

    model: str = "gcn"
    depth: int = 1
    normalization: str = "row"
    skip: str | None = None
    skip_alpha: float = 0.1
    appnp_alpha: float = 0.1
    appnp_steps: int = 10

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise RewireError(f"unknown architecture {self.model!r}; choose one of {MODELS}.")
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise RewireError(f"depth must be an integer >= 1, got {self.depth!r}.")
        if self.normalization not in NORMALIZATIONS:
            raise RewireError(
                f"normalization must be one of {NORMALIZATIONS}, got {self.normalization!r}."
            )
        if self.skip not in SKIPS:
            raise RewireError(f"skip must be one of {SKIPS}, got {self.skip!r}.")
        if self.skip is not None and self.model not in ("gcn", "sgc"):
            raise RewireError(f"skip connections are defined for gcn and sgc, not {self.model}.")
        if not 0 <= self.skip_alpha < 1:
            raise RewireError(f"skip_alpha must lie in [0, 1), got {self.skip_alpha!r}.")
        if not 0 <= self.appnp_alpha <= 1:
            raise RewireError(f"appnp_alpha must lie in [0, 1], got {self.appnp_alpha!r}.")
        if self.appnp_steps < 1:
            raise RewireError(f"appnp_steps must be >= 1, got {self.appnp_steps!r}.")

    @property
    def linear(self) -> bool:
        """Whether the activation is the identity (SGC)."""
        return self.model == "sgc"


def ntk(arch: Architecture | str, x: np.ndarray, adj: sp.spmatrix | np.ndarray) -> np.ndarray:
    """The ``[n, n]`` NTK of ``arch`` on features ``x`` ``[n, d]`` and adjacency ``adj``.

    ``adj`` is a symmetric ``[n, n]`` 0/1 matrix (dense or scipy sparse); its diagonal is
    ignored. The kernel is float64 and symmetric.

    Raises:
        RewireError: for an unknown architecture, shapes that do not match, or non-finite
            features.
    """
    arch = Architecture(model=arch) if isinstance(arch, str) else arch
    x = np.asarray(x, dtype=np.float64)
    a = _adjacency(adj, x.shape[0] if x.ndim == 2 else -1)
    if x.ndim != 2 or not np.isfinite(x).all():
        raise RewireError(f"features must be a finite [n, d] array, got shape {x.shape}.")
    gram = x @ x.T
    if arch.model in ("appnp", "mlp"):
        return _ntk_appnp(arch, gram, a)
    if arch.model == "gin":
        return _ntk_gin(gram, a)
    return _ntk_gcn(arch, gram, a)


def diffusion(arch: Architecture, adj: np.ndarray) -> np.ndarray:
    """The dense diffusion :math:`S` of ``arch`` for a dense 0/1 adjacency ``adj``."""
    if arch.model == "mlp":
        return np.eye(adj.shape[0])
    if arch.model == "appnp":
        sym = _normalized(adj, "sym")
        prop = np.eye(adj.shape[0])
        for _ in range(arch.appnp_steps):
            prop = (1 - arch.appnp_alpha) * (sym @ prop) + arch.appnp_alpha * np.eye(len(adj))
        return prop
    if arch.model == "gin":
        return _with_unit_diagonal(adj)
    if arch.model == "sage":
        degree = adj.sum(axis=1)
        inverse = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
        return inverse[:, None] * adj + np.eye(adj.shape[0])
    return _normalized(adj, arch.normalization)


def relu_expectations(cov: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`(E, \dot E)` of the :math:`\sqrt2`-scaled ReLU under the covariance ``cov``.

    Correlations are clipped to :math:`[-1, 1]` (round-off can push them out); a node of zero
    variance gets correlation 0 with every node.
    """
    std = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    scale = np.outer(std, std)
    rho = np.divide(cov, scale, out=np.zeros_like(cov), where=scale > 0)
    rho = np.clip(rho, -1.0, 1.0)
    np.fill_diagonal(rho, np.where(std > 0, 1.0, 0.0))
    angle = np.arccos(rho)
    kappa0 = (np.pi - angle) / np.pi
    kappa1 = (rho * (np.pi - angle) + np.sqrt(1.0 - rho * rho)) / np.pi
    return scale * kappa1, kappa0


def _ntk_gcn(arch: Architecture, gram: np.ndarray, adj: np.ndarray) -> np.ndarray:
    s = diffusion(arch, adj)
    first = s @ gram @ s.T
    if arch.skip == "alpha":
        mix = (1 - arch.skip_alpha) * s + arch.skip_alpha * np.eye(len(s))
        cov = mix @ gram @ mix.T
    else:
        cov = first
    theta = cov
    for _ in range(arch.depth):
        if arch.linear:
            expect, deriv = cov, np.ones_like(cov)
        else:
            expect, deriv = relu_expectations(cov)
        cov = s @ expect @ s.T
        if arch.skip == "pc":
            cov = cov + first
        elif arch.skip == "alpha":
            cov = (1 - arch.skip_alpha) ** 2 * cov + arch.skip_alpha**2 * gram
        theta = s @ (theta * deriv) @ s.T + cov
    return _symmetric(theta)


def _ntk_gin(gram: np.ndarray, adj: np.ndarray) -> np.ndarray:
    s = _with_unit_diagonal(adj)
    cov = s @ gram @ s.T
    expect, deriv = relu_expectations(cov)
    return _symmetric(cov * deriv + expect)


def _ntk_appnp(arch: Architecture, gram: np.ndarray, adj: np.ndarray) -> np.ndarray:
    prop = diffusion(arch, adj)
    cov = gram + 1.0  # the first layer's bias adds 1 to every covariance
    expect, deriv = relu_expectations(cov)
    return _symmetric(prop @ (cov * deriv + expect + 1.0) @ prop.T)


def _adjacency(adj: sp.spmatrix | np.ndarray, n: int) -> np.ndarray:
    dense = sp.csr_array(adj, dtype=np.float64).toarray()
    if dense.shape != (n, n):
        raise RewireError(f"adjacency must be [n, n] with n = {n} nodes, got {dense.shape}.")
    np.fill_diagonal(dense, 0.0)
    if not np.array_equal(dense, dense.T):
        raise RewireError("adjacency must be symmetric (an undirected graph).")
    return dense


def _with_unit_diagonal(adj: np.ndarray) -> np.ndarray:
    out = adj.copy()
    np.fill_diagonal(out, 1.0)
    return out


def _normalized(adj: np.ndarray, kind: str) -> np.ndarray:
    looped = _with_unit_diagonal(adj)
    degree = looped.sum(axis=1)
    if kind == "row":
        return looped / degree[:, None]
    root = 1.0 / np.sqrt(degree)
    return root[:, None] * looped * root[None, :]


def _symmetric(kernel: np.ndarray) -> np.ndarray:
    return (kernel + kernel.T) / 2
