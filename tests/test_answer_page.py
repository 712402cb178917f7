"""Issue 35, the answer first, on the bundled report:

- PDF pages 1-2 show, for every comparison and benchmark, the cheapest instance over every pricing
  option with its cost to the cent and the cheapest on-demand instance (pypdf's text of each page);
- the first 1280x900 screen of report.html shows those offers with their costs (Debian's chromium);
- no element of report.html scrolls sideways at 1280 px, and the more-columns toggle widens a table
  rather than making it scroll;
- the figures behind the answer, checked by hand from raw/ for ResNet-50 (A100 against V100);
- the main body ends by page 30, the appendices after it; notes link to their sources and the
  sources back to the tables that cite them;
- the cover names only the pricing options the data prices; empty exports are not published;
- a run measured on the instance itself has the energy the instance's accelerators give.
"""

from __future__ import annotations

import csv
import re
from datetime import date
from html import unescape
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.pricing import option_label
from pipelines.domain import units as fmt
from pipelines.publish import labels
from tests.browser import SIDEWAYS, browser, open_offline
from tests.pipeline_runner import BUNDLED_PRICE_DATE, BUNDLED_RAW

PRICE_DATE = date.fromisoformat(BUNDLED_PRICE_DATE)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def folder(bundled_run) -> Path:
    return bundled_run.reports / "latest"


@pytest.fixture(scope="module")
def offers(folder) -> list[dict]:
    return pl.read_csv(folder / "data" / "cheapest_offers.csv").to_dicts()


@pytest.fixture(scope="module")
def pages(bundled_pdf_texts) -> list[str]:
    return [_flat(text) for text in bundled_pdf_texts]


def _instance(row: dict, offer: str) -> str:
    return labels.instance(row[f"{offer}_provider"], row[f"{offer}_instance_type"])


def _rows_of_page_2(html: str, text: str) -> list[str]:
    """The text of each row of the answer table on PDF page 2, cut at the next row's label ("2.1 ResNet-50")."""
    answer = html[html.index('<table id="tab-1"'):]
    answer = answer[:answer.index("</table>")]
    names = [_flat(unescape(re.sub(r"<[^>]+>", "", n))) for n in re.findall(r'<th scope="row"[^>]*>(.*?)<span class="sub">',
                                                                            answer, re.S)]
    text = re.sub(r"(?<=[._/+-]) ", "", text)  # a long name may break after . _ / + - (pypdf reads a space there)
    starts = [text.index(name) for name in names]
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


def test_pdf_pages_1_and_2_show_every_answer(folder, offers, pages):
    """Every comparison and benchmark of the bundled report (12), on the page after the cover: the
    cheapest instance over every pricing option, its option and cost to the cent, and the cheapest
    instance on demand with its cost."""
    assert len(offers) == 12 and "The answer" in pages[1]
    rows = _rows_of_page_2((folder / "report.html").read_text(encoding="utf-8"), pages[1])
    assert len(rows) == len(offers) + 2  # then a row per described model (raw/report.toml's two worked examples)
    assert all("your model" in row for row in rows[len(offers):])
    for row, text in zip(offers, rows):
        option = option_label(row["cheapest_pricing_option"]).lower()
        cheapest, cost = _instance(row, "cheapest"), fmt.usd(row["cheapest_cost_usd"])
        on_demand, on_demand_cost = _instance(row, "cheapest_on_demand"), fmt.usd(row["cheapest_on_demand_cost_usd"])
        assert re.fullmatch(r"\$[\d,]+\.\d\d", cost)  # to the cent
        # in the row's order: the cheapest, its option and time, its cost; then the cheapest on demand and its cost
        at = 0
        for part in (cheapest, option, cost, on_demand, on_demand_cost):
            found = text.find(part, at)
            assert found >= 0, (row["comparison"], row["benchmark"], part, text)
            at = found + len(part)


def _price_rows(instance: str, model: str, raw: Path = BUNDLED_RAW) -> list[dict]:
    """The rows of `instance` in us-east-1 under `model` dated on or before the price date, from the snapshot files."""
    return [r for f in sorted((raw / "prices").glob("*.csv")) for r in csv.DictReader(f.open(newline="", encoding="utf-8-sig"))
            if r["instance_type"] == instance and r["region"] == "us-east-1"
            and (r.get("pricing_model") or "on_demand") == model and date.fromisoformat(r["as_of"]) <= PRICE_DATE]


