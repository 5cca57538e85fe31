"""Benchmark node-classification datasets, loaded through PyTorch Geometric, online or offline.

Where the data comes from:

* ``REWIREKIT_DATA`` set: an offline folder laid out as PyG expects
  (``<root>/Cora/raw/...``, ``<root>/chameleon/geom_gcn/raw/...``, ...). Only the raw
  files of the requested dataset are copied into the cache, and PyG reads (and writes its
  ``processed/`` folder) there, so the offline folder is never written and may be
  read-only. A dataset missing from it raises :class:`DatasetUnavailable`.
* ``REWIREKIT_DATA`` unset: PyG downloads into the cache as usual.

The cache is ``cache_dir`` if given, else ``$REWIREKIT_CACHE``, else
``~/.cache/rewirekit/datasets``.

Chameleon and Squirrel are the geom-gcn graphs (``geom_gcn_preprocess=True``). The JDR paper
combined geom-gcn labels with the raw WikipediaNetwork edges, whose files are not in the
offline folder; compare numbers with that difference in mind.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import torch
from filelock import FileLock
from torch_geometric.data import Data, download_url
from torch_geometric.datasets import (
    Actor,
    Amazon,
    HeterophilousGraphDataset,
    Planetoid,
    WebKB,
    WikipediaNetwork,
)
from torch_geometric.utils import coalesce, to_undirected

from rewirekit.errors import RewireError
from rewirekit.registry import Registry

DATA_ENV = "REWIREKIT_DATA"
CACHE_ENV = "REWIREKIT_CACHE"
_YANDEX_URL = "https://github.com/yandex-research/heterophilous-graphs/raw/main/data"


class DatasetUnavailable(RewireError):
    """The dataset's files are not in the offline folder named by ``REWIREKIT_DATA``."""


@dataclass(frozen=True)
class DatasetInfo:
    """What :func:`list_datasets` reports about one dataset.

    Attributes:
        name: canonical lower-case name accepted by :func:`load`.
        source: how it is read (PyG class and arguments, or the upstream npz).
        homophilic: whether the literature counts it as homophilous.
        available_offline: whether ``$REWIREKIT_DATA`` currently holds its files.
        has_fixed_splits: whether it ships the 10 fixed splits (``[N, 10]`` masks) that
            the ``geom-gcn`` split preset reads. Planetoid sets ship the public split instead.
    """

    name: str
    source: str
    homophilic: bool
    available_offline: bool
    has_fixed_splits: bool


@dataclass(frozen=True)
class _Spec:
    source: str
    files: str  # raw files under the offline root: a folder, or one file
    homophilic: bool
    has_fixed_splits: bool
    read: Callable[[str], Data]  # dataset root -> Data


def _pyg(cls: type, name: str, **kwargs) -> Callable[[str], Data]:
    return lambda root: cls(root, name, **kwargs)[0]


def _read_actor(root: str) -> Data:
    return Actor(os.path.join(root, "Actor"))[0]


def _read_yandex_filtered(name: str, root: str) -> Data:
    """Filtered Chameleon/Squirrel of Platonov et al., "A critical look at the evaluation of
    GNNs under heterophily" (ICLR 2023), read as ``HeterophilousGraphDataset`` reads its npz."""
    folder = os.path.join(root, "yandex_filtered")
    with np.load(download_url(f"{_YANDEX_URL}/{name}_filtered.npz", folder, log=False)) as raw:
        arrays = {key: torch.from_numpy(raw[key]) for key in raw.files}
    x = arrays["node_features"]
    masks = {
        f"{split}_mask": arrays[f"{split}_masks"].t().contiguous()
        for split in ("train", "val", "test")
    }
    edge_index = to_undirected(arrays["edges"].t().contiguous(), num_nodes=x.size(0))
    return Data(x=x, y=arrays["node_labels"], edge_index=edge_index, **masks)


