"""The HTML report: self-contained, escaped, sortable; rendered in headless Chromium."""

import re
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from rewirekit.bench.html import Cell, Section, image, render_page, table
from rewirekit.bench.html_report import store_sections, sweep_points, write_report
from rewirekit.bench.presets import tuned_preset_name
from rewirekit.bench.report import summarize_records
from rewirekit.bench.store import RunKey, RunRecord, params_hash
from rewirekit.datasets import csbm_key, parse_csbm_key

PHIS = (-0.5, 0.0, 0.5)
SMALL = dict(num_nodes=200, num_features=20, seed=0)


def record(dataset, method, split, acc, params=None, preset="sparse") -> RunRecord:
    params = params or {}
    key = RunKey(dataset, preset, split, method, params_hash(params), "gcn", "jdr", 0)
    return RunRecord(key, params, acc, acc, 0.01, 0.5, 10, {})


def sweep_records() -> list[RunRecord]:
    """A cSBM sweep: ``none``, JDR with settings that change with φ, FeaSt with fixed ones;
    FeaSt beats ``none`` by 2 points on every split, JDR by ``10 * phi``."""
    rng = np.random.default_rng(0)
    rows = []
    for phi in PHIS:
        key = csbm_key(**SMALL, phi=phi)
        for split in range(4):
            base = 0.6 + 0.05 * rng.random()
            rows.append(record(key, "none", split, base))
            rows.append(record(key, "feast", split, base + 0.02, {"add": 10}))
            rows.append(record(key, "jdr", split, base + 0.1 * phi, {"k": int(10 + 10 * phi)}))
    return rows


def test_table_cells_are_escaped_and_carry_their_sort_keys():
    html = table(["method", "acc"], [["<script>x</script>", Cell("71.2 ± 1.0", 71.2)], ["a", 3]])
    assert "<script>x" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert '<td class="num" data-sort="71.2">71.2 ± 1.0</td>' in html
    assert '<td class="num" data-sort="3.0">3</td>' in html


def test_the_page_is_self_contained(tmp_path):
    png = tmp_path / "dot.png"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.figure(figsize=(1, 1))
    plt.savefig(png)
    plt.close()
    page = render_page("t", [Section("Plot", image(png, "a dot"), lead="<b>")])
    assert 'src="data:image/png;base64,' in page and "&lt;b&gt;" in page
    assert not re.search(r"(src|href)=\"(https?:)?//|@import|url\(", page)
    with pytest.raises(ValueError, match="PNG"):
        image(b"GIF89a", "not a png")


def test_sweep_points_merge_per_phi_settings_into_one_series():
    points = sweep_points(summarize_records(sweep_records()))
    (title,) = points
    assert title == "cSBM N=200 F=20 seed=0, sparse split, jdr training"
    labels = {row.method for _, row in points[title]}
    assert labels == {"none", "feast(add=10)", "jdr (per-φ settings)"}
    assert sorted(phi for phi, row in points[title] if row.method == "none") == list(PHIS)


def leaderboard_records() -> list[RunRecord]:
    """Complete fair-protocol cells on three datasets: FeaSt 2 points above ``none`` on every
    split and seed, ``random`` equal to it and making no edit."""
    preset = tuned_preset_name("fair", {"lr": 0.01})
    unchanged = {"edges_added": 0, "edges_removed": 0, "features_changed": False}
    rows = []
    for dataset in ("lb-a", "lb-b", "lb-c"):
        for split in range(4):
            for seed in (0, 1):
                base = 0.6 + 0.01 * split
                for method, params, acc in (
                    ("none", {}, base),
                    ("feast", {"add": 10}, base + 0.02),
                    ("random", {"add": 0}, base),
                ):
                    key = RunKey(dataset, "dense", split, method, params_hash(params), "gcn",
                                 preset, seed)  # fmt: skip
                    rows.append(RunRecord(key, params, acc, acc, 0.01, 0.5, 10, {}, unchanged))
    return rows


def test_the_leaderboard_comes_first_with_its_standings_cd_diagram_and_cells():
    rows = [*leaderboard_records(), *sweep_records()]
    sections = {s.title: s for s in store_sections(rows, diagnosis=False)}
    assert list(sections)[:2] == ["Leaderboard standings", "Leaderboard cells: GCN"]
    standings = sections["Leaderboard standings"].body
    feast = re.search(r"<tr><td>gcn</td><td>feast</td>(.*?)</tr>", standings).group(1)
    assert re.findall(r">([^<]+)</td>", feast) == ["3", "0", "0", "1.00"]  # wins ties losses rank
    assert "Friedman χ²" in standings and standings.count("data:image/png;base64,") == 1
    cells = sections["Leaderboard cells: GCN"].body
    assert cells.count("<tr>") == 1 + 3 * 3 and cells.count("tie (no edits)") == 3
    assert cells.count("data:image/png;base64,") == 1
    assert not [s for s in store_sections(sweep_records(), diagnosis=False) if "Leader" in s.title]


