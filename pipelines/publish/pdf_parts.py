"""PDFs laid out once per content: the report (print_kept) and the atlas's digest, printed as several PDFs.

WeasyPrint lays out about five pages a second and holds every page until the PDF is written: the
atlas's digest as one document (115 pages for eleven rounds) took 24 s a layout and 575 MiB, and any
price change or new round laid out all of it again. Printed as atlas.pdf plus one PDF per round,
each document is laid out in one of a few worker processes at once (pdf_process) and kept on
disk (publish/file_cache.py) under the SHA-256 of its HTML and the printing code: a new round lays
out only its own PDF and atlas.pdf, an unchanged atlas nothing, also on a later day: the day a
document says it was generated is left out of its key (GENERATED). A new price snapshot still lays
out every PDF, since each shows the atlas's price date and marks prices stale against it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pipelines import forkserver
from pipelines.code_versions import code_version_of
from pipelines.publish.file_cache import FileCache
from pipelines.publish.page_breaks import hints_that_hold, layout_hints
from pipelines.publish.page_numbers import layout_numbers, numbers_that_hold
from pipelines.publish.store import write_atomic

# Where a document says the day it was generated: left out of its key and filled in when it is laid out,
# so a document unchanged but for that day is served as first printed (and says that day, which is true).
GENERATED = "@generated-day@"
WORKERS = 2  # processes laying out at once: the machine's two cores (each holds one document's pages)
WORKER_NICENESS = 10  # pdf_process's workers yield the CPU to the process that started them
PRINTING_CODE = "pipelines.publish.pdf"  # what the HTML goes through on its way to a PDF: pdf.py and what it imports
HINTS = "hints"  # <cache>/hints/<document>.json: what its last layout found (PdfCache.hints)


@dataclass(frozen=True)
class Printed:
    """A tagged PDF and how it was laid out (Laid's breaks, layouts and page numbers, its page count)."""

    pdf: bytes
    breaks: tuple[str, ...]
    layouts: int
    pages: int
    past_margin: tuple[str, ...] = ()  # tables that run past the right margin (pdf.tables_past_margin)
    page_numbers: Mapping[str, int] = field(default_factory=dict)  # the pages its numbered links show


@dataclass(frozen=True)
class Hints:
    """What the last layout of a document found that a layout of it changed (a new price) can start from
    (pdf.lay_out): the rows it started on new pages that still hold, and the pages its links showed."""

    breaks: tuple[str, ...] = ()
    page_numbers: Mapping[str, int] | None = None  # None: none known


class PdfCache(FileCache):
    """Printed PDFs in a folder (None: nothing kept), each under the key of its HTML and date: <key>.pdf and
    <key>.json, how it was laid out."""

    def __init__(self, folder: Path | None):
        # the printing code's version (pipelines/code_versions.py, as the assets'): pdf.py, what it imports (the
        # page breaks and numbers, the renderer) and the packages (WeasyPrint)
        super().__init__(folder, code_version_of(PRINTING_CODE) if folder is not None else "")

    def pdf_key(self, html: str, created: date) -> str:
        return self.key(created.isoformat(), html)

    def printed(self, key: str) -> Printed | None:
        facts, pdf = self.get(key, ".json"), self.get(key, ".pdf")
        if facts is None or pdf is None:
            return None
        laid = json.loads(facts)
        if not {"breaks", "pages", "past_margin", "page_numbers"} <= laid.keys():  # an older version's: lay it out
            return None
        return Printed(pdf, tuple(laid["breaks"]), 0, laid["pages"],  # 0 layouts: none made now
                       tuple(laid["past_margin"]), laid["page_numbers"])

    def keep(self, key: str, printed: Printed) -> None:
        # the PDF first: a facts file is only ever beside a whole PDF
        self.put(key, ".pdf", printed.pdf)
        self.put(key, ".json", json.dumps({"breaks": list(printed.breaks), "pages": printed.pages,
                                           "past_margin": list(printed.past_margin),
                                           "page_numbers": dict(printed.page_numbers)}).encode())

    def hints(self, name: str, html: str) -> Hints:
        """What the last layout of document `name` found, for `html`: the rows it started on a new page for their
        footnotes that still hold (page_breaks.hints_that_hold) and the pages its links showed that likely still
        hold (page_numbers.numbers_that_hold). Laid out with them at once, a changed document (a new price)
        usually needs one layout, not two or three. Kept beside the PDFs, so they outlive a lost run history."""
        if self.folder is None:
            return Hints()
        try:
            last = json.loads((self.folder / HINTS / f"{name}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Hints()
        return Hints(hints_that_hold(last, html), numbers_that_hold(last, html))

    def remember(self, name: str, printed: Printed, html: str) -> None:
        """Keeps what `printed`'s layout of `html` found (Hints), for the next layout of `name`."""
        if self.folder is None:
            return
        path = self.folder / HINTS / f"{name}.json"
        hints = json.dumps({**layout_hints(printed.breaks, html), **layout_numbers(printed.page_numbers, html)}).encode()
        if not (path.is_file() and path.read_bytes() == hints):
            write_atomic(path, hints)


class Printing:
    """Prints documents (file name -> HTML) through `cache`: the ones not in it are laid out in worker
    processes, started at once, while the caller goes on (the atlas's web edition); `result` waits.
    Used as a context manager, so the workers are stopped however the caller's block ends."""

    def __init__(self, pages: Mapping[str, str], created: date, cache: PdfCache, workers: int = WORKERS,
                 generated_on: str = ""):
        """`pages` may hold GENERATED where `generated_on` (the day, as printed) goes."""
        self.keys = {name: cache.pdf_key(html, created) for name, html in pages.items()}
        self.pages = pages
        self.cache = cache
        self.printed: dict[str, Printed] = {}
        for name, key in self.keys.items():
            kept = cache.printed(key)
            if kept is not None:
                self.printed[name] = kept
        todo = sorted((n for n in pages if n not in self.printed), key=lambda n: -len(pages[n]))  # longest first
        self.laid_out = tuple(todo)
        self.workers = min(workers, len(todo))  # processes started: none when every document is kept
        self._pool = pdf_process(self.workers) if todo else None
        self._pending = {name: self._pool.submit(print_pdf, pages[name].replace(GENERATED, generated_on), created,
                                                 cache.hints(name, pages[name]))
                         for name in todo}

    def __enter__(self) -> "Printing":
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def result(self) -> dict[str, Printed]:
        """Every document's PDF, in the order given; the new ones are kept in the cache. The workers have
        ended when it returns (their memory is back before the caller goes on)."""
        for name, pending in self._pending.items():
            self.printed[name] = pending.result()
            self.cache.keep(self.keys[name], self.printed[name])
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        for name, printed in self.printed.items():
            self.cache.remember(name, printed, self.pages[name])
        return {name: self.printed[name] for name in self.keys}


def print_kept(name: str, html: str, created: date, cache: PdfCache) -> Printed:
    """One document through `cache`, laid out in this process when the cache does not have it (the report:
    one document, and nothing for this process to do meanwhile that workers would free it for)."""
    key = cache.pdf_key(html, created)
    printed = cache.printed(key)
    if printed is None:
        printed = print_pdf(html, created, cache.hints(name, html))
        cache.keep(key, printed)
    cache.remember(name, printed, html)
    return printed


def print_pdf(html: str, created: date, hints: Hints = Hints()) -> Printed:
    """`html` laid out (from `hints`: see pdf.lay_out) and written as a tagged PDF dated `created`.
    A worker's job: WeasyPrint (~40 MiB and 0.4 s to import) is imported in the workers, not in the caller."""
    from pipelines.publish.pdf import lay_out, pdf_bytes

    laid = lay_out(html, breaks=hints.breaks, page_numbers=hints.page_numbers)
    return Printed(pdf_bytes(laid.document, created), laid.breaks, laid.layouts, len(laid.document.pages),
                   laid.past_margin, laid.page_numbers)


forkserver.preload("pipelines.publish.pdf")  # WeasyPrint, imported by the server the workers fork from


def pdf_process(workers: int = 1) -> ProcessPoolExecutor:
    """Processes of their own for print_pdf, which the caller can keep busy meanwhile. Laying out a hundred
    pages takes WeasyPrint a few hundred MiB, which a Python process keeps once it has them; a process that
    ends gives them back, and the caller's own memory (the web edition's charts and tables) never adds to them.

    They are forked from the process's fork server (pipelines/forkserver.py): a fresh interpreter, started
    once per caller, that imported WeasyPrint (pipelines.publish.pdf) and nothing of the caller's state. Each
    worker starts with it imported (a spawned one took ~0.9 s of CPU to import it, each time), its pages shared.

    The workers run at a lower priority (nice): the caller's work is usually what the result waits
    for (the web edition needs every chart drawn in one process, while the documents spread over the
    workers), so on a busy machine the caller keeps a whole core and the workers take what is left."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=forkserver.context(), initializer=os.nice,
                               initargs=(WORKER_NICENESS,))
