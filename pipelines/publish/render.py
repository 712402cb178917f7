"""HTML from a Jinja template (the report's, the atlas's) and PDF from that same HTML with WeasyPrint.

Safety: Jinja autoescapes every value, so names and notes from input files come out as inert
text; WeasyPrint gets a URL fetcher that serves `data:` URLs and files inside templates/ only,
so no local file and no network URL is ever read while rendering.
"""

from __future__ import annotations

import hashlib
import io
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, time, timezone
from pathlib import Path
from urllib.parse import unquote, urlparse

import jinja2
from markupsafe import Markup, escape
from weasyprint import HTML
from weasyprint.document import Document
from weasyprint.urls import URLFetcher

from pipelines.config import TEMPLATES_DIR
from pipelines.publish import web_assets

STYLESHEET = "report.css"  # both documents' one stylesheet, inlined


def breakable(value) -> Markup:
    """Escape a long identifier, then allow line breaks after _ . / - + (no hyphen is added)."""
    return Markup(re.sub(r"([_./+-])", r"\1<wbr>", str(escape(value))))


def environment(templates: Path = TEMPLATES_DIR) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        autoescape=True,  # every template, whatever its file name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["breakable"] = breakable
    env.filters["rows_json"] = web_assets.rows_json
    return env


def render_html(doc, template: str = "report.html.j2", templates: Path = TEMPLATES_DIR) -> str:
    """One self-contained HTML page: `template` (which extends base.html.j2) renders the document
    record `doc` (the report's or the atlas's context), with the stylesheet and the web edition's
    runtime (sortable, filterable tables: pipelines/publish/web_assets.py) inlined."""
    css = (templates / STYLESHEET).read_text(encoding="utf-8")
    if "</" in css:  # inlined unescaped in <style>: it must not be able to close the element
        raise ValueError(f"{templates / STYLESHEET} contains '</', which would end the inline <style>")
    return environment(templates).get_template(template).render(
        css=css, doc=doc, web_css=web_assets.stylesheet(), web_runtime=web_assets.runtime_json())


# Scripts are the web edition's only (WeasyPrint ignores them): dropped before WeasyPrint parses the
# page, which would otherwise tokenize the runtime and the atlas's every-pair JSON for nothing.
# Their JSON escapes "<", so no "</script" occurs inside one.
_SCRIPTS = re.compile(r"<script\b[^>]*>.*?</script>", re.S | re.I)


def for_print(html: str) -> str:
    """The page without its scripts: what WeasyPrint lays out."""
    return _SCRIPTS.sub("", html)


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


WORKER_NICENESS = 10  # pdf_process's workers yield the CPU to the process that started them
FOOTNOTE_PASSES = 4  # layouts at most before the last, each moving the rows of displaced notes to new pages


@dataclass(frozen=True)
class Laid:
    """A laid-out document and the table rows that were made to start a page ("tab-12/3": the body row 3,
    from 0, of table tab-12), which a later layout of a document of the same shape can take as hints."""

    document: Document
    breaks: tuple[str, ...]
    layouts: int


def lay_out(html: str, templates: Path = TEMPLATES_DIR, fetcher: URLFetcher | None = None,
            breaks: tuple[str, ...] = ()) -> Laid:
    """WeasyPrint's laid-out document (pages, each with its anchors) for the tagged PDF.

    WeasyPrint 70 keeps a table row on its page when the row's footnotes no longer fit the page's
    footnote area and prints those notes pages later. Where that happened, the rows that call the
    first such note of each page start a new page, all in one go, and the document is laid out
    again (each layout of the atlas's digest takes a quarter of a minute: one extra pass, not one per
    note). `breaks`: rows to start a page from the first layout on (the rows a previous layout of the
    same document moved: with them one layout usually suffices). Every layout returned is checked."""
    printed = for_print(html)
    for ref in breaks:
        printed = _break_before(printed, row_position(printed, ref))
    fetcher = fetcher or TemplatesOnlyFetcher(templates)

    def layout(text: str) -> Document:
        return HTML(string=text, base_url=str(templates) + "/", url_fetcher=fetcher).render(pdf_variant="pdf/ua-1")

    moved: set[int] = set()
    for layouts in range(1, FOOTNOTE_PASSES + 1):
        document = layout(printed)
        notes = [n for n in displaced_footnotes(document) if n not in moved]  # a moved row that did not help stays
        fixed = printed
        for note in notes:
            fixed = row_on_new_page(fixed, f'id="fncall-{note}"')
        if fixed == printed:  # nothing displaced, or no call in a table row: another layout would be the same
            return Laid(document, rows_on_new_page(printed), layouts)
        moved.update(notes)
        printed = fixed
        del document  # its pages go before the next layout makes new ones (memory: one layout at a time)
    return Laid(layout(printed), rows_on_new_page(printed), FOOTNOTE_PASSES + 1)


