"""REPORTS_DIR/index.html: every published report with its price date."""

from __future__ import annotations

from pathlib import Path

from pipelines.publish.render import environment
from pipelines.publish.store import published_dates, write_atomic


def write_index(reports: Path, title: str) -> Path:
    dates = sorted(published_dates(reports), reverse=True)
    entries = [{"date": d, "has_pdf": (reports / d / "report.pdf").exists()} for d in dates]
    html = environment().get_template("index.html.j2").render(title=title, entries=entries, css="")
    path = reports / "index.html"
    write_atomic(path, html.encode("utf-8"))
    return path
