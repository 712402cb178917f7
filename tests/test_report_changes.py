"""The report's "What changed" section and summary list the price changes of compared instances;
other priced instances are named when few, counted when many (the bundled data at price date
2025-06-01, when AWS's June 2025 cut is what changed; hand values from
reference/prices.csv: p4d.24xlarge 32.7726 -> 21.957642 = -33.0 %, p5.48xlarge 98.32 -> 55.04 =
-44.0 %; p5 is priced but in no bundled comparison)."""

from __future__ import annotations

import re
from datetime import date

import polars as pl

from pipelines.defs.report.documents import REPORT_TABLES as MARTS
from pipelines.publish.from_marts import report_context
from pipelines.publish.render import render_html
from pipelines.warehouse import connect, read_table
from tests.pipeline_runner import BUNDLED_PRICE_DATE


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _section(html: str) -> str:
    return html[html.index('<section id="changes"'):html.index("</section>", html.index('<section id="changes"'))]


def test_bundled_report_lists_compared_changes_and_names_the_other(bundled_2025_report):
    html = (bundled_2025_report / "report.html").read_text(encoding="utf-8")
    section = _section(html)
    rows = [_text(r) for r in re.findall(r"<tr[^>]*><th scope=\"row\">.*?</tr>", section, re.S)]
    table = [r for r in rows if "$32.7726" in r]
    assert len(table) == 1 and "AWS p4d.24xlarge" in table[0] and "$21.9576" in table[0] and "-33.0%" in table[0]
    # p5.48xlarge is the current generation's baseline, so its change is in the table: 98.32 -> 55.04 (-44.0%)
    p5 = [r for r in rows if "AWS p5.48xlarge" in r]
    assert len(p5) == 1 and "$98.3200" in p5[0] and "$55.0400" in p5[0] and "-44.0%" in p5[0]
    # the price book holds the atlas's instances too: p4de 40.96575 -> 27.44705 (-33.0%) is not compared;
    # tpu-v6e and ND96isr_H200_v5 in eastus (compared in eastus2) are first priced on 2025-06-01
    assert ("Outside these comparisons, prices also changed for AWS p4de.24xlarge -33.0%, "
            "and 2 other instances were priced for the first time.") in _text(section)
    assert "Newly priced: AWS p5en.48xlarge, AWS p6-b200.48xlarge, GCP a3-ultragpu-8g." in _text(section)
    callout = _text(html[html.index('class="callout"'):html.index("</p>", html.index('class="callout"'))])
    assert "p4d.24xlarge -33.0%" in callout and "p5.48xlarge -44.0%" in callout and "p4de" not in callout


def test_default_report_says_nothing_changed_since_the_last_snapshot(bundled_run):
    """raw/prices/refreshed_2026.csv confirms every price at newer dates, and the GPU clouds' catalogs of
    prices/skypilot_2026-12-07/ are copies of each cloud's newest copy (2026-12-06's or 2026-12-04's: the same
    commits, raw/SOURCES.md): between the two newest on-demand snapshots of the compared instances (2026-12-06 and
    2026-12-07) no price moved and no offer is priced for the first time. Seeweb's ECS8GPU10, priced until now from a
    row with an empty Region, is no offer at all (no region sells it)."""
    html = (bundled_run.reports / BUNDLED_PRICE_DATE / "report.html").read_text(encoding="utf-8")
    text = _text(_section(html))
    assert "Nothing changed: no price of a compared instance differs between 2026-12-06 and 2026-12-07." in text
    assert "newly priced" not in text and "ECS8GPU10" not in text


def test_many_other_changes_are_counted_not_listed(bundled_2025_run):
    with connect(bundled_2025_run.warehouse, read_only=True) as conn:
        tables = {name: read_table(conn, name) for name in MARTS}
    changes = tables["price_changes"]
    price_date = tables["report_dates"]["price_date"][0]
    extra = pl.DataFrame({
        "provider": ["aws"] * 9, "region": ["eu-west-1"] * 9,
        "instance_type": [f"zz{i}.metal" for i in range(9)],
        "previous_as_of": [date(2022, 2, 8)] * 7 + [None, None],
        "previous_usd_per_hour": [10.0] * 7 + [None, None],
        "current_as_of": [price_date] * 9,
        "current_usd_per_hour": [9.0] * 9,
        "change_pct": [-10.0] * 7 + [None, None],
    }, schema=changes.schema)
    tables["price_changes"] = pl.concat([changes, extra])
    html = render_html(report_context(tables))
    text = _text(_section(html))
    # 7 made-up changes + p4de.24xlarge; 2 made-up instances and 2 atlas instances priced for the first time
    assert ("Outside these comparisons, the prices of 8 other instances changed, and 4 other instances were "
            "priced for the first time.") in text
    assert not re.search(r"zz\d\.metal", html)  # none of them is named anywhere in the report
