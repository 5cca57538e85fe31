"""Your own graph from a file: a saved PyG ``Data``, an ``.npz``, or a folder of CSV files.

:func:`read_graph` reads any of the three, validates it and returns a simple undirected
``Data`` (float32 ``x`` ``[N, F]``, int64 ``y`` ``[N]``, a coalesced int64 ``edge_index``
without self-loops), ready for every method and for the benchmark.

The three formats:

``graph.pt``
    ``torch.save(data, "graph.pt")`` of one ``torch_geometric.data.Data`` with ``x``, ``y``
    and ``edge_index``; other attributes (``edge_weight``, masks) are kept. It is read with
    ``torch.load(weights_only=True)``, so the file cannot run code.
``graph.npz``
    ``numpy.savez("graph.npz", edge_index=..., x=..., y=...)``: ``edge_index`` ``[2, E]``
    integers, ``x`` ``[N, F]`` numbers, ``y`` ``[N]`` integer labels; optionally
    ``edge_weight`` ``[E]``.
A folder with three CSV files (comma-separated, one header line each)
    ``edges.csv``: ``source,target`` (optionally a third column ``weight``), one row per
    undirected edge, in either orientation (a row and its reverse are the same edge);
    ``features.csv``: ``node,<one column per feature>``, one row per node;
    ``labels.csv``: ``node,label``, one row per node; labels are integers ``0..C-1`` or
    class names (sorted names become ``0..C-1``; ``data.label_names`` keeps them).
    Node ids are the integers ``0..N-1``, where ``N`` is the number of rows of
    ``features.csv``; the rows may come in any order.

In ``.pt`` and ``.npz`` files the graph follows PyG's convention: an undirected edge is
stored in both directions. A graph in which some edge lacks its reverse is directed and is
refused (rewiring methods need an undirected graph) unless ``undirected=True``
symmetrises it. Self-loops and duplicate edges are dropped (see
:func:`~rewirekit.datasets.standardize`).

Errors (:class:`~rewirekit.errors.RewireError`) name the file, the array and what to change:
a wrong shape, a missing or negative label, a node id out of range, NaN features, a
directed graph.
"""

from __future__ import annotations

import csv
import hashlib
import os
from pathlib import Path

import numpy as np
import torch
from torch import Tensor
from torch_geometric.data import Data
from torch_geometric.data.data import DataEdgeAttr, DataTensorAttr
from torch_geometric.data.storage import GlobalStorage

from rewirekit.datasets.loaders import standardize
from rewirekit.errors import RewireError

CSV_FILES = ("edges.csv", "features.csv", "labels.csv")
SUFFIXES = (".pt", ".npz")
#: The name a user graph's rows look their training settings up under: it has none, so every
#: training preset gives it its defaults, and its split preset is the dense random one.
USER_GRAPH = "user-graph"
FORMATS_HELP = (
    "a saved PyG Data (.pt), an .npz with edge_index, x and y, or a folder with "
    "edges.csv, features.csv and labels.csv"
)


def is_graph_path(text: str | os.PathLike) -> bool:
    """Whether a ``--dataset`` argument names a file rather than a dataset: it exists, ends in
    ``.pt`` or ``.npz``, or holds a path separator (dataset names have none of these)."""
    path = Path(text)
    return path.exists() or path.suffix.lower() in SUFFIXES or os.sep in str(text)


def graph_key(path: str | os.PathLike) -> str:
    """The name a graph file's benchmark rows are stored under: ``<stem>@<digest>``, where the
    digest (SHA-256 of the file's bytes, or of the three CSV files) changes with the content,
    so that rows of an edited graph are never mixed with the old ones."""
    path = _existing(path)
    digest = hashlib.sha256()
    for file in _files_of(path):
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return f"{path.stem if path.is_file() else path.name}@{digest.hexdigest()[:10]}"


