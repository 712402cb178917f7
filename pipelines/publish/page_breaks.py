"""Which table rows start a new page in a printed document: the rows moved for footnotes that WeasyPrint
printed pages after their call, and the hints a later layout of a document of the same shape takes.
Plain text work on the page's HTML (and a laid-out document's anchors), without WeasyPrint."""

from __future__ import annotations

import re

from pipelines.fingerprint import running_sha256
from pipelines.publish.page_numbers import anchor_pages


def displaced_footnotes(document) -> list[int]:
    """The first footnote of each page that is printed on a later page than its call, in page order."""
    page_of = anchor_pages(document)
    calls = sorted(int(a.removeprefix("fncall-")) for a in page_of if a.startswith("fncall-"))
    first: dict[int, int] = {}
    for n in calls:
        call_page = page_of[f"fncall-{n}"]
        if page_of.get(f"fn-{n}", call_page) > call_page:
            first.setdefault(call_page, n)
    return [first[page] for page in sorted(first)]


_PAGE_BREAK = '<tr style="break-before: page"'
_TABLE = re.compile(r'<table id="([^"]+)"')


def row_start(html: str, marker: str) -> int | None:
    """Where the table row that holds `marker` starts in `html`; None outside a table row."""
    at = html.find(marker)
    row = html.rfind("<tr", 0, at)
    if at < 0 or row < 0 or html.rfind("</tr>", 0, at) > row:
        return None
    return row


def row_on_new_page(html: str, marker: str) -> str:
    """`html` with the table row that holds `marker` starting a new page (unchanged outside a table row,
    or when the row starts one already)."""
    return break_before(html, row_start(html, marker))


def break_before(html: str, row: int | None) -> str:
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


_SHAPE = re.compile(r'<table id="([^"]+)"|<tr\b|</table>')


def table_prefixes(html: str) -> dict[str, str]:
    """Per table id, a digest of the ids and rows of every table from the start of the document to the end of that
    one. Whether a row's footnotes fit its page depends on what comes before the row (and on its own table), not on
    what follows: a row moved to a new page by one layout is moved at once by the next while this digest holds. A
    new price keeps it; a row added to that table or an earlier one does not; rows added to later tables do not
    matter (a price change adds rows to the changes chapter, at the end)."""
    digest, prefixes, table = running_sha256(), {}, None
    for found in _SHAPE.finditer(html):
        if found.group(0) == "</table>":
            if table is not None:
                prefixes[table] = digest.hexdigest()
            table = None
            continue
        digest.update(found.group(0).encode())
        table = found.group(1) or table
    return prefixes


def layout_hints(breaks: tuple[str, ...], html: str) -> dict:
    """What to keep of a layout for the next one (hints_that_hold): the rows it started on a new page and the
    prefix digest of each of their tables."""
    prefixes = table_prefixes(html)
    tables = {ref.rpartition("/")[0] for ref in breaks}
    return {"breaks": list(breaks), "prefixes": {t: prefixes[t] for t in sorted(tables) if t in prefixes}}


def hints_that_hold(last: object, html: str) -> tuple[str, ...]:
    """The rows of a previous layout's hints (layout_hints) whose tables' prefix digest `html` still has."""
    if not isinstance(last, dict) or not isinstance(last.get("prefixes"), dict):
        return ()
    prefixes = table_prefixes(html)
    return tuple(str(ref) for ref in last.get("breaks", ())
                 if (table := str(ref).rpartition("/")[0]) in prefixes and last["prefixes"].get(table) == prefixes[table])
