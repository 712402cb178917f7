"""HTML from a Jinja template (the report's, the atlas's) and PDF from that same HTML with WeasyPrint.

Safety: Jinja autoescapes every value, so names and notes from input files come out as inert
text; WeasyPrint gets a URL fetcher that serves `data:` URLs and files inside templates/ only,
so no local file and no network URL is ever read while rendering.
"""

from __future__ import annotations

import io
import re
from datetime import date, datetime, time, timezone
from pathlib import Path
from urllib.parse import unquote, urlparse

import jinja2
from markupsafe import Markup, escape
from weasyprint import HTML
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


FOOTNOTE_PASSES = 4  # layouts at most before the last, each moving the rows of displaced notes to new pages


def render_document(html: str, templates: Path = TEMPLATES_DIR, fetcher: URLFetcher | None = None):
    """WeasyPrint's laid-out document (pages, each with its anchors) for the tagged PDF.

    WeasyPrint 70 keeps a table row on its page when the row's footnotes no longer fit the page's
    footnote area and prints those notes pages later. Where that happened, the rows that call the
    first such note of each page start a new page, all in one go, and the document is laid out
    again (each layout of the atlas's digest takes half a minute: one extra pass, not one per note)."""
    printed = for_print(html)
    fetcher = fetcher or TemplatesOnlyFetcher(templates)
    moved: set[int] = set()
    for _ in range(FOOTNOTE_PASSES):
        document = HTML(string=printed, base_url=str(templates) + "/", url_fetcher=fetcher).render(pdf_variant="pdf/ua-1")
        notes = [n for n in displaced_footnotes(document) if n not in moved]  # a moved row that did not help stays
        fixed = printed
        for note in notes:
            fixed = row_on_new_page(fixed, f'id="fncall-{note}"')
        if fixed == printed:  # nothing displaced, or no call in a table row: another layout would be the same
            return document
        moved.update(notes)
        printed = fixed
        del document  # its pages go before the next layout makes new ones (memory: one layout at a time)
    return HTML(string=printed, base_url=str(templates) + "/", url_fetcher=fetcher).render(pdf_variant="pdf/ua-1")


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


def row_on_new_page(html: str, marker: str) -> str:
    """`html` with the table row that holds `marker` starting a new page (unchanged outside a table row,
    or when the row starts one already)."""
    at = html.find(marker)
    row = html.rfind("<tr", 0, at)
    if at < 0 or row < 0 or html.rfind("</tr>", 0, at) > row or html.startswith(_PAGE_BREAK, row):
        return html
    return html[:row] + _PAGE_BREAK + html[row + 3:]


def render_pdf(html: str, created: date, templates: Path = TEMPLATES_DIR, fetcher: URLFetcher | None = None) -> bytes:
    """A tagged PDF (PDF/UA-1); its creation date is fixed to `created` so the bytes repeat."""
    rendered = render_document(html, templates, fetcher)
    stamp = datetime.combine(created, time(0, 0), tzinfo=timezone.utc).isoformat()
    rendered.metadata.created = stamp
    rendered.metadata.modified = stamp
    buffer = io.BytesIO()
    rendered.write_pdf(buffer, pdf_variant="pdf/ua-1")
    return buffer.getvalue()
