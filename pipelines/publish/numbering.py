"""Figure, table and footnote numbers, in reading order, for the report and the atlas alike.

The builders ask for the next number as they build each part in the order it is read, so the
HTML, the PDF and every cross-reference agree.
"""

from __future__ import annotations

from pipelines.publish.records import Counts, Note, Source


class Numbering:
    """One counter each for figures, tables and footnotes across a document.

    Footnotes belong to chapters: a note's text is printed at its first call in a chapter, and a
    later call in the same chapter (the same system in the next table) repeats its number. Each
    chapter lists the notes first called in it (the screen shows them at the chapter's end).

    Sources (the report's appendix): a note may cite a source, numbered S1, S2, ... in the order of
    first citation across the document; each source keeps the tables whose notes cite it.
    """

    def __init__(self) -> None:
        self.figures = 0
        self.tables = 0
        self.footnotes = 0
        self.notes_total = 0  # across chapters, also where their numbering restarts
        self._seen: dict[str, int] = {}
        self._chapter: list[Note] = []
        self._sources: dict[str, dict] = {}
        self._table: tuple[str, str] | None = None  # the table being built: ("Table 2", "tab-2")

    def figure(self) -> int:
        self.figures += 1
        return self.figures

    def table(self) -> int:
        """The next table's number; the notes asked for until the next one are called from it."""
        self.tables += 1
        self._table = (f"Table {self.tables}", f"tab-{self.tables}")
        return self.tables

    def chapter(self, restart: bool = False) -> list[Note]:
        """Start a chapter; returns the list its notes are added to as they are called. `restart`:
        its notes are numbered from 1 (a chapter printed as a document of its own)."""
        self._seen, self._chapter = {}, []
        if restart:
            self.footnotes = 0
        return self._chapter

    def note(self, key: str, text: str, source: tuple[str, str, str] | None = None) -> Note:
        """A call of the note `key` (one key per system, price, ...); `source`: (key, kind, text) of the
        sources appendix entry the note cites, cited from the current table at every call."""
        number = self._cite(*source) if source else None
        if key in self._seen:
            return Note(self._seen[key])
        self.footnotes += 1
        self.notes_total += 1
        self._seen[key] = self.footnotes
        note = Note(self.footnotes, text, number)
        self._chapter.append(note)
        return note

    def _cite(self, key: str, kind: str, text: str) -> int:
        entry = self._sources.setdefault(key, {"number": len(self._sources) + 1, "kind": kind, "text": text, "cited": []})
        if self._table and self._table not in entry["cited"]:
            entry["cited"].append(self._table)
        return entry["number"]

    def sources(self) -> tuple[Source, ...]:
        """Every source cited so far, in the order of first citation."""
        return tuple(Source(e["number"], e["kind"], e["text"], tuple(e["cited"])) for e in self._sources.values())

    def counts(self) -> Counts:
        return Counts(figures=self.figures, tables=self.tables, footnotes=self.notes_total)
