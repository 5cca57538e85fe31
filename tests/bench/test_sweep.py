"""rewirekit.bench.sweep: a grid expands into one benchmark per dataset, on its own split
preset, with each method's parameters resolved for that dataset."""

from rewirekit.bench.presets import csbm_jdr_params
from rewirekit.bench.runner import DatasetSpec, MethodSpec
from rewirekit.bench.store import ResultStore
from rewirekit.bench.sweep import PAPER_PHI_SUFFIX, Sweep, csbm_dataset, expand, run_sweep

SIZE = {"num_nodes": 80, "num_features": 10}


def test_a_sweep_expands_per_dataset_with_resolved_methods():
    datasets = [csbm_dataset(SIZE, 0.5), csbm_dataset(SIZE, 0.3), DatasetSpec.named("texas")]
    methods = [MethodSpec("none"), MethodSpec("jdr", {"top_k": 8})]
    plan = expand(Sweep(datasets, methods, ["gcn", "mlp"], "jdr", num_splits=2, seeds=(0, 1)))
    assert [b.datasets for b in plan.benchmarks] == [[d] for d in datasets]
    assert [b.split_preset for b in plan.benchmarks] == ["sparse", "sparse", "geom-gcn"]
    on_grid = plan.benchmarks[0].methods[1]
    assert on_grid.params == {**csbm_jdr_params(0.5), "top_k": 8}
    assert plan.labels == {on_grid.label: "jdr(top_k=8)" + PAPER_PHI_SUFFIX}
    assert plan.benchmarks[1].methods[1] is methods[1]  # φ = 0.3 is not on the paper's grid
    assert plan.unresolved == [(datasets[1].key, "jdr(top_k=8)")]
    assert plan.runs == 3 * 2 * 2 * 2 * 2  # datasets x models x methods x splits x seeds
    assert datasets[0].params == {**SIZE, "phi": 0.5, "seed": 0}


def test_run_sweep_stores_each_row_with_its_rewire_report(tmp_path):
    plan = expand(
        Sweep(
            [csbm_dataset(SIZE, 0.5)],
            [MethodSpec("random", {"add": 5})],
            ["gcn"],
            "comfy",
            protocol="dense",
            num_splits=2,
        )
    )
    with ResultStore(tmp_path / "s.db") as store:
        records = run_sweep(plan, store)
        again = run_sweep(plan, store)  # resumed: every row is stored
    assert len(records) == 2 and again == records
    report = records[0].rewire_report
    assert report["edges_added"] == 5 and report["edits_made"] == {"add": 5, "delete": 0}
    assert report["method"] == "random" and "params" not in report
