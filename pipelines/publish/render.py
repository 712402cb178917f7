"""HTML from a Jinja template (the report's, the atlas's); publish/pdf.py prints that same HTML.

Safety: Jinja autoescapes every value, so names and notes from input files come out as inert text.
WeasyPrint is not imported here: the process that renders the atlas's pages leaves printing to workers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from pipelines.config import TEMPLATES_DIR
from pipelines.publish import web_assets

STYLESHEET = "report.css"  # both documents' one stylesheet, inlined


def breakable(value) -> Markup:
    """Escape a long identifier, then allow line breaks after _ . / - + (no hyphen is added)."""
    return Markup(re.sub(r"([_./+-])", r"\1<wbr>", str(escape(value))))


SHORT_NAME = 20  # characters: a name this short fits a narrow column whole


def names(value) -> Markup:
    """Escape a line of names ("Mithril ccs-h200.sxm.8x"): a short name is kept whole (it moves to the next line,
    never "ccs-|h200.sxm.8x"), a long one may break after _ . / - + as `breakable` allows."""
    words = str(value).split(" ")
    return Markup(" ").join(Markup('<span class="whole">{}</span>').format(word) if len(word) <= SHORT_NAME
                            else breakable(word) for word in words)


def environment(templates: Path = TEMPLATES_DIR) -> jinja2.Environment:
    """One environment per templates folder for the life of the process: it keeps its compiled templates (compiling
    them took the atlas's publish step 0.1 s for each of its 14 pages), and Jinja's auto_reload checks each template's
    file on use, so a long-lived process (the UI's code server) still renders an edited template."""
    return _environment(Path(templates).resolve())  # one key per folder, however the caller names it


@lru_cache(maxsize=4)
def _environment(templates: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        autoescape=True,  # every template, whatever its file name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["breakable"] = breakable
    env.filters["names"] = names
    env.filters["rows_json"] = web_assets.rows_json
    return env


def render_html(doc, template: str = "report.html.j2", templates: Path = TEMPLATES_DIR, web: bool = True) -> str:
    """One self-contained HTML page: `template` (which extends base.html.j2) renders the document
    record `doc` (the report's or the atlas's context), with the stylesheet and the web edition's
    runtime (sortable, filterable tables: pipelines/publish/web_assets.py) inlined.
    `web=False`: a page only ever printed (the atlas's digest) goes without the runtime and its screen
    styles, which WeasyPrint never uses: 0.8 MB less per page to hold, hash and send to a PDF worker."""
    return "".join(render_pieces(doc, template, templates, web))


def render_pieces(doc, template: str = "report.html.j2", templates: Path = TEMPLATES_DIR,
                  web: bool = True) -> Iterator[str]:
    """render_html's page in the pieces the template produces, for a page written as it is rendered: the
    atlas's web edition on the whole corpus is 11 MB, and the whole text at once (twice that in memory,
    with an en dash in it), its encoding and Jinja's list of pieces added 45 MiB to the atlas's peak."""
    css = (templates / STYLESHEET).read_text(encoding="utf-8")
    if "</" in css:  # inlined unescaped in <style>: it must not be able to close the element
        raise ValueError(f"{templates / STYLESHEET} contains '</', which would end the inline <style>")
    return environment(templates).get_template(template).generate(
        css=css, doc=doc, web_css=web_assets.stylesheet() if web else None,
        web_runtime=web_assets.runtime_json() if web else None)


# Scripts are the web edition's only (WeasyPrint ignores them): dropped before WeasyPrint parses the
# page, which would otherwise tokenize the runtime and the atlas's every-pair JSON for nothing.
# Their JSON escapes "<", so no "</script" occurs inside one.
_SCRIPTS = re.compile(r"<script\b[^>]*>.*?</script>", re.S | re.I)
# A note's later calls link to the chapter's list of notes, which only the screen shows; in print the
# note is a footnote whose element is the note itself.
_SCREEN_NOTE_LINK = re.compile(r'href="#(fn-[^"]+)-text"')


def for_print(html: str) -> str:
    """The page without its scripts, its notes' calls linked to the footnotes: what WeasyPrint lays out."""
    return _SCREEN_NOTE_LINK.sub(r'href="#\1"', _SCRIPTS.sub("", html))
