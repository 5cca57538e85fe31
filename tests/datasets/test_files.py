"""Your own graph from a file: each format reads to the same graph; each error says what to fix."""

from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import contains_self_loops, is_undirected

from rewirekit.bench.runner import DatasetSpec
from rewirekit.datasets import (
    USER_GRAPH,
    choose_split_preset,
    csbm,
    graph_key,
    is_graph_path,
    read_graph,
)
from rewirekit.errors import RewireError


@pytest.fixture(scope="module")
def graph() -> Data:
    return csbm(num_nodes=60, num_features=4, phi=0.4, seed=0)


def save_npz(path: Path, **arrays) -> Path:
    np.savez(path, **arrays)
    return path


def npz_arrays(graph: Data) -> dict:
    return dict(edge_index=graph.edge_index.numpy(), x=graph.x.numpy(), y=graph.y.numpy())


def write_csv_folder(folder: Path, graph: Data, *, labels=None, order=None) -> Path:
    """The three CSV files of ``graph``, each undirected edge once, nodes in ``order``."""
    folder.mkdir(exist_ok=True)
    src, dst = graph.edge_index
    once = src < dst
    rows = [f"{u},{v}" for u, v in zip(src[once].tolist(), dst[once].tolist(), strict=True)]
    (folder / "edges.csv").write_text("source,target\n" + "\n".join(rows) + "\n")
    order = list(range(graph.num_nodes) if order is None else order)
    features = ",".join(f"f{j}" for j in range(graph.num_features))
    lines = [f"{i}," + ",".join(f"{v!r}" for v in graph.x[i].tolist()) for i in order]
    (folder / "features.csv").write_text(f"node,{features}\n" + "\n".join(lines) + "\n")
    labels = graph.y.tolist() if labels is None else labels
    lines = [f"{i},{labels[i]}" for i in order if i < len(labels)]
    (folder / "labels.csv").write_text("node,label\n" + "\n".join(lines) + "\n")
    return folder


def assert_same_graph(out: Data, graph: Data) -> None:
    assert torch.equal(out.edge_index, graph.edge_index)
    assert torch.equal(out.x, graph.x) and torch.equal(out.y, graph.y)
    assert (out.x.dtype, out.y.dtype, out.edge_index.dtype) == (
        torch.float32,
        torch.int64,
        torch.int64,
    )


def test_the_three_formats_read_to_the_same_graph(graph, tmp_path):
    torch.save(graph, tmp_path / "g.pt")
    npz = save_npz(tmp_path / "g.npz", **npz_arrays(graph))
    folder = write_csv_folder(tmp_path / "g", graph, order=reversed(range(graph.num_nodes)))
    for path in (tmp_path / "g.pt", npz, folder):
        out = read_graph(path)
        assert_same_graph(out, graph)
        assert out.name == graph_key(path) and out.name.startswith("g@")


def test_loaded_graphs_are_simple_and_keep_extra_attributes(graph, tmp_path):
    data = graph.clone()
    loops = torch.stack([torch.arange(3), torch.arange(3)])
    data.edge_index = torch.cat([data.edge_index, loops, data.edge_index[:, :4]], dim=1)
    data.train_mask = torch.ones(graph.num_nodes, dtype=torch.bool)
    torch.save(data, tmp_path / "g.pt")
    out = read_graph(tmp_path / "g.pt")
    assert not contains_self_loops(out.edge_index)
    assert torch.equal(out.edge_index, graph.edge_index)  # duplicates merged
    assert torch.equal(out.train_mask, data.train_mask)


def test_csv_weights_and_class_names(graph, tmp_path):
    names = ["cat" if label else "dog" for label in graph.y.tolist()]
    folder = write_csv_folder(tmp_path / "named", graph, labels=names)
    text = (folder / "edges.csv").read_text().splitlines()
    lines = [f"{row},{1 + i % 3}" for i, row in enumerate(text[1:])]
    (folder / "edges.csv").write_text("source,target,weight\n" + "\n".join(lines) + "\n")
    out = read_graph(folder)
    assert out.label_names == ["cat", "dog"]
    assert torch.equal(out.y, 1 - graph.y)  # "cat" (label 1) sorts first
    assert out.edge_weight.shape == (out.num_edges,) and set(out.edge_weight.tolist()) == {
        1.0,
        2.0,
        3.0,
    }
    assert is_undirected(out.edge_index, out.edge_weight)


def test_a_directed_graph_is_refused_with_the_fix_unless_symmetrised(graph, tmp_path):
    arrays = npz_arrays(graph)
    src, dst = graph.edge_index
    arrays["edge_index"] = graph.edge_index[:, src < dst].numpy()
    path = save_npz(tmp_path / "directed.npz", **arrays)
    with pytest.raises(RewireError, match=r"directed: \d+ of \d+ edges have no reverse") as err:
        read_graph(path)
    assert "--undirected" in str(err.value) and "to_undirected" in str(err.value)
    assert_same_graph(read_graph(path, undirected=True), graph)


def _set(key, index, value):
    def change(arrays):
        arrays[key] = arrays[key].copy()
        arrays[key][index] = value

    return change


def _replace(key, function):
    def change(arrays):
        arrays[key] = function(arrays[key])

    return change


