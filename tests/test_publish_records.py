"""The parts both documents are made of (pipelines/publish/records.py), their one numbering, and
the macros that render them (templates/macros.html.j2)."""

from __future__ import annotations

import re

import pytest

from pipelines.publish.numbering import Numbering
from pipelines.publish.records import Cell, Column, Heading, Note, Row, Table, Tag
from pipelines.publish.render import environment
from pipelines.publish.report_sections import COST_COLUMNS


def _macro(call: str, **values) -> str:
    return environment().from_string('{% import "macros.html.j2" as m %}' + call).render(**values)


def test_grouped_columns_make_two_header_rows():
    top, below = Table(2, "c", COST_COLUMNS, ()).head
    assert [(h.label, h.scope, h.colspan, h.rowspan) for h in top][-4:] == [
        ("Speed\u00adup", "col", 1, 2), ("Price to beat (USD/hour)", "colgroup", 2, 1),
        ("Energy per run", "col", 1, 2), ("Emissions per run", "col", 1, 2)]
    assert all(h.rowspan == 2 for h in top if h.scope == "col")
    assert [h.label for h in below] == ["baseline", "cheapest"]
    assert len(Table(1, "c", (Column("a"), Column("b", numeric=True)), ()).head) == 1


def test_notes_are_numbered_in_reading_order_and_repeat_within_a_chapter():
    numbering = Numbering()
    first = numbering.chapter()
    a = numbering.note("sys:x", "System x.")
    b = numbering.note("price:y", "Price y.")
    again = numbering.note("sys:x", "System x.")
    assert (a, b, again) == (Note(1, "System x."), Note(2, "Price y."), Note(1))  # the text is printed once
    second = numbering.chapter()
    c = numbering.note("sys:x", "System x.")
    assert c == Note(3, "System x.")  # a new chapter prints it again, with the next number
    assert first == [a, b] and second == [c]
    assert (numbering.table(), numbering.table(), numbering.figure()) == (1, 2, 1)
    assert numbering.counts().footnotes == 3 and numbering.counts().tables == 2


def test_table_macro_renders_headers_notes_tags_sort_values_and_spans():
    table = Table(7, "Costs <per> instance", (Column("Instance", header=True), Column("System", css="system"),
                                              Column("Cost", numeric=True, short="Cost")), (
        Row((Cell("AWS p4d", subs=("8× A100",), tags=(Tag("cheapest", "best"),)),
             Cell("sys_a.b", note=Note(4, "System <a>."), breakable=True), Cell("$10.53", sort=10.529)),
            classes=("cheapest",)),
        Row((Cell("ResNet", link="cmp-resnet"),), span="no measured result"),
    ), cards=True)
    html = _macro("{{ m.table(t) }}", t=table)
    assert '<table id="tab-7" data-table data-facets=\'[]\' data-value-columns=\'[2]\'>' in html
    assert "Costs &lt;per&gt; instance" in html
    assert '<a class="anchor" href="#tab-7" aria-label="Link to table 7">#</a>' in html
    assert ('<tr class="cheapest"><th scope="row">AWS p4d<span class="sub">8× A100</span>'
            '<span class="tag best">cheapest</span></th>') in html
    assert '<td class="system" data-label="System">sys_<wbr>a.<wbr>b<span class="fncall" id="fncall-4"></span>' in html
    assert '<span class="fn" id="fn-4">System &lt;a&gt;.</span>' in html
    assert '<td class="num" data-label="Cost" data-sort="10.529">$10.53</td>' in html
    # a span row keeps one (hidden) cell per column, as the web table component needs
    assert ('<th scope="row"><a href="#cmp-resnet">ResNet</a></th><td colspan="2" class="muted">no measured result</td>'
            '<td hidden></td></tr>') in html
    empty = _macro("{{ m.table(t) }}", t=Table(8, "none", (Column("a"), Column("b")), (), empty="Nothing priced."))
    assert '<tr><td colspan="2" class="muted">Nothing priced.</td></tr>' in empty
    assert "data-table" not in empty, "a table without rows is not made interactive"
    assert "data-label" not in _macro("{{ m.table(t) }}", t=Table(9, "x", (Column("a"),), (Row((Cell("1"),)),)))


