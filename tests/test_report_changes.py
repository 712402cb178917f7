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
    """raw/prices/refreshed_2026.csv confirms every price at newer dates, and the GPU clouds' catalogs
    copied on 2026-12-06 price offers for the first time: between the two newest on-demand snapshots of the
    compared instances (the catalogs' of 2026-12-04 and of 2026-12-06) no price moved (Lambda's 8x H100 and 8x
    B200 are newly priced in the regions the full copy adds, at the same price)."""
    html = (bundled_run.reports / BUNDLED_PRICE_DATE / "report.html").read_text(encoding="utf-8")
    text = _text(_section(html))
    assert "Nothing changed: no price of a compared instance differs between 2026-12-04 and 2026-12-06; newly priced:" in text
    # the whole market's 8-GPU offers of the catalogs copied on 2026-12-06
    for offer in ("Lambda gpu_8x_h100_sxm5", "Lambda gpu_8x_b200_sxm6", "Cudo sapphire-rapids-h100_8x96v192gb",
                  "Lium H100-SXM_8x", "RunPod 8x_H100-SXM_SECURE", "RunPod 8x_H200-SXM_SECURE", "RunPod 8x_B200_SECURE",
                  "Vast.ai 8x-H100_SXM-32-65536", "Shadeform lambdalabs_H100-sxm5x8",
                  "Prime Intellect datacrunch__8xH200_141GB__176__1450",
                  # a bare "H200" of 141 GB is the SXM part (accelerator_aliases.csv)
                  "Seeweb ECS8GPU10", "JarvisLabs 8x_H200_224V_2400G", "Daytona 8x-H200", "Vast.ai 8x-H200-32-65536",
                  "Shadeform excesssupply_H200x8"):
        assert offer in text, offer
    newly = text[text.index("newly priced:"):text.index(". Where the market")]
    assert newly.count(", ") == 23  # 24 offers


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
