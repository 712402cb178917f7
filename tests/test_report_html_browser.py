"""The published HTML of the bundled data in real headless chromium (Playwright), and its index page.

Phone (375 px) and desktop (1280 px), light and dark: no horizontal overflow, no console error,
no request leaves the file, every chart has a box, dark mode really changes colours, the print
style sheet swaps screen notes for footnotes. Screenshots go to the test's tmp folder.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.pipeline_runner import BUNDLED_PRICE_DATE

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.tags: dict[str, int] = {}
        self.sources: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "a" and (attrs.get("href") or "").startswith("#"):
            self.hrefs.append(attrs["href"][1:])
        for key in ("src", "srcset", "data", "poster"):
            if key in attrs:
                self.sources.append(attrs[key])
        if tag == "link":
            self.sources.append(attrs.get("href") or "")


@pytest.fixture(scope="module")
def report_html(bundled_run) -> Path:
    return bundled_run.reports / "latest" / "report.html"


def test_html_is_self_contained_with_anchors_everywhere(report_html):
    html = report_html.read_text(encoding="utf-8")
    parsed = _Ids()
    parsed.feed(html)
    assert len(parsed.ids) == len(set(parsed.ids)), "ids must be unique (charts' own ids are prefixed)"
    # no src, href or data URL anywhere; the scripts are the web edition's inline runtime and its loader
    assert not parsed.sources and parsed.tags.get("script", 0) == 2 and parsed.tags.get("img", 0) == 0
    assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", html.split("</style>", 1)[1].split("<svg", 1)[0])
    assert "url(" not in html.split("</style>", 1)[0].replace("url(#", "")
    missing = sorted(set(parsed.hrefs) - set(parsed.ids))
    assert not missing, f"links to nowhere: {missing}"
    ids = set(parsed.ids)
    sections = re.findall(r'<section id="([^"]+)"', html)
    figures = re.findall(r'<figure id="(fig-\d+)"', html)
    tables = re.findall(r'<table id="(tab-\d+)"', html)
    assert len(sections) >= 10 and len(figures) >= 10 and len(tables) >= 7
    # every section, figure and table has an id and a visible link to itself
    for anchor in sections + figures + tables:
        assert anchor in ids and f'class="anchor" href="#{anchor}"' in html, anchor
    assert html.count("<svg ") == len(figures) and html.count("<title id=\"chart-") == len(figures)


def _launch(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)


@pytest.mark.slow
def test_report_in_chromium_phone_and_desktop_light_and_dark(report_html, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (CI installs it with `make system-deps`)")
    from playwright.sync_api import sync_playwright

    url = report_html.resolve().as_uri()
    backgrounds = {}
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            for width in (375, 1280):
                for scheme in ("light", "dark"):
                    page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
                    errors, requests = [], []
                    page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
                    page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                    page.on("request", lambda r, requests=requests: requests.append(r.url))
                    page.goto(url, wait_until="load")
                    where = f"{width} px, {scheme}"
                    assert not errors, f"{where}: console errors {errors}"
                    assert requests == [url], f"{where}: the page fetched {requests[1:]}"
                    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                    assert overflow <= 0, f"{where}: {overflow} px of horizontal overflow"
                    wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
                        .filter(e => !e.closest('.table-wrap') && !e.closest('svg'))
                        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                        .map(e => e.tagName + '.' + e.className).slice(0, 5)""")
                    assert not wide, f"{where}: elements past the right edge {wide}"
                    boxes = page.evaluate("""() => [...document.querySelectorAll('figure svg')]
                        .map(s => { const r = s.getBoundingClientRect(); return [s.id, r.width, r.height]; })""")
                    assert len(boxes) >= 10
                    assert all(w > 100 and h > 50 for _, w, h in boxes), f"{where}: a chart has no box: {boxes}"
                    names = page.evaluate("""() => [...document.querySelectorAll('figure svg')]
                        .map(s => document.getElementById(s.getAttribute('aria-labelledby')).textContent)""")
                    assert all(len(n) > 40 for n in names), "every chart has an accessible name (its alt text)"
                    backgrounds[(width, scheme)] = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
                    page.screenshot(path=str(tmp_path / f"report-{width}-{scheme}.png"))
                    if width == 1280 and scheme == "light":
                        page.goto(url + "#fig-3")
                        assert page.evaluate("document.getElementById('fig-3').getBoundingClientRect().top") < 200
                        page.emulate_media(media="print")
                        assert page.evaluate("getComputedStyle(document.querySelector('.screen-notes')).display") == "none"
                        assert page.evaluate("getComputedStyle(document.querySelector('.fn')).display") != "none"
                        page.screenshot(path=str(tmp_path / "report-print.png"))
                    page.close()
        finally:
            browser.close()
    assert backgrounds[(375, "light")] == "rgb(255, 255, 255)"
    assert backgrounds[(375, "dark")] != backgrounds[(375, "light")], "dark mode follows the system setting"
    assert len(list(tmp_path.glob("report-*.png"))) == 5


def test_index_lists_every_published_report(tmp_path):
    """Two published reports (the real store's publish), then the index: both dates, newest first."""
    from pipelines.publish.index_page import write_index
    from pipelines.publish.store import build_dir, publish
    from datetime import date

    reports = tmp_path / "reports"
    for run, day in (("run-a", date(2024, 1, 1)), ("run-b", date(2025, 6, 1))):
        folder = build_dir(reports, run)
        (folder / "report.html").write_text(f"<p>{day}</p>")
        (folder / "report.pdf").write_bytes(b"%PDF-1.7\n")
        (folder / "data").mkdir()
        publish(reports, folder, day, run)
    index = write_index(reports, "Cost <to> train").read_text(encoding="utf-8")
    entries = re.findall(r'Prices as of <strong>([\d-]+)</strong>: <a href="([^"]+)">HTML</a> · <a href="([^"]+)">PDF</a>', index)
    assert entries == [("2025-06-01", "2025-06-01/report.html", "2025-06-01/report.pdf"),
                       ("2024-01-01", "2024-01-01/report.html", "2024-01-01/report.pdf")]
    assert "Cost &lt;to&gt; train" in index and "<to>" not in index
    for _, html_link, pdf_link in entries:
        assert (reports / html_link).is_file() and (reports / pdf_link).is_file()
    assert 'href="latest/report.html"' in index and (reports / "latest" / "report.html").read_text() == "<p>2025-06-01</p>"


def test_bundled_index_lists_the_bundled_report(bundled_run):
    index = (bundled_run.reports / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"Prices as of <strong>([\d-]+)</strong>", index) == [BUNDLED_PRICE_DATE]
    assert (bundled_run.reports / BUNDLED_PRICE_DATE / "report.pdf").is_file()