def test_section_macro_gives_the_running_header_and_the_self_link():
    html = _macro('{% call m.section(h) %}<p>body</p>{% endcall %}',
                  h=Heading("4", "What changed since 2024-01-01", "changes", running="4 What changed"))
    assert re.search(r'<section id="changes" class="chapter" aria-labelledby="changes-title">\s*'
                     r'<h2 id="changes-title" data-section="4 What changed"><span class="num">4</span> '
                     r'What changed since 2024-01-01<a class="anchor" href="#changes" aria-label="Link to section 4">#</a></h2>'
                     r'\s*<p>body</p>\s*</section>', html)
    appendix = _macro('{% call m.section(h, level=2) %}{% endcall %}', h=Heading("A", "Input files", "inputs", kind="appendix"))
    assert 'data-section="A Input files"' in appendix and 'aria-label="Link to appendix A"' in appendix


def test_a_long_software_list_is_cut_after_a_whole_item():
    from pipelines.publish.footnotes import shortened, system_note

    software = "cuda_version: 11.3.0.016; cuda_driver_version: 465.19.01; nccl_version: 2.9.8"
    assert shortened(software, 60) == "cuda_version: 11.3.0.016; cuda_driver_version: 465.19.01 …"
    assert shortened(software, None) == shortened(software, 200) == software
    info = {"submitter": "NVIDIA", "division": "closed", "status": "onprem", "number_of_nodes": 1,
            "accelerators_per_node": 8, "accelerator_model_name": "NVIDIA A100", "software": software}
    assert system_note("dgxa100", info, "v1.0", software_limit=30) == (
        "dgxa100 (NVIDIA, MLPerf Training v1.0, closed division, onprem): 1 node(s) × 8 NVIDIA A100; "
        "software: cuda_version: 11.3.0.016 …;")


def test_a_table_declares_its_filters_from_its_rows_and_facet_columns():
    """The web filters are generic: a row names its facets, a column feeds one by declaring it; they come
    in FACETS order, a new facet after them; a column sorts by value when any of its cells has a number."""
    columns = (Column("Instance", header=True), Column("Division", facet="Division"), Column("Cost", numeric=True),
               Column("Energy tier", facet="Energy tier"))
    rows = (Row((Cell("AWS p4d"), Cell("closed"), Cell("$1", sort=1.0), Cell("A")),
                facets=(("Round", "v1.0"), ("Provider", "AWS"))),
            Row((Cell("GCP a2"), Cell("open"), Cell("–"), Cell("B")), facets=(("Provider", "GCP"),)))
    table = Table(3, "t", columns, rows)
    assert table.facets == ("Provider", "Round", "Division", "Energy tier")
    assert [table.facet_values(r) for r in rows] == [["AWS", "v1.0", "closed", "A"], ["GCP", "", "open", "B"]]
    assert table.value_columns == [2]
    html = _macro("{{ m.table(t) }}", t=table)
    assert 'data-facets=\'["Provider", "Round", "Division", "Energy tier"]\'' in html
    assert '<tr data-facet=\'["GCP", "", "open", "B"]\'>' in html


def test_rows_json_escapes_what_could_end_its_script():
    from pipelines.publish.web_assets import rows_json

    table = Table(0, "pairs", (Column("System"), Column("Cost", numeric=True)),
                  (Row((Cell("</script><b>x"), Cell("$2", sort=2.0)), facets=(("Provider", "A&B"),)),), anchor="p")
    text = str(rows_json(table))
    assert "<" not in text and ">" not in text and "&" not in text
    import json
    assert json.loads(text) == [["</script><b>x", ["$2", 2.0], ["A&B"]]]


