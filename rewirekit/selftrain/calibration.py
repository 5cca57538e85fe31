r"""Post-hoc confidence calibration of a node classifier's logits.

* ``"gats"``: graph attention temperature scaling (Hsu, Shen, Tsai & Kira, "What Makes Graph
  Neural Networks Miscalibrated?", NeurIPS 2022), the calibrator BANGS uses. Each node gets
  its own temperature :math:`T_i > 0` and the calibrated logits are :math:`z_i / T_i`:

  .. math::
      T_i = \frac{1}{H}\sum_{h=1}^{H} \operatorname{softplus}\Big(
            \sum_{j \in N(i) \cup \{i\}} \alpha_{ij}\, \gamma_j\, \tau_j^h
            + \omega \frac{1}{|N(i)|+1} \sum_{j} (c_i - c_j)\Big) + b,

  where :math:`\tau_j = W\, \mathrm{sort}(\tilde z_j)` maps the sorted, min-max normalised
  logits of node ``j`` to ``H`` per-head temperatures; :math:`\alpha_{ij}` is the softmax over
  ``i``'s neighbourhood of :math:`\mathrm{LeakyReLU}_{0.2}(\langle z_i/\gamma_i,
  z_j/\gamma_j\rangle)`; :math:`\gamma` is a learnt factor for training nodes, another for their
  neighbours (distance 1) and 1 elsewhere; :math:`c` is the max-softmax confidence;
  :math:`\omega` (initially 0) and the bias :math:`b` (initially ``bias``) are learnt.
* ``"ts"``: temperature scaling (Guo et al., ICML 2017), one temperature for all nodes.
* ``"none"``: the logits unchanged.

Fitting follows the BANGS code (``calib_src/calibrator/calibrator.py``): the classifier is
frozen; Adam (learning rate 0.01, weight decay 5e-3) minimises the cross-entropy on the
*validation* nodes for at most 2000 epochs, stopping after 100 epochs without a lower
cross-entropy on the *training* nodes, and the parameters of the lowest one are kept (ties go
to the later epoch, as in the official ``<=``).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.utils import add_remaining_self_loops, remove_self_loops, scatter, softmax

from rewirekit.errors import RewireError

Calibration = Literal["gats", "ts", "none"]
CALIBRATIONS: tuple[str, ...] = ("gats", "ts", "none")


def check_calibration(name: str) -> str:
    """``name`` if it is a known calibration, else a :class:`RewireError`."""
    if name not in CALIBRATIONS:
        raise RewireError(
            f"unknown calibration {name!r}; choose one of: {', '.join(CALIBRATIONS)}."
        )
    return name


class LogitFeatures(NamedTuple):
    """The parts of GATS that depend on the frozen logits only, for the temperatures of
    ``nodes`` (fitting needs those of the fitting and stopping nodes only).

    Attributes:
        nodes: the nodes whose temperatures are computed, ``[M]``.
        edges: their in-edges ``(j, i)`` (self-loops included), ``[2, E']``.
        local_target: position in ``nodes`` of each edge's target, ``[E']``.
        sorted_normalised: every node's min-max normalised logits, sorted, ``[N, C]``.
        edge_dot: :math:`\\langle z_j, z_i\\rangle` of each edge, ``[E']``.
        spread: :math:`\\frac{1}{|N(i)|+1}\\sum_j (c_i - c_j)` of each of ``nodes``, ``[M]``.
    """

    nodes: Tensor
    edges: Tensor
    local_target: Tensor
    sorted_normalised: Tensor
    edge_dot: Tensor
    spread: Tensor


class GATS(nn.Module):
    """Graph attention temperature scaling (see the module docstring for the formula).

    Args:
        num_classes: number of classes (width of the logits).
        edge_index: the graph; self-loops are replaced by one per node.
        train_index: the training nodes (distance 0 for the spatial factor).
        num_nodes: number of nodes.
        heads: number of temperature heads ``H``.
        bias: initial value of the bias ``b``.
        bfs_depth: nodes within ``bfs_depth - 1`` hops of a training node get a learnt
            spatial factor (2: training nodes and their neighbours, as in the paper).
    """

    edges: Tensor
    hops: Tensor
    inverse_degree: Tensor

    def __init__(
        self,
        num_classes: int,
        edge_index: Tensor,
        train_index: Tensor,
        num_nodes: int,
        *,
        heads: int = 2,
        bias: float = 1.0,
        bfs_depth: int = 2,
    ) -> None:
        super().__init__()
        edges, _ = remove_self_loops(edge_index)
        edges, _ = add_remaining_self_loops(edges, num_nodes=num_nodes)
        self.register_buffer("edges", edges)
        self.register_buffer("hops", hops_to(train_index, edges, num_nodes, bfs_depth))
        degree = scatter(torch.ones(edges.size(1)), edges[0], dim_size=num_nodes, reduce="sum")
        self.register_buffer("inverse_degree", 1.0 / degree)
        self.num_nodes = num_nodes
        self.temperature = nn.Linear(num_classes, heads, bias=False)
        nn.init.xavier_uniform_(self.temperature.weight)
        self.confidence_weight = nn.Parameter(torch.zeros(()))
        self.bias = nn.Parameter(torch.full((1,), float(bias)))
        self.train_factor = nn.Parameter(torch.ones(1))
        self.neighbour_factor = nn.Parameter(torch.ones(1))

    def logit_features(self, logits: Tensor, nodes: Tensor | None = None) -> LogitFeatures:
        """What the temperatures of ``nodes`` (default: all) need from fixed ``logits``."""
        if nodes is None:
            nodes = torch.arange(self.num_nodes)
        position = torch.full((self.num_nodes,), -1, dtype=torch.long)
        position[nodes] = torch.arange(nodes.numel())
        edges = self.edges[:, position[self.edges[1]] >= 0]
        source, target = edges
        low = logits.min(dim=1, keepdim=True).values
        high = logits.max(dim=1, keepdim=True).values
        confidence = logits.softmax(dim=1).amax(dim=1)
        local_target = position[target]
        spread = scatter(
            confidence[target] - confidence[source], local_target, dim_size=nodes.numel()
        )
        return LogitFeatures(
            nodes,
            edges,
            local_target,
            ((logits - low) / (high - low)).sort(dim=1).values,
            (logits[source] * logits[target]).sum(dim=1),
            spread * self.inverse_degree[nodes],
        )

    def node_temperatures(self, logits: Tensor, features: LogitFeatures | None = None) -> Tensor:
        """The temperature :math:`T_i` of each node of ``features`` (:meth:`logit_features`
        of ``logits``; default: every node), shape ``[M, 1]``."""
        if features is None:
            features = self.logit_features(logits)
        tau = self.temperature(features.sorted_normalised)  # [N, H]
        gamma = torch.ones(self.num_nodes, dtype=logits.dtype)
        gamma = torch.where(self.hops == 0, self.train_factor, gamma)
        gamma = torch.where(self.hops == 1, self.neighbour_factor, gamma)
        source, target = features.edges
        size = features.nodes.numel()
        # <z_j / g_j, z_i / g_i> = <z_j, z_i> / (g_j g_i): no per-class work per epoch
        score = F.leaky_relu(features.edge_dot / (gamma[source] * gamma[target]), 0.2)
        alpha = softmax(score, features.local_target, num_nodes=size)
        smoothed = scatter(
            alpha.unsqueeze(1) * (tau * gamma.unsqueeze(1))[source],
            features.local_target,
            dim=0,
            dim_size=size,
            reduce="sum",
        )
        inner = smoothed + (self.confidence_weight * features.spread).unsqueeze(1)
        return (F.softplus(inner).mean(dim=1) + self.bias).unsqueeze(1)

    def forward(self, logits: Tensor, features: LogitFeatures | None = None) -> Tensor:
        """Calibrated logits of the nodes of ``features`` (default: all)."""
        if features is None:
            features = self.logit_features(logits)
        return logits[features.nodes] / self.node_temperatures(logits, features)


class TemperatureScaling(nn.Module):
    """One temperature for all nodes: :math:`z / T`, ``T`` initially 1."""

    def __init__(self) -> None:
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1))

    def logit_features(self, logits: Tensor, nodes: Tensor | None = None) -> Tensor | None:
        """Only ``nodes`` (the interface of :meth:`GATS.logit_features`)."""
        return nodes

    def forward(self, logits: Tensor, nodes: Tensor | None = None) -> Tensor:
        """Calibrated logits of ``nodes`` (default: all)."""
        return (logits if nodes is None else logits[nodes]) / self.temperature


def hops_to(sources: Tensor, edge_index: Tensor, num_nodes: int, depth: int) -> Tensor:
    """Hop distance of every node to the nearest of ``sources``, explored ``depth - 1`` hops
    out (the official BFS of depth ``depth`` labels distances ``0 .. depth - 1``); nodes
    further away get ``depth``."""
    hops = torch.full((num_nodes,), depth, dtype=torch.long)
    frontier = torch.zeros(num_nodes, dtype=torch.bool)
    frontier[sources] = True
    seen = frontier.clone()
    source, target = edge_index
    for hop in range(depth):
        hops[frontier] = hop
        reached = torch.zeros(num_nodes, dtype=torch.bool)
        reached[target[frontier[source]]] = True
        frontier = reached & ~seen
        seen |= reached
    return hops


def calibrate(
    logits: Tensor,
    labels: Tensor,
    edge_index: Tensor,
    fit_index: Tensor,
    stop_index: Tensor,
    train_index: Tensor,
    *,
    method: str = "gats",
    seed: int = 0,
    heads: int = 2,
    bias: float = 1.0,
    bfs_depth: int = 2,
    lr: float = 0.01,
    weight_decay: float = 5e-3,
    max_epochs: int = 2000,
    patience: int = 100,
) -> Tensor:
    """Calibrated logits of a frozen classifier (see the module docstring).

    Args:
        logits: the classifier's eval-mode outputs, ``[N, C]``.
        labels: classes, read at ``fit_index`` and ``stop_index``.
        edge_index: the graph (GATS only).
        fit_index: nodes whose cross-entropy is minimised (BANGS: the validation nodes).
        stop_index: nodes whose cross-entropy decides early stopping (BANGS: training nodes).
        train_index: the training nodes (GATS's spatial factor).
        method: ``"gats"``, ``"ts"`` or ``"none"``.
        seed: seeds the initialisation of GATS's heads.
        heads, bias, bfs_depth: GATS hyperparameters.
        lr, weight_decay, max_epochs, patience: the fit.
    """
    check_calibration(method)
    if method == "none":
        return logits
    if fit_index.numel() == 0 or stop_index.numel() == 0:
        raise RewireError("calibration needs labelled nodes to fit on and to stop on.")
    logits = logits.detach()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        calibrator: GATS | TemperatureScaling = (
            GATS(
                logits.size(1),
                edge_index,
                train_index,
                logits.size(0),
                heads=heads,
                bias=bias,
                bfs_depth=bfs_depth,
            )
            if method == "gats"
            else TemperatureScaling()
        )
    # Fitting reads the calibrated logits of the fitting and stopping nodes only.
    needed = torch.cat([fit_index, stop_index]).unique()
    features = calibrator.logit_features(logits, needed)
    fit_rows, stop_rows = (
        torch.searchsorted(needed, fit_index),
        torch.searchsorted(needed, stop_index),
    )
    optimizer = torch.optim.Adam(calibrator.parameters(), lr=lr, weight_decay=weight_decay)
    fit_labels, stop_labels = labels[fit_index], labels[stop_index]
    best_loss, best_state, bad_epochs = float("inf"), _parameters(calibrator), 0
    # The calibrators have no dropout, so the forward pass at the start of epoch e + 1 is the
    # evaluation after epoch e: one pass per epoch serves both (the official loop runs two).
    for epoch in range(max_epochs + 1):
        calibrated = calibrator(logits, features)
        if epoch > 0:  # the parameters after epoch - 1 steps
            loss = float(F.cross_entropy(calibrated[stop_rows].detach(), stop_labels))
            if loss <= best_loss:
                best_loss, best_state, bad_epochs = loss, _parameters(calibrator), 0
            else:
                bad_epochs += 1
                if bad_epochs >= patience:
                    break
        if epoch == max_epochs:
            break
        optimizer.zero_grad()
        F.cross_entropy(calibrated[fit_rows], fit_labels).backward()
        optimizer.step()
    calibrator.load_state_dict(best_state, strict=False)
    with torch.no_grad():
        return calibrator(logits)


def _parameters(module: nn.Module) -> dict[str, Tensor]:
    return {name: value.detach().clone() for name, value in module.named_parameters()}
