"""Dataset loaders: reference counts, offline folder left untouched, cache reuse, errors.

Real datasets are read from ``$REWIREKIT_DATA`` (e.g. ``/work/shared/datasets``); tests
of datasets that are not there are skipped, so nothing is ever downloaded.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.utils import contains_self_loops, is_undirected

from rewirekit.datasets import (
    DatasetUnavailable,
    available_offline,
    list_datasets,
    load,
    loaders,
    standardize,
)
from rewirekit.errors import RewireError

# name: (nodes, edges as PyG reports them, features, classes, mask shape or None)
EXPECTED = {
    "cora": (2708, 10556, 1433, 7, (2708,)),
    "citeseer": (3327, 9104, 3703, 6, (3327,)),
    "pubmed": (19717, 88648, 500, 3, (19717,)),
    "computers": (13752, 491722, 767, 10, None),
    "photo": (7650, 238162, 745, 8, None),
    "chameleon": (2277, 36101, 2325, 5, (2277, 10)),
    "squirrel": (5201, 217073, 2089, 5, (5201, 10)),
    "actor": (7600, 30019, 932, 5, (7600, 10)),
    "texas": (183, 325, 1703, 5, (183, 10)),
    "cornell": (183, 298, 1703, 5, (183, 10)),
    "wisconsin": (251, 515, 1703, 5, (251, 10)),
    "chameleon_filtered": (890, 17708, 2325, 5, (890, 10)),
    "squirrel_filtered": (2223, 93996, 2089, 5, (2223, 10)),
    "minesweeper": (10000, 78804, 7, 2, (10000, 10)),
    "tolokers": (11758, 1038000, 10, 2, (11758, 10)),
}
SLOW = {"computers", "squirrel", "tolokers"}


@pytest.fixture(scope="session")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("dataset-cache")


def require_offline(name: str) -> None:
    if not available_offline(name):
        pytest.skip(f"{name} is not in $REWIREKIT_DATA (unset or lacking it); not downloading")


def tree_snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in root.rglob("*")
    }


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in EXPECTED],
)
def test_load_matches_reference_counts(name, cache):
    require_offline(name)
    nodes, edges, features, classes, mask_shape = EXPECTED[name]
    data = load(name, undirected=False, cache_dir=cache)
    assert data.name == name
    assert (data.num_nodes, data.num_edges, data.num_features) == (nodes, edges, features)
    assert int(data.y.max()) + 1 == classes
    assert (data.x.dtype, data.y.dtype, data.edge_index.dtype) == (
        torch.float32,
        torch.int64,
        torch.int64,
    )
    for part in ("train", "val", "test"):
        mask = data.get(f"{part}_mask")
        assert (None if mask is None else tuple(mask.shape)) == mask_shape


def test_names_are_case_insensitive_and_unknown_names_list_the_valid_ones(cache):
    with pytest.raises(RewireError, match="cora.*tolokers"):
        load("ogbn-arxiv", cache_dir=cache)
    require_offline("texas")
    assert load("TeXaS", cache_dir=cache).name == "texas"


def test_pubmed_is_unavailable_in_the_shipped_offline_folder(cache):
    if loaders._offline_root() is None or available_offline("pubmed"):
        pytest.skip("needs $REWIREKIT_DATA set to a folder without PubMed")
    with pytest.raises(DatasetUnavailable, match="unset REWIREKIT_DATA"):
        load("pubmed", cache_dir=cache)


def test_missing_dataset_raises_dataset_unavailable(tmp_path, monkeypatch):
    monkeypatch.setenv("REWIREKIT_DATA", str(tmp_path / "empty"))
    assert not available_offline("cora")
    with pytest.raises(DatasetUnavailable, match="'cora' is not in the offline folder") as err:
        load("cora", cache_dir=tmp_path / "cache")
    assert isinstance(err.value, RewireError)


def test_loading_never_writes_into_the_offline_folder(tmp_path, monkeypatch):
    require_offline("texas")
    source = tmp_path / "source"
    shutil.copytree(loaders._offline_root() / "texas", source / "texas")
    before = tree_snapshot(source)
    monkeypatch.setenv("REWIREKIT_DATA", str(source))
    data = load("texas", cache_dir=tmp_path / "cache")
    assert data.num_nodes == 183
    assert tree_snapshot(source) == before
    assert (tmp_path / "cache" / "texas" / "processed").is_dir()


def test_cache_is_reused_without_copying_or_processing_again(tmp_path, monkeypatch):
    require_offline("texas")
    first = load("texas", cache_dir=tmp_path)
    processed = tmp_path / "texas" / "processed" / "data.pt"
    stamp = processed.stat().st_mtime_ns

    def no_copy(*args):
        raise AssertionError("the cached raw files were copied again")

    monkeypatch.setattr(loaders, "_copy_plain", no_copy)
    second = load("texas", cache_dir=tmp_path)
    assert processed.stat().st_mtime_ns == stamp
    assert torch.equal(first.edge_index, second.edge_index)


def test_cache_dir_defaults_to_rewirekit_cache_env(tmp_path, monkeypatch):
    require_offline("texas")
    monkeypatch.setenv("REWIREKIT_CACHE", str(tmp_path))
    load("texas")
    assert sorted(path.name for path in (tmp_path / "texas").iterdir()) == ["processed", "raw"]


def test_leftovers_of_a_crashed_copy_do_not_block_loading(tmp_path):
    require_offline("wisconsin")
    stale = tmp_path / "wisconsin" / ".raw.crashed" / "raw"
    stale.mkdir(parents=True)
    (stale / "out1_graph_edges.txt").write_text("truncated")
    assert load("wisconsin", undirected=False, cache_dir=tmp_path).num_edges == 515
    entries = sorted(path.name for path in (tmp_path / "wisconsin").iterdir())
    assert entries == [".raw.crashed", "processed", "raw"]  # our own staging folder is gone


def test_processes_loading_one_dataset_at_once_all_succeed(tmp_path):
    """Two processes filling one fresh cache: neither reads the other's half-written files."""
    require_offline("cora")
    code = (
        "import sys; from rewirekit.datasets import load; "
        "print(load('cora', cache_dir=sys.argv[1]))"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for _ in range(2)
    ]
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err[-2000:]
        assert "x=[2708, 1433]" in out