def _wiki(name: str) -> _Spec:
    return _Spec(
        f"WikipediaNetwork(name={name!r}, geom_gcn_preprocess=True)",
        f"{name}/geom_gcn/raw",
        False,
        True,
        _pyg(WikipediaNetwork, name, geom_gcn_preprocess=True),
    )


def _filtered(name: str) -> _Spec:
    return _Spec(
        f"yandex-research/heterophilous-graphs {name}_filtered.npz",
        f"yandex_filtered/{name}_filtered.npz",
        False,
        True,
        partial(_read_yandex_filtered, name),
    )


def _simple(cls: type, name: str, folder: str, homophilic: bool, fixed: bool) -> _Spec:
    return _Spec(
        f"{cls.__name__}(name={name!r})", f"{folder}/raw", homophilic, fixed, _pyg(cls, name)
    )


_DATASETS: Registry[_Spec] = Registry(
    "dataset",
    {
        "cora": _simple(Planetoid, "Cora", "Cora", True, False),
        "citeseer": _simple(Planetoid, "CiteSeer", "CiteSeer", True, False),
        "pubmed": _simple(Planetoid, "PubMed", "PubMed", True, False),
        "computers": _simple(Amazon, "Computers", "Computers", True, False),
        "photo": _simple(Amazon, "Photo", "Photo", True, False),
        "chameleon": _wiki("chameleon"),
        "squirrel": _wiki("squirrel"),
        "actor": _Spec("Actor()", "Actor/raw", False, True, _read_actor),
        "texas": _simple(WebKB, "Texas", "texas", False, True),
        "cornell": _simple(WebKB, "Cornell", "cornell", False, True),
        "wisconsin": _simple(WebKB, "Wisconsin", "wisconsin", False, True),
        "chameleon_filtered": _filtered("chameleon"),
        "squirrel_filtered": _filtered("squirrel"),
        "minesweeper": _simple(
            HeterophilousGraphDataset, "Minesweeper", "minesweeper", False, True
        ),
        "tolokers": _simple(HeterophilousGraphDataset, "Tolokers", "tolokers", False, True),
    }.items(),
)


def load(name: str, *, undirected: bool = True, cache_dir: str | os.PathLike | None = None) -> Data:
    """Load a benchmark dataset as one PyG ``Data``.

    The graph is simple and undirected (:func:`standardize`: each edge in both directions
    once, no self-loops), so that every method accepts it, with float32 ``x``, int64 ``y``
    and ``edge_index``, the shipped masks (``[N, 10]`` for geom-gcn and yandex splits,
    ``[N]`` for the Planetoid public split) and ``name`` set to the canonical name.

    Args:
        name: dataset name, case-insensitive; see :func:`list_datasets`.
        undirected: ``False`` returns the graph exactly as PyG builds it: the geom-gcn graphs
            (Texas, Actor, Chameleon, ...) directed, with their self-loops and duplicates.
            The benchmark reads it so to keep Actor directed where its paper did.
        cache_dir: writable folder for the raw copies and PyG's ``processed/`` files.

    Raises:
        RewireError: for an unknown name.
        DatasetUnavailable: if ``$REWIREKIT_DATA`` is set but lacks the dataset.
    """
    key, spec = _lookup(name)
    cache = _cache_root(cache_dir)
    source = _offline_root()
    if source is not None and not (source / spec.files).exists():
        raise DatasetUnavailable(
            f"dataset {key!r} is not in the offline folder {DATA_ENV}={source} "
            f"(no {spec.files} there); unset {DATA_ENV} to let PyG download it into "
            f"{cache}, or add its raw files to that folder."
        )
    cache.mkdir(parents=True, exist_ok=True)
    # One process at a time fills a dataset's cache: PyG writes processed/ in place, and a
    # second process could read it half written.
    with FileLock(str(cache / f".{key}.lock")):
        if source is not None:
            _copy_once(source / spec.files, cache / spec.files)
        data = spec.read(str(cache))
    data.x, data.y = data.x.float(), data.y.long()
    data.edge_index = data.edge_index.long()
    data.name = key
    return standardize(data) if undirected else data


