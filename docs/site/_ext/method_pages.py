"""Sphinx extension: one page per registered method, written when the build starts.

A page has, in this order:

* the hand-written notes ``methods/notes/<name>.rst`` when they exist (the paper, what the
  method does, its math and its cost);
* how to call it, with the parameters of its first conformance ``Example``;
* its parameters, from the class docstring (autodoc);
* our reproduction rows against the paper, read from the committed tables
  ``docs/jdr_reproduction.md``, ``docs/comfy_reproduction.md`` and
  ``docs/curvature_reproduction.md`` (written by ``benchmarks/reproduce_papers.py``); the
  column names and the row-to-method mapping come from that script's ``COLUMNS`` and
  ``PaperRow`` lists, so neither is retyped here;
* the rewiring times recorded in the committed per-split rows
  ``docs/reproduction_runs.csv.gz``.

A method that registers (subclasses ``Rewirer`` with a ``name``) gets a page with no change
here. Pages go to ``methods/generated/`` (ignored by git) and are rewritten only when their
text changes, so incremental builds stay incremental.
"""

from __future__ import annotations

import csv
import gzip
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the page builders run (and are tested) without Sphinx installed
    from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from benchmarks.reproduce_papers import COLUMNS, TABLE_FILES, TABLES  # noqa: E402

#: The committed tables whose rows the pages show (the baselines table repeats their rows).
SOURCES = tuple(f"docs/{TABLE_FILES[t]}" for t in ("jdr", "comfy", "curvature"))
RUNS_FILE = "docs/reproduction_runs.csv.gz"
TABLE_COMMAND = (
    "python benchmarks/reproduce_papers.py --all --stored-only "
    "--runs-file docs/reproduction_runs.csv.gz"
)


@dataclass(frozen=True)
class TableRow:
    source: str  # the committed file the row was read from
    cells: dict[str, str]


def read_markdown_table(path: Path) -> list[dict[str, str]]:
    """The body rows of the one pipe table in ``path`` (header and rule skipped)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{path}: a table row with {len(cells)} cells: {line[:80]}")
        if cells[0] == "preset" or set(cells[0]) <= {"-"}:
            continue
        rows.append(dict(zip(COLUMNS, cells, strict=True)))
    return rows


def paper_row_methods() -> dict[tuple[str, str], str]:
    """``(preset, paper label) -> registry name``, from the reproduction script's rows."""
    return {(row.preset, row.label): row.method for rows in TABLES.values() for row in rows}


def reproduction_rows() -> dict[str, list[TableRow]]:
    """Every committed table row, by registry name; a row in two tables is kept once."""
    methods = paper_row_methods()
    by_method: dict[str, list[TableRow]] = defaultdict(list)
    seen = set()
    for source in SOURCES:
        for cells in read_markdown_table(ROOT / source):
            key = tuple(cells[c] for c in ("preset", "split", "model", "dataset", "method"))
            if key + (cells["variant"],) in seen:
                continue
            seen.add(key + (cells["variant"],))
            by_method[methods[cells["preset"], cells["method"]]].append(TableRow(source, cells))
    return by_method


@dataclass(frozen=True)
class Timing:
    dataset: str
    runs: int
    median: float
    largest: float


def rewiring_times() -> dict[str, list[Timing]]:
    """Rewiring seconds of the committed per-split rows, by method and dataset."""
    seconds: dict[tuple[str, str], list[float]] = defaultdict(list)
    with gzip.open(ROOT / RUNS_FILE, "rt", encoding="utf-8", newline="") as handle:
        for record in csv.DictReader(handle):
            seconds[record["method"], record["dataset"]].append(float(record["rewire_seconds"]))
    out: dict[str, list[Timing]] = defaultdict(list)
    for (method, dataset), values in sorted(seconds.items()):
        out[method].append(Timing(dataset, len(values), statistics.median(values), max(values)))
    return out


# -- RST ----------------------------------------------------------------------------------------
def escape(text: str) -> str:
    """``text`` as literal RST inline text."""
    for char in "\\*`_|":
        text = text.replace(char, "\\" + char)
    return text


def list_table(header: Iterable[str], rows: Iterable[Iterable[str]], widths: str = "auto") -> str:
    """A ``list-table``; ``header`` is plain text, ``rows`` hold RST cells."""
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [[escape(h) for h in header], *map(list, rows)]:
        lines.append(f"   * - {row[0] or ' '}")
        lines.extend(f"     - {cell or ' '}" for cell in row[1:])
    return "\n".join(lines) + "\n"


def call_example(name: str, params: dict[str, Any]) -> str:
    args = "".join(f", {key}={value!r}" for key, value in params.items())
    cli = ",".join(f"{key}={value}" for key, value in params.items())
    spec = f"{name}:{cli}" if cli else name
    return (
        ".. code-block:: python\n\n"
        "   import rewirekit\n\n"
        f'   out = rewirekit.rewire(data, "{name}"{args})\n'
        "   print(out.rewire_report)\n\n"
        "or, from the command line, on an offline dataset:\n\n"
        ".. code-block:: bash\n\n"
        f"   rewirekit bench --dataset cora --method none --method {spec}\n"
    )


