"""The web edition's runtime, inlined in each page: the DataTables bundle that ships inside the pinned
`itables` package (jQuery, DataTables 2 and its extensions, MIT licensed) and our tables.js.

Nothing is fetched: reports open from file:// without a network. The bundle is an ES module; Chromium
refuses module files from file://, so the page carries the code as one JSON string (every `<` escaped,
so no `</script>` or `<!--` inside the code can end or confuse the element) and a one-line loader runs
it as an inline module. WeasyPrint ignores scripts, and render_pdf drops them before it parses the page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from markupsafe import Markup

from pipelines.config import TEMPLATES_DIR
from pipelines.publish.records import Column, JsonRows, Row, Table, facet_order, row_facets

TABLES_JS = "tables.js"
TABLES_CSS = "tables.css"
# The bundle's last statement: `export{Md as DateTime,Go as ITable,vh as default,Tt as jQuery,...};`
# (only license comments follow it)
_EXPORTS = re.compile(r"\bexport\s*\{([^}]*)\}\s*;?")


def _bundle(name: str) -> str:
    # found, not imported: importing itables imports pandas (40 MiB the atlas run would keep)
    package = Path(find_spec("itables").origin).parent
    return (package / "html" / name).read_text(encoding="utf-8")


def module_exports_as_object(code: str, name: str) -> str:
    """The module's closing export clause turned into `const name = {exported: local, ...}`, so code
    appended after it (our tables.js) reaches the exports without an import."""
    match = None
    for match in _EXPORTS.finditer(code):
        pass
    if not match or code[match.end():].strip()[:2] not in ("", "/*", "//"):
        raise ValueError("the DataTables bundle of itables no longer ends with an export clause")
    pairs = []
    for item in match.group(1).split(","):
        local, _, exported = (part.strip() for part in item.strip().partition(" as "))
        pairs.append(f"{json.dumps(exported or local)}: {local}")
    return code[:match.start()] + f"const {name} = {{{', '.join(pairs)}}};" + code[match.end():] + "\n"


@lru_cache(maxsize=1)
def runtime_code() -> str:
    """The DataTables bundle followed by tables.js, as the text of one module."""
    ours = (TEMPLATES_DIR / TABLES_JS).read_text(encoding="utf-8")
    return module_exports_as_object(_bundle("dt_bundle.js"), "DataTablesBundle") + ours


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """DataTables' stylesheet and ours, for an inline <style>."""
    css = _bundle("dt_bundle.css") + "\n" + (TEMPLATES_DIR / TABLES_CSS).read_text(encoding="utf-8")
    if "</" in css:
        raise ValueError("the web stylesheet contains '</', which would end the inline <style>")
    return css


def script_json(value) -> Markup:
    """`value` as JSON for the inside of a <script> element: `<`, `>` and `&` escaped, so nothing in
    the data can end the element (the same escaping as Jinja's tojson)."""
    return Markup(_escaped_json(value))


def _escaped_json(value) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def runtime_json() -> Markup:
    return script_json(runtime_code())


def rows_json(table: Table) -> Markup:
    """A web-only table's rows for its JSON <script> (json_rows)."""
    rows = table.rows if isinstance(table.rows, JsonRows) else json_rows(table.columns, table.rows)
    return Markup(rows.text)


def json_rows(columns: tuple[Column, ...], rows: Iterable[Row]) -> JsonRows:
    """Rows as a web-only table's JSON: per row its cells (the text, or [text, number behind it] where
    the cell sorts by value) and, last, its facet values in the table's filter order (records.Table.facets).
    Encoded a row at a time, the same text as script_json of the whole list: `rows` may be a generator,
    so a table of 10,000+ rows never holds every row's cells, nor every piece of the encoding, at once."""
    encoded: list[str] = []  # each row's cells as a JSON array without its closing bracket, then the whole row
    values: list[dict[str, str]] = []
    found = {c.facet for c in columns if c.facet}
    sorting: set[int] = set()
    for row in rows:
        encoded.append(_escaped_json([c.text if c.sort is None else [c.text, c.sort] for c in row.cells])[:-1])
        values.append(row_facets(columns, row))
        found.update(values[-1])
        sorting.update(i for i, c in enumerate(row.cells) if c.sort is not None)
    facets = facet_order(found)
    for i, row_values in enumerate(values):  # in place: a row's head is freed as its whole text replaces it
        encoded[i] += ("," if len(encoded[i]) > 1 else "") + _escaped_json([row_values.get(name, "") for name in facets]) + "]"
    del values
    count = len(encoded)
    encoded[:1] = ["[" + "".join(encoded[:1])]  # the array's brackets on its first and last rows: one copy of the text
    encoded[-1] += "]"
    return JsonRows(",".join(encoded), count, facets, tuple(i for i in range(len(columns)) if i in sorting))