def _newest_price(instance: str, model: str, raw: Path = BUNDLED_RAW) -> float:
    """The newest price of `instance` in us-east-1 under `model`, dated on or before the price date,
    read from the snapshot files (the price in force)."""
    return float(max(_price_rows(instance, model, raw), key=lambda r: r["as_of"])["usd_per_hour"])


def _minutes(file: str, system: str, benchmark: str) -> float:
    with open(BUNDLED_RAW / "results" / file, newline="") as handle:
        return next(float(r[benchmark]) for r in csv.DictReader(handle) if r["system"] == system)


def test_resnet_answer_by_hand(pages):
    """ResNet-50, A100 against V100: p4d.24xlarge on a 3-year commitment is the cheapest way to train, p4d.24xlarge
    the cheapest on demand, both against p3.16xlarge on demand. p3.16xlarge on spot would cost less still, but its
    spot price (raw/prices/spot_2026-05-18.csv) is 203 days old at the price date: no current price, never the
    cheapest (report.toml spot_stale_after_days, default 7)."""
    v100 = _minutes("mlperf_training_v0.7_summary.csv", "dgx1_ngc20.06_mxnet", "resnet")
    a100 = _minutes("mlperf_training_v1.0_summary.csv", "dgxa100_ngc21.05_mxnet", "resnet")
    spot_rows = _price_rows("p3.16xlarge", "spot")
    spot_row = max(spot_rows, key=lambda r: r["as_of"])
    age = (PRICE_DATE - date.fromisoformat(spot_row["as_of"])).days  # 2026-05-18 -> 2026-12-07
    assert age == 13 + 30 + 31 + 31 + 30 + 31 + 30 + 7 == 203
    spot = float(spot_row["usd_per_hour"]) * v100 / 60  # 2.7845 $/h x 71.28 min
    # the cheapest 3-year commitment: the 3-year all-upfront standard RI, 8.15906 $/h, under the savings plans'
    commitment = min(float(r["usd_per_hour"]) for model in ("reserved", "savings_plan")
                     for r in _price_rows("p4d.24xlarge", model) if r["term_years"] == "3") * a100 / 60  # x 28.77 min
    on_demand = _newest_price("p4d.24xlarge", "on_demand") * a100 / 60  # 21.957642 $/h x 28.77 min
    baseline = _newest_price("p3.16xlarge", "on_demand") * v100 / 60  # 24.48 $/h x 71.28 min
    assert (round(spot, 2), round(commitment, 2), round(on_demand, 2), round(baseline, 2)) == (3.31, 3.91, 10.53, 29.08)
    assert spot < commitment  # cheaper, but stale
    row = " ".join(re.search(r"2\.1\s+ResNet-50\s(.*?)\s2\.2\s+BERT-\s*Large", pages[1], re.S).group(1).split())
    at = 0  # in the row's order; the price's age and certainty stand between the time and the cost
    for part in (f"baseline ${baseline:.2f}", "AWS p4d.24xlarge", "3-year commitment · 28.8 min ·", f"${commitment:.2f}",
                 "AWS p4d.24xlarge", "28.8 min", f"${on_demand:.2f}"):
        found = row.find(part, at)
        assert found >= 0, (part, row)
        at = found + len(part)
    assert f"+{100 * (1 - commitment / baseline):.1f}% on demand +{100 * (1 - on_demand / baseline):.1f}%" in row
    assert "p3.16xlarge" not in row and f"${spot:.2f}" not in row


def test_no_spot_price_older_than_spot_stale_after_days_is_the_answers_cheapest(folder, offers):
    """On the bundled data: the answer's cheapest (and fastest) offers, the chapters' spot prices of 2026 that the
    answer leaves out, and the described models' picks."""
    from pipelines.domain.report_settings import ReportSettings
    from pipelines.ingest.report_config import parse_report_config

    days = parse_report_config(BUNDLED_RAW / "report.toml").spot_stale_after_days
    assert days == ReportSettings().spot_stale_after_days == 7  # the bundled report.toml sets none: the default
    for row in offers:
        for offer in ("cheapest", "cheapest_on_demand", "fastest"):
            stale_spot = row[f"{offer}_offer_kind"] == "spot" and (row[f"{offer}_price_age_days"] or 0) > days
            assert not stale_spot, (row["comparison"], row["benchmark"], offer)
    # the rule bites: AWS's 2026-05-18 spot prices (203 days) and GCP's 2026-07-30 ones (130 days) are in the
    # chapters' rows, marked stale, and each is cheaper than its benchmark's cheapest somewhere
    cost = pl.read_csv(folder / "data" / "cost_to_train.csv", try_parse_dates=True)
    spots = cost.filter((pl.col("pricing_option") == "spot") & pl.col("cost_to_train_usd").is_not_null())
    aged = spots.filter(pl.col("price_as_of") <= date(2026, 11, 29))  # more than 7 days before 2026-12-07
    assert aged.height and aged["stale"].all() and set(aged["price_age_days"].to_list()) >= {203, 130}
    cheapest = {(r["comparison"], r["benchmark"]): r["cheapest_cost_usd"] for r in offers}
    undercut = [r for r in aged.to_dicts() if r["cost_to_train_usd"] < cheapest[(r["comparison"], r["benchmark"])]]
    assert {r["instance_type"] for r in undercut} >= {"p3.16xlarge", "p6-b200.48xlarge"}
    fresh = spots.filter(pl.col("price_as_of") > date(2026, 11, 29))
    assert not fresh["stale"].any()  # the catalogs' spot prices of 2026-12-07 are 0 days old
    estimates = pl.read_csv(folder / "data" / "model_estimates.csv")
    assert {"price_age_days", "stale"} <= set(estimates.columns)
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert "spot, 203 days old: not a current price" in html  # the tables label it


