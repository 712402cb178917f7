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
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.pipeline_runner import published_breaks
from tests.shared_builds import built_once


REBUILD = """
import json, sys
from pathlib import Path
from pipelines.defs.report.documents import REPORT_TABLES as MARTS
from pipelines.publish.from_marts import report_context
from pipelines.publish.pdf import lay_out, pdf_bytes
from pipelines.publish.render import render_html
from pipelines.warehouse import connect, read_table

with connect(Path(sys.argv[1]), read_only=True) as conn:
    tables = {name: read_table(conn, name) for name in MARTS}
html = render_html(report_context(tables))
out = Path(sys.argv[2])
(out / "report.html").write_text(html, encoding="utf-8")
laid = lay_out(html, breaks=tuple(json.loads(sys.argv[3])))
(out / "report.pdf").write_bytes(pdf_bytes(laid.document, created=tables["report_dates"]["price_date"][0]))
"""


def _rebuild(warehouse: Path, out: Path, epoch: str, breaks: tuple[str, ...] = ()) -> tuple[str, bytes]:
    """The report rebuilt from the warehouse in a fresh process; laid out from scratch, or from `breaks` (the rows
    the published layout moved to new pages: one layout instead of two, for a PDF that is not compared byte for
    byte)."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": epoch, "PYTHONHASHSEED": "random"}
    subprocess.run([sys.executable, "-c", REBUILD, str(warehouse), str(out), json.dumps(list(breaks))], env=env,
                   check=True, timeout=600)
    return (out / "report.html").read_text(encoding="utf-8"), (out / "report.pdf").read_bytes()


@pytest.fixture(scope="module")
def rebuilt(bundled_run, tmp_path_factory):
    """The bundled report rebuilt from scratch in a fresh process, once per session (a layout from scratch)."""
    folder = built_once(tmp_path_factory, "rebuilt", lambda out: _rebuild(bundled_run.warehouse, out, "1764374400"))
    return (folder / "report.html").read_text(encoding="utf-8"), (folder / "report.pdf").read_bytes()


def test_html_and_pdf_are_byte_identical_when_rebuilt(bundled_run, rebuilt):
    published = bundled_run.reports / "latest"
    html, pdf = rebuilt
    assert html.encode("utf-8") == (published / "report.html").read_bytes()
    assert pdf == (published / "report.pdf").read_bytes()


def test_pdf_dates_come_from_the_price_date(rebuilt, tmp_path):
    _, pdf = rebuilt
    (tmp_path / "r.pdf").write_bytes(pdf)
    reader = PdfReader(tmp_path / "r.pdf")
    assert reader.metadata["/CreationDate"].startswith("D:20261204000000")  # BUNDLED_PRICE_DATE
    assert reader.metadata["/ModDate"].startswith("D:20261204000000")
    file_id = reader.trailer.get("/ID")
    assert file_id is None  # nothing random in the trailer; were one added, the previous test would catch it


def test_only_the_generation_date_follows_source_date_epoch(bundled_run, rebuilt, tmp_path):
    html, pdf = rebuilt
    other_html, other_pdf = _rebuild(bundled_run.warehouse, tmp_path / "later", "1767225600",  # 2026-01-01
                                     published_breaks(bundled_run))
    assert other_html != html
    assert "2025-11-29" in html and "2025-11-29" not in other_html and "2026-01-01" in other_html
    assert re.sub("2026-01-01", "2025-11-29", other_html) == html
    assert other_pdf != pdf  # the title page shows the generation date
