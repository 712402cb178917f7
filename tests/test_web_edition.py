"""The web edition in Debian's chromium, offline: sorting and filtering the tables give the rows the
CSV export says they should, with the mouse and with the keyboard; the atlas's table of every priced
pair handles 10,000+ rows; nothing is requested outside the page's own file (every other request is
blocked and recorded), the console stays free of errors, axe-core finds no serious or critical
violation in light or dark mode at a desktop's and a phone's width, and screenshots of the first
screen (light, dark, phone) land in the test's tmp folder (not of the whole page: 5 s each for the
long report, and no test reads them).
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from datetime import date
from html import unescape
from pathlib import Path

import polars as pl
import pytest

from pipelines.config import REPO_ROOT
from pipelines.domain import units as fmt
from pipelines.publish import labels
from tests.browser import SIDEWAYS, browser, open_offline

pytestmark = pytest.mark.slow

# axe-core from the pinned axe-playwright-python package (its bundled axe.min.js), never downloaded
AXE = Path(__import__("axe_playwright_python").__file__).with_name("axe.min.js")
SERIOUS = """async ([context, options]) => (await axe.run(context || document, {resultTypes: ['violations'], ...options})).violations
    .filter(v => ['serious', 'critical'].includes(v.impact))
    .map(v => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`)"""
VISIBLE_HEADERS = "t => [...document.querySelectorAll(`#${t} tbody tr`)].map(r => r.querySelector('th').innerText.split('\\n')[0])"


def container(page, table_id: str):
    return page.locator(f"#{table_id}").locator("xpath=ancestor::div[contains(@class, 'dt-container')]")


def visible_rows(page, table_id: str) -> list[str]:
    return page.evaluate(VISIBLE_HEADERS, table_id)


def redrawn(page, table_id: str, action) -> None:
    """Do `action`, then wait until the table has redrawn (DataTables sorts and searches asynchronously;
    templates/tables.js counts finished draws in data-draws)."""
    before = page.locator(f"#{table_id}").get_attribute("data-draws")
    action()
    page.wait_for_function("([t, n]) => document.getElementById(t).dataset.draws !== n", arg=[table_id, before])


def sort_by(page, table_id: str, column: str) -> None:
    """Activate the sort control of `column`'s header, as a mouse user does."""
    redrawn(page, table_id, page.locator(f"#{table_id} thead th", has_text=column).locator(".dt-column-order").click)


# One element with text per look that axe's colour-contrast verdict on it depends on (its colour or fill, size,
# weight and shadow, its opacity with its ancestors', the backgrounds behind it up to the first opaque one), each
# marked data-contrast-sample. The long report has 16,867 elements with text and under 100 looks; axe takes 2-3 ms
# per element (20-40 s a run on all of them, 3-4 s on the samples). What may lie over other text (a box taken out
# of the flow, and the text under it) is checked element by element.
CONTRAST_SAMPLES = r"""() => {
  const clear = c => c === 'transparent' || /^rgba\(.*,\s*0\)$/.test(c);
  // an SVG's text is placed by transforms inside its own drawing: not over the page's other text
  const moved = (e, s) => ['absolute', 'fixed', 'sticky'].includes(s.position)
    || (s.transform !== 'none' && !e.closest('svg'))
    || (s.position === 'relative' && ['top', 'right', 'bottom', 'left'].some(side => !['auto', '0px'].includes(s[side])));
  const look = e => {
    const own = getComputedStyle(e);
    const parts = [own.color, own.fill, own.fontSize, own.fontWeight, own.textShadow];
    let opacity = 1, behind = true;
    for (let a = e; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (moved(a, s)) return null;
      opacity *= parseFloat(s.opacity);
      if (behind && (!clear(s.backgroundColor) || s.backgroundImage !== 'none')) {
        parts.push(s.backgroundColor, s.backgroundImage);
      }
      if (s.backgroundColor.startsWith('rgb(')) behind = false;  // opaque (any other notation: read on, to be safe)
    }
    return parts.concat(opacity).join('|');
  };
  const all = [...document.body.querySelectorAll('*')];
  const texts = all.filter(e => [...e.childNodes].some(t => t.nodeType === 3 && t.textContent.trim()));
  // boxes that may cover others (moved out of the flow): every text they overlap is checked as it is
  const covers = all.filter(e => moved(e, getComputedStyle(e)))
    .map(e => e.getBoundingClientRect()).filter(r => r.width && r.height);
  const under = r => covers.some(c => r.left < c.right && c.left < r.right && r.top < c.bottom && c.top < r.bottom);
  const seen = new Set();
  let chosen = 0;
  for (const e of texts) {
    const key = look(e);
    if (key !== null && !under(e.getBoundingClientRect())) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    e.setAttribute('data-contrast-sample', '');
    chosen++;
  }
  return [texts.length, seen.size, chosen];
}"""


def accessibility_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as shown (its width and scheme): every rule on the
    whole page, colour contrast on one element per look (CONTRAST_SAMPLES, test_contrast_samples_cover_every_look)."""
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    page.evaluate(CONTRAST_SAMPLES)
    return (page.evaluate(SERIOUS, [None, {"rules": {"color-contrast": {"enabled": False}}}])
            + page.evaluate(SERIOUS, [{"include": [["[data-contrast-sample]"]]}, {"runOnly": ["color-contrast"]}]))


CONTRAST_PAGE = """<!doctype html><html lang="en"><head><title>looks</title><style>
  td { color: #333 } .faint { color: #bbb } .box { position: absolute; top: 0; left: 0; width: 300px; height: 20px }
</style></head><body><main><p class="box">over</p><p>under the box</p><table><tbody>
  {rows}<tr><td>last</td><td class="faint">faint</td></tr></tbody></table></main></body></html>"""


def test_contrast_samples_cover_every_look(tmp_path):
    """One element per look, and all of what a box out of the flow may cover: a faint cell at the end of 200
    rows alike is sampled, and axe finds it."""
    page_file = tmp_path / "looks.html"
    page_file.write_text(CONTRAST_PAGE.replace("{rows}", "<tr><td>a</td><td>b</td></tr>" * 200), encoding="utf-8")
    with browser() as chromium:
        page, _ = open_offline(chromium, page_file, tables=False)
        texts, looks, chosen = page.evaluate(CONTRAST_SAMPLES)
        assert (texts, looks, chosen) == (404, 2, 4)  # td, td.faint; the box and the paragraph under it
        sampled = page.evaluate("[...document.querySelectorAll('[data-contrast-sample]')].map(e => e.textContent)")
        assert sampled == ["over", "under the box", "a", "faint"]
        found = accessibility_violations(page)
        assert len(found) == 1 and found[0].startswith("color-contrast (serious)") and "faint" in found[0]


@pytest.fixture(scope="module")
def report(bundled_run) -> Path:
    return bundled_run.reports / "latest" / "report.html"


def cost_sections(report: Path) -> list[tuple[str, str, str]]:
    """(comparison, benchmark, table id) of every cost table, read from the page's sections."""
    html = report.read_text(encoding="utf-8")
    csv = pl.read_csv(report.parent / "data" / "cost_to_train.csv").filter(pl.col("pricing_option") == "on_demand")  # the chapters' tables: the baseline's pricing
    found = []
    for comparison, benchmark in csv.select("comparison", "benchmark").unique(maintain_order=True).iter_rows():
        section = html.split(f'<section id="{comparison}-{benchmark}"', 1)[1]
        found.append((comparison, benchmark, re.search(r'<table id="(tab-\d+)"', section).group(1)))
    return found


def test_report_tables_sort_and_filter_as_the_csv_says(report):
    csv = pl.read_csv(report.parent / "data" / "cost_to_train.csv").filter(pl.col("pricing_option") == "on_demand")
    sections = cost_sections(report)
    # A100 vs V100: 3 benchmarks; Gaudi: 2; the current generation: 6; the worked example of a workload: 1
    assert len(sections) == 12
    with browser() as chromium:
        page, watch = open_offline(chromium, report)
        for comparison, benchmark, table in sections:
            rows = csv.filter((pl.col("comparison") == comparison) & (pl.col("benchmark") == benchmark))
            cost = {labels.instance(r["provider"], r["instance_type"]): r["cost_to_train_usd"] for r in rows.iter_rows(named=True)}
            assert sorted(visible_rows(page, table)) == sorted(cost)
            for descending in (False, True):  # one activation sorts up, the next down
                sort_by(page, table, "Cost to train")
                shown = [cost[name] for name in visible_rows(page, table)]
                known = [c for c in shown if c is not None]
                assert known == sorted(known, reverse=descending), (table, shown)
                assert shown[len(known):] == [None] * (len(shown) - len(known)), "no result sorts last both ways"
            filters = container(page, table).locator("select[data-facet='Provider']")
            if filters.count():
                redrawn(page, table, lambda: filters.select_option("AWS"))
                expected = sorted(labels.instance(r["provider"], r["instance_type"])
                                  for r in rows.filter(pl.col("provider") == "aws").iter_rows(named=True))
                assert sorted(visible_rows(page, table)) == expected
                redrawn(page, table, lambda: filters.select_option(""))
        assert not watch.errors and not watch.blocked


def test_report_tables_work_from_the_keyboard(report):
    comparison, benchmark, table = cost_sections(report)[0]
    rows = pl.read_csv(report.parent / "data" / "cost_to_train.csv").filter(pl.col("pricing_option") == "on_demand").filter(
        (pl.col("comparison") == comparison) & (pl.col("benchmark") == benchmark))
    speed = {labels.instance(r["provider"], r["instance_type"]): r["time_to_train_minutes"] for r in rows.iter_rows(named=True)}
    with browser() as chromium:
        page, watch = open_offline(chromium, report)
        # a header's sort control takes the focus (tabindex 0) and Enter sorts
        page.locator(f"#{table} thead th", has_text="Time to train").locator(".dt-column-order").focus()
        redrawn(page, table, lambda: page.keyboard.press("Enter"))
        shown = [speed[n] for n in visible_rows(page, table)]
        assert [m for m in shown if m is not None] == sorted(m for m in shown if m is not None)
        assert page.locator(f"#{table} thead th", has_text="Time to train").get_attribute("aria-sort") == "ascending"
        # a filter is a labelled <select>: arrow keys choose a provider
        select = container(page, table).locator("select[data-facet='Provider']")
        select.focus()
        redrawn(page, table, lambda: page.keyboard.press("ArrowDown"))
        chosen = select.input_value()
        assert chosen and all(name.startswith(chosen + " ") for name in visible_rows(page, table))
        # the free-text search box is typed into
        search = container(page, table).locator("input[type=search]")
        search.focus()
        redrawn(page, table, lambda: page.keyboard.type("p4d"))
        assert all("p4d" in name for name in visible_rows(page, table))
        assert not watch.errors and not watch.blocked


# One test per width and scheme: axe takes most of each one's time, and apart they run on every core
@pytest.mark.parametrize("width, scheme", [(1280, "light"), (1280, "dark"), (375, "light"), (375, "dark")])
def test_report_offline_accessible_and_screenshots(report, tmp_path, width, scheme):
    with browser() as chromium:
        page, watch = open_offline(chromium, report, width=width, scheme=scheme)
        where = f"{width} px, {scheme}"
        assert watch.blocked == [], f"{where}: the page asked for {watch.blocked}"
        assert watch.errors == [], f"{where}: console errors {watch.errors}"
        assert page.locator("table[data-table]").count() == page.locator(".dt-container").count() >= 8
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{where}: {overflow} px of horizontal overflow"
        page.screenshot(path=str(tmp_path / f"report-{width}-{scheme}.png"))
        assert (tmp_path / f"report-{width}-{scheme}.png").stat().st_size > 0
        assert accessibility_violations(page) == [], where


def test_report_script_free_print_is_unchanged(report):
    """The PDF's source: WeasyPrint gets the page without its scripts, and the print style sheet
    hides the table component's controls."""
    from pipelines.publish.render import for_print

    printed = for_print(report.read_text(encoding="utf-8"))
    assert "<script" not in printed and "<table id=\"tab-1\"" in printed
    with browser() as chromium:
        page, _ = open_offline(chromium, report)
        page.emulate_media(media="print")
        for control in (".table-filters", ".dt-search", ".dt-info"):  # not rendered at all in print
            assert page.evaluate(f"document.querySelector('{control}').getClientRects().length") == 0, control
        assert page.evaluate("document.querySelectorAll('#tab-2 tbody tr').length") >= 5


@pytest.fixture(scope="module")
def atlas(sample_atlas_folder) -> Path:
    return sample_atlas_folder / "atlas.html"


def info_total(page, table_id: str) -> int:
    text = container(page, table_id).locator(".dt-info").inner_text()
    return int(re.search(r"of ([\d,]+) rows", text).group(1).replace(",", ""))


def test_atlas_every_pair_sorts_and_filters_as_the_csv_says(atlas):
    csv = pl.read_csv(atlas.parent / "data" / "atlas.csv").filter(pl.col("pricing_option") == "on_demand")
    with browser() as chromium:
        page, watch = open_offline(chromium, atlas)
        assert info_total(page, "every-pair") == csv.height
        sort_by(page, "every-pair", "Cost to train")
        sort_by(page, "every-pair", "Cost to train")  # descending
        shown = page.evaluate("""() => [...document.querySelectorAll('#every-pair tbody tr')]
            .map(r => [...r.cells].map(c => c.innerText))""")
        header = page.evaluate("[...document.querySelectorAll('#every-pair thead th')].map(h => h.innerText.trim())")
        cost, system = header.index("Cost to train"), header.index("System")
        expected = csv.sort("cost_to_train_usd", descending=True).head(len(shown))
        assert [r[cost] for r in shown] == [fmt.usd(v) for v in expected["cost_to_train_usd"]]
        assert {r[system] for r in shown} <= set(csv["system"])
        for facet, column, value, text in (("Provider", "provider", "gcp", "GCP"), ("Round", "round", "v1.0", "v1.0")):
            select = container(page, "every-pair").locator(f"select[data-facet='{facet}']")
            redrawn(page, "every-pair", lambda: select.select_option(text))
            csv = csv.filter(pl.col(column) == value)
            assert info_total(page, "every-pair") == csv.height > 0, facet
        assert not watch.errors and not watch.blocked


def test_atlas_offline_accessible_and_screenshots(atlas, tmp_path):
    with browser() as chromium:
        for width, scheme in ((1280, "light"), (1280, "dark"), (375, "light")):
            page, watch = open_offline(chromium, atlas, width=width, scheme=scheme)
            where = f"{width} px, {scheme}"
            assert watch.blocked == [] and watch.errors == [], (where, watch)
            assert page.locator(".dt-container").count() == page.locator("table[data-table]").count() >= 5
            if width == 1280:  # the round tables and the every-pair table sat behind a scrollbar (issue 35)
                assert page.evaluate(SIDEWAYS) == [], where
            page.screenshot(path=str(tmp_path / f"atlas-{width}-{scheme}.png"))
            assert accessibility_violations(page) == [], where
            page.close()


def test_atlas_every_pair_with_twelve_thousand_rows(atlas, sample_atlas_folder, tmp_path):
    """The whole corpus has 10,000+ pairs: the table draws a page of them, and its filters count them all."""
    from pipelines.defs.atlas.marts import ATLAS_TABLES
    from pipelines.metrics.atlas import instance_prices
    from pipelines.publish.atlas_context import build_context, pairs_table
    from pipelines.publish.render import render_html
    from pipelines.warehouse import connect, read_table

    with connect(sample_atlas_folder.parents[2] / "warehouse" / "pipeline.duckdb", read_only=True) as conn:
        tables = {name: read_table(conn, name) for name in ATLAS_TABLES}
    tables["atlas_instance_prices"] = instance_prices(tables["atlas_instances"], tables["atlas_prices"], date(2025, 6, 1))
    costs = tables["atlas_costs"]
    copies = -(-12_000 // costs.height)
    big = pl.concat([costs.with_columns(pl.col("cost_to_train_usd") * (1 + i / 1000), pl.col("system") + f"-{i}")
                     for i in range(copies)])
    doc = build_context(tables, price_date=date(2025, 6, 1), generated_on="2025-12-01", mlperf_dir="sample")
    page_file = tmp_path / "atlas.html"
    page_file.write_text(render_html(dataclasses.replace(doc, pairs=pairs_table(big)), "atlas.html.j2"), encoding="utf-8")
    with browser() as chromium:
        page, watch = open_offline(chromium, page_file)
        assert info_total(page, "every-pair") == big.height >= 12_000
        assert page.locator("#every-pair tbody tr").count() == 25, "one page of rows is drawn"
        select = container(page, "every-pair").locator("select[data-facet='Provider']")
        redrawn(page, "every-pair", lambda: select.select_option("AWS"))
        assert info_total(page, "every-pair") == big.filter(pl.col("provider") == "aws").height
        search = container(page, "every-pair").locator("input[type=search]")
        redrawn(page, "every-pair", lambda: search.fill("-17"))
        assert info_total(page, "every-pair") == big.filter(
            (pl.col("provider") == "aws") & pl.col("system").str.contains("-17", literal=True)).height
        assert not watch.errors and not watch.blocked


def test_index_leads_to_everything_published(bundled_run, sample_atlas_folder, tmp_path):
    """The landing page of a reports folder holding a report and an atlas: links that resolve, the
    data files with every column explained; offline, accessible, in light and dark."""
    import shutil

    from pipelines.domain.columns import describe
    from pipelines.publish.index_page import write_index

    reports = tmp_path / "reports"
    shutil.copytree(bundled_run.reports, reports, symlinks=True, ignore=shutil.ignore_patterns("atlas"))
    shutil.copytree(sample_atlas_folder.parent, reports / "atlas", symlinks=True)
    index = write_index(reports, "Cost to train")
    html = index.read_text(encoding="utf-8")
    links = re.findall(r'href="([^"#]+)"', html)
    assert "latest/report.html" in links and "atlas/latest/atlas.html" in links
    assert "latest/data/cost_to_train.csv" in links and "atlas/latest/data/atlas.csv" in links
    rounds = [re.fullmatch(r"atlas/[0-9-]+/atlas-(v[0-9.]+)\.pdf", link) for link in links]
    assert [m.group(1) for m in rounds if m] == ["v0.7", "v1.0", "v1.1"]  # each round's PDF, in round order
    assert all((reports / link).exists() for link in links), [link for link in links if not (reports / link).exists()]
    header = (reports / "latest" / "data" / "cost_to_train.csv").read_text().splitlines()[0].split(",")
    for column in header:
        assert f"<code>{column}</code></th><td>{describe('cost_to_train', column).meaning}" in unescape(html)  # < and quotes too
    with browser() as chromium:
        for width, scheme in ((1280, "light"), (1280, "dark"), (375, "light")):
            page, watch = open_offline(chromium, index, width=width, scheme=scheme, tables=False)
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            assert watch.blocked == [] and watch.errors == []
            page.screenshot(path=str(tmp_path / f"index-{width}-{scheme}.png"))
            assert accessibility_violations(page) == [], (width, scheme)
            page.close()


def test_the_runtime_is_read_from_itables_without_importing_it_or_pandas():
    # importing itables imports pandas: 40 MiB the atlas's publishing process would keep for nothing
    code = ("import sys; from pipelines.publish import web_assets; "
            "assert 'DataTables' in web_assets.runtime_code() and web_assets.stylesheet(); "
            "print(sorted(m for m in ('itables', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    assert out.stdout.strip() == "[]"


def test_print_only_pages_go_without_the_runtime_and_print_the_same(sample_atlas_folder):
    """The atlas's digest pages are only ever printed: they carry neither the web runtime (0.7 MB) nor its
    screen styles, and WeasyPrint makes the same PDF of them as of the page with both."""
    from pipelines.defs.atlas.marts import ATLAS_TABLES
    from pipelines.metrics.atlas import instance_prices
    from pipelines.publish.atlas_context import build_context, instances_document
    from pipelines.publish.atlas_rounds import DIGEST
    from pipelines.publish.pdf import render_pdf
    from pipelines.publish.render import render_html
    from pipelines.warehouse import connect, read_table

    with connect(sample_atlas_folder.parents[2] / "warehouse" / "pipeline.duckdb", read_only=True) as conn:
        tables = {name: read_table(conn, name) for name in ATLAS_TABLES}
    tables["atlas_instance_prices"] = instance_prices(tables["atlas_instances"], tables["atlas_prices"], date(2025, 6, 1))
    doc = instances_document(build_context(tables, price_date=date(2025, 6, 1), generated_on="2025-12-01",
                                           mlperf_dir="sample", detail=DIGEST))
    web = render_html(doc, "atlas_instances.html.j2")
    printed = render_html(doc, "atlas_instances.html.j2", web=False)
    assert "<script" in web and 'media="screen"' in web
    assert "<script" not in printed and 'media="screen"' not in printed and len(printed) < len(web) - 500_000
    assert render_pdf(printed, date(2025, 12, 1)) == render_pdf(web, date(2025, 12, 1))