@pytest.mark.parametrize(
    "change, message",
    [
        (_replace("edge_index", np.transpose), r"edge_index .* has shape \[\d+, 2\].*transpose"),
        (_set("edge_index", (1, 3), 60), r"node ids out of range \[0, 59\] \(x has 60 rows\)"),
        (_set("edge_index", (0, 0), -1), r"node ids out of range .* -1 -> "),
        (_replace("y", lambda y: y[:-1]), r"y .* has shape \[59\] but x has 60 nodes"),
        (_set("y", 7, -1), r"negative labels on node\(s\) 7;.*unlabelled"),
        (_replace("y", lambda y: y + 0.5), r"non-integer values"),
        (_replace("x", lambda x: x[:, 0]), r"has shape \[60\]; node features must be \[N, F\]"),
        (_set("x", (2, 1), np.nan), r"NaN or infinite"),
        (_replace("x", lambda x: x.astype(str)), r"is of type <U\d+; it must be numeric"),
        (lambda arrays: arrays.pop("y"), r"has no y \(it holds edge_index, x\); every node"),
    ],
)
def test_npz_errors_name_the_array_and_the_fix(graph, tmp_path, change, message):
    arrays = npz_arrays(graph)
    change(arrays)
    with pytest.raises(RewireError, match=message):
        read_graph(save_npz(tmp_path / "bad.npz", **arrays))


def test_pt_errors(graph, tmp_path):
    torch.save({"edge_index": graph.edge_index}, tmp_path / "dict.pt")
    with pytest.raises(RewireError, match="holds a dict, not a torch_geometric.data.Data"):
        read_graph(tmp_path / "dict.pt")
    torch.save(Data(x=graph.x, edge_index=graph.edge_index), tmp_path / "nolabels.pt")
    with pytest.raises(RewireError, match=r"has no data\.y; every node needs a label"):
        read_graph(tmp_path / "nolabels.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a pickle")
    with pytest.raises(RewireError, match=r"cannot read .* as a saved PyG Data.*torch\.save"):
        read_graph(tmp_path / "junk.pt")


def test_csv_errors_name_the_file_and_the_rows(graph, tmp_path):
    folder = write_csv_folder(tmp_path / "missing-label", graph, labels=graph.y.tolist()[:57])
    with pytest.raises(RewireError, match=r"labels\.csv has no label for node\(s\) 57, 58, 59"):
        read_graph(folder)
    folder = write_csv_folder(tmp_path / "out-of-range", graph)
    with (folder / "edges.csv").open("a") as handle:
        handle.write("3,60\n")
    with pytest.raises(RewireError, match=r"edges\.csv has node ids out of range .* 3 -> 60"):
        read_graph(folder)
    folder = write_csv_folder(tmp_path / "gap", graph, order=[i for i in range(60) if i != 5])
    with pytest.raises(RewireError, match=r"features\.csv must list each node 0\.\.58 once"):
        read_graph(folder)
    folder = write_csv_folder(tmp_path / "ragged", graph)
    with (folder / "features.csv").open("a") as handle:
        handle.write("60,1.0\n")
    with pytest.raises(RewireError, match=r"features\.csv line 62 has 2 columns"):
        read_graph(folder)
    (folder / "labels.csv").unlink()
    with pytest.raises(RewireError, match=r"lacks labels\.csv; a graph folder holds edges\.csv"):
        read_graph(folder)
    folder = write_csv_folder(tmp_path / "text-id", graph)
    (folder / "edges.csv").write_text("source,target\na,1\n")
    with pytest.raises(RewireError, match=r"column 'source' holds 'a'; node ids are integers"):
        read_graph(folder)


def test_paths_and_names_are_told_apart(tmp_path):
    assert is_graph_path("graph.npz") and is_graph_path("data/mine") and is_graph_path(tmp_path)
    assert not is_graph_path("texas") and not is_graph_path("chameleon_filtered")
    with pytest.raises(RewireError, match="no file or folder .*nope.npz"):
        read_graph(tmp_path / "nope.npz")
    (tmp_path / "g.txt").write_text("")
    with pytest.raises(RewireError, match=r"not a \.pt or \.npz file"):
        read_graph(tmp_path / "g.txt")


def test_the_key_follows_the_content_and_the_split_is_dense(graph, tmp_path):
    path = save_npz(tmp_path / "g.npz", **npz_arrays(graph))
    first = graph_key(path)
    arrays = npz_arrays(graph)
    arrays["y"] = 1 - arrays["y"]
    save_npz(path, **arrays)
    assert graph_key(path) != first
    spec = DatasetSpec.from_argument(str(path))
    assert spec.key == graph_key(path) and spec.preset_name == USER_GRAPH
    assert torch.equal(spec.load().y, torch.from_numpy(arrays["y"]))
    assert choose_split_preset(spec.preset_name).preset == "dense"
    with pytest.raises(RewireError, match="unknown dataset 'mine'.*path of your own graph"):
        DatasetSpec.from_argument("mine")


def test_csv_features_must_be_numbers(graph, tmp_path):
    folder = write_csv_folder(tmp_path / "text-feature", graph)
    lines = (folder / "features.csv").read_text().splitlines()
    lines[3] = lines[3].split(",")[0] + ",high" + ",0" * (graph.num_features - 1)
    (folder / "features.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(RewireError, match=r"column 'f0' holds 'high'; it must be a number"):
        read_graph(folder)
