"""Hostile text from input files comes out as inert text; the PDF renderer reads nothing but
data: URLs and the templates folder.

The report is built from synthetic marts (bench/synthetic.py, computed with the real
metric functions) whose names, notes, sources and titles carry markup, a <script>, an <img> of
file:///etc/passwd and CSS url()s, as a crafted input file would.
"""

from __future__ import annotations

import re

from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pypdf import PdfReader

from pipelines.config import TEMPLATES_DIR
from pipelines.publish import web_assets
from pipelines.publish.pdf import TemplatesOnlyFetcher, render_pdf
from pipelines.publish.render import render_html
from bench.synthetic import synthetic_context

SCRIPT = "<script>alert('x')</script>"
IMG = '<img src="file:///etc/passwd">'
CSS = "x); background: url(http://127.0.0.1:9/track.png); content: url(file:///etc/passwd"
HOSTILE = {
    "title": f"Report {SCRIPT}",
    "comparison_title": f"Compare {IMG} & <b>bold</b>",
    "description": f'<style>body {{ background: url("file:///etc/passwd") }}</style><link rel="stylesheet" href="http://127.0.0.1:9/x.css"> {CSS}',
    "note": f'<a href="javascript:alert(1)">click</a> {SCRIPT}',
    "source": CSS,
    "system": '<svg onload="alert(1)">',
    "instance_prefix": "$5 and $6 <i>",
}


class RecordingFetcher(TemplatesOnlyFetcher):
    """The production fetcher, recording every URL WeasyPrint asks for."""

    def __init__(self, templates: Path = TEMPLATES_DIR):
        super().__init__(templates)
        self.asked: list[str] = []

    def fetch(self, url, headers=None):
        self.asked.append(url)
        return super().fetch(url, headers)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(k, v or "") for k, v in attrs]


@pytest.fixture(scope="module")
def hostile_context():
    return synthetic_context(instances=6, benchmarks=2, text=HOSTILE)


def test_hostile_names_and_notes_are_inert_text_in_html(hostile_context):
    html = render_html(hostile_context)
    parsed = _Tags()
    parsed.feed(html)
    assert "img" not in parsed.tags and "link" not in parsed.tags
    # the only scripts: the web edition's runtime (the same bytes whatever the data) and its loader
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert [attrs for attrs, _ in scripts] == [' type="application/json" id="web-runtime"', ""]
    assert scripts[0][1] == web_assets.runtime_json() and "Report" not in scripts[1][1]
    assert parsed.tags.count("style") == 2, "only the report's own style sheet and the table component's"
    assert parsed.tags.count("svg") == hostile_context.counts.figures, "no svg element from a system name"
    assert not [a for a in parsed.attrs if a[0].startswith("on")], "no event handler attribute"
    assert not [a for a in parsed.attrs if a[1].strip().lower().startswith("javascript:")]
    # CSS url() from data stays in text nodes: no attribute carries one (chart clip paths point inside the SVG)
    # (clip paths and the baseline's hatch pattern point inside the SVG)
    assert [v for _, v in parsed.attrs if re.search(r"url\((?!#chart-)", v)] == []
    assert "url(file:///etc/passwd" in html  # ... and it is still shown, as text
    # the text is all there, escaped
    assert "Report &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "Compare &lt;img src=&#34;file:///etc/passwd&#34;&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    assert "&lt;a href=&#34;javascript:alert(1)&#34;&gt;click&lt;/a&gt;" in html
    # chart labels and alt text (SVG <text>, <title>) are escaped too; "$5 and $6" is not TeX
    assert "$5 and $6 &lt;i&gt;" in html and "<i>" not in html


def test_hostile_report_pdf_reads_no_file_and_no_url(hostile_context, tmp_path):
    html = render_html(hostile_context)
    fetcher = RecordingFetcher()
    pdf = render_pdf(html, created=date(2025, 6, 1), fetcher=fetcher)
    assert fetcher.asked == [] and fetcher.refused == [], "an escaped report asks for nothing"
    (tmp_path / "hostile.pdf").write_bytes(pdf)
    text = " ".join(page.extract_text() for page in PdfReader(tmp_path / "hostile.pdf").pages)
    assert "Report <script>alert('x')</script>" in text
    assert "root:x:0:0" not in text


def test_fetcher_refuses_local_files_and_network_but_serves_data_and_templates(tmp_path):
    outside = tmp_path / "secret.css"
    outside.write_text("p { color: red }")
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "ok.css").write_text("p { margin: 0 }")
    (templates / "link.css").symlink_to(outside)  # a link out of the folder counts as outside
    pixel = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
             "hKmMIQAAAABJRU5ErkJggg==")
    html = f"""<html lang="en"><head><title>t</title>
      <link rel="stylesheet" href="ok.css">
      <link rel="stylesheet" href="link.css">
      <link rel="stylesheet" href="../secret.css">
      <link rel="stylesheet" href="http://127.0.0.1:9/remote.css">
      <style>@import url("https://example.invalid/imported.css");
             div {{ background: url("file:///etc/passwd") }}</style></head>
      <body><img src="file:///etc/passwd" alt="x"><img src="{pixel}" alt="pixel">
      <img src="ftp://example.invalid/a.png" alt="y"><div>text</div></body></html>"""
    fetcher = RecordingFetcher(templates)
    pdf = render_pdf(html, created=date(2025, 6, 1), templates=templates, fetcher=fetcher)
    assert pdf.startswith(b"%PDF")
    served = [u for u in fetcher.asked if u not in fetcher.refused]
    assert served == [(templates / "ok.css").as_uri(), pixel] or sorted(served) == sorted([(templates / "ok.css").as_uri(), pixel])
    refused = set(fetcher.refused)
    assert {(templates / "link.css").as_uri(), outside.as_uri(), "http://127.0.0.1:9/remote.css",
            "https://example.invalid/imported.css", "file:///etc/passwd", "ftp://example.invalid/a.png"} <= refused
    assert len(fetcher.asked) == len(served) + len(fetcher.refused)


def test_fetcher_refuses_directly():
    fetcher = TemplatesOnlyFetcher()
    for url in ("file:///etc/passwd", f"{TEMPLATES_DIR.as_uri()}/../pyproject.toml", "http://127.0.0.1:9/",
                "https://example.invalid/x.css"):
        with pytest.raises(ValueError, match="refused"):
            fetcher.fetch(url)
    assert fetcher.refused[0] == "file:///etc/passwd" and len(fetcher.refused) == 4
    response = fetcher.fetch((TEMPLATES_DIR / "report.css").as_uri())
    assert b"@page" in response.read()
