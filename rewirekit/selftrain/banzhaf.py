r"""Banzhaf values of pseudo-label candidates (BANGS, Wang et al., ICLR 2025).

The game: the players are ``P`` candidate nodes; a coalition :math:`S` is a set of them to
pseudo-label; its utility :math:`U(S)` (:class:`PropagationUtility`) says how much the labels
propagated from the training nodes and from :math:`S` tell about the graph. The Banzhaf value
of candidate ``i`` is its mean marginal contribution over all coalitions of the others,

.. math:: \phi_i = \frac{1}{2^{P-1}} \sum_{S \subseteq [P]\setminus\{i\}} U(S \cup \{i\}) - U(S),

estimated by maximum sample reuse (MSR; Wang & Jia, "Data Banzhaf", AISTATS 2023): draw
coalitions with every candidate in each one independently with probability ½, then
:math:`\hat\phi_i = \overline{U}(S \ni i) - \overline{U}(S \not\ni i)`, one utility evaluation
per coalition shared by all players.
"""

from __future__ import annotations

import math
import warnings

import torch
from torch import Tensor
from torch_geometric.nn.conv.gcn_conv import gcn_norm
from torch_geometric.utils import add_remaining_self_loops, to_torch_csr_tensor

from rewirekit.errors import RewireError

# Largest number of coalitions whose propagated scores are held in memory at once.
COALITION_BATCH = 256
# Smallest share of kept draws at which capped coalitions are drawn by rejection.
MIN_ACCEPTANCE = 0.1


def candidate_set(confidence: Tensor, eligible: Tensor, size: int) -> Tensor:
    """The ``size`` eligible nodes of highest ``confidence`` (all of them if fewer), most
    confident first; ties go to the lower node index."""
    index = eligible.nonzero().view(-1)
    order = torch.sort(confidence[index], descending=True, stable=True).indices
    return index[order[:size]]


def sample_coalitions(
    num_players: int, num_samples: int, *, max_size: int | None, generator: torch.Generator
) -> Tensor:
    """``num_samples`` coalitions as a boolean matrix ``[num_samples, num_players]``: each
    player is in each coalition with probability ½, and coalitions of more than ``max_size``
    players are redrawn (BANGS's ``k_union``; ``None`` keeps every draw).

    Redrawing is done by rejection while at least :data:`MIN_ACCEPTANCE` of the draws are
    kept (Cora's 100 of 200 candidates keep about half). Below that (CiteSeer's 70 of 200 keep
    about 1 draw in 75,000) the same distribution is drawn directly: the size from the
    binomial law cut at ``max_size``, then a uniformly random set of that size."""
    if num_players < 1 or num_samples < 1:
        raise RewireError(
            f"need at least one player and one coalition, got {num_players} and {num_samples}."
        )
    if max_size is not None and max_size < 1:
        raise RewireError(f"max_size must be >= 1 or None, got {max_size}.")
    if max_size is not None and max_size < num_players:
        size_mass = _binomial_half_mass(num_players, max_size)
        if float(size_mass.sum()) < MIN_ACCEPTANCE:
            sizes = torch.multinomial(size_mass, num_samples, replacement=True, generator=generator)
            keys = torch.rand(num_samples, num_players, generator=generator)
            return keys.argsort(dim=1).argsort(dim=1) < sizes.unsqueeze(1)
    kept: list[Tensor] = []
    found = 0
    while found < num_samples:
        draw = torch.rand(2 * num_samples, num_players, generator=generator) < 0.5
        if max_size is not None:
            draw = draw[draw.sum(dim=1) <= max_size]
        kept.append(draw)
        found += draw.size(0)
    return torch.cat(kept)[:num_samples]


def _binomial_half_mass(num_players: int, max_size: int) -> Tensor:
    """``P(size = s)`` for ``s = 0 .. max_size`` when each of ``num_players`` is in w.p. ½."""
    sizes = torch.arange(max_size + 1, dtype=torch.float64)
    total = torch.tensor(float(num_players), dtype=torch.float64)
    log_mass = (
        torch.lgamma(total + 1)
        - torch.lgamma(sizes + 1)
        - torch.lgamma(total - sizes + 1)
        - total * math.log(2.0)
    )
    return log_mass.exp()


