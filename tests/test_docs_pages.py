"""The documentation's generated method pages (docs/site/_ext/method_pages.py), without Sphinx."""

import importlib.util
import sys
from pathlib import Path

import pytest

import rewirekit

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pages():
    path = ROOT / "docs" / "site" / "_ext" / "method_pages.py"
    spec = importlib.util.spec_from_file_location("method_pages", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["method_pages"] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def test_every_committed_row_belongs_to_a_registered_method(pages):
    rows = pages.reproduction_rows()
    assert set(rows) <= set(rewirekit.list_methods())
    # the two reproduced papers cover these methods; a lost mapping would drop their rows
    for name in ("none", "jdr", "feast", "comfy", "comma", "fosr", "proxy_add", "proxy_delete"):
        assert rows[name], f"no reproduction row found for {name}"
    assert {r.cells["method"] for r in rows["proxy_add"]} == {"ProxyAddMax", "ProxyAddMin"}
    assert all(r.cells["method"] == "base" for r in rows["none"])
    # ComFy rows twice (faithful and default), listed paper rows we do not run included
    assert {r.cells["variant"] for r in rows["comfy"]} == {"faithful", "default"}
    for name in ("digl", "sdrf", "borf"):
        assert rows[name], f"no reproduction row found for {name}"
    assert all(r.cells["matches"] == "not run" for r in rows["sdrf"])  # no protocol to run
    # a cell reproduced in two tables is shown once
    keys = [
        tuple(r.cells[c] for c in ("preset", "split", "model", "dataset")) for r in rows["none"]
    ]
    assert len(keys) == len(set(keys))


def test_markdown_table_rejects_a_row_with_missing_cells(pages, tmp_path):
    table = tmp_path / "t.md"
    header = "| " + " | ".join(pages.COLUMNS) + " |"
    table.write_text(f"{header}\n|---|\n| jdr | dense | gcn |\n", encoding="utf-8")
    with pytest.raises(ValueError, match="3 cells"):
        pages.read_markdown_table(table)


def test_page_of_every_method(pages):
    rows, times = pages.reproduction_rows(), pages.rewiring_times()
    for name in rewirekit.list_methods():
        cls = rewirekit.methods.method_class(name)
        notes = ROOT / "docs" / "site" / "methods" / "notes" / f"{name}.rst"
        page = pages.method_page(name, notes, rows[name], times[name], None)
        assert f".. autoclass:: {cls.__module__}.{cls.__qualname__}" in page
        assert f'rewirekit.rewire(data, "{name}"' in page
        if rows[name]:
            assert rows[name][0].cells["ours"] in page
        else:
            assert "No committed reproduction row" in page


def test_escape_keeps_rst_markup_literal(pages):
    assert pages.escape("|λ| and a_b* `x`") == "\\|λ\\| and a\\_b\\* \\`x\\`"


def test_cross_references_of_the_hand_written_pages_exist():
    """Sphinx leaves a role to a missing object as plain text; here it fails instead."""
    import importlib
    import re

    site = ROOT / "docs" / "site"
    role = re.compile(r":(?:func|class|data|mod|meth|attr):`~?([\w.]+)`")
    targets = {t for page in site.rglob("*.rst") for t in role.findall(page.read_text())}
    assert targets, "no cross-reference found"
    for target in sorted(targets):
        module, _, name = target.rpartition(".")
        try:
            obj = importlib.import_module(target)
        except ModuleNotFoundError:
            obj = getattr(importlib.import_module(module), name, None)
        assert obj is not None, f"{target} is referenced in docs/site but does not exist"


def test_search_spaces_are_listed(pages):
    spaces = pages.tuning_spaces()
    assert "* ``num_iterations``: [1, 30] (integers)" in spaces["jdr"].splitlines()
    assert spaces["feast"].startswith("* ``add``: {``0``, ``10``")
