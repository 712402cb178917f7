"""Benchmark: the web edition's time to interactive in Debian's chromium, for the atlas's table of
every priced pair at the size of the whole MLPerf corpus and beyond.

A page holds the table (its rows as JSON, as the atlas has it: pipelines/publish/atlas_context.py
pairs_table on a synthetic atlas_costs of N rows) and the web runtime, opened from file:// with
every other request blocked. Time to interactive is what templates/tables.js records once every
table is enhanced (performance.now() at that moment: from the start of navigation, parsing and the
DataTables bundle included); memory is the page's JS heap in use then. Rows: 20,000 and 50,000
pairs (quick: 5,000) against 1,000 pairs; the whole corpus has about 10,000.

Run: .venv/bin/python -m bench.web_bench [--quick]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import polars as pl

from bench.harness import Sample, Skipped, row

CHROMIUM = Path("/usr/bin/chromium")
REFERENCE = 1_000
PAGE = """{% import "macros.html.j2" as m %}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>every pair</title>
<style>{{ css | safe }}</style><style media="screen">{{ web_css | safe }}</style></head>
<body>{{ m.data_table(t) }}{{ m.runtime(web_runtime) }}</body></html>
"""


def synthetic_costs(n: int) -> pl.DataFrame:
    """n result × instance pairs shaped like atlas_costs, values spread as the corpus spreads them."""
    i = pl.int_range(0, n, eager=True)
    return pl.DataFrame({
        "round": ("v" + (i % 11 // 2 + 1).cast(pl.Utf8) + "." + (i % 2).cast(pl.Utf8)),
        "benchmark_model": pl.Series(["resnet", "bert", "dlrm_dcnv2", "gpt3", "llama2_70b_lora", "ssd"])[i % 6],
        "division": pl.Series(["closed", "open"])[(i // 7) % 2],
        "submitter": "Submitter " + (i % 40).cast(pl.Utf8), "folder": "Submitter " + (i % 40).cast(pl.Utf8),
        "system": "system_" + (i // 3).cast(pl.Utf8),
        "accelerators_total": (8 * (1 + i % 64)), "accelerator_model": pl.Series(["A100-SXM-80GB", "H100-SXM5-80GB",
                                                                               "TPU v5p", "Gaudi2"])[i % 4],
        "time_to_train_minutes": 1.5 + (i % 997) * 0.37, "provider": pl.Series(["aws", "gcp", "azure"])[i % 3],
        "instance_type": "instance-" + (i % 9).cast(pl.Utf8), "region": "region-1",
        "instances_needed": 1 + i % 64, "usd_per_hour": 20.0 + (i % 13) * 3.1,
        "cost_to_train_usd": 5.0 + (i * 7919 % 100_003) * 0.91, "accelerator_hours": 1.0 + (i % 500) * 2.5,
        "usd_per_accelerator_hour": 2.0 + (i % 17) * 0.4, "cost_rank": 1 + i % 50,
        "on_pareto_front": i % 11 == 0, "fastest": i % 53 == 0, "cheapest_for_accelerator": i % 29 == 0,
        "price_basis": pl.Series(["same cloud", "estimate: on-premise result"])[i % 2],
    })


def page_file(n: int, folder: Path) -> Path:
    from pipelines.config import TEMPLATES_DIR
    from pipelines.publish import web_assets
    from pipelines.publish.atlas_context import pairs_table
    from pipelines.publish.render import STYLESHEET, environment

    html = environment().from_string(PAGE).render(
        t=pairs_table(synthetic_costs(n)), css=(TEMPLATES_DIR / STYLESHEET).read_text(encoding="utf-8"),
        web_css=web_assets.stylesheet(), web_runtime=web_assets.runtime_json())
    path = folder / f"pairs-{n}.html"
    path.write_text(html, encoding="utf-8")
    return path


def time_to_interactive(browser, path: Path) -> Sample:
    url = path.resolve().as_uri()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.route("**/*", lambda r: r.continue_() if r.request.url == url else r.abort())
    page.goto(url, wait_until="load")
    page.wait_for_function("document.documentElement.dataset.tables === 'ready'", timeout=120_000)
    ready_ms = float(page.evaluate("document.documentElement.dataset.tablesReadyMs"))
    heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0") / 2 ** 20
    page.close()
    return Sample(seconds=ready_ms / 1000, peak_mib=heap)


def measure(repeats: int = 3, quick: bool = False) -> list[dict]:
    if not CHROMIUM.exists():
        raise Skipped("/usr/bin/chromium is not installed")
    from playwright.sync_api import sync_playwright

    sizes = (5_000,) if quick else (20_000, 50_000)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--disable-gpu", "--enable-precise-memory-info", "--disable-background-networking"])
        try:
            reference = page_file(REFERENCE, Path(tmp))
            for n in sizes:
                subject = page_file(n, Path(tmp))
                ours, theirs = [], []
                for _ in range(repeats):  # alternately, so load falls on both alike
                    ours.append(time_to_interactive(browser, subject))
                    theirs.append(time_to_interactive(browser, reference))
                rows.append(row(f"web: atlas every-pair table, {n:,} rows, time to interactive (chromium)", ours,
                                f"{REFERENCE:,} rows", theirs, page_mib=round(subject.stat().st_size / 2 ** 20, 1),
                                ref_page_mib=round(reference.stat().st_size / 2 ** 20, 1)))
        finally:
            browser.close()
    return rows


if __name__ == "__main__":
    print(json.dumps(measure(repeats=1 if "--quick" in sys.argv else 3, quick="--quick" in sys.argv), indent=1))
