"""A self-contained HTML page made of sections: sortable tables and embedded PNGs.

The page needs nothing but itself: the CSS and the sorting script are inline, images are
base64 ``data:`` URIs, and nothing is fetched from a network, so it can be mailed, committed
or opened from a read-only folder. A report is a list of :class:`Section`; callers add their
own (a leaderboard table with its critical-difference diagram, say) by passing more of them
to :func:`render_page`.

Tables made by :func:`table` sort by a click on a column header (again to reverse). A cell
sorts by its number when it has one (a :class:`Cell` with ``sort``, or an ``int``/``float``)
and by its text otherwise; ``NaN`` and empty cells go last.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Cell:
    """A table cell shown as ``text`` and sorted by ``sort`` (e.g. ``"71.2 ± 1.3"`` by 71.2)."""

    text: str
    sort: float | None = None


@dataclass(frozen=True)
class Section:
    """One part of a page: a heading, an optional lead paragraph (plain text) and a body of
    HTML (tables, images) built with :func:`table`, :func:`image` and :func:`paragraph`."""

    title: str
    body: str
    lead: str = ""

    @property
    def anchor(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-") or "section"


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str | int | float | Cell]],
    *,
    caption: str = "",
) -> str:
    """A sortable ``<table>``; numbers right-aligned, every value HTML-escaped."""
    head = "".join(f'<th scope="col" title="sort">{html.escape(h)}</th>' for h in headers)
    body = "\n".join("<tr>" + "".join(_cell(value) for value in row) + "</tr>" for row in rows)
    caption_html = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (
        f'<div class="scroll"><table class="sortable">{caption_html}<thead><tr>{head}</tr>'
        f"</thead><tbody>\n{body}\n</tbody></table></div>"
    )


def _cell(value: str | int | float | Cell) -> str:
    if isinstance(value, Cell):
        text, key = value.text, value.sort
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        text, key = (f"{value:.4g}" if isinstance(value, float) else str(value)), float(value)
    else:
        text, key = str(value), None
    if key is None:
        return f"<td>{html.escape(text)}</td>"
    return f'<td class="num" data-sort="{key!r}">{html.escape(text)}</td>'


def image(png: bytes | str | Path, alt: str) -> str:
    """An ``<img>`` holding the PNG (bytes or a file) as a base64 ``data:`` URI."""
    data = png if isinstance(png, bytes) else Path(png).read_bytes()
    if not data.startswith(b"\x89PNG"):
        raise ValueError("image() embeds PNG images only.")
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img src="data:image/png;base64,{encoded}" alt="{html.escape(alt)}">'


def paragraph(text: str) -> str:
    """A ``<p>`` of plain text (escaped)."""
    return f"<p>{html.escape(text)}</p>"


def render_page(title: str, sections: Sequence[Section], *, subtitle: str = "") -> str:
    """The whole page: a title, a table of contents, then each section in order."""
    toc = "".join(f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in sections)
    parts = [
        f'<section id="{s.anchor}"><h2>{html.escape(s.title)}</h2>'
        + (paragraph(s.lead) if s.lead else "")
        + f"{s.body}</section>"
        for s in sections
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{html.escape(title)}</h1>"
        + (paragraph(subtitle) if subtitle else "")
        + f"<nav><ul>{toc}</ul></nav></header><main>{''.join(parts)}</main>"
        f"<script>{_SORT_JS}</script></body></html>\n"
    )


def write_page(path: str | Path, title: str, sections: Sequence[Section], **options: str) -> Path:
    """Write :func:`render_page` to ``path`` (parent folders created); return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(title, sections, **options), encoding="utf-8")
    return path


_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
header,main{max-width:1200px;margin:0 auto;padding:0 24px}
h1{margin:24px 0 4px}h2{margin-top:36px;border-bottom:1px solid #d6dae1;padding-bottom:4px}
nav ul{display:flex;flex-wrap:wrap;gap:4px 18px;list-style:none;padding:0}
table{border-collapse:collapse;margin:12px 0;background:#fff;font-size:14px}
caption{caption-side:bottom;text-align:left;color:#5a6272;padding-top:6px}
th,td{border:1px solid #d6dae1;padding:4px 9px;text-align:left;vertical-align:top}
td{max-width:32em;overflow-wrap:anywhere}
th{background:#eef1f5;cursor:pointer;user-select:none;white-space:nowrap}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.scroll{overflow-x:auto}
img{max-width:100%;border:1px solid #d6dae1;background:#fff}
"""

# Sort the rows of a table.sortable by the clicked column: numbers (data-sort) before text,
# NaN and empty cells last; a second click on the same header reverses the order.
_SORT_JS = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    function key(row) {
      var cell = row.children[col], value = cell ? cell.getAttribute("data-sort") : null;
      var number = value === null ? NaN : parseFloat(value);
      return { number: number, text: cell ? cell.textContent.trim() : "" };
    }
    function rank(k) { return !isNaN(k.number) ? 0 : (k.text ? 1 : 2); }
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var ka = key(a), kb = key(b), ra = rank(ka), rb = rank(kb);
      if (ra !== rb) { return ra - rb; }
      if (ra === 0) { return dir * (ka.number - kb.number); }
      return dir * ka.text.localeCompare(kb.text, undefined, { numeric: true });
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""
