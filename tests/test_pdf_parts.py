"""Documents printed apart and kept per content (publish/pdf_parts.py): real WeasyPrint in worker
processes, a real cache folder; only a document whose HTML changed is laid out again."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

from pypdf import PdfReader

from pipelines.publish.pdf_parts import GENERATED, WORKER_NICENESS, Hints, PdfCache, Printed, Printing, pdf_process

DAY = date(2026, 8, 20)


def page(text: str, paragraphs: int = 1) -> str:
    body = "".join(f"<p>{text} {i}</p>" for i in range(paragraphs))
    return f'<!DOCTYPE html><html lang="en"><head><title>{text}</title></head><body>{body}</body></html>'


def text_of(pdf: bytes) -> str:
    return " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)


def test_only_changed_documents_are_laid_out_again(tmp_path):
    cache = PdfCache(tmp_path / "pdf")
    pages = {"a.pdf": page("alpha"), "b.pdf": page("beta", paragraphs=120)}
    with Printing(pages, DAY, cache) as first:
        assert sorted(first.laid_out) == ["a.pdf", "b.pdf"]
        printed = first.result()
    assert list(printed) == ["a.pdf", "b.pdf"]  # the order given, whatever order they were laid out in
    assert "alpha 0" in text_of(printed["a.pdf"].pdf) and printed["b.pdf"].pages >= 2
    assert printed["a.pdf"].layouts == 1

    cache = PdfCache(tmp_path / "pdf")  # a later run
    with Printing({**pages, "a.pdf": page("gamma")}, DAY, cache) as second:
        assert second.laid_out == ("a.pdf",)
        again = second.result()
    assert "gamma 0" in text_of(again["a.pdf"].pdf)
    assert again["b.pdf"].pdf == printed["b.pdf"].pdf and again["b.pdf"].pages == printed["b.pdf"].pages
    assert again["b.pdf"].layouts == 0  # none made in this run
    assert cache.prune() == 1  # the first "a.pdf" is served no more: its PDF and facts go
    assert len([p for p in (tmp_path / "pdf").iterdir() if p.is_file()]) == 4

    # another date is another document (the PDF carries it): laid out again
    with Printing(pages, date(2026, 9, 1), PdfCache(tmp_path / "pdf")) as later:
        assert sorted(later.laid_out) == ["a.pdf", "b.pdf"]


def table(price: str, extra_rows: int = 0) -> str:
    rows = "".join(f"<tr><td>row {i}</td></tr>" for i in range(4 + extra_rows))
    return (f'<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><table id="tab-1"><tbody>'
            f'<tr><td>{price}</td></tr>{rows}</tbody></table></body></html>')


def test_a_changed_document_starts_from_the_rows_its_last_layout_moved(tmp_path):
    """The rows a layout started on a new page (for their footnotes) are kept beside the PDFs: the next layout
    of the document, after a new price, starts them on a new page at once (one layout); not after its table
    changed shape."""
    cache = PdfCache(tmp_path / "pdf")
    first = table("$21.96")
    cache.remember("a.pdf", Printed(b"%PDF-", ("tab-1/2",), 2, 2), first)  # as a two-layout print would leave it
    assert PdfCache(tmp_path / "pdf").hints("a.pdf", table("$19.50")).breaks == ("tab-1/2",)
    assert PdfCache(tmp_path / "pdf").hints("a.pdf", table("$19.50", extra_rows=1)).breaks == ()
    assert PdfCache(tmp_path / "pdf").hints("b.pdf", first) == Hints()
    with Printing({"a.pdf": table("$19.50")}, DAY, PdfCache(tmp_path / "pdf")) as printing:
        printed = printing.result()["a.pdf"]
    assert (printed.breaks, printed.layouts, printed.pages) == (("tab-1/2",), 1, 2)  # row 2 on page 2, at once
    assert "$19.50" in text_of(printed.pdf)
    assert PdfCache(None).hints("a.pdf", first) == Hints()


def test_nothing_to_lay_out_starts_no_process(tmp_path):
    cache = PdfCache(tmp_path / "pdf")
    with Printing({"a.pdf": page("alpha")}, DAY, cache) as first:
        first.result()
    with Printing({"a.pdf": page("alpha")}, DAY, PdfCache(tmp_path / "pdf")) as kept:
        assert kept.laid_out == () and kept.workers == 0
        assert "alpha 0" in text_of(kept.result()["a.pdf"].pdf)


def test_a_new_day_alone_lays_out_nothing_and_a_kept_pdf_says_its_own_day(tmp_path):
    # the daily schedule rebuilds an unchanged atlas: its PDFs are served as printed, with the day they were
    pages = {"a.pdf": page(f"alpha generated {GENERATED}"), "b.pdf": page(f"beta generated {GENERATED}")}
    with Printing(pages, DAY, PdfCache(tmp_path / "pdf"), generated_on="2026-12-01") as first:
        assert first.workers == 2
        assert "generated 2026-12-01" in text_of(first.result()["a.pdf"].pdf)
    changed = {**pages, "b.pdf": page(f"gamma generated {GENERATED}")}
    with Printing(changed, DAY, PdfCache(tmp_path / "pdf"), generated_on="2026-12-02") as next_day:
        assert next_day.laid_out == ("b.pdf",)
        printed = next_day.result()
    assert "alpha generated 2026-12-01" in text_of(printed["a.pdf"].pdf)
    assert "gamma generated 2026-12-02" in text_of(printed["b.pdf"].pdf)


def test_without_a_folder_everything_is_laid_out(tmp_path):
    with Printing({"a.pdf": page("alpha")}, DAY, PdfCache(None)) as printing:
        assert printing.laid_out == ("a.pdf",)
        assert printing.result()["a.pdf"].pages == 1


def test_workers_yield_the_cpu_to_the_caller():
    # the web edition, drawn by the caller while the workers lay out, is what the atlas waits for
    with pdf_process(2) as pool:
        assert pool.submit(os.nice, 0).result() == min(os.nice(0) + WORKER_NICENESS, 19)


def test_weasyprint_is_imported_by_the_workers_only(tmp_path):
    # the atlas's publish step renders its pages and waits on the workers: WeasyPrint (~40 MiB resident)
    # in that process too would only add to the run's peak memory
    script = f"""