def read_graph(path: str | os.PathLike, *, undirected: bool = False) -> Data:
    """Read and validate a graph file (see the module docstring for the formats).

    Args:
        path: a ``.pt`` or ``.npz`` file, or a folder with ``edges.csv``, ``features.csv``
            and ``labels.csv``.
        undirected: symmetrise a directed ``.pt``/``.npz`` graph (add each missing reverse
            edge) instead of refusing it.

    Returns:
        A simple undirected ``Data`` whose ``name`` is :func:`graph_key`.

    Raises:
        RewireError: the path is missing or of an unknown kind, or the graph is invalid.
    """
    path = _existing(path)
    if path.is_dir():
        data, where = _read_csv_folder(path), f"{path}{os.sep}edges.csv"
    elif path.suffix.lower() == ".pt":
        data, where = _read_pt(path), str(path)
    else:
        data, where = _read_npz(path), str(path)
    _check_graph(data, where, csv=path.is_dir(), undirected=undirected)
    out = standardize(data)
    out.name = graph_key(path)
    return out


def _existing(path: str | os.PathLike) -> Path:
    path = Path(path).expanduser()
    if not path.exists():
        raise RewireError(f"no file or folder {str(path)!r}; give {FORMATS_HELP}.")
    if path.is_file() and path.suffix.lower() not in SUFFIXES:
        raise RewireError(
            f"cannot read {str(path)!r}: not a .pt or .npz file; give {FORMATS_HELP}."
        )
    return path


