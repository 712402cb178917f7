"""Figure, table and footnote numbers, in reading order, for the report and the atlas alike.

The builders ask for the next number as they build each part in the order it is read, so the
HTML, the PDF and every cross-reference agree.
"""

from __future__ import annotations

from pipelines.publish.records import Counts, Note


class Numbering:
    """One counter each for figures, tables and footnotes across a document.

    Footnotes belong to chapters: a note's text is printed at its first call in a chapter, and a
    later call in the same chapter (the same system in the next table) repeats its number. Each
    chapter lists the notes first called in it (the screen shows them at the chapter's end).
    """

    def __init__(self) -> None:
        self.figures = 0
        self.tables = 0
        self.footnotes = 0
        self.notes_total = 0  # across chapters, also where their numbering restarts
        self._seen: dict[str, int] = {}
        self._chapter: list[Note] = []

    def figure(self) -> int:
        self.figures += 1
        return self.figures

    def table(self) -> int:
        self.tables += 1
        return self.tables

    def chapter(self, restart: bool = False) -> list[Note]:
        """Start a chapter; returns the list its notes are added to as they are called. `restart`:
        its notes are numbered from 1 (a chapter printed as a document of its own)."""
        self._seen, self._chapter = {}, []
        if restart:
            self.footnotes = 0
        return self._chapter

    def note(self, key: str, text: str) -> Note:
        """A call of the note `key` (one key per system, price, ...)."""
        if key in self._seen:
            return Note(self._seen[key])
        self.footnotes += 1
        self.notes_total += 1
        self._seen[key] = self.footnotes
        note = Note(self.footnotes, text)
        self._chapter.append(note)
        return note

    def counts(self) -> Counts:
        return Counts(figures=self.figures, tables=self.tables, footnotes=self.notes_total)