def test_the_first_screen_shows_every_offer_and_its_cost(folder, offers):
    """At 1280x900, before any scrolling: each row's cheapest offer (instance and cost) and cheapest
    on-demand offer are drawn inside the window."""
    with browser() as chromium:
        page, watch = open_offline(chromium, folder / "report.html")
        cells = page.evaluate("""() => [...document.querySelectorAll('#tab-1 tbody tr:not(.group)')].map(tr =>
            [...tr.cells].map(c => ({text: c.innerText.replace(/\\s+/g, ' ').trim(), bottom: c.getBoundingClientRect().bottom,
                                     visible: c.checkVisibility()})))""")
        height = page.evaluate("window.innerHeight")
    assert not watch.errors and not watch.blocked
    assert height == 900 and len(cells) == len(offers) + 2  # the described models' rows come last
    cells = cells[:len(offers)]
    for row, tr in zip(offers, cells):
        shown = [c for c in tr if c["visible"] and c["bottom"] <= height]
        texts = " | ".join(c["text"] for c in shown)
        for want in (_instance(row, "cheapest"), fmt.usd(row["cheapest_cost_usd"]),
                     _instance(row, "cheapest_on_demand"), fmt.usd(row["cheapest_on_demand_cost_usd"])):
            assert want in texts, (row["comparison"], row["benchmark"], want, texts)


def test_nothing_scrolls_sideways_at_1280_px_and_more_columns_widen_the_table(folder):
    with browser() as chromium:
        page, _ = open_offline(chromium, folder / "report.html")
        assert page.evaluate(SIDEWAYS) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        toggles = page.locator("button.detail-toggle")
        assert toggles.count() == 12  # each benchmark's cost table: price to beat, energy, emissions
        first = toggles.first
        assert first.get_attribute("aria-expanded") == "false" and "Energy per run" in first.inner_text()
        hidden = page.evaluate("[...document.querySelectorAll('#tab-2 thead th')].filter(th => th.checkVisibility()).length")
        first.click()
        assert first.get_attribute("aria-expanded") == "true"
        shown = page.evaluate("[...document.querySelectorAll('#tab-2 thead th')].filter(th => th.checkVisibility()).length")
        assert shown == hidden + 5  # the group "Price to beat" and its two columns, energy, emissions
        assert page.evaluate(SIDEWAYS) == []  # the whole window's width, not a scrollbar


def test_the_main_body_ends_by_page_30_with_the_appendices_after_it(pages):
    contents = pages[2]
    assert contents.startswith("Contents") or " Contents " in f" {contents} "
    starts = {letter: int(page) for letter, page in re.findall(r"\b([A-C]) [A-Z][^.]*?\.{3,} ?(\d+)", contents)}
    assert sorted(starts) == ["A", "B", "C"], contents
    # 30 pages before "Your model's cost" (issue 45), which adds its worked examples' 7
    assert starts["A"] - 1 <= 40, f"the main body has {starts['A'] - 1} pages"
    assert "A Every way of paying" in contents and "B Methodology" in contents and "C Sources" in contents


