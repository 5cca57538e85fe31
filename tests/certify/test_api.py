"""certify_labels: from a graph to a certificate, MILP and enumeration alike."""

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from rewirekit.certify import certify_labels
from rewirekit.certify.data import qpcert_csbm, split_per_class
from rewirekit.errors import RewireError


def csbm_data(seed=0):
    graph = qpcert_csbm(40, seed=seed)
    split = split_per_class(graph.y, 4, target_fraction=0.2, seed=seed)
    coo = graph.adj.tocoo()
    data = Data(
        x=torch.from_numpy(graph.x),
        y=torch.from_numpy(graph.y),
        edge_index=torch.from_numpy(np.vstack([coo.row, coo.col]).astype(np.int64)),
    )
    n = len(graph.y)
    data.train_mask = torch.zeros(n, dtype=torch.bool)
    data.train_mask[split.labelled] = True
    data.test_mask = torch.zeros(n, dtype=torch.bool)
    data.test_mask[split.targets] = True
    return graph, split, data


@pytest.mark.parametrize("collective", [False, True])
def test_milp_and_enumeration_agree_and_are_deterministic(collective):
    _, _, data = csbm_data()
    kwargs = dict(model="gcn", budget=2, C=0.5, collective=collective)
    milp = certify_labels(data, method="milp", **kwargs)
    enum = certify_labels(data, method="enumerate", **kwargs)
    assert milp.ratio == enum.ratio
    assert certify_labels(data, method="milp", **kwargs).ratio == milp.ratio
    if not collective:
        np.testing.assert_array_equal(milp.certified, enum.certified)


def test_label_graph_and_fractional_budget():
    graph, split, _ = csbm_data(1)
    cert = certify_labels(graph, "sgc", 0.25, C=0.5, labelled=split.labelled, targets=split.targets)
    assert cert.budget == 2 and len(cert.certified) == len(split.targets)


def test_bad_input():
    graph, split, data = csbm_data()
    with pytest.raises(RewireError, match="no labelled nodes"):
        certify_labels(graph)
    with pytest.raises(RewireError, match=r"\[0, m\]"):
        certify_labels(data, budget=9)
    with pytest.raises(RewireError, match=r"\[0, 1\]"):
        certify_labels(data, budget=1.5)
    with pytest.raises(RewireError, match="unknown architecture"):
        certify_labels(data, model="transformer")
    with pytest.raises(RewireError, match="method"):
        certify_labels(data, method="gurobi")


def test_cli_certify_before_and_after_a_rewiring():
    from typer.testing import CliRunner

    from rewirekit.cli import app

    args = [
        "certify",
        "-d",
        "csbm",
        "--model",
        "sgc",
        "--C",
        "0.001",
        "--method",
        "random:add=20,seed=0",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "before: certified ratio" in result.output and "after random" in result.output
    bad = CliRunner().invoke(app, ["certify", "-d", "cora"])
    assert isinstance(bad.exception, RewireError)
