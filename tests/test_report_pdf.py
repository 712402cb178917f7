"""The published PDF of the bundled data, read back: title page, contents with page numbers,
running headers and "Page n / N", footnotes on their call's page, cross-references with pages,
metadata, outline, tagging with alt text, searchable chart text, and figures checked by hand.

Page placement comes from the PDF's named destinations (WeasyPrint writes one per anchor of its layout),
the text of each page from the same PDF (pypdf); what only the layout knows (tables past the margin, rows
moved to new pages) from the facts the PDF cache keeps beside the PDF.
"""

from __future__ import annotations

import csv
import html as html_lib
import re
from types import SimpleNamespace as Page

import pytest
from pypdf import PdfReader

from pipelines.publish.page_breaks import (displaced_footnotes, hints_that_hold, layout_hints, row_on_new_page,
                                           row_position, rows_on_new_page)
from pipelines.publish.pdf import lay_out
from tests.pipeline_runner import BUNDLED_RAW, published_layout



def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def published(bundled_run, bundled_pdf_texts):
    folder = bundled_run.reports / "latest"
    html = (folder / "report.html").read_text(encoding="utf-8")
    reader = PdfReader(folder / "report.pdf")
    texts = [_flat(text) for text in bundled_pdf_texts]
    return html, reader, texts


@pytest.fixture(scope="module")
def anchors(published):
    """id -> 1-based page number: the PDF's named destinations, one per anchor of WeasyPrint's layout."""
    _, reader, _ = published
    return {name: reader.get_destination_page_number(dest) + 1 for name, dest in reader.named_destinations.items()}


def test_no_table_overflows_its_page(bundled_run, published):
    """Every table, and everything in it, ends inside the page's text area (the current generation's cost
    tables ran 10-26 px into the right margin: "Standard_ND96isr_MI300X_v5" could not break). The layout
    measures it (publish/pdf.tables_past_margin) and the PDF cache keeps it beside the PDF."""
    layout = published_layout(bundled_run)
    assert layout["pages"] == len(published[1].pages)
    assert layout["past_margin"] == [], "tables past the right margin: " + repr(layout["past_margin"])


def test_every_footnote_sits_on_its_calls_page(published, anchors):
    html, _, texts = published
    calls = [int(n) for n in re.findall(r'<span class="fncall" id="fncall-(\d+)">', html)]
    notes = {int(n): _flat(html_lib.unescape(t)) for n, t in re.findall(r'<span class="fn" id="fn-(\d+)">(.*?)</span>', html, re.S)}
    assert calls == list(range(1, len(calls) + 1)) and len(calls) >= 20, "footnotes are numbered 1..n in reading order"
    assert sorted(notes) == calls
    # the notes are called from table cells: they must really render there, not be dropped
    for n in calls:
        at = html.index(f'id="fncall-{n}"')
        assert html.rfind("<td", 0, at) > html.rfind("</td>", 0, at), f"footnote call {n} is not in a table cell"
    for n in calls:
        call_page = anchors.get(f"fncall-{n}")
        note_page = anchors.get(f"fn-{n}")
        assert call_page is not None, f"footnote call {n} is not laid out"
        assert note_page == call_page, f"footnote {n} is on page {note_page}, its call on page {call_page}"
        start = notes[n][:40]
        assert f"{n}. {start}" in texts[call_page - 1], f"footnote {n} ({start!r}) is not printed on page {call_page}"


def test_every_link_in_the_pdf_leads_somewhere(published, anchors):
    """Each internal link goes to a named destination, and a note's later calls go to the footnote itself
    (they linked to the screen's list of notes, which print hides: 142 dead targets, each a WeasyPrint
    "No anchor" warning, and no link at all in the PDF)."""
    _, reader, _ = published
    links = [str(a["/Dest"]) for page in reader.pages for a in (x.get_object() for x in page.get("/Annots") or [])
             if a.get("/Subtype") == "/Link" and "/Dest" in a]
    assert len(links) > 1000
    assert sorted({t for t in links if t not in anchors}) == []
    assert sum(t.startswith("fn-") for t in links) > 100


