import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

from rewirekit import RewireError
from rewirekit.datasets import aligned_sbm
from rewirekit.diagnostics import diagnose, feature_label_agreement, normalized_mutual_info


def _two_triangles(bridge: bool) -> Data:
    ei = [[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]]
    if bridge:
        ei[0].append(2)
        ei[1].append(3)
    return Data(
        edge_index=to_undirected(torch.tensor(ei)), y=torch.tensor([0, 0, 0, 1, 1, 1]), num_nodes=6
    )


def test_hand_checked_values():
    d = diagnose(_two_triangles(bridge=True))
    assert d.num_edges == 7
    assert d.edge_homophily == pytest.approx(6 / 7)
    assert d.num_communities == 2 and d.label_nmi == pytest.approx(1.0)
    # Q = sum_c [L_c/m - (d_c/2m)^2] with L_c = 3, d_c = 7, m = 7
    assert d.modularity == pytest.approx(2 * (3 / 7 - (7 / 14) ** 2))
    assert 0 < d.spectral_gap < 1


def test_curvature_distribution_hand_checked():
    """α = 0.5: the bridge (2, 3) has W1 = 4/3, κ = −1/3; the edges (0, 1) and (4, 5) away
    from it 3/4; the four edges touching it 5/12."""
    d = diagnose(_two_triangles(bridge=True), num_negative=2)
    assert d.orc_min == pytest.approx(-1 / 3)
    assert d.orc_q1 == pytest.approx(5 / 12) and d.orc_median == pytest.approx(5 / 12)
    assert d.orc_q3 == pytest.approx((5 / 12 + 3 / 4) / 2)
    assert d.orc_below_minus_half == 0.0
    assert d.most_negative_edges[0][:2] == (2, 3)
    assert d.most_negative_edges[0][2] == pytest.approx(-1 / 3)
    assert len(d.most_negative_edges) == 2 and "most_negative_edges" not in d.to_dict()


def test_disconnected_graph_has_no_gap():
    assert diagnose(_two_triangles(bridge=False)).spectral_gap == pytest.approx(0.0, abs=1e-9)


def test_nmi_tracks_alignment_of_an_sbm():
    aligned = diagnose(aligned_sbm(400, p=0.1, q=0.005, alignment=1.0, seed=0))
    random = diagnose(aligned_sbm(400, p=0.1, q=0.005, alignment=0.5, seed=0))
    assert aligned.label_nmi > 0.8 > 0.2 > random.label_nmi


def test_mask_restricts_the_labels_used():
    data = _two_triangles(bridge=True)
    mask = torch.tensor([True, False, False, False, False, True])
    assert diagnose(data, mask).label_nmi == pytest.approx(1.0)
    with pytest.raises(RewireError, match="non-empty"):
        diagnose(data, torch.zeros(6, dtype=torch.bool))


def test_nmi_of_independent_labellings_is_zero():
    a, b = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    assert normalized_mutual_info(a, b) == pytest.approx(0.0, abs=1e-12)
    assert normalized_mutual_info(a, 1 - a) == pytest.approx(1.0)


def test_feature_label_agreement_is_the_one_nearest_neighbour_label_match():
    x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9], [0.8, 0.2]])
    y = np.array([0, 0, 1, 1, 1])
    # node 4's nearest is node 1 (label 0): 4 of 5 agree
    assert feature_label_agreement(x, y, np.arange(5)) == pytest.approx(4 / 5)
    # among nodes 2, 3, 4 alone: 2 <-> 3 agree, 4's nearest is 3 (cos 0.35 > 0.24): all agree
    assert feature_label_agreement(x, y, np.array([2, 3, 4])) == pytest.approx(1.0)
    assert np.isnan(feature_label_agreement(x, y, np.array([0])))
    sampled = feature_label_agreement(x, y, np.arange(5), max_nodes=3, seed=0)
    assert sampled in {0.0, 1 / 3, 2 / 3, 1.0}


def test_masked_homophily_and_alignment_read_only_the_masked_labels():
    data = _two_triangles(bridge=True)
    data.x = torch.tensor([[1.0, 0.0]] * 3 + [[0.0, 1.0]] * 3)
    full = diagnose(data)
    assert full.masked_edge_homophily == pytest.approx(6 / 7)
    assert full.feature_label_alignment == 1.0
    mask = torch.tensor([True, True, True, True, False, False])  # edges 0-1, 1-2, 0-2, 2-3
    assert diagnose(data, mask).masked_edge_homophily == pytest.approx(3 / 4)
    assert np.isnan(diagnose(_two_triangles(bridge=True)).feature_label_alignment)