def _files_of(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    missing = [name for name in CSV_FILES if not (path / name).is_file()]
    if missing:
        raise RewireError(
            f"the folder {str(path)!r} lacks {', '.join(missing)}; a graph folder holds "
            "edges.csv (source,target), features.csv (node,<features>) and labels.csv "
            "(node,label)."
        )
    return [path / name for name in CSV_FILES]


def _read_pt(path: Path) -> Data:
    try:
        with torch.serialization.safe_globals([Data, DataEdgeAttr, DataTensorAttr, GlobalStorage]):
            data = torch.load(path, weights_only=True)
    except Exception as err:
        raise RewireError(
            f"cannot read {str(path)!r} as a saved PyG Data ({type(err).__name__}); write it "
            "with torch.save(data, path) where data is a torch_geometric.data.Data."
        ) from err
    if not isinstance(data, Data):
        raise RewireError(
            f"{str(path)!r} holds a {type(data).__name__}, not a torch_geometric.data.Data; "
            "save one graph with torch.save(data, path)."
        )
    for key in ("edge_index", "x", "y"):
        if data.get(key) is None:
            raise RewireError(f"{str(path)!r} has no data.{key}; {_NEEDS[key]}.")
    return data.clone()


_NEEDS = {
    "edge_index": "the graph needs edge_index, an integer array of shape [2, E]",
    "x": "the graph needs node features x of shape [N, F]",
    "y": "every node needs a label: y, integers 0..C-1 of shape [N]",
}


def _read_npz(path: Path) -> Data:
    try:
        archive = np.load(path, allow_pickle=False)
    except Exception as err:
        raise RewireError(f"cannot read {str(path)!r} as an .npz archive: {err}.") from err
    with archive:
        missing = [key for key in ("edge_index", "x", "y") if key not in archive.files]
        if missing:
            raise RewireError(
                f"{str(path)!r} has no {', '.join(missing)} (it holds "
                f"{', '.join(archive.files) or 'nothing'}); {_NEEDS[missing[0]]}."
            )
        arrays = {key: _tensor(archive[key], key, path) for key in archive.files}
    return Data(**arrays)


def _tensor(array: np.ndarray, key: str, path: Path) -> Tensor:
    if array.dtype.kind not in "biuf":
        raise RewireError(f"{key} in {str(path)!r} is of type {array.dtype}; it must be numeric.")
    return torch.from_numpy(np.ascontiguousarray(array))


def _read_csv_folder(folder: Path) -> Data:
    edges_file, features_file, labels_file = _files_of(folder)
    feature_header, feature_rows = _read_csv(features_file, min_columns=2)
    if len(feature_rows) == 0:
        raise RewireError(f"{features_file} has no rows; it needs one row per node.")
    node_ids = _integer_column(feature_rows[:, 0], features_file, "node")
    order = _node_order(node_ids, features_file)
    x = _float_block(feature_rows[order, 1:], features_file, feature_header[1:])
    _, label_rows = _read_csv(labels_file, min_columns=2)
    y, names = _labels(label_rows, labels_file, len(order))
    _, edge_rows = _read_csv(edges_file, min_columns=2)
    src = _integer_column(edge_rows[:, 0], edges_file, "source")
    dst = _integer_column(edge_rows[:, 1], edges_file, "target")
    data = Data(x=x, y=y, edge_index=torch.from_numpy(np.vstack([src, dst])))
    if edge_rows.shape[1] > 2:
        data.edge_weight = _float_block(edge_rows[:, 2:3], edges_file, ["weight"]).view(-1)
    if names is not None:
        data.label_names = names
    return data


def _read_csv(path: Path, *, min_columns: int) -> tuple[list[str], np.ndarray]:
    """The header and the rows (a string array ``[rows, columns]``) of a CSV file."""
    with path.open(newline="") as handle:
        rows = [row for row in csv.reader(handle) if row]
    if not rows:
        raise RewireError(f"{path} is empty; it needs a header line and one row per item.")
    header, body = rows[0], rows[1:]
    widths = {len(row) for row in body} | {len(header)}
    if len(widths) > 1:
        bad = next(i for i, row in enumerate(body) if len(row) != len(header))
        raise RewireError(
            f"{path} line {bad + 2} has {len(body[bad])} columns but the header has "
            f"{len(header)}; every row needs the header's columns."
        )
    if len(header) < min_columns:
        raise RewireError(
            f"{path} has {len(header)} column(s); it needs at least {min_columns} "
            f"(header {','.join(header)!r})."
        )
    return header, np.array(body, dtype=str).reshape(len(body), len(header))


def _integer_column(values: np.ndarray, path: Path, column: str) -> np.ndarray:
    try:
        return values.astype(np.int64)
    except ValueError:
        bad = next(str(v) for v in values if not v.strip().lstrip("-").isdigit())
        raise RewireError(
            f"{path}: column {column!r} holds {bad!r}; node ids are integers 0..N-1."
        ) from None


def _float_block(values: np.ndarray, path: Path, columns: list[str]) -> Tensor:
    try:
        return torch.from_numpy(values.astype(np.float32))
    except ValueError:
        row, col = next((r, c) for r, c in np.ndindex(values.shape) if not _is_number(values[r, c]))
        raise RewireError(
            f"{path}: column {columns[col]!r} holds {str(values[row, col])!r}; it must be a number."
        ) from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _node_order(node_ids: np.ndarray, path: Path) -> np.ndarray:
    """The row of each node ``0..N-1`` in a file with one row per node."""
    n = node_ids.size
    counts = np.bincount(node_ids[(node_ids >= 0) & (node_ids < n)], minlength=n)
    if (node_ids < 0).any() or (node_ids >= n).any() or (counts != 1).any():
        missing = np.flatnonzero(counts == 0)
        raise RewireError(
            f"{path} must list each node 0..{n - 1} once (N = {n} rows), but "
            + (
                f"it lacks node(s) {_some(missing)}"
                if missing.size
                else f"it lists node(s) {_some(np.flatnonzero(counts > 1))} twice"
            )
            + "."
        )
    return np.argsort(node_ids, kind="stable")


def _labels(rows: np.ndarray, path: Path, n: int) -> tuple[Tensor, list[str] | None]:
    nodes = _integer_column(rows[:, 0], path, "node")
    out_of_range = (nodes < 0) | (nodes >= n)
    if out_of_range.any():
        raise RewireError(
            f"{path} labels node(s) {_some(nodes[out_of_range])}, but features.csv has nodes "
            f"0..{n - 1} only."
        )
    counts = np.bincount(nodes, minlength=n)
    if (counts == 0).any():
        missing = np.flatnonzero(counts == 0)
        raise RewireError(
            f"{path} has no label for node(s) {_some(missing)} ({missing.size} of {n}); "
            "every node needs a label."
        )
    if (counts > 1).any():
        raise RewireError(f"{path} labels node(s) {_some(np.flatnonzero(counts > 1))} twice.")
    values = rows[np.argsort(nodes, kind="stable"), 1]
    if all(v.strip().isdigit() for v in values):
        return torch.from_numpy(values.astype(np.int64)), None
    names, codes = np.unique(values, return_inverse=True)
    return torch.from_numpy(codes.astype(np.int64)), names.tolist()


def _check_graph(data: Data, where: str, *, csv: bool, undirected: bool) -> None:
    """Shapes, dtypes, labels and index range of ``data`` read from ``where``; symmetrises
    ``edge_index`` in place when it is directed and ``undirected`` (or ``csv``) allows it."""
    x, y, edge_index = data.x, data.y, data.edge_index
    if x.dim() != 2 or x.size(0) == 0:
        raise RewireError(
            f"x in {where} has shape {list(x.shape)}; node features must be [N, F] with N >= 1 "
            "(a single feature per node is [N, 1])."
        )
    if not torch.isfinite(x.float()).all():
        raise RewireError(f"x in {where} holds NaN or infinite values; impute or drop them.")
    n = x.size(0)
    if y.dim() != 1 or y.size(0) != n:
        raise RewireError(
            f"y in {where} has shape {list(y.shape)} but x has {n} nodes; every node needs "
            f"one label: y of shape [{n}]."
        )
    if y.is_floating_point() and not torch.equal(y, y.round()):
        raise RewireError(f"y in {where} holds non-integer values; labels are integers 0..C-1.")
    if (y < 0).any():
        raise RewireError(
            f"y in {where} has negative labels on node(s) {_some(np.flatnonzero(y < 0))}; "
            "every node needs a label 0..C-1 (unlabelled nodes are not supported)."
        )
    if edge_index.dim() != 2 or edge_index.size(0) != 2:
        hint = (
            " (transpose it: edge_index.T)"
            if edge_index.dim() == 2 and edge_index.size(1) == 2
            else ""
        )
        raise RewireError(
            f"edge_index in {where} has shape {list(edge_index.shape)}; it must be [2, E]{hint}."
        )
    if edge_index.is_floating_point() and not torch.equal(edge_index, edge_index.round()):
        raise RewireError(f"edge_index in {where} holds non-integer node ids.")
    edge_index = edge_index.long()
    bad = (edge_index < 0) | (edge_index >= n)
    if bad.any():
        column = int(bad.any(0).nonzero()[0])
        raise RewireError(
            f"edge_index in {where} has node ids out of range [0, {n - 1}] (x has {n} rows), "
            f"e.g. edge {column}: {edge_index[0, column].item()} -> "
            f"{edge_index[1, column].item()}."
        )
    weight = data.get("edge_weight")
    if weight is not None and weight.shape != (edge_index.size(1),):
        raise RewireError(
            f"edge_weight in {where} has shape {list(weight.shape)}; it needs one weight per "
            f"edge: [{edge_index.size(1)}]."
        )
    if not (csv or undirected):
        _check_undirected(edge_index, n, where)
    data.x, data.y, data.edge_index = x.float(), y.long(), edge_index


def _check_undirected(edge_index: Tensor, n: int, where: str) -> None:
    """Refuse a graph in which some edge ``u -> v`` has no ``v -> u`` (duplicates and
    self-loops, dropped later, do not count)."""
    keys = edge_index[0] * n + edge_index[1]
    lonely = ~torch.isin(edge_index[1] * n + edge_index[0], keys)
    if not lonely.any():
        return
    first = int(lonely.nonzero()[0])
    raise RewireError(
        f"the graph in {where} is directed: {int(lonely.sum())} of {edge_index.size(1)} edges "
        f"have no reverse edge (e.g. {edge_index[0, first].item()} -> "
        f"{edge_index[1, first].item()}), and rewiring methods need an undirected graph. "
        "Pass --undirected (read_graph(path, undirected=True)) to add the missing reverse "
        "edges, or save torch_geometric.utils.to_undirected(edge_index)."
    )


def _some(ids: np.ndarray | Tensor, limit: int = 5) -> str:
    values = [int(i) for i in np.asarray(ids).reshape(-1)[: limit + 1]]
    shown = ", ".join(map(str, values[:limit]))
    return shown + (", ..." if len(values) > limit else "")