def test_notes_link_to_their_sources_and_the_sources_back_to_their_tables(folder):
    html = (folder / "report.html").read_text(encoding="utf-8")
    appendix = html[html.index('<section id="sources"'):]
    rows = dict(re.findall(r'<tr id="(src-\d+)">(.*?)</tr>', appendix, re.S))
    assert len(rows) >= 30
    linked = set(re.findall(r'<a class="src" href="#(src-\d+)"', html))
    assert linked == set(rows)  # every source is cited, every citation has its source
    for anchor, row in rows.items():
        tables = re.findall(r'<a class="backref" href="#(tab-\d+)">Table \d+</a>', row)
        assert tables, f"{anchor} names no table"
        for table in tables:  # the cited table's notes link here
            body = html[html.index(f'<table id="{table}"'):]
            body = body[:body.index("</table>")]
            cited = set(re.findall(r'<a class="src" href="#(src-\d+)"', body))
            notes = set(re.findall(r'href="#(fn-\d+)-text"', body))
            texts = "".join(re.findall(r'<span class="fn" id="(?:' + "|".join(n for n in notes) + r')">(.*?)</span>', html,
                                       re.S)) if notes else ""
            assert anchor in cited or f'href="#{anchor}"' in texts, (anchor, table)
    # the provenance left the table pages: no commit SHA or file line in a note
    notes = " ".join(unescape(t) for t in re.findall(r'<span class="fn" id="fn-\d+">(.*?)</span>', html, re.S))
    assert not re.search(r"\b[0-9a-f]{40}\b", notes) and " line " not in notes
    assert re.search(r"\b[0-9a-f]{40}\b", appendix)  # they are here


def test_empty_exports_are_not_published_nor_linked(folder):
    """The bundled data has no MLPerf result trees: no header-only mlperf_scores.csv or mlperf_runs.csv."""
    data = folder / "data"
    assert (data / "cheapest_offers.csv").is_file() and (data / "cost_to_train.csv").is_file()
    for name in ("mlperf_scores", "mlperf_runs"):
        assert not (data / f"{name}.csv").exists() and not (data / f"{name}.parquet").exists()
    index = (folder.parent / "index.html").read_text(encoding="utf-8")
    assert "mlperf_scores.csv" not in index and 'href="latest/data/cheapest_offers.csv"' in index
    assert re.search(r"Not published, having no rows in the newest report: <code>mlperf_scores</code>", index)
    for path in data.glob("*.csv"):  # every published file holds data
        assert len(path.read_text(encoding="utf-8").splitlines()) >= 2, path.name


def test_the_cover_names_only_the_options_the_data_prices():
    from pipelines.domain.report_settings import ReportSettings
    from pipelines.publish.context import report_pricing

    settings = ReportSettings(pricing_models=("on_demand", "spot", "commitment_1y", "commitment_3y"))
    rows = pl.DataFrame({"pricing_option": ["on_demand", "on_demand", "spot"], "usd_per_hour": [10.0, 12.0, None]})
    assert report_pricing(settings, rows).options == "On demand"  # asked for spot and commitments, none priced
    rows = rows.with_columns(pl.Series("usd_per_hour", [10.0, 12.0, 3.0]))
    assert report_pricing(settings, rows).options == "On demand, Spot"


def test_the_bundled_cover_lists_the_options_priced(pages):
    assert "Pricing On demand, Spot, 1-year commitment, 3-year commitment;" in pages[0]


def test_a_run_measured_on_the_instance_itself_has_its_accelerators_energy(folder):
    """The worked workload on p4d.24xlarge: 115,305,030 samples / 18,740 samples per second (raw/
    throughput/example_workload.csv, raw/report.toml) on 8 A100-SXM-40GB of 400 W (raw/instances.csv,
    raw/accelerators.csv): 8 x 400 W x 102.55 min / 60 / 1000 = 5.47 kWh, shown where the table said
    "No energy: accelerator model unknown"."""
    minutes = 115_305_030 / 18_740 / 60
    kwh = 8 * 400 * minutes / 60 / 1000
    assert f"{kwh:.2f}" == "5.47"
    costs = pl.read_csv(folder / "data" / "cost_to_train.csv").filter(
        (pl.col("comparison") == "your-workload") & (pl.col("instance_type") == "p4d.24xlarge")
        & (pl.col("pricing_option") == "on_demand")).row(0, named=True)
    assert costs["energy_kwh"] == pytest.approx(kwh, rel=1e-9) and costs["energy_basis"] == "estimate (board power)"
    html = (folder / "report.html").read_text(encoding="utf-8")
    section = html[html.index('<section id="your-workload-resnet_inhouse"'):]
    table = section[:section.index("</table>")]
    assert "accelerator model unknown" not in table
    assert re.search(r"5\.47 kWh<span class=\"fncall\"", table)