def reproduction_section(rows: list[TableRow]) -> str:
    title = "Reproduction against the paper"
    out = [title, "-" * len(title), ""]
    if not rows:
        out.append(
            "No committed reproduction row: neither reproduced paper table (JDR, ComFy) "
            "reports this method under a protocol that ``benchmarks/reproduce_papers.py`` runs."
        )
        return "\n".join(out) + "\n"
    out.append(
        "Our accuracy against the paper's, cell by cell (percent; the interval and the "
        "meaning of *matches* are those of the source table, whose introduction states the "
        "protocols). Rows read at build time from:"
    )
    out.append("")
    for source in dict.fromkeys(r.source for r in rows):
        out.append(f"* ``{source}``, written by ``{TABLE_COMMAND}``")
    out.append("")
    verdicts = [r.cells["matches"] for r in rows]
    at_target = sum(v in ("yes", "no") for v in verdicts)
    pending = sum(v.startswith("pending") for v in verdicts)
    out.append(
        f"{verdicts.count('yes')} of the {at_target} rows at their target number of splits "
        f"match; {pending} rows are pending, {verdicts.count('not run')} not run."
    )
    out.append("")
    header = ["dataset", "model", "protocol", "paper's name", "variant", "params", "paper"]
    header += ["ours", "n", "paper Δ", "Δ vs base (paired)", "edits", "matches"]
    shown = ("method", "variant", "params", "paper", "ours", "n", "paper Δ")
    shown += ("Δ vs base (paired, 95% CI)", "edits made / asked")
    body = []
    notes = []
    for r in rows:
        cells = [escape(r.cells[c]) for c in ("dataset", "model")]
        cells.append(escape(f"{r.cells['preset']} / {r.cells['split']}"))
        cells += [escape(r.cells[c]) for c in shown]
        matches = escape(r.cells["matches"])
        if r.cells["note"]:
            notes.append(escape(r.cells["note"]))
            matches += f" [{len(notes)}]_"
        body.append([*cells, matches])
    out.append(list_table(header, body))
    if notes:
        out.append("Notes of the source table:")
        out.append("")
        out += [f".. [{i}] {note}" for i, note in enumerate(notes, 1)]
        out.append("")
    return "\n".join(out) + "\n"


def timing_section(timings: list[Timing]) -> str:
    if not timings:
        return ""
    title = "Measured rewiring time"
    return "\n".join(
        [
            title,
            "-" * len(title),
            "",
            f"Seconds per rewiring recorded in the committed per-split rows (``{RUNS_FILE}``), "
            "over every parameter setting the reproduction ran on a dataset. They were taken "
            "on a shared 2-core machine while other work ran: read them as orders of "
            "magnitude.",
            "",
            list_table(
                ("dataset", "rewirings", "median s", "largest s"),
                (
                    [escape(t.dataset), str(t.runs), f"{t.median:.3g}", f"{t.largest:.3g}"]
                    for t in timings
                ),
            ),
        ]
    )


def method_page(
    name: str, notes: Path, rows: list[TableRow], timings: list[Timing], tuning: str | None
) -> str:
    from rewirekit.methods import describe, method_class

    cls = method_class(name)
    title = f"``{name}``"
    parts = [f".. _method-{name}:", "", title, "=" * len(title), "", describe(name), ""]
    if notes.exists():
        parts += [f".. include:: ../notes/{name}.rst", ""]
    examples = getattr(cls, "examples", ())
    params = examples[0].params if examples else {}
    parts += ["Use it", "------", "", call_example(name, params)]
    if tuning:
        parts += [f"``rewirekit tune --method {name}`` searches on validation accuracy:", ""]
        parts += [tuning, ""]
    parts += [
        "Parameters",
        "----------",
        "",
        f".. autoclass:: {cls.__module__}.{cls.__qualname__}",
        "   :no-index:",
        "",
        reproduction_section(rows),
        timing_section(timings),
    ]
    return "\n".join(parts)


def summary_table(names: list[str]) -> str:
    from rewirekit.methods import describe

    rows = [[f":ref:`{name} <method-{name}>`", describe(name)] for name in names]
    return list_table(("name", "what it does"), rows, widths="1 4")


def describe_dimension(dimension: Any) -> str:
    """A search-space dimension as RST: ``[low, high]`` (integers or reals) or ``{choices}``."""
    if hasattr(dimension, "values"):
        return "{" + ", ".join(f"``{c!r}``" for c in dimension.values) + "}"
    kind = "integers" if type(dimension).__name__.startswith("Int") else "reals"
    scale = ", log scale" if dimension.log else ""
    return f"[{dimension.low}, {dimension.high}] ({kind}{scale})"


def tuning_spaces() -> dict[str, str]:
    """The declared search space of each method that has one, as an RST list."""
    from rewirekit.methods import list_methods, method_class

    spaces = {name: method_class(name).search_space for name in list_methods()}
    return {
        name: "\n".join(f"* ``{p}``: {describe_dimension(d)}" for p, d in space.items())
        for name, space in spaces.items()
        if space
    }


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def generate(app: Sphinx) -> None:
    from rewirekit.methods import list_methods

    src = Path(app.srcdir) / "methods"
    out = src / "generated"
    names = list_methods()
    rows, timings, spaces = reproduction_rows(), rewiring_times(), tuning_spaces()
    unknown = sorted(set(rows) - set(names))
    if unknown:
        raise RuntimeError(f"committed reproduction rows name unregistered methods: {unknown}")
    for stale in out.glob("*.rst"):
        if stale.stem not in names and stale.stem != "summary":
            stale.unlink()
    for name in names:
        page = method_page(
            name, src / "notes" / f"{name}.rst", rows[name], timings[name], spaces.get(name)
        )
        write_if_changed(out / f"{name}.rst", page)
    write_if_changed(out / "summary.rst", summary_table(names))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
