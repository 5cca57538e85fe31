"""Seconds per sample-wise QPCert certificate on Cora-MLb: ours against the plain formulation.

``ours`` is :class:`rewirekit.certify.certificates.Options` (budget-aware big-M, rowwise
products, clean-SVM start, greedy attack, cutoff-0 early exit); ``plain`` is
:data:`~rewirekit.certify.certificates.PLAIN` (big-M 1e3, no start, no greedy attack, no
early exit, solved to optimality); ``tight`` (``--variants ours,tight``) is ours with the
paper's tight big-M, the ablation of the budget-aware one. ``auto`` is what
``certify_labels(method="auto")`` spends on that one node alone (enumeration up to
:data:`~rewirekit.certify.api.ENUMERATION_LIMIT` attacks, else ours). All of them certify the
same targets of the GCN NTK (C = 0.075, 10 + 10 labelled nodes, seed 0) at each budget, node
by node in turn, so the machine's load is shared alike; HiGHS runs on one thread. The
enumeration of all targets at once (one SVM per admissible flip) is timed too, per target.
Rows are appended to a CSV as they finish; a rerun skips the rows already there. The summary
(medians, time-outs, agreement with the exact ``auto`` verdicts, the target "median < 5 s per
node at B = 1" for ours and for auto) goes to a text file with ``uptime`` before and after.

    python benchmarks/qpcert_speed.py --nodes 6 --budgets 1,2,4 --time-limit 60
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import time
from pathlib import Path

import numpy as np

from rewirekit.certify.api import certify_kernel
from rewirekit.certify.bruteforce import enumerate_certificate
from rewirekit.certify.certificates import PLAIN, Options, SampleCertificate, certify_binary
from rewirekit.certify.data import LabelGraph, cora_ml_binary, qpcert_csbm, split_per_class
from rewirekit.certify.ntk import ntk

#: The MILP variants: every speed-up, QPCert's plain formulation, and every speed-up but
#: with the paper's tight big-M instead of the budget-aware one (the ablation of the latter).
VARIANTS = {
    "ours": Options(),
    "plain": PLAIN,
    "tight": Options(big_m="tight"),
}
FIELDS = ["variant", "budget", "node", "certified", "decided_by", "timed_out", "seconds"]
TARGET_SECONDS = 5.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=6)
    parser.add_argument("--budgets", default="1,2,4")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--variants", default="ours,plain", help=f"of {', '.join(VARIANTS)}")
    parser.add_argument("--csv", default="docs/qpcert_speed.csv")
    parser.add_argument("--out", default="docs/qpcert_speed.txt")
    parser.add_argument("--smoke", action="store_true", help="a tiny CSBM instead of Cora-MLb")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    load_before = _uptime()
    graph = qpcert_csbm(60, seed=0) if args.smoke else cora_ml_binary()
    split = split_per_class(graph.y, 10 if not args.smoke else 4, target_fraction=0.1, seed=0)
    targets = split.targets[: args.nodes]
    kernel = ntk("gcn", graph.x, graph.adj)
    budgets = [int(b) for b in args.budgets.split(",")]
    variants = {
        name: Options(**{**VARIANTS[name].__dict__, "time_limit": args.time_limit})
        for name in args.variants.split(",")
    }
    path = Path(args.csv)
    done = _done(path)
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        if not done:
            writer.writeheader()
        for budget in budgets:
            for node in targets:
                for name, options in variants.items():
                    if (name, budget, int(node)) in done:
                        continue
                    writer.writerow(
                        _certify(graph, kernel, split.labelled, node, budget, name, options)
                    )
                    handle.flush()
                if ("auto", budget, int(node)) not in done:
                    writer.writerow(_certify(graph, kernel, split.labelled, node, budget, "auto"))
                    handle.flush()
            if ("enumeration", budget, -1) not in done:
                writer.writerow(_enumerate(graph, kernel, split.labelled, targets, budget))
                handle.flush()
    _summary(path, Path(args.out), budgets, args, load_before, len(split.labelled))


def _certify(graph: LabelGraph, kernel, labelled, node, budget, name, options=None) -> dict:
    """One node by the MILP with ``options``, or by ``method="auto"`` without them."""
    began = time.perf_counter()
    target, labels = np.array([node]), graph.y[labelled]
    if options is None:
        cert = certify_kernel(kernel, labelled, target, labels, 0.075, budget, method="auto")
        assert isinstance(cert, SampleCertificate)
    else:
        cert = certify_binary(kernel, labelled, target, labels, 0.075, budget, options)
    return dict(
        variant=name,
        budget=budget,
        node=int(node),
        certified=int(cert.certified[0]),
        decided_by=cert.decided_by[0],
        timed_out=int(cert.timed_out[0]),
        seconds=round(time.perf_counter() - began, 4),
    )


def _enumerate(graph: LabelGraph, kernel, labelled, targets, budget) -> dict:
    began = time.perf_counter()
    certified, _ = enumerate_certificate(
        kernel, labelled, targets, graph.y[labelled], 0.075, budget
    )
    per_node = (time.perf_counter() - began) / len(targets)
    return dict(
        variant="enumeration",
        budget=budget,
        node=-1,
        certified=int(certified.sum()),
        decided_by="enumeration",
        timed_out=0,
        seconds=round(per_node, 4),
    )


def _done(path: Path) -> set[tuple[str, int, int]]:
    if not path.exists() or path.stat().st_size == 0:
        return set()
    with path.open() as handle:
        return {(r["variant"], int(r["budget"]), int(r["node"])) for r in csv.DictReader(handle)}


def _summary(path, out, budgets, args, load_before, num_labelled) -> None:
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    lines = [
        "QPCert sample-wise certificates, GCN NTK, C = 0.075, seconds per target node",
        f"graph: {'CSBM n=60 (smoke)' if args.smoke else 'Cora-MLb'}, {num_labelled} labelled "
        f"nodes, time limit {args.time_limit:g} s per MILP",
        "command: python benchmarks/qpcert_speed.py "
        + " ".join(
            f"--{k.replace('_', '-')} {v}"
            for k, v in vars(args).items()
            if k in ("nodes", "budgets", "time_limit", "variants")
        ),
        f"uptime before: {load_before}",
        f"uptime after:  {_uptime()}",
        "",
        f"{'B':>2} {'variant':<12} {'nodes':>5} {'median s':>9} {'max s':>8} {'certified':>9} "
        f"{'timeouts':>8}",
    ]
    for budget in budgets:
        medians = {}
        verdicts = {}
        for variant in (*VARIANTS, "auto", "enumeration"):
            sel = [r for r in rows if r["variant"] == variant and int(r["budget"]) == budget]
            if not sel:
                continue
            secs = np.array([float(r["seconds"]) for r in sel])
            medians[variant] = float(np.median(secs))
            verdicts[variant] = {int(r["node"]): (r["certified"], r["timed_out"]) for r in sel}
            certified = sum(int(r["certified"]) for r in sel)
            lines.append(
                f"{budget:>2} {variant:<12} {len(sel) if variant != 'enumeration' else '-':>5} "
                f"{medians[variant]:>9.3f} {secs.max():>8.3f} {certified:>9} "
                f"{sum(int(r['timed_out']) for r in sel):>8}"
            )
        for other in ("plain", "tight"):
            if "ours" in medians and other in medians:
                ratio = medians[other] / medians["ours"]
                lines.append(f"   {other} / ours median: {ratio:.1f}x")
        for variant in VARIANTS:
            if variant in verdicts and "auto" in verdicts:
                exact = verdicts["auto"]
                solved = [
                    n for n, (_, out) in verdicts[variant].items() if out == "0" and n in exact
                ]
                agree = sum(verdicts[variant][n][0] == exact[n][0] for n in solved)
                lines.append(
                    f"   {variant}: verdicts equal the exact (auto) ones on {agree}/{len(solved)} "
                    "nodes it did not time out on"
                )
    lines.append("")
    for variant in ("ours", "auto"):
        at_one = [
            float(r["seconds"]) for r in rows if r["variant"] == variant and r["budget"] == "1"
        ]
        if at_one:
            median = float(np.median(at_one))
            verdict = "met" if median < TARGET_SECONDS else "missed"
            lines.append(
                f"target: median < {TARGET_SECONDS:g} s per node at B=1 ({variant}): "
                f"{median:.2f} s -> {verdict}"
            )
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