def test_a_csbm_at_one_angle_and_tuning_trials_are_no_sweep():
    one_angle = [r for r in sweep_records() if parse_csbm_key(r.key.dataset)["phi"] == 0.5]
    assert sweep_points(summarize_records(one_angle)) == {}
    tuned = tuned_preset_name("fair", {"lr": 0.01})  # a leaderboard's trial, at every φ
    trials = [replace(r, key=replace(r.key, training_preset=tuned)) for r in sweep_records()]
    assert sweep_points(summarize_records(trials)) == {}
    assert len(sweep_points(summarize_records(sweep_records()))) == 1


def test_store_sections_hold_intervals_paired_rows_sweep_and_diagnosis():
    rows = [*sweep_records(), record("mine@0123456789", "none", 0, 0.5, preset="dense")]
    sections = {s.title: s for s in store_sections(rows)}
    assert list(sections) == [
        "Results per cell",
        "Paired comparison with none",
        "cSBM sweep",
        "Diagnosis of each dataset",
    ]
    paired = sections["Paired comparison with none"].body
    assert paired.count("<tr>") == 1 + 2 * len(PHIS)  # header + FeaSt and JDR at each φ
    assert paired.count(">above<") >= len(PHIS)  # FeaSt: +2 points on every split
    assert paired.count("+2.00") >= len(PHIS)
    assert sections["cSBM sweep"].body.count("data:image/png;base64,") == 1
    diagnosis = sections["Diagnosis of each dataset"].body
    assert diagnosis.count("<tr>") == 1 + len(PHIS) and "edge homophily" in diagnosis
    assert "Not diagnosed: mine@0123456789 (a graph read from a file" in diagnosis


class _Rows(HTMLParser):
    """The text of each cell of each table row, per ``<section id>``."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, list[list[str]]] = {}
        self._section, self._row, self._cell = "", None, None

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self._section = dict(attrs)["id"]
            self.sections[self._section] = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.sections[self._section].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def chromium(*args: str) -> subprocess.CompletedProcess:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium)")
    return subprocess.run(
        [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_chromium_renders_the_report_sorts_on_click_and_shows_the_plot(tmp_path):
    sweep = [*sweep_records(), record("mine@0123456789", "none", 0, 0.5, preset="dense")]
    leading = Section("Notes", table(["note"], [["a section of the caller's"]]))
    page = write_report(
        tmp_path / "report.html", [*leaderboard_records(), *sweep], leading=[leading], title="T"
    )
    profile = f"--user-data-dir={tmp_path / 'profile'}"
    shot = tmp_path / "shot.png"
    chromium(profile, f"--screenshot={shot}", "--window-size=1200,6000", page.as_uri())
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("RGB")).reshape(-1, 3).astype(int)
    blue = np.abs(pixels - [31, 119, 180]).sum(1) < 30  # matplotlib's first line colour
    assert blue.sum() > 200, "the sweep plot is not on the screenshot"

    # Click the "test acc (%)" header once (ascending), then the "Δ vs none" one twice.
    clicks = (
        "<script>"
        "document.querySelectorAll('#results-per-cell th')[6].click();"
        "var th = document.querySelectorAll('#paired-comparison-with-none th')[5];"
        "th.click(); th.click();"
        "</script></body>"
    )
    clicked = tmp_path / "clicked.html"
    clicked.write_text(page.read_text().replace("</body>", clicks))
    dom = chromium(profile, "--dump-dom", clicked.as_uri()).stdout
    parsed = _Rows()
    parsed.feed(dom)
    tables = parsed.sections
    assert list(tables) == [
        "notes",
        "leaderboard-standings",
        "leaderboard-cells-gcn",
        "results-per-cell",
        "paired-comparison-with-none",
        "csbm-sweep",
        "diagnosis-of-each-dataset",
    ]
    standings = {row[1]: row[2:] for row in tables["leaderboard-standings"][1:]}
    assert standings["feast"] == ["3", "0", "0", "1.00"]
    cells = tables["leaderboard-cells-gcn"][1:]
    assert [row[6] for row in cells if row[1] == "random"] == ["tie (no edits)"] * 3
    assert {row[3] for row in cells} == {"—"}  # over constant: these datasets have no labels
    accuracy = [float(row[6]) for row in tables["results-per-cell"][1:]]
    assert accuracy == sorted(accuracy) and len(accuracy) == 3 * len(PHIS) + 1 + 3 * 3
    deltas = [float(row[5]) for row in tables["paired-comparison-with-none"][1:]]
    assert deltas == sorted(deltas, reverse=True) and deltas[0] == pytest.approx(5.0)
    assert 'aria-sort="descending"' in dom
    diagnosed = [row[0] for row in tables["diagnosis-of-each-dataset"][1:]]
    assert diagnosed == [csbm_key(**SMALL, phi=phi) for phi in PHIS]
    assert Path(page).read_text().count("<table") == 6
