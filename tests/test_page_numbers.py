"""Page numbers beside a printed document's links (publish/page_numbers.py, pdf.lay_out): written as text,
checked against the layout they produced, and right whatever the hints say."""

from __future__ import annotations

import re
from datetime import date
from io import BytesIO

import pytest
from pypdf import PdfReader

from pipelines.config import TEMPLATES_DIR
from pipelines.publish import pdf
from pipelines.publish.page_numbers import (layout_numbers, numbered_targets, numbers_that_hold, past_new_pages,
                                            with_page_numbers)

CONTENTS = ('<nav class="toc" id="contents"><h2 class="unnumbered">Contents</h2><ol>'
            '<li><a href="#one"><span class="n">1</span> One</a></li>'
            '<li><a href="#two"><span class="n">2</span> Two</a></li>'
            '<li><span class="in-file" data-file="other.pdf"><span class="n">3</span> Elsewhere</span></li></ol></nav>')


def document(paragraphs: int = 3) -> str:
    """Contents on page 1, chapter One on page 2, chapter Two on the page after One's `paragraphs` paragraphs
    (each 75 mm of A4's 257 mm text height), a cross-reference to Two, a back-reference to One and one to a
    figure not printed; the report's style sheet (each chapter starts a page)."""
    filler = "".join(f'<p style="height: 75mm">paragraph {i}</p>' for i in range(paragraphs))
    css = (TEMPLATES_DIR / "report.css").read_text(encoding="utf-8")
    return (f'<!DOCTYPE html><html lang="en"><head><title>t</title><style>{css}</style></head><body>'
            f'{CONTENTS}<main><section class="chapter" id="one"><h2 data-section="1 One">1 One</h2>'
            f'<p>See <a class="xref" href="#two">chapter 2</a>.</p>{filler}</section>'
            '<section class="chapter" id="two"><h2 data-section="2 Two">2 Two</h2>'
            '<p>Back to <a class="backref" href="#one">chapter 1</a>; <a href="#one">a plain link</a>; '
            '<a class="xref" href="#web-only">a figure not printed</a>.</p>'
            '<div style="display: none"><p id="web-only">web only</p></div></section></main></body></html>')


def printed_numbers(laid) -> tuple[list[str], str, str]:
    """The page numbers the PDF prints: the contents' two lines, the cross-reference's, the back-reference's."""
    data = pdf.pdf_bytes(laid.document, created=date(2026, 12, 6))
    text = " ".join(page.extract_text() for page in PdfReader(BytesIO(data)).pages)
    return (re.findall(r"(?:One|Two)\s*\.+\s*(\d+)", text), re.search(r"chapter 2, page (\d+)", text).group(1),
            re.search(r"chapter 1 \(p\. (\d+)\)", text).group(1))


def test_only_the_links_that_print_a_page_are_numbered():
    html = document()
    assert numbered_targets(html) == {"one", "two", "web-only"}  # contents links, xref, backref; not a plain link
    written = with_page_numbers(html, {"one": 2, "two": 4})
    assert written.count('data-page="') == 4  # the two contents links, the xref and the backref
    assert '<a href="#one" data-page="2">' in written and '<a class="xref" href="#two" data-page="4">' in written
    assert '<a class="backref" href="#one" data-page="2">' in written and '<a href="#one">a plain' in written
    assert '<a class="xref" href="#web-only">' in written  # no page known: CSS's target-counter() stays
    assert with_page_numbers(html, {}) == html


@pytest.mark.parametrize("paragraphs, two", [(3, 3), (5, 4)])  # 3 paragraphs fit page 2; 5 reach page 3
def test_a_first_layout_leaves_the_numbers_to_weasyprint_and_keeps_them(paragraphs, two):
    laid = pdf.lay_out(document(paragraphs))
    assert laid.layouts == 1  # no pages known: target-counter() resolved them
    assert dict(laid.page_numbers) == {"one": 2, "two": two}  # hand-counted from the paragraphs' heights
    assert printed_numbers(laid) == (["2", str(two)], str(two), "2")


def test_the_last_layouts_numbers_take_one_layout_and_wrong_ones_are_corrected():
    html = document(5)
    right = pdf.lay_out(html, page_numbers={"one": 2, "two": 4, "gone": 9})  # a target no longer there is dropped
    assert (right.layouts, printed_numbers(right)) == (1, (["2", "4"], "4", "2"))
    wrong = pdf.lay_out(html, page_numbers={"one": 7, "two": 1})  # a document that changed since those
    assert (wrong.layouts, dict(wrong.page_numbers)) == (2, {"one": 2, "two": 4})
    assert printed_numbers(wrong) == (["2", "4"], "4", "2")


def test_numbers_that_do_not_settle_are_left_to_weasyprint(monkeypatch):
    """After its passes, lay_out hands every number to target-counter(): slower, never wrong."""
    monkeypatch.setattr(pdf, "PASSES", 1)
    laid = pdf.lay_out(document(5), page_numbers={"one": 7, "two": 1})  # the one pass printed wrong pages
    assert laid.layouts == 2 and dict(laid.page_numbers) == {"one": 2, "two": 4}
    assert printed_numbers(laid) == (["2", "4"], "4", "2")


def test_kept_numbers_hold_while_the_elements_before_their_targets_do():
    html = document(5)
    kept = layout_numbers({"one": 2, "two": 4}, html)
    assert numbers_that_hold(kept, html.replace("paragraph 3", "paragraph three")) == {"one": 2, "two": 4}  # text
    more = html.replace('<p style="height: 75mm">paragraph 3', '<p>new</p><p style="height: 75mm">paragraph 3')
    assert numbers_that_hold(kept, more) == {"one": 2}  # a paragraph before Two: its page is left to the layout
    assert numbers_that_hold({"page_numbers": {"one": 2}}, html) is None  # an older version's hints: none
    assert numbers_that_hold(None, html) is None


def test_after_rows_moved_to_new_pages_each_target_is_guessed_a_page_later_per_row_before_it():
    html = ('<h2 id="one">One</h2><table><tr><td>a</td></tr><tr style="break-before: page"><td>b</td></tr></table>'
            '<h2 id="two">Two</h2><table><tr style="break-before: page"><td>c</td></tr></table><h2 id="three">Three</h2>')
    rows = [html.index('<tr style="break-before: page"><td>b'), html.index('<tr style="break-before: page"><td>c')]
    found = {"one": 2, "two": 3, "three": 5, "gone": 7}  # "gone": a target no longer in the document, kept as found
    assert past_new_pages(found, html, rows) == {"one": 2, "two": 4, "three": 7, "gone": 7}
    assert past_new_pages(found, html, []) == found
