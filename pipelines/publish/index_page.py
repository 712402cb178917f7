"""REPORTS_DIR/index.html, the landing page: every published report by price date, the MLPerf atlas
(REPORTS_DIR/atlas) when there is one, and the data files of the newest of each with what every
column means (pipelines/domain/columns.py). Links are relative, so the folder opens from file:// anywhere.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from pipelines.domain.columns import DATA_FILES, describe
from pipelines.config import TEMPLATES_DIR
from pipelines.domain.rounds import round_key
from pipelines.publish.render import STYLESHEET, environment
from pipelines.publish.store import published_dates, write_atomic


@dataclass(frozen=True)
class Published:
    date: str
    html: str  # relative to REPORTS_DIR
    pdf: str | None
    data: str
    parts: tuple[tuple[str, str], ...] = ()  # the atlas's PDF per round: (round, path relative to REPORTS_DIR)


@dataclass(frozen=True)
class ColumnMeaning:
    name: str
    meaning: str
    unit: str


@dataclass(frozen=True)
class DataFile:
    name: str  # "cost_to_train"
    csv: str  # relative to REPORTS_DIR
    parquet: str | None
    holds: str
    columns: tuple[ColumnMeaning, ...]


@dataclass(frozen=True)
class Document:
    """The reports or the atlas: each published date, newest first, and the newest one's data files."""

    kind: str  # "report" or "atlas"
    latest: str | None  # the newest's page through latest/
    published: tuple[Published, ...]
    files: tuple[DataFile, ...]
    empty: tuple[tuple[str, str], ...] = ()  # (file, what it would hold): tables without rows, not published


UNITS = {"usd": "US dollars", "usd_per_hour": "US dollars per hour", "minutes": "minutes", "percent": "percent",
         "ratio": "ratio", "count": "count"}


def header(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle), [])


def data_files(folder: Path, kind: str, prefix: str) -> tuple[DataFile, ...]:
    """The CSV files of a published data/ folder, each with its columns' meanings."""
    files = []
    known = DATA_FILES[kind]
    for path in sorted(folder.glob("*.csv"), key=lambda p: (p.stem not in known, list(known).index(p.stem)
                                                           if p.stem in known else 0, p.stem)):
        table, holds = known.get(path.stem, (path.stem, ""))
        columns = []
        for name in header(path):
            meaning = describe(table, name)
            columns.append(ColumnMeaning(name, meaning.meaning if meaning else "",
                                         UNITS.get(meaning.unit, "") if meaning and meaning.unit else ""))
        parquet = path.with_suffix(".parquet")
        files.append(DataFile(path.stem, f"{prefix}/{path.name}", f"{prefix}/{parquet.name}" if parquet.exists() else None,
                              holds, tuple(columns)))
    return tuple(files)


def document(root: Path, kind: str, page: str, prefix: str) -> Document:
    """The published dates under `root` (REPORTS_DIR, or REPORTS_DIR/atlas) of one kind of document."""
    dates = sorted(published_dates(root), reverse=True)
    published = tuple(Published(d, f"{prefix}{d}/{page}.html",
                                f"{prefix}{d}/{page}.pdf" if (root / d / f"{page}.pdf").exists() else None,
                                f"{prefix}{d}/data/", parts(root / d, f"{prefix}{d}/", page)) for d in dates)
    latest = root / "latest"
    has_latest = (latest / f"{page}.html").exists()
    files = data_files(latest / "data", kind, f"{prefix}latest/data") if (latest / "data").is_dir() else ()
    shown = {f.name for f in files}
    empty = tuple((name, holds) for name, (_table, holds) in DATA_FILES[kind].items() if name not in shown) if files else ()
    return Document(kind, f"{prefix}latest/{page}.html" if has_latest else None, published, files, empty)


def parts(folder: Path, prefix: str, page: str) -> tuple[tuple[str, str], ...]:
    """The PDFs printed apart beside <page>.pdf: the atlas's atlas-<round>.pdf in round order, then the
    others (atlas-instances.pdf) by name."""
    found = {p.stem.removeprefix(f"{page}-"): f"{prefix}{p.name}" for p in folder.glob(f"{page}-*.pdf")}
    rounds = sorted((name for name in found if _is_round(name)), key=round_key)
    return tuple((name, found[name]) for name in (*rounds, *sorted(set(found) - set(rounds))))


def _is_round(name: str) -> bool:
    try:
        round_key(name)
    except ValueError:
        return False
    return True


def write_index(reports: Path, title: str) -> Path:
    css = (TEMPLATES_DIR / STYLESHEET).read_text(encoding="utf-8")
    html = environment().get_template("index.html.j2").render(
        title=title, css=css, report=document(reports, "report", "report", ""),
        atlas=document(reports / "atlas", "atlas", "atlas", "atlas/"))
    path = reports / "index.html"
    write_atomic(path, html.encode("utf-8"))
    return path
