"""A matplotlib figure as inline SVG: repeatable, accessible, with searchable text.

`svg.fonttype = 'none'` (set in pipelines/publish/charts.py) keeps labels as text, searchable in
the PDF and read by screen readers; a fixed `svg.hashsalt` and no date metadata give the same bytes
for the same data. The SVG gets a `<title>` (its alt text: WeasyPrint writes it as the /Alt of the
tagged PDF's Figure, browsers use it as the accessible name) and every id inside it is prefixed
with the chart's own id, so several charts inlined in one HTML page never share an id. An artist
drawn with the gid `tip-<n>` gets `tips[n]` as its own <title>: the row's details, which browsers show
on hover and screen readers read.
"""

from __future__ import annotations

import io
import re
from html import escape

import matplotlib.pyplot as plt


def figure_svg(fig, chart_id: str, alt: str, tips: list[str] = (), groups: list[list[str]] = (),
               laid_out: bool = False) -> str:
    """The figure as an <svg> element for inlining in HTML; closes the figure. A figure `laid_out` (tight_layout already
    fit its labels and legend inside it) is written as it is; any other is cropped to its content, which costs
    matplotlib an extra pass over every artist (about an eighth of the atlas's chart time)."""
    buffer = io.StringIO()
    crop = {} if laid_out else {"bbox_inches": "tight", "pad_inches": 0.05}
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None}, **crop)
    plt.close(fig)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]  # drop the XML prolog and doctype: the SVG is inlined in HTML
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, count=1, flags=re.S)
    # matplotlib's `*{stroke-linejoin: round; ...}` would style the whole HTML page: drop it
    svg = re.sub(r"\s*<defs>\s*<style[^>]*>.*?</style>\s*</defs>", "", svg, count=1, flags=re.S)
    # Scale with the page: keep the viewBox, let CSS set the size.
    svg = re.sub(r'<svg([^>]*?) width="[^"]+" height="[^"]+"', r'<svg\1', svg, count=1)
    svg = re.sub(r'(<g id="tip-(\d+)"[^>]*>)', lambda m: f'{m.group(1)}<title>{escape(tips[int(m.group(2))])}</title>', svg)
    for n, texts in enumerate(groups):
        svg = _titled_uses(svg, f'<g id="tips-{n}"', texts)
    # One namespace of ids per chart: matplotlib numbers its ids from 1 in every figure.
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{chart_id}-\1"', svg)
    svg = svg.replace("url(#", f"url(#{chart_id}-").replace('href="#', f'href="#{chart_id}-')
    head_end = svg.index(">") + 1
    head = svg[:head_end].replace("<svg", f'<svg id="{chart_id}" class="chart-svg" role="img" '
                                          f'aria-labelledby="{chart_id}-title"', 1)
    return f'{head}\n <title id="{chart_id}-title">{escape(alt, quote=True)}</title>{svg[head_end:]}'


# A scatter's point: a <use> of its marker, or (few points: matplotlib inlines them) a <path>; the
# marker's own definition (<path id=...> in <defs>) is not a point.
_POINT = re.compile(r'<(use|path) (?![^>]*\bid=")([^>]*?)\s*/>')


def _titled_uses(svg: str, start: str, texts: list[str]) -> str:
    """The first len(texts) points after `start` (a scatter's group, its points in order) each given
    their text as a <title>."""
    at = svg.index(start)
    parts, position = [svg[:at]], at
    for text in texts:
        match = _POINT.search(svg, position)
        if match is None:  # charts._scatter gives matplotlib only points it draws: a bug if reached
            raise ValueError(f"{start}: {len(texts)} hover texts but fewer points in the SVG")
        tag, attributes = match.groups()
        parts += [svg[position:match.start()], f"<{tag} {attributes}>"
                  + (f"<title>{escape(text)}</title>" if text else "") + f"</{tag}>"]
        position = match.end()
    return "".join(parts) + svg[position:]
