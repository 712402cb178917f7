"""The page numbers a printed document shows beside its internal links (the contents, "Table 3, page 12",
"(p. 40)"), written into the HTML as `data-page` before WeasyPrint lays it out (templates/report.css prints
them). Plain text work on the page's HTML and a laid-out document's anchors.

Why not only CSS's target-counter(): WeasyPrint resolves it by laying out again every page that holds such a
link until the numbers settle. A layout of the 81-page report made 259 pages that way (its 661 back-references,
171 cross-references and the contents) in 37-43 s of CPU, against 82 pages and 24-27 s with the numbers
written as text. Written numbers are those a previous layout found (pdf.lay_out, PdfCache's hints), and are
checked against the layout they produced: one layout more when they were wrong."""

from __future__ import annotations

import re
from bisect import bisect
from collections.abc import Iterable, Mapping

from pipelines.fingerprint import running_sha256

# The links that print their target's page: every link of the contents, and cross-references anywhere
_CONTENTS = re.compile(r'<nav class="toc".*?</nav>', re.S)
_CONTENTS_LINK = re.compile(r'<a href="#([^"]+)"')
_REFERENCE = re.compile(r'<a class="(?:xref|backref)" href="#([^"]+)"')


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


def with_page_numbers(html: str, pages: Mapping[str, int]) -> str:
    """`html` with each numbered link's target page as its data-page. A link whose target `pages` lacks (not laid
    out yet, or not printed: a web-only figure) gets none: CSS falls back to target-counter() for it."""
    parts, last = [], 0
    for end, target in sorted(_links(html)):
        if target in pages:
            parts += [html[last:end], f' data-page="{pages[target]}"']
            last = end
    return "".join(parts) + html[last:]


def past_new_pages(pages: Mapping[str, int], html: str, starts: Iterable[int]) -> dict[str, int]:
    """A layout's `pages`, each a page later for every row starting a new page at `starts` (positions in `html`)
    before its target: what the next layout of `html` is likely to print once those rows were moved to start a
    page. A guess the next layout checks (pdf.lay_out); written as text it spares WeasyPrint target-counter()'s
    laying out again (the bundled report's layout after its one moved row: 82 pages made instead of 257)."""
    moved = sorted(starts)
    return {target: page + bisect(moved, html.find(f'id="{target}"')) for target, page in pages.items()}


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


_TAG_OR_ID = re.compile(r'<(\w+)|\sid="([^"]+)"')


def structures(html: str, targets: set[str]) -> dict[str, str]:
    """Per target, a digest of the elements (their tag names, in order) before it. While it holds, the page the
    target is on usually does too: a new price changes figures in cells, not the rows, paragraphs and notes
    that fill the pages before it (a guess, checked by the layout: see numbers_that_hold)."""
    digest, found = running_sha256(), {}
    for match in _TAG_OR_ID.finditer(html):
        if match.group(1):
            digest.update(match.group(1).encode() + b" ")
        elif match.group(2) in targets and match.group(2) not in found:
            found[match.group(2)] = digest.hexdigest()
    return found


def layout_numbers(pages: Mapping[str, int], html: str) -> dict:
    """What to keep of a layout's page numbers for the next layout (numbers_that_hold)."""
    return {"page_numbers": dict(pages), "structures": structures(html, set(pages))}


def numbers_that_hold(last: object, html: str) -> dict[str, int] | None:
    """The pages of a previous layout (layout_numbers) of the targets whose structure before them `html` still
    has; None when nothing was kept. The others are left to target-counter() in the next layout."""
    if not isinstance(last, dict) or not isinstance(last.get("page_numbers"), dict) \
            or not isinstance(last.get("structures"), dict):
        return None
    pages, kept = last["page_numbers"], last["structures"]
    now = structures(html, set(pages))
    return {target: page for target, page in pages.items()
            if isinstance(page, int) and target in now and kept.get(target) == now[target]}