def test_a_row_whose_footnote_was_pushed_to_a_later_page_starts_a_new_page():
    # note 3 was printed a page after its call (WeasyPrint keeps the row and defers the note), note 5 too;
    # note 4, called on the same page as 3, follows from moving 3's row: one row per page moves
    pages = [Page(anchors={"fncall-1": 0, "fn-1": 0, "fncall-3": 0, "fncall-2": 0, "fn-2": 0, "fncall-4": 0}),
             Page(anchors={"fn-3": 0, "fn-4": 0, "fncall-5": 0}), Page(anchors={"fn-5": 0})]
    assert displaced_footnotes(Page(pages=pages)) == [3, 5]
    assert displaced_footnotes(Page(pages=pages[:1])) == []  # a note not laid out at all: not "later"
    html = ('<table><tr class="a"><td>x</td></tr><tr class="b"><td>y<span class="fncall" id="fncall-3"></span>'
            '</td></tr></table><p>z<span id="fncall-9"></span></p>')
    assert row_on_new_page(html, 'id="fncall-3"') == html.replace('<tr class="b">', '<tr style="break-before: page" class="b">')
    moved = row_on_new_page(html, 'id="fncall-3"')
    assert row_on_new_page(moved, 'id="fncall-3"') == moved  # a row that starts a page already stays as it is
    assert row_on_new_page(html, 'id="fncall-9"') == html  # not in a table row: nothing to move
    assert row_on_new_page(html, 'id="fncall-7"') == html


def test_title_page_and_contents_with_page_numbers(published, anchors):
    html, reader, texts = published
    title = texts[0]
    assert "Cost to train on cloud accelerators" in title
    # the price date is the newest on-demand price of the compared instances (the GPU clouds' catalogs of
    # 2026-12-07, in the whole-market comparison); the previous snapshot the catalogs' of 2026-12-06
    assert "Prices as of 2026-12-07" in title and "Previous snapshot 2026-12-06" in title
    assert "Generated 2025-11-29" in title  # SOURCE_DATE_EPOCH=1764374400 in tests/pipeline_runner.py
    assert "Page 1 /" not in title  # no header or footer on the title page
    toc_html = html[html.index('<nav class="toc"'):html.index("</nav>")]
    targets = re.findall(r'<a href="#([^"]+)"><span class="n">([^<]+)</span>', toc_html)
    assert len(targets) >= 10
    toc = texts[2]  # after the cover and the answer
    assert toc.startswith("Contents") or "Contents" in toc
    printed = [int(n) for n in re.findall(r"\.{3,} ?(\d+)", toc)]
    assert printed == [anchors[target] for target, _ in targets], "every contents line ends with its section's page"
    for _, number in targets:
        assert number in toc


def test_numbered_sections_running_header_and_page_footer(published, anchors):
    html, reader, texts = published
    total = len(texts)
    chapters = re.findall(r'<section id="([^"]+)" class="chapter[^"]*"[^>]*>\s*<h2 id="[^"]+" data-section="([^"]+)"', html)
    assert [c[1].split(" ")[0] for c in chapters][:4] == ["1", "2", "3", "4"] and chapters[-1][1] == "C Sources"
    starts = [(anchors[cid], html_lib.unescape(label)) for cid, label in chapters]
    for number in range(3, total + 1):
        text = texts[number - 1]
        assert f"Page {number} / {total}" in text
        assert "Cost to train on cloud accelerators" in text  # the report title, top right
        current = [label for page, label in starts if page <= number][-1]
        assert current in text, f"page {number} lacks the running header {current!r}"


def test_cross_references_name_the_page(published, anchors):
    html, _, texts = published
    everything = " ".join(texts)
    refs = re.findall(r'<a class="xref" href="#([^"]+)">([^<]+)</a>', html)
    figures = {target for target, _ in refs if target.startswith("fig-")}
    tables = {target for target, _ in refs if target.startswith("tab-")}
    assert len(figures) >= 10 and len(tables) >= 5
    # the answer's savings chart is the web edition's (the PDF's page 2 is the answer's table alone)
    web_only = set(re.findall(r'<div class="web-only"><figure id="(fig-\d+)"', html))
    assert web_only == {"fig-1"}
    for target, label in refs:
        if target not in web_only:
            assert f"{_flat(label)}, page {anchors[target]}" in everything, f"{label} lacks its page number"
    # every figure and table is numbered, captioned and referenced from the text
    numbers = re.findall(r'<figure id="fig-(\d+)"', html)
    assert numbers == [str(n) for n in range(1, len(numbers) + 1)]
    assert {f"fig-{n}" for n in numbers} == figures
    for n in numbers:
        if f"fig-{n}" not in web_only:
            assert f"Figure {n}." in texts[anchors[f"fig-{n}"] - 1]