import sys
from datetime import date
from pipelines.defs.atlas import documents as atlas_report
from pipelines.publish import page_breaks, pdf_parts, render
html = {page("alpha")!r}
page_breaks.table_prefixes(html)
with pdf_parts.Printing({{"a.pdf": html}}, date(2026, 8, 20), pdf_parts.PdfCache(None)) as printing:
    assert printing.result()["a.pdf"].pages == 1
print(sorted(name for name in sys.modules if name.split(".")[0] == "weasyprint"))
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parents[1], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_kept_pdf_without_every_fact_is_laid_out_again(tmp_path):
    """A facts file from before a fact was kept (here: the tables past the margin) is a miss, not a PDF
    served with that fact made up."""
    pages = {"a.pdf": page("alpha")}
    with Printing(pages, DAY, PdfCache(tmp_path / "pdf")) as first:
        first.result()
    (facts,) = (tmp_path / "pdf").glob("*.json")
    facts.write_text(facts.read_text().replace(', "past_margin": []', ""))
    with Printing(pages, DAY, PdfCache(tmp_path / "pdf")) as second:
        assert second.laid_out == ("a.pdf",)
        assert second.result()["a.pdf"].layouts == 1


def test_the_workers_have_ended_when_the_result_is_back(tmp_path):
    """The caller renders the atlas's web page after `result`: the workers' memory must be back by then."""
    with Printing({"a.pdf": page("alpha"), "b.pdf": page("beta")}, DAY, PdfCache(None)) as printing:
        workers = list(printing._pool._processes.values())
        assert len(workers) == 2
        printing.result()
        assert not any(worker.is_alive() for worker in workers)
