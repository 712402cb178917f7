"""The report's appendix, its sources: where each price, measured system and emission factor the
notes cite comes from (source texts, files and lines, commits), with links back to the tables that
cite it; and every input file with its SHA-256 and the rows taken from it."""

from __future__ import annotations

import polars as pl

from pipelines.fingerprint import named_sha256
from pipelines.publish.records import Cell, Column, Heading, Row, Source, Table

MAX_FILES_PER_KIND = 20  # input files of one kind listed one by one in the appendix; more: one row


def files_digest(files: list[dict]) -> str:
    """SHA-256 over "<file>\\0<file's SHA-256>\\n" for each file, sorted by name: one hash that
    stands for a whole group of input files (the appendix's formula, checkable by hand from
    data/input_files.csv)."""
    return named_sha256((f["file"], f["sha256"]) for f in sorted(files, key=lambda f: f["file"]))


def input_rows(input_files: pl.DataFrame) -> list[dict]:
    """The appendix's rows: every input file, except that a kind with more than
    MAX_FILES_PER_KIND files is one row (count, rows, combined hash) - 800 systems JSON would
    otherwise fill 30 pages; data/input_files.csv keeps each file with its SHA-256."""
    rows = [{"kind": r["kind"], "file": r["file"], "rows": r["rows"], "sha256": r["sha256"], "bytes": r["bytes"],
             "group": False} for r in input_files.iter_rows(named=True)]
    by_kind: dict[str, list[dict]] = {}
    for r in rows:
        by_kind.setdefault(r["kind"], []).append(r)
    out = []
    for kind, files in by_kind.items():  # kinds in the order of their first file
        if len(files) <= MAX_FILES_PER_KIND:
            out += files
        else:
            out.append({"kind": kind, "file": f"{len(files):,} {kind} files (each with its SHA-256 in data/input_files.csv)",
                        "rows": sum(f["rows"] or 0 for f in files), "sha256": files_digest(files),
                        "bytes": sum(f["bytes"] or 0 for f in files), "group": True})
    return out


APPENDIX = Heading("C", "Sources", "sources", kind="appendix")
# Printed at set widths: measuring every cell of this table (long texts that may break anywhere, page
# after page) took 60 of the 79 s that WeasyPrint spent laying out the whole report.
SOURCE_COLUMNS = (Column("Source", header=True, width="7.5%"), Column("Of", width="8.5%"),
                  Column("Where it comes from", css="small", width="62%"), Column("Cited in", css="cited", width="22%"))


def sources_table(number: int, sources: tuple[Source, ...]) -> Table:
    """Every source the notes cite, in the order of first citation: S1, S2, ... (each note links to its
    row, each row links back to the tables whose notes cite it)."""
    return Table(number, "Where the figures come from: the sources the notes cite, each with the tables that cite it",
                 SOURCE_COLUMNS, tuple(
                     Row((Cell(s.label), Cell(s.kind), Cell(s.text), Cell("", links=s.cited)), anchor=s.id)
                     for s in sources),
                 css="sources-table", empty="No note cites a source.", sortable=False, fixed=True)
INPUT_COLUMNS = (Column("Kind"), Column("File", css="file"), Column("Rows", numeric=True), Column("SHA-256", css="hash"))


def inputs_table(number: int, input_files: pl.DataFrame) -> Table:
    rows = input_rows(input_files)
    caption = "The input files, their SHA-256 and the rows taken from each"
    if any(r["group"] for r in rows):
        caption += ("; a kind with many files is one row whose hash is the SHA-256 of “file name, NUL, the file's "
                    "SHA-256, newline” for each of its files in name order")
    return Table(number, caption, INPUT_COLUMNS, tuple(
        Row((Cell(r["kind"]), Cell(r["file"], breakable=True), Cell(str(r["rows"]), sort=r["rows"]), Cell(r["sha256"])))
        for r in rows), css="inputs", csv="input_files")