def test_metadata_outline_and_tagged_alt_text(published):
    html, reader, texts = published
    meta = reader.metadata
    assert meta.title == "Cost to train on cloud accelerators — prices as of 2026-12-07"
    assert meta.author == "Cost-to-train pipeline"
    assert "MLPerf Training results" in meta.subject
    assert "ResNet-50" in meta["/Keywords"] and "MLPerf" in meta["/Keywords"]
    assert meta["/CreationDate"].startswith("D:20261207000000")  # fixed from the price date
    root = reader.trailer["/Root"]
    assert root["/Lang"] == "en"
    assert root["/MarkInfo"]["/Marked"] is True or root["/MarkInfo"]["/Marked"] == True  # noqa: E712
    assert "pdfuaid" in root["/Metadata"].get_object().get_data().decode("utf-8", "replace")

    def outline(items, depth=0):
        for item in items:
            if isinstance(item, list):
                yield from outline(item, depth + 1)
            else:
                yield depth, item.title, reader.get_destination_page_number(item) + 1

    marks = list(outline(reader.outline))
    titles = [t for _, t, _ in marks]
    assert titles[:3] == ["Cost to train on cloud accelerators", "1 The answer", "Contents"]
    assert "2.1 ResNet-50 (image classification, ImageNet)" in titles and "C Sources" in titles
    assert all("#" not in t for t in titles), "the on-screen anchor links must not leak into bookmarks"
    for depth, title, page in marks:
        assert title.split(" ")[-1] in texts[page - 1] or title in texts[page - 1]

    figures, missing = [], []

    def walk(node):
        node = node.get_object()
        if isinstance(node, dict):
            if node.get("/S") == "/Figure":
                (figures if node.get("/Alt") else missing).append(str(node.get("/Alt", "")))
            kids = node.get("/K")
            if kids is not None:
                for kid in kids if isinstance(kids, list) else [kids]:
                    walk(kid)
        elif isinstance(node, list):
            for kid in node:
                walk(kid)

    walk(root["/StructTreeRoot"])
    charts = len(re.findall(r'<svg id="chart-\d+"', html))
    web_only = len(re.findall(r'<div class="web-only"><figure id="fig-\d+"', html))  # the answer's chart
    assert charts >= 10 and not missing
    assert len(figures) == charts - web_only
    assert any(alt.startswith("Bar chart of the cost to train ResNet-50") and "AWS p4d.24xlarge $10.53" in alt for alt in figures)


def test_chart_text_is_searchable(published, anchors):
    _, _, texts = published
    assert "fig-1" not in anchors  # Figure 1, the answer's savings, is the web edition's
    page = texts[anchors["fig-2"] - 1]
    # Figure 2 (ResNet-50 cost): instance labels, bar figures and the axis title are text, not paths
    for word in ("AWS p4d.24xlarge", "Azure Standard_ND40rs_v2", "$10.53", "$29.08", "Cost to train (USD)"):
        assert word in page, word
    assert "Pareto front" in texts[anchors["fig-4"] - 1]
    assert "Emissions per training run (kg CO₂e, location-based)" in texts[anchors["fig-5"] - 1]
    assert "On-demand price (USD per hour)" in texts[anchors["fig-13"] - 1]


def _price(file: str, instance: str) -> float:
    with open(BUNDLED_RAW / "prices" / file, newline="") as handle:
        return next(float(r["usd_per_hour"]) for r in csv.DictReader(handle) if r["instance_type"] == instance)


def _minutes(file: str, system: str, benchmark: str) -> float:
    with open(BUNDLED_RAW / "results" / file, newline="") as handle:
        return next(float(r[benchmark]) for r in csv.DictReader(handle) if r["system"] == system)