def banzhaf_msr(coalitions: Tensor, utilities: Tensor) -> Tensor:
    """MSR estimate of every player's Banzhaf value: mean utility of the coalitions that hold
    it minus the mean utility of those that do not.

    Args:
        coalitions: boolean ``[S, P]``.
        utilities: ``[S]``.
    """
    members = coalitions.to(utilities.dtype)
    inside = members.sum(dim=0)
    outside = coalitions.size(0) - inside
    if bool((inside == 0).any()) or bool((outside == 0).any()):
        raise RewireError(
            "a candidate is in every sampled coalition or in none, so its Banzhaf value is "
            f"undefined ({coalitions.size(0)} coalitions of {coalitions.size(1)} candidates); "
            "sample more coalitions (raise samples_per_node)."
        )
    with_i = utilities @ members / inside
    without_i = utilities @ (1 - members) / outside
    return with_i - without_i


def normalized_adjacency(
    edge_index: Tensor,
    edge_weight: Tensor | None,
    num_nodes: int,
    *,
    double_self_loops: bool = False,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    r""":math:`\hat A = D^{-1/2}(A + wI)D^{-1/2}` as a CSR matrix (rows are targets), with
    self-loop weight ``w = 1``, or ``w = 2`` with ``double_self_loops`` (the official graph
    has its self-loops twice). Existing self-loops are kept as they are."""
    weight = (
        torch.ones(edge_index.size(1), dtype=dtype)
        if edge_weight is None
        else edge_weight.to(dtype)
    )
    # explicit self-loops: this PyG's gcn_norm ignores ``improved`` without edge weights
    index, weight = add_remaining_self_loops(
        edge_index, weight, fill_value=2.0 if double_self_loops else 1.0, num_nodes=num_nodes
    )
    index, norm = gcn_norm(index, weight, num_nodes=num_nodes, add_self_loops=False)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
        warnings.filterwarnings("ignore", message="Sparse invariant checks")
        return to_torch_csr_tensor(index.flip(0), norm, size=(num_nodes, num_nodes))


def propagate(adjacency: Tensor, beta: float, scores: Tensor) -> Tensor:
    r""":math:`(\beta\hat A + \beta^2\hat A^2)\, X` for a CSR :math:`\hat A` and dense ``X``."""
    one_hop = adjacency @ scores
    return beta * one_hop + beta * beta * (adjacency @ one_hop)


def entropy(probabilities: Tensor, dim: int = -1) -> Tensor:
    """Shannon entropy (nats) along ``dim``, with the official ``1e-9`` inside the log."""
    return -(probabilities * torch.log(probabilities + 1e-9)).sum(dim=dim)


class PropagationUtility:
    r"""BANGS's utility of a coalition ``S`` of candidates (the two-hop branch of
    ``ST_src/banzhaf.py``), vectorised over coalitions.

    Scores ``X`` (one row per node) are propagated from the labelled sources and from ``S``:
    :math:`p_u = \mathrm{softmax}\big((M X_{L})_u + (M X_S)_u\big)` with
    :math:`M = \beta\hat A + \beta^2\hat A^2` (``X_L``, ``X_S``: ``X`` with all rows but the
    sources', resp. ``S``'s, zeroed). Then

    .. math:: U(S) = H\Big(\frac1N\sum_u p_u\Big) - \frac1N\sum_u H(p_u) - \mathrm{CE}_{train}(S),

    high when the propagated labels are confident per node yet balanced over classes, and
    consistent with the training labels. The training term propagates from ``train_sources``
    (the training and pseudo-labelled nodes) and ``S`` and is read at the training nodes:

    * ``faithful=False``: :math:`-\frac{1}{|T|}\sum_{t\in T} \log p_t[y_t]`, the cross-entropy
      against the true labels.
    * ``faithful=True``: the official ``CrossEntropyLoss(p_T, softmax(X_T))``, which applies a
      second softmax to the probabilities ``p_T`` and takes as target the softmax of the training
      rows of ``X`` (there one-hot labels, so a smoothed label).

    Args:
        adjacency: :math:`\hat A` from :func:`normalized_adjacency`.
        beta: the two-hop weight.
        scores: ``X``, ``[N, C]``.
        sources: nodes whose rows seed the base propagation (BANGS: the training nodes).
        train_sources: the sources of the training term.
        train_index: the training nodes.
        train_labels: their classes.
        candidates: the players, ``[P]`` node indices.
        faithful: the official training term (see above).
    """

    def __init__(
        self,
        adjacency: Tensor,
        beta: float,
        scores: Tensor,
        sources: Tensor,
        train_sources: Tensor,
        train_index: Tensor,
        train_labels: Tensor,
        candidates: Tensor,
        *,
        faithful: bool = False,
    ) -> None:
        num_nodes, num_classes = scores.shape
        base = propagate(adjacency, beta, _rows_only(scores, sources))
        self.train_base = propagate(adjacency, beta, _rows_only(scores, train_sources))[train_index]
        # column c of M: how candidate c's scores reach every node. Only nodes within two hops
        # of a candidate change with the coalition; the others add constants to both means.
        unit = torch.zeros(num_nodes, candidates.numel(), dtype=scores.dtype)
        unit[candidates, torch.arange(candidates.numel())] = 1.0
        influence = propagate(adjacency, beta, unit)  # [N, P]
        reached = influence.abs().sum(dim=1) > 0
        fixed = base[~reached].softmax(dim=1)
        self.fixed_probability_sum = fixed.sum(dim=0)
        self.fixed_entropy_sum = entropy(fixed).sum()
        self.base = base[reached]
        self.num_nodes = num_nodes
        self.contribution = self._contribution(influence[reached], scores[candidates])
        self.train_contribution = self._contribution(influence[train_index], scores[candidates])
        self.train_labels = train_labels
        self.faithful = faithful
        self.train_target = scores[train_index].softmax(dim=1) if faithful else None
        self.num_classes = num_classes

    @staticmethod
    def _contribution(influence: Tensor, candidate_scores: Tensor) -> Tensor:
        """``[P, R * C]``: row c is ``M[rows, c] X_c``, flattened."""
        rows, players = influence.shape
        return (influence.T.unsqueeze(2) * candidate_scores.unsqueeze(1)).reshape(players, -1)

    def __call__(self, coalitions: Tensor) -> Tensor:
        """Utilities of coalitions given as a boolean ``[S, P]`` matrix, shape ``[S]``."""
        return torch.cat(
            [
                self._utilities(batch.to(self.contribution.dtype))
                for batch in coalitions.split(COALITION_BATCH)
            ]
        )

    def _utilities(self, members: Tensor) -> Tensor:
        count, num_classes = members.size(0), self.num_classes
        logits = (members @ self.contribution).view(count, -1, num_classes) + self.base
        probabilities = logits.softmax(dim=2)
        class_mean = (probabilities.sum(dim=1) + self.fixed_probability_sum) / self.num_nodes
        node_entropy = (entropy(probabilities).sum(dim=1) + self.fixed_entropy_sum) / self.num_nodes
        train_logits = (members @ self.train_contribution).view(
            count, -1, num_classes
        ) + self.train_base
        train_probabilities = train_logits.softmax(dim=2)
        if self.faithful:
            assert self.train_target is not None
            cross = -(self.train_target * train_probabilities.log_softmax(dim=2)).sum(2).mean(1)
        else:
            picked = train_probabilities.gather(
                2, self.train_labels.view(1, -1, 1).expand(count, -1, 1)
            )
            cross = -torch.log(picked.squeeze(2) + 1e-9).mean(dim=1)
        return entropy(class_mean) - node_entropy - cross


def _rows_only(scores: Tensor, index: Tensor) -> Tensor:
    kept = torch.zeros_like(scores)
    kept[index] = scores[index]
    return kept
