"""The page numbers a printed document shows beside its internal links (the contents, "Table 3, page 12",
"(p. 40)"), written into the HTML as `data-page` before WeasyPrint lays it out (templates/report.css prints
them). Plain text work on the page's HTML and a laid-out document's anchors.

Why not CSS's target-counter(): WeasyPrint resolves it by laying out again every page that holds such a link
until the numbers settle. The report's 81 pages took 259 page layouts and 40 s that way, against 80 and 20 s
with the numbers written as text. Written numbers are checked against the layout they produced (pdf.lay_out):
one layout more when they were wrong, none when the last layout's numbers (PdfCache's hints) still hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# The links that print their target's page: every link of the contents, and cross-references anywhere
_CONTENTS = re.compile(r'<nav class="toc".*?</nav>', re.S)
_CONTENTS_LINK = re.compile(r'<a href="#([^"]+)"')
_REFERENCE = re.compile(r'<a class="(?:xref|backref)" href="#([^"]+)"')
UNKNOWN = "00"  # a target's page before any layout found it: two digits, as wide as most pages' numbers


def _links(html: str):
    """(where its href attribute ends, its target) of every link that prints its target's page."""
    for contents in _CONTENTS.finditer(html):
        for link in _CONTENTS_LINK.finditer(html, contents.start(), contents.end()):
            yield link.end(), link.group(1)
    for link in _REFERENCE.finditer(html):
        yield link.end(), link.group(1)


def numbered_targets(html: str) -> set[str]:
    """The ids whose page the printed document shows."""
    return {target for _, target in _links(html)}


def with_page_numbers(html: str, pages: Mapping[str, int | str]) -> str:
    """`html` with each numbered link's target page as its data-page. A target that `pages` lacks (not printed:
    a web-only figure) gets none, and CSS falls back to target-counter(), as before."""
    parts, last = [], 0
    for end, target in sorted(_links(html)):
        if target in pages:
            parts += [html[last:end], f' data-page="{pages[target]}"']
            last = end
    return "".join(parts) + html[last:]


def anchor_pages(document) -> dict[str, int]:
    """Every anchor of a laid-out WeasyPrint document and the page it starts on, from 1 (what CSS's page counter
    counts: no page counter is reset in templates/report.css)."""
    pages: dict[str, int] = {}
    for number, page in enumerate(document.pages, start=1):
        for anchor in page.anchors:
            pages.setdefault(anchor, number)
    return pages


def printed_pages(document, targets: set[str]) -> dict[str, int]:
    """The pages of `targets` in `document`, for those it prints."""
    return {anchor: page for anchor, page in anchor_pages(document).items() if anchor in targets}
