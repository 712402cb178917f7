"""PDF from the report's or the atlas's HTML with WeasyPrint, tagged (PDF/UA-1) and dated so the bytes repeat.

Safety: WeasyPrint gets a URL fetcher that serves `data:` URLs and files inside templates/ only, so no
local file and no network URL is ever read while printing.
"""

from __future__ import annotations

import gc
import io
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import Path
from urllib.parse import unquote, urlparse

from weasyprint import HTML
from weasyprint.document import Document
from weasyprint.urls import URLFetcher

from pipelines.config import TEMPLATES_DIR
from pipelines.publish.page_breaks import (break_before, displaced_footnotes, row_on_new_page, row_position,
                                          row_start, rows_on_new_page)
from pipelines.publish.page_numbers import numbered_targets, past_new_pages, printed_pages, with_page_numbers
from pipelines.publish.render import for_print


class TemplatesOnlyFetcher(URLFetcher):
    """Serves data: URLs and files inside the templates folder; refuses everything else."""

    def __init__(self, templates: Path = TEMPLATES_DIR):
        super().__init__(allowed_protocols={"data", "file"}, allow_redirects=False)
        self.templates = templates.resolve()
        self.refused: list[str] = []

    def fetch(self, url, headers=None):
        scheme = url.split(":", 1)[0].lower()
        if scheme == "file":
            target = Path(unquote(urlparse(url).path)).resolve()
            if not target.is_relative_to(self.templates):
                return self._refuse(url)
        elif scheme != "data":
            return self._refuse(url)
        return super().fetch(url, headers)

    def _refuse(self, url: str):
        self.refused.append(url)
        raise ValueError(f"refused to fetch {url}: only data: URLs and the templates folder are allowed")


# While WeasyPrint lays out or writes a document it makes millions of objects (boxes, lines, PDF objects) that live
# as long as the document. Python's default collector thresholds (700, 10, 10) walk all of them each time the heap
# has grown by a quarter: a fifth of a layout's CPU (the bundled report's two layouts: 58.8 s, 46.7 s with these).
# Young objects are still collected often; the first layout's pages are collected before the next (lay_out).
FEWER_COLLECTIONS = (50_000, 50, 1000)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The block runs with the collector's FEWER_COLLECTIONS thresholds; the previous ones after it."""
    before = gc.get_threshold()
    gc.set_threshold(*FEWER_COLLECTIONS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


PASSES = 4  # layouts at most before the last: each moves the rows of displaced notes and writes the pages found


@dataclass(frozen=True)
class Laid:
    """A laid-out document, the table rows that were made to start a page ("tab-12/3": the body row 3, from 0,
    of table tab-12) and the pages its numbered links show (page_numbers.py): what a later layout of a document
    of the same shape can take as hints."""

    document: Document
    breaks: tuple[str, ...]
    layouts: int
    page_numbers: Mapping[str, int] = field(default_factory=dict)

    @property
    def past_margin(self) -> tuple[str, ...]:
        return tables_past_margin(self.document)


def tables_past_margin(document: Document) -> tuple[str, ...]:
    """Every table that runs past its page's right margin, with anything in it ("page 7: tab-12, 10.5 px"):
    a name that cannot break pushes a column out, and the reader loses the figures beside it."""
    from weasyprint.formatting_structure import boxes

    over = []
    for number, page in enumerate(document.pages, start=1):
        right = page.width - page._page_box.margin_right  # the text area's right edge, CSS px
        for table in (b for b in page._page_box.descendants() if isinstance(b, boxes.TableBox)):
            end = max([table.position_x + table.margin_width()]
                      + [b.position_x + b.margin_width() for b in table.descendants() if hasattr(b, "margin_width")])
            if end > right + 0.5:
                over.append(f"page {number}: {table.element.get('id')}, {end - right:.1f} px")
    return tuple(over)


def lay_out(html: str, templates: Path = TEMPLATES_DIR, fetcher: URLFetcher | None = None,
            breaks: tuple[str, ...] = (), page_numbers: Mapping[str, int] | None = None) -> Laid:
    """WeasyPrint's laid-out document (pages, each with its anchors) for the tagged PDF.

    Laid out again until two things hold, each found in the last layout:
    - WeasyPrint 70 keeps a table row on its page when the row's footnotes no longer fit the page's footnote
      area and prints those notes pages later. Where that happened, the rows that call the first such note of
      each page start a new page, all in one go (one extra layout, not one per note).
    - Every page number written beside a link (page_numbers.py) is the page its target is on.
    `breaks` (rows to start a page from the first layout on) and `page_numbers` (the pages to write) are what
    a previous layout of the same document found: with them one layout usually suffices. A first layout
    without them leaves the numbers to WeasyPrint's target-counter() (right, but slower: it lays out the
    pages that hold them again); later layouts write the pages found, a page later past each row moved
    (page_numbers.past_new_pages). If the passes do not settle, the last layout leaves every number to
    target-counter()."""
    printed = for_print(html)
    for ref in breaks:
        printed = break_before(printed, row_position(printed, ref))
    fetcher = fetcher or TemplatesOnlyFetcher(templates)
    targets = numbered_targets(printed)
    numbers = {target: page for target, page in (page_numbers or {}).items() if target in targets}

    def layout(text: str) -> Document:
        with fewer_collections():
            return HTML(string=text, base_url=str(templates) + "/", url_fetcher=fetcher).render(pdf_variant="pdf/ua-1")

    moved: set[int] = set()
    for layouts in range(1, PASSES + 1):
        document = layout(with_page_numbers(printed, numbers))
        found = printed_pages(document, targets)
        notes = [n for n in displaced_footnotes(document) if n not in moved]  # a moved row that did not help stays
        fixed = printed
        for note in notes:
            fixed = row_on_new_page(fixed, f'id="fncall-{note}"')
        settled = all(found.get(target) == page for target, page in numbers.items())  # the rest: target-counter()
        if fixed == printed and settled:  # nothing more to move (or no call in a table row), every number right
            return Laid(document, rows_on_new_page(printed), layouts, found)
        moved.update(notes)
        # what follows a row moved to a new page likely moves a page on: written so, checked by the next layout
        starts = {row_start(fixed, f'id="fncall-{note}"') for note in notes} - {None}
        numbers = past_new_pages(found, fixed, starts)
        printed = fixed
        del document  # its pages go before the next layout makes new ones (memory: one layout at a time)
        gc.collect()  # now, not at the collector's next full look (rare: FEWER_COLLECTIONS)
    document = layout(printed)
    return Laid(document, rows_on_new_page(printed), PASSES + 1, printed_pages(document, targets))


def render_pdf(html: str, created: date, templates: Path = TEMPLATES_DIR, fetcher: URLFetcher | None = None) -> bytes:
    """A tagged PDF (PDF/UA-1); its creation date is fixed to `created` so the bytes repeat."""
    return pdf_bytes(lay_out(html, templates, fetcher).document, created)


def pdf_bytes(document: Document, created: date) -> bytes:
    """The laid-out document as a tagged PDF (PDF/UA-1) dated `created`."""
    stamp = datetime.combine(created, time(0, 0), tzinfo=timezone.utc).isoformat()
    document.metadata.created = stamp
    document.metadata.modified = stamp
    buffer = io.BytesIO()
    with fewer_collections():
        document.write_pdf(buffer, pdf_variant="pdf/ua-1")
    return buffer.getvalue()