def displaced_footnotes(document) -> list[int]:
    """The first footnote of each page that is printed on a later page than its call, in page order."""
    page_of: dict[str, int] = {}
    for number, page in enumerate(document.pages):
        for anchor in page.anchors:
            page_of.setdefault(anchor, number)
    calls = sorted(int(a.removeprefix("fncall-")) for a in page_of if a.startswith("fncall-"))
    first: dict[int, int] = {}
    for n in calls:
        call_page = page_of[f"fncall-{n}"]
        if page_of.get(f"fn-{n}", call_page) > call_page:
            first.setdefault(call_page, n)
    return [first[page] for page in sorted(first)]


_PAGE_BREAK = '<tr style="break-before: page"'
_TABLE = re.compile(r'<table id="([^"]+)"')


def row_on_new_page(html: str, marker: str) -> str:
    """`html` with the table row that holds `marker` starting a new page (unchanged outside a table row,
    or when the row starts one already)."""
    at = html.find(marker)
    row = html.rfind("<tr", 0, at)
    if at < 0 or row < 0 or html.rfind("</tr>", 0, at) > row:
        return html
    return _break_before(html, row)


def _break_before(html: str, row: int | None) -> str:
    if row is None or html.startswith(_PAGE_BREAK, row):
        return html
    return html[:row] + _PAGE_BREAK + html[row + 3:]


def row_position(html: str, ref: str) -> int | None:
    """Where the row `ref` ("<table id>/<body row from 0>") starts in `html`; None when it has no such row."""
    table, _, index = ref.rpartition("/")
    at = html.find(f'<table id="{table}"')
    body = html.find("<tbody>", at)
    end = html.find("</table>", at)
    if at < 0 or body < 0 or not index.isdigit() or body > end:
        return None
    row = body
    for _ in range(int(index) + 1):
        row = html.find("<tr", row + 1)
        if row < 0 or row > end:
            return None
    return row


def rows_on_new_page(html: str) -> tuple[str, ...]:
    """The rows that `row_on_new_page` made start a page, as references for `row_position`."""
    refs = []
    for found in re.finditer(re.escape(_PAGE_BREAK), html):
        tables = list(_TABLE.finditer(html, 0, found.start()))
        if tables:
            body = html.find("<tbody>", tables[-1].end())
            refs.append(f"{tables[-1].group(1)}/{html.count('<tr', body, found.start())}")
    return tuple(refs)


def table_shape(html: str) -> str:
    """A digest of the tables' ids and rows: two documents of the same shape move the same rows (hints
    are used only between them)."""
    return hashlib.sha256("".join(m.group(0) for m in re.finditer(r'<table id="[^"]+"|<tr\b', html)).encode()).hexdigest()


def render_pdf(html: str, created: date, templates: Path = TEMPLATES_DIR, fetcher: URLFetcher | None = None) -> bytes:
    """A tagged PDF (PDF/UA-1); its creation date is fixed to `created` so the bytes repeat."""
    return pdf_bytes(lay_out(html, templates, fetcher).document, created)


def pdf_bytes(document: Document, created: date) -> bytes:
    """The laid-out document as a tagged PDF (PDF/UA-1) dated `created`."""
    stamp = datetime.combine(created, time(0, 0), tzinfo=timezone.utc).isoformat()
    document.metadata.created = stamp
    document.metadata.modified = stamp
    buffer = io.BytesIO()
    document.write_pdf(buffer, pdf_variant="pdf/ua-1")
    return buffer.getvalue()


@dataclass(frozen=True)
class Printed:
    """A tagged PDF and how it was laid out (Laid's breaks and layouts, its page count)."""

    pdf: bytes
    breaks: tuple[str, ...]
    layouts: int
    pages: int


def print_pdf(html: str, created: date, breaks: tuple[str, ...] = ()) -> Printed:
    """`html` laid out (with `breaks` as hints: see lay_out) and written as a tagged PDF dated `created`."""
    laid = lay_out(html, breaks=breaks)
    return Printed(pdf_bytes(laid.document, created), laid.breaks, laid.layouts, len(laid.document.pages))


def pdf_process(workers: int = 1) -> ProcessPoolExecutor:
    """Fresh processes of their own for print_pdf ("spawn": they share nothing with the caller), which the
    caller can keep busy meanwhile. Laying out a hundred pages takes WeasyPrint a few hundred MiB,
    which a Python process keeps once it has them; a process that ends gives them back, and the
    caller's own memory (the web edition's charts and tables) never adds to them.

    The workers run at a lower priority (nice): the caller's work is usually what the result waits
    for (the web edition needs every chart drawn in one process, while the documents spread over the
    workers), so on a busy machine the caller keeps a whole core and the workers take what is left."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=os.nice, initargs=(WORKER_NICENESS,))
