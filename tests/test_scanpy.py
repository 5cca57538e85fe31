"""rewirekit.scanpy.orc_manl on a small AnnData (needs the singlecell extra)."""

import numpy as np
import pytest

from rewirekit import RewireError
from rewirekit.manifold import make_manifold

sc = pytest.importorskip("scanpy", reason="scanpy is the singlecell extra")
anndata = pytest.importorskip("anndata")

from rewirekit.scanpy import orc_manl  # noqa: E402


def _adata():
    sample = make_manifold("circles", n_points=400, seed=0)
    adata = anndata.AnnData(X=sample.points.astype(np.float32))
    adata.obs["cluster"] = sample.cluster.astype(str)
    sc.pp.neighbors(adata, n_neighbors=11, use_rep="X")
    return adata


def test_prunes_obsp_keeps_originals_and_records_params():
    adata = _adata()
    conn, dist = adata.obsp["connectivities"].copy(), adata.obsp["distances"].copy()
    orc_manl(adata, lda=0.01)
    record = adata.uns["orc_manl"]
    assert record["params"] == dict(k=10, delta=0.8, lda=0.01, reattach=True, faithful=False)
    assert (adata.obsp[record["original_connectivities_key"]] != conn).nnz == 0
    assert (adata.obsp[record["original_distances_key"]] != dist).nnz == 0
    new_conn, new_dist = adata.obsp["connectivities"], adata.obsp["distances"]
    assert record["removed"] > 0 and new_conn.nnz < conn.nnz and new_dist.nnz < dist.nnz
    # only original entries survive, with their original values
    assert np.allclose(new_conn[new_conn.nonzero()], conn[new_conn.nonzero()])
    assert np.allclose(new_dist[new_dist.nonzero()], dist[new_dist.nonzero()])
    # the two circles are no longer joined: no surviving edge crosses them
    rows, cols = new_conn.nonzero()
    cluster = adata.obs["cluster"].to_numpy()
    assert (cluster[rows] == cluster[cols]).all()
    assert (cluster[conn.nonzero()[0]] != cluster[conn.nonzero()[1]]).any()


def test_needs_neighbors_first():
    adata = anndata.AnnData(X=np.zeros((5, 2), dtype=np.float32))
    with pytest.raises(RewireError, match="sc.pp.neighbors"):
        orc_manl(adata)