def test_analysis_figures_by_hand(published):
    _, _, texts = published
    text = " ".join(texts)
    p4d = _price("refreshed_2026.csv", "p4d.24xlarge")
    p3 = _price("refreshed_2026.csv", "p3.16xlarge")
    azure = _price("refreshed_2026.csv", "Standard_ND96asr_v4")
    a100 = _minutes("mlperf_training_v1.0_summary.csv", "dgxa100_ngc21.05_mxnet", "resnet")
    v100 = _minutes("mlperf_training_v0.7_summary.csv", "dgx1_ngc20.06_mxnet", "resnet")
    cheapest = p4d * a100 / 60
    baseline = p3 * v100 / 60
    assert round(cheapest, 2) == 10.53 and round(baseline, 2) == 29.08
    # section 2.1: cheapest, savings against the baseline, the runner-up's break-even price and the cut it needs
    savings = 100 * (1 - cheapest / baseline)
    assert (f"Cheapest to train: AWS p4d.24xlarge at ${cheapest:.2f}, costs {savings:.1f}% less than the baseline "
            f"AWS p3.16xlarge at ${baseline:.2f}") in text
    beat_cheapest = cheapest / (a100 / 60)  # Azure ND96asr_v4 runs the same system: same time
    cut = 100 * (1 - beat_cheapest / azure)
    assert (f"The next cheapest, Azure Standard_ND96asr_v4, would break even with it at ${beat_cheapest:.4f} per hour, "
            f"{cut:.1f}% below its price") in text
    # price to beat the baseline, in Table 2's p4d row
    beat_baseline = baseline / (a100 / 60)
    assert f"${beat_baseline:.4f}" in text
    # since the previous snapshot (the catalogs' of 2026-12-06) no compared price moved (the 2025 cut's story, at
    # price date 2025-06-01: tests/test_report_wording.py)
    assert "Since 2026-12-06: unchanged." in text
    assert "Pareto front" in text and "AWS p4d.24xlarge alone is on the Pareto front" in text


def test_rows_started_on_a_new_page_are_named_and_can_be_started_again():
    html = ('<table id="tab-1"><thead><tr><th>h</th></tr></thead><tbody><tr class="a"><td>x</td></tr>'
            '<tr class="b"><td>y<span class="fncall" id="fncall-3"></span></td></tr></tbody></table>'
            '<table id="tab-2"><tbody><tr><td>z</td></tr></tbody></table>')
    moved = row_on_new_page(html, 'id="fncall-3"')
    assert rows_on_new_page(moved) == ("tab-1/1",)  # body row 1 (from 0) of tab-1; the header row is not counted
    assert row_position(html, "tab-1/1") == html.index('<tr class="b">')
    assert row_position(html, "tab-2/0") == html.index("<tr><td>z")
    assert [row_position(html, ref) for ref in ("tab-1/2", "tab-9/0", "tab-1/x")] == [None, None, None]
    # a hint holds while the tables up to its own keep their ids and rows: a new price keeps it, a row added
    # to a later table too, a row added to its own table or an earlier one does not
    hints = layout_hints(rows_on_new_page(moved), html)
    assert hints_that_hold(hints, moved.replace(">x<", ">$18.00<")) == ("tab-1/1",)
    assert hints_that_hold(hints, html.replace("<tbody><tr><td>z", "<tbody><tr><td>w</td></tr><tr><td>z")) == ("tab-1/1",)
    assert hints_that_hold(hints, html.replace('<tr class="a">', '<tr><td>new</td></tr><tr class="a">')) == ()
    assert hints_that_hold(hints, '<table id="tab-0"><tr><td>new</td></tr></table>' + html) == ()
    assert hints_that_hold({"shape": "an older run's record", "breaks": ["tab-1/1"]}, html) == ()


def test_a_layout_starts_the_rows_it_is_given_on_new_pages():
    rows = "".join(f'<tr><td id="cell-{i}">row {i}</td></tr>' for i in range(6))
    html = f'<html lang="en"><body><table id="tab-1"><tbody>{rows}</tbody></table></body></html>'
    plain = lay_out(html)
    assert (len(plain.document.pages), plain.breaks, plain.layouts) == (1, (), 1)
    laid = lay_out(html, breaks=("tab-1/4", "tab-7/0"))  # a row of a table the document lacks is ignored
    page_of = {a: n for n, page in enumerate(laid.document.pages) for a in page.anchors}
    assert (page_of["cell-3"], page_of["cell-4"], page_of["cell-5"]) == (0, 1, 1)
    assert (laid.breaks, laid.layouts) == (("tab-1/4",), 1)


def test_a_table_past_the_right_margin_is_named_with_its_page_and_overshoot():
    # a name with no break opportunity, wider than the text area, in the second table of page 2
    wide = "Standard_ND96isr_MI300X_v5" * 12
    html = ('<html lang="en"><body><table id="tab-1"><tr><td>fits</td></tr></table>'
            f'<table id="tab-2" style="break-before: page"><tr><td>a</td><td>{wide}</td></tr></table></body></html>')
    [found] = lay_out(html).past_margin
    page, table, overshoot = re.fullmatch(r"page (\d+): (tab-\d+), ([\d.]+) px", found).groups()
    assert (page, table) == ("2", "tab-2") and float(overshoot) > 100
    assert lay_out(html.replace(wide, "short")).past_margin == ()
