"""Sphinx configuration of the rewirekit documentation (``make docs``).

The site builds and reads offline:

* API pages come from the docstrings (autodoc + napoleon for the Google-style ``Args:``
  sections; autosummary walks the package recursively, so a new module gets a page).
* Math is rendered by MathJax 3 served from the site itself: the ``sphinx-mathjax-offline``
  package (PyPI, part of the ``docs`` extra) ships MathJax 3.2.2 and copies it into
  ``_static/mathjax``; ``mathjax_path`` points there, so no page loads anything from the
  network. Chosen over ``imgmath`` (needs a LaTeX installation) and KaTeX prerendering
  (needs Node.js at build time).
* The per-method pages are generated at build time from the method registry and the
  committed reproduction tables (``_ext/method_pages.py``); nothing is retyped by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(ROOT))

import rewirekit  # noqa: E402

project = "rewirekit"
author = "the rewirekit developers"
copyright = author
release = rewirekit.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "sphinx-mathjax-offline",
    "myst_parser",
    "method_pages",
]

# -- math: MathJax 3 from _static, never a CDN ----------------------------------------------
mathjax_path = "mathjax/tex-chtml.js"

# -- autodoc ----------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True

# -- markdown (the committed reproduction reports and the changelog are .md) -------------------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}

templates_path = ["_templates"]
# notes are included into the generated method pages, not pages of their own
exclude_patterns = ["_build", "_templates", "methods/notes", "methods/generated/summary.rst"]
html_theme = "furo"
html_title = f"rewirekit {release}"