def test_rows_encoded_a_row_at_a_time_are_the_table_rows_json():
    """json_rows (the atlas's every pair: rows from a generator, never held as cells) gives the text, filters and
    sorted columns of a table holding the same rows; the expected text written by hand."""
    from pipelines.publish.records import JsonRows
    from pipelines.publish.web_assets import json_rows, rows_json

    columns = (Column("Round", facet="Round"), Column("Cost", numeric=True), Column("Tags"))
    rows = (Row((Cell("v1.0"), Cell("$2", sort=2.5), Cell("–")), facets=(("Provider", "AWS"),)),
            Row((Cell("v2.0"), Cell("n/a"), Cell("x<y")), facets=(("Energy tier", "B"), ("Provider", "GCP"))))
    encoded = json_rows(columns, (r for r in rows))
    assert encoded.text == ('[["v1.0",["$2",2.5],"–",["AWS","v1.0",""]],'
                            '["v2.0","n/a","x\\u003cy",["GCP","v2.0","B"]]]')
    assert (encoded.count, encoded.facets, encoded.value_columns) == (2, ("Provider", "Round", "Energy tier"), (1,))
    held = Table(0, "t", columns, rows, anchor="t", web_only=True)
    assert str(rows_json(held)) == encoded.text and held.facets == encoded.facets
    assert held.value_columns == list(encoded.value_columns)
    kept = Table(0, "t", columns, encoded, anchor="t", web_only=True)
    assert (str(rows_json(kept)), kept.facets, kept.value_columns, len(kept.rows)) == (encoded.text, encoded.facets, [1], 2)
    assert json_rows(columns, ()).text == "[]"
    with pytest.raises(ValueError, match="print cannot show"):
        Table(0, "t", columns, JsonRows("[]", 0, (), ()))


def test_a_fixed_table_prints_at_its_columns_widths():
    columns = (Column("Instance", header=True, width="60%"), Column("Cost", numeric=True, width="40%"))
    html = _macro("{{ m.table(t) }}", t=Table(3, "x", columns, (Row((Cell("AWS p4d"), Cell("$1"))),), css="atlas-table",
                                               fixed=True))
    assert '<table id="tab-3" class="atlas-table fixed" data-table' in html
    assert '<colgroup><col style="width: 60%"><col style="width: 40%"></colgroup>' in html
    assert "colgroup" not in _macro("{{ m.table(t) }}", t=Table(4, "x", columns, ()))  # not fixed: widths measured
    with pytest.raises(ValueError, match="not every column has a width"):
        Table(5, "x", (Column("Instance", width="60%"), Column("Cost")), (), fixed=True)


def test_the_atlas_digests_fixed_columns_fill_the_page():
    from pipelines.publish.atlas_context import INSTANCE_COLUMNS, SUMMARY_COLUMNS, TREND_COLUMNS
    from pipelines.publish.atlas_rounds import RESULT_COLUMNS

    for columns in (RESULT_COLUMNS, TREND_COLUMNS, SUMMARY_COLUMNS, INSTANCE_COLUMNS):
        assert sum(float(c.width.removesuffix("%")) for c in columns) == 100, [c.label for c in columns]


def test_a_chapter_printed_apart_numbers_its_notes_from_one():
    numbering = Numbering()
    numbering.chapter()
    assert [numbering.note(k, k).ref for k in ("a", "b", "a")] == [1, 2, 1]
    numbering.chapter()  # the web edition: numbers run on across chapters
    assert numbering.note("c", "c").ref == 3
    notes = numbering.chapter(restart=True)  # a round's own PDF: from 1, as its PDF's footnote counter
    assert [numbering.note(k, k).ref for k in ("a", "d", "a")] == [1, 2, 1] and [n.ref for n in notes] == [1, 2]
    assert numbering.counts().footnotes == 5  # every note made, across chapters
