"""ComMa: community-structure rewiring."""

import numpy as np
import pytest
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import connected_components
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

import rewirekit
from rewirekit import RewireError
from rewirekit.algorithms import detect_communities
from rewirekit.graph import edge_set


def _graph(pairs, n):
    ei = to_undirected(torch.tensor(pairs, dtype=torch.long).t(), num_nodes=n)
    return Data(
        x=torch.randn(n, 3, generator=torch.Generator().manual_seed(0)), edge_index=ei, num_nodes=n
    )


def _pairs(data):
    return {(u, v) for u, v in data.edge_index.t().tolist() if u < v}


def _components(n, pairs):
    pairs = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    m = sp.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    return connected_components(m, directed=False)[0]


def _cliques(k=3, size=5):
    """``k`` cliques of ``size`` nodes minus one edge each, joined in a chain by single edges."""
    pairs = []
    for c in range(k):
        nodes = range(c * size, (c + 1) * size)
        missing = (c * size, c * size + 1)
        pairs += [(u, v) for u in nodes for v in nodes if u < v and (u, v) != missing]
        if c:
            pairs.append((c * size - 1, c * size))
    return _graph(pairs, k * size)


def test_higher_comma_adds_inside_and_deletes_between_communities():
    data = _cliques()
    labels = detect_communities(edge_set(data), seed=0)
    out = rewirekit.rewire(data, "comma", mode="higher", add=3, delete=2, seed=0)
    added, removed = _pairs(out) - _pairs(data), _pairs(data) - _pairs(out)
    assert len(added) == 3 and all(labels[u] == labels[v] for u, v in added)
    # the only inter-community edges are the two chain bridges: deleting one splits the graph
    assert removed == set() and out.rewire_report.extra["delete_shortfall"] == 2


def test_lower_comma_adds_between_and_deletes_inside_communities():
    data = _cliques()
    labels = detect_communities(edge_set(data), seed=0)
    out = rewirekit.rewire(data, "comma", mode="lower", add=4, delete=6, seed=1)
    added, removed = _pairs(out) - _pairs(data), _pairs(data) - _pairs(out)
    assert len(added) == 4 and all(labels[u] != labels[v] for u, v in added)
    assert len(removed) == 6 and all(labels[u] == labels[v] for u, v in removed)
    assert _components(15, _pairs(out)) == 1


def test_comma_deletions_never_split_components():
    data = _graph(
        torch.randint(0, 60, (2, 90), generator=torch.Generator().manual_seed(1)).t().tolist(), 60
    )
    before = _components(60, _pairs(data))
    for mode in ("higher", "lower"):
        labels = detect_communities(edge_set(data), seed=0)
        same = np.array([labels[u] == labels[v] for u, v in sorted(_pairs(data))])
        eligible = int((~same).sum() if mode == "higher" else same.sum())
        out = rewirekit.rewire(data, "comma", mode=mode, delete=eligible, seed=0)
        assert _components(60, _pairs(out)) == before
        report = out.rewire_report
        assert report.edges_removed + report.extra["delete_shortfall"] == eligible


def test_comma_budget_errors_name_the_budget():
    data = _cliques()
    with pytest.raises(RewireError, match="add"):  # 3 missing intra edges only
        rewirekit.rewire(data, "comma", mode="higher", add=4)
    with pytest.raises(RewireError, match="delete"):
        rewirekit.rewire(data, "comma", mode="higher", delete=3)
    with pytest.raises(RewireError, match="mode"):
        rewirekit.get_method("comma", mode="middle")


def test_comma_is_seeded():
    data = _graph(
        torch.randint(0, 60, (2, 150), generator=torch.Generator().manual_seed(2)).t().tolist(), 60
    )
    a = rewirekit.rewire(data, "comma", add=5, delete=5, seed=0)
    b = rewirekit.rewire(data, "comma", add=5, delete=5, seed=1)
    assert not torch.equal(a.edge_index, b.edge_index)


# -- faithful=True: the official code's edits ---------------------------------------------
def _two_triangles(extra_nodes=0):
    """Triangles {0,1,2} and {3,4,5} joined by (0,5) and (2,3); communities are the triangles."""
    pairs = [(0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5), (0, 5), (2, 3)]
    data = _graph(pairs, 6 + extra_nodes)
    labels = np.array([0, 0, 0, 1, 1, 1] + list(range(2, 2 + extra_nodes)))
    return data, labels


def test_faithful_deletions_are_capped_by_the_connected_prefix():
    from rewirekit.methods.comma_faithful import official_comma_edits

    data, labels = _two_triangles()
    # edges() lists (0, 5) before (2, 3): the prefix of one keeps the graph connected, of two not
    added, removed = official_comma_edits(data.edge_index, 6, labels, "higher", 0, 2, seed=0)
    assert added.shape == (0, 2) and len(removed) == 1
    assert tuple(removed[0]) in {(0, 5), (2, 3)}
    # a disconnected input: the official loop stops at once and deletes nothing
    data, labels = _two_triangles(extra_nodes=1)
    _, removed = official_comma_edits(data.edge_index, 7, labels, "higher", 0, 2, seed=0)
    assert removed.shape == (0, 2)


def test_faithful_additions_are_drawn_per_community_and_may_fall_short():
    from rewirekit.methods.comma_faithful import official_comma_edits

    data, labels = _two_triangles()
    # HigherComMa: both communities are cliques, so all 10·add draws hit existing edges
    added, _ = official_comma_edits(data.edge_index, 6, labels, "higher", 3, 0, seed=0)
    assert added.shape == (0, 2)
    # LowerComMa: 9 pairs between the triangles, 2 of them edges
    added, _ = official_comma_edits(data.edge_index, 6, labels, "lower", 5, 0, seed=4)
    pairs = {tuple(p) for p in added.tolist()}
    assert len(pairs) == len(added) <= 5 and not pairs & _pairs(data)
    assert all(labels[u] != labels[v] for u, v in pairs)


def test_faithful_comma_caps_where_clean_comma_raises_and_reports_it():
    data = _cliques()
    with pytest.raises(RewireError, match="delete"):
        rewirekit.rewire(data, "comma", mode="higher", delete=3)
    out = rewirekit.rewire(data, "comma", mode="higher", add=2, delete=3, faithful=True)
    report = out.rewire_report
    # the first inter-community edge is a bridge: no deletion. One free pair per 5-clique,
    # hit by a draw with probability 1/10, in at most 20 draws: adds may fall short too
    assert report.edits_asked == {"add": 2, "delete": 3}
    made = report.edits_made
    assert made["delete"] == 0 and made["add"] <= 2
    asked = report.edits_asked
    assert report.shortfall == {k: asked[k] - made[k] for k in asked if made[k] < asked[k]}


def test_faithful_comma_is_seeded():
    data = _graph(
        torch.randint(0, 60, (2, 150), generator=torch.Generator().manual_seed(2)).t().tolist(), 60
    )
    runs = [
        rewirekit.rewire(data, "comma", mode=m, add=5, delete=5, seed=s, faithful=True)
        for m in ("higher", "lower")
        for s in (0, 0, 1)
    ]
    assert torch.equal(runs[0].edge_index, runs[1].edge_index)
    assert not torch.equal(runs[0].edge_index, runs[2].edge_index)
    assert not torch.equal(runs[0].edge_index, runs[3].edge_index)