def list_datasets() -> list[DatasetInfo]:
    """All datasets :func:`load` knows, in a stable order (homophilous ones first)."""
    return [dataset_info(key) for key in _DATASETS]


def dataset_info(name: str) -> DatasetInfo:
    """What :func:`list_datasets` reports about dataset ``name`` (case-insensitive)."""
    key, spec = _lookup(name)
    return DatasetInfo(
        key, spec.source, spec.homophilic, available_offline(key), spec.has_fixed_splits
    )


def available_offline(name: str) -> bool:
    """Whether ``$REWIREKIT_DATA`` is set and holds the raw files of dataset ``name``."""
    _, spec = _lookup(name)
    source = _offline_root()
    return source is not None and (source / spec.files).exists()


def standardize(data: Data, *, undirected: bool = True) -> Data:
    """Return a copy of ``data`` with a coalesced edge set without self-loops, undirected
    unless ``undirected=False`` (then each directed edge is kept once, in its direction).

    Undirected: every edge is present in both directions exactly once. Edge-level
    attributes (e.g. ``edge_weight``) follow their edges, averaged where two directions or
    duplicates merge. Nodes, features, labels and masks are kept as they are.
    """
    out = copy.copy(data)
    keys = [key for key in data.edge_attrs() if key != "edge_index"]
    keep = data.edge_index[0] != data.edge_index[1]
    edge_index, attrs = data.edge_index[:, keep], [data[key][keep] for key in keys]
    if undirected:
        out.edge_index, attrs = to_undirected(
            edge_index, attrs, num_nodes=data.num_nodes, reduce="mean"
        )
    else:
        out.edge_index, attrs = coalesce(edge_index, attrs, num_nodes=data.num_nodes, reduce="mean")
    for key, value in zip(keys, attrs, strict=True):
        out[key] = value
    return out


def canonical_name(name: str) -> str:
    """The registry key of a dataset name (case-insensitive); RewireError if unknown."""
    return _lookup(name)[0]


def _lookup(name: str) -> tuple[str, _Spec]:
    key = _DATASETS.canonical(name)
    return key, _DATASETS[key]


def _offline_root() -> Path | None:
    root = os.environ.get(DATA_ENV)
    return Path(root).expanduser() if root else None


def _cache_root(cache_dir: str | os.PathLike | None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "rewirekit" / "datasets"


def _copy_once(src: Path, dst: Path) -> None:
    """Copy ``src`` (a file or folder) to ``dst`` unless ``dst`` already holds all of it.

    The copy is staged in a temporary folder next to ``dst`` and moved into place with one
    rename, so a crashed or concurrent run never leaves a partial ``dst``; an incomplete
    ``dst`` (e.g. the empty ``raw/`` of a failed download) is replaced.
    """
    if _holds_copy(dst, src):
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dst.name}.", dir=dst.parent))
    try:
        _copy_plain(src, staging / dst.name)
        if dst.is_dir():
            shutil.rmtree(dst, ignore_errors=True)
        try:
            os.replace(staging / dst.name, dst)
        except OSError:  # another run renamed its copy into place first
            if not _holds_copy(dst, src):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _holds_copy(dst: Path, src: Path) -> bool:
    """Whether ``dst`` has every file of ``src`` with the same size."""
    if src.is_file():
        return dst.is_file() and dst.stat().st_size == src.stat().st_size
    return dst.is_dir() and all(_holds_copy(dst / child.name, child) for child in src.iterdir())


def _copy_plain(src: Path, dst: Path) -> None:
    """Copy a file or folder tree without its permission bits (the source may be read-only)."""
    if src.is_file():
        shutil.copyfile(src, dst)
        return
    dst.mkdir()
    for child in src.iterdir():
        _copy_plain(child, dst / child.name)