def test_list_datasets_reports_every_loader(monkeypatch):
    infos = {info.name: info for info in list_datasets()}
    assert set(infos) == set(EXPECTED)
    assert infos["cora"].homophilic and not infos["chameleon"].homophilic
    assert infos["texas"].has_fixed_splits and not infos["cora"].has_fixed_splits
    assert "geom_gcn_preprocess=True" in infos["squirrel"].source
    monkeypatch.delenv("REWIREKIT_DATA", raising=False)
    assert not any(info.available_offline for info in list_datasets())


def test_load_returns_simple_undirected_graphs_unless_told_otherwise(cache):
    require_offline("texas")
    data = load("texas", cache_dir=cache)
    assert is_undirected(data.edge_index) and not contains_self_loops(data.edge_index)
    raw = load("texas", undirected=False, cache_dir=cache)
    assert torch.equal(data.edge_index, standardize(raw).edge_index)
    assert data.num_edges == 558 and raw.num_edges == EXPECTED["texas"][1]
    assert torch.equal(data.train_mask, raw.train_mask) and data.name == "texas"


def test_standardize_makes_geom_gcn_graphs_simple_and_undirected(cache):
    require_offline("texas")
    data = load("texas", undirected=False, cache_dir=cache)
    assert contains_self_loops(data.edge_index) and not is_undirected(data.edge_index)
    out = standardize(data)
    assert is_undirected(out.edge_index) and not contains_self_loops(out.edge_index)
    keys = out.edge_index[0] * out.num_nodes + out.edge_index[1]
    assert keys.unique().numel() == keys.numel()
    assert torch.equal(out.train_mask, data.train_mask) and out.x is data.x
    assert data.num_edges == EXPECTED["texas"][1]  # the input is left alone


def test_standardize_averages_edge_weights_of_merged_edges():
    data = Data(
        edge_index=torch.tensor([[0, 1, 1, 2, 2], [1, 0, 2, 2, 0]]),
        edge_weight=torch.tensor([1.0, 3.0, 5.0, 7.0, 9.0]),
        num_nodes=3,
    )
    out = standardize(data)
    assert out.edge_index.tolist() == [[0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1]]
    assert out.edge_weight.tolist() == [2.0, 9.0, 2.0, 5.0, 9.0, 5.0]


def test_an_empty_raw_folder_left_by_a_failed_download_is_refilled(tmp_path):
    require_offline("cornell")
    (tmp_path / "cornell" / "raw").mkdir(parents=True)
    assert load("cornell", undirected=False, cache_dir=tmp_path).num_edges == 298


def test_standardize_can_keep_direction():
    data = Data(edge_index=torch.tensor([[0, 0, 1, 2, 2], [1, 1, 2, 2, 0]]), num_nodes=3)
    out = standardize(data, undirected=False)
    assert out.edge_index.tolist() == [[0, 1, 2], [1, 2, 0]]
