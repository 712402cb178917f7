"""Same inputs, same bytes: the published HTML and PDF are rebuilt in a fresh process (another hash
seed, a cold matplotlib) from the same warehouse and compared byte for byte.

The generation date comes from SOURCE_DATE_EPOCH; the PDF's creation and modification dates are
fixed from the price date, and WeasyPrint 70 writes no random /ID (none at all here), so the PDF
repeats exactly: no masking needed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.pipeline_runner import published_hints
from tests.shared_builds import built_once


REBUILD = """
import json, sys
from pathlib import Path
from pipelines.defs.report.documents import REPORT_TABLES as MARTS
from pipelines.publish.chart_cache import ChartCache
from pipelines.publish.from_marts import report_context
from pipelines.publish.pdf import lay_out, pdf_bytes
from pipelines.publish.render import render_html
from pipelines.warehouse import connect, read_table

with connect(Path(sys.argv[1]), read_only=True) as conn:
    tables = {name: read_table(conn, name) for name in MARTS}
charts = ChartCache(Path(sys.argv[4])) if len(sys.argv) > 4 else None
html = render_html(report_context(tables, charts))
out = Path(sys.argv[2])
(out / "report.html").write_text(html, encoding="utf-8")
hints = json.loads(sys.argv[3])
if hints is not None:
    laid = lay_out(html, breaks=tuple(hints["breaks"]), page_numbers=hints["page_numbers"])
    (out / "report.pdf").write_bytes(pdf_bytes(laid.document, created=tables["report_dates"]["price_date"][0]))
    (out / "layouts").write_text(str(laid.layouts))
"""


def _rebuild(warehouse: Path, out: Path, epoch: str, hints: dict | None = None,
             charts: Path | None = None) -> tuple[str, bytes | None]:
    """The report rebuilt from the warehouse in a fresh process; laid out from `hints` (lay_out's breaks and
    page_numbers: what the published layout found, so one layout instead of two), or with hints None not
    printed; its charts drawn, or served from the chart cache folder `charts`."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": epoch, "PYTHONHASHSEED": "random"}
    subprocess.run([sys.executable, "-c", REBUILD, str(warehouse), str(out),
                    json.dumps(hints),
                    *([str(charts)] if charts else [])], env=env, check=True, timeout=600)
    pdf = out / "report.pdf"
    return (out / "report.html").read_text(encoding="utf-8"), pdf.read_bytes() if pdf.exists() else None


@pytest.fixture(scope="module")
def rebuilt(bundled_run, tmp_path_factory) -> tuple[str, bytes, int]:
    """The bundled report rebuilt in a fresh process, once per session: its charts drawn again, laid out from
    what the published layout (two passes from scratch) found, as the PDF cache's hints lay out a changed
    report. The same bytes show both that nothing random reaches the files and that one hinted pass gives the
    passes' PDF. (HTML, PDF, layouts made.)"""
    folder = built_once(tmp_path_factory, "rebuilt", lambda out: _rebuild(bundled_run.warehouse, out, "1764374400",
                                                                          published_hints(bundled_run)))
    return ((folder / "report.html").read_text(encoding="utf-8"), (folder / "report.pdf").read_bytes(),
            int((folder / "layouts").read_text()))


def test_html_and_pdf_are_byte_identical_when_rebuilt(bundled_run, rebuilt):
    published = bundled_run.reports / "latest"
    html, pdf, layouts = rebuilt
    assert layouts == 1  # from the published layout's rows and page numbers
    assert html.encode("utf-8") == (published / "report.html").read_bytes()
    assert pdf == (published / "report.pdf").read_bytes()


def test_pdf_dates_come_from_the_price_date(rebuilt, tmp_path):
    _, pdf, _ = rebuilt
    (tmp_path / "r.pdf").write_bytes(pdf)
    reader = PdfReader(tmp_path / "r.pdf")
    assert reader.metadata["/CreationDate"].startswith("D:20261207000000")  # BUNDLED_PRICE_DATE
    assert reader.metadata["/ModDate"].startswith("D:20261207000000")
    file_id = reader.trailer.get("/ID")
    assert file_id is None  # nothing random in the trailer; were one added, the previous test would catch it


def test_only_the_generation_date_follows_source_date_epoch(bundled_run, rebuilt, tmp_path):
    html, pdf, _ = rebuilt
    # the charts (no date on them) from a copy of the published report's chart cache; the rebuild above drew them
    charts = shutil.copytree(bundled_run.warehouse.parent / f"{bundled_run.warehouse.stem}_charts" / "report",
                             tmp_path / "charts")
    other_html, _ = _rebuild(bundled_run.warehouse, tmp_path / "later", "1767225600", None, charts)  # 2026-01-01
    assert other_html != html
    assert "2025-11-29" in html and "2025-11-29" not in other_html and "2026-01-01" in other_html
    assert re.sub("2026-01-01", "2025-11-29", other_html) == html
    # the PDF prints the generation date on its title page, so another date prints other bytes (the PDF of
    # the same HTML is the same bytes: the first test)
    (tmp_path / "r.pdf").write_bytes(pdf)
    assert "2025-11-29" in PdfReader(tmp_path / "r.pdf").pages[0].extract_text()
