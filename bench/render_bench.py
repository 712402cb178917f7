"""Render benchmark: report context (charts), HTML (Jinja) and PDF (WeasyPrint) at growing sizes.

    .venv/bin/python -m bench.render_bench            # prints the rows as a table and JSON
    .venv/bin/python -m bench.render_bench --quick    # one repeat, sizes up to 100 instances

Sizes: the bundled report (its real marts: the pipeline is run once on raw/ into a temporary
folder) is the reference; synthetic reports (bench/synthetic.py, marts computed with
the pipeline's own metric functions) with 100, 250 and 500 instances across 5 benchmarks (one
comparison per benchmark, so 500 instances = 5 tables of 100 rows, 1000 footnotes), to judge
whether time grows linearly with the number of instances.

Each repeat runs in a fresh interpreter (bench/harness.py); inside it, each stage is timed with
perf_counter and process_time (wall and CPU seconds; imports and interpreter start are not
counted; CPU time is the steadier figure when other work shares the machine), and its memory is the process's peak
RSS at the end of the stage (getrusage: the peak so far, so a stage's figure includes the stages
before it: context < html < pdf). Subject and reference are run alternately so that load from
other work on the machine falls on both alike.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import PYTHON, REPO, Sample, bench_env, compare, row, run_callable, stats

SIZES = [100, 250, 500]
QUICK_SIZES = [100]
STAGES = ["context", "html", "pdf"]


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def child(source: str, out: str) -> None:
    """In a fresh process: build the context, render HTML and PDF; write the timings to `out`."""
    from datetime import date

    from pipelines.publish.pdf import render_pdf
    from pipelines.publish.render import render_html

    result = {}
    start, cpu = time.perf_counter(), time.process_time()
    if source.startswith("bundled:"):
        from pipelines.defs.report.documents import REPORT_TABLES as MARTS
        from pipelines.publish.from_marts import report_context
        from pipelines.warehouse import connect, read_table

        with connect(Path(source.split(":", 1)[1]), read_only=True) as conn:
            tables = {name: read_table(conn, name) for name in MARTS}
        start, cpu = time.perf_counter(), time.process_time()  # reading the warehouse is not rendering
        context = report_context(tables)
        created = tables["report_dates"]["price_date"][0]
    else:
        from bench.synthetic import synthetic_context

        context = synthetic_context(instances=int(source.split(":", 1)[1]), benchmarks=5)
        created = date(2025, 6, 1)
    result["context"] = (time.perf_counter() - start, _peak_mib(), time.process_time() - cpu)
    start, cpu = time.perf_counter(), time.process_time()
    html = render_html(context)
    result["html"] = (time.perf_counter() - start, _peak_mib(), time.process_time() - cpu)
    start, cpu = time.perf_counter(), time.process_time()
    pdf = render_pdf(html, created=created)
    result["pdf"] = (time.perf_counter() - start, _peak_mib(), time.process_time() - cpu)
    result["rows"] = sum(len(b.table.rows) for s in context.sections for b in s.benchmarks)
    result["footnotes"] = context.counts.footnotes
    result["figures"] = context.counts.figures
    result["html_bytes"] = len(html.encode("utf-8"))
    result["pdf_bytes"] = len(pdf)
    import io

    from pypdf import PdfReader

    result["pages"] = len(PdfReader(io.BytesIO(pdf)).pages)
    Path(out).write_text(json.dumps(result))


def _bundled_warehouse(work: Path) -> Path:
    """Run the pipeline once on the bundled raw/ into `work` and return its DuckDB file."""
    env = bench_env(raw_dir=REPO / "raw", reports_dir=work / "reports", warehouse=work / "warehouse.duckdb",
                    dagster_home=work / "dagster_home", SOURCE_DATE_EPOCH="1764374400")
    (work / "dagster_home").mkdir(parents=True, exist_ok=True)
    subprocess.run([PYTHON, "-m", "pipelines.cli", "report"], env=env, cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL, timeout=1800)
    return work / "warehouse.duckdb"


def _runner(source: str, work: Path, details: list[dict]):
    """A harness-style run: one fresh process; returns one Sample per stage (via `details`)."""
    def run() -> Sample:
        out = work / f"result-{source.split(':')[0]}-{len(details)}.json"
        process = run_callable("bench.render_bench:child", source, str(out))
        result = json.loads(out.read_text())
        result["process"] = {"seconds": process.seconds, "peak_mib": process.peak_mib}
        details.append(result)
        return process
    return run


def measure(repeats: int = 3, quick: bool = False) -> list[dict]:
    """Rows {name, median_s, spread_s, peak_mib, reference, ref_median_s, ref_spread_s, ref_peak_mib}
    per stage (context, html, pdf) and size; the reference is the same stage of the bundled report."""
    work = Path(tempfile.mkdtemp(prefix="render-bench-"))
    try:
        warehouse = _bundled_warehouse(work)
        rows = []
        reference_all: list[dict] = []
        for size in (QUICK_SIZES if quick else SIZES):
            subject: list[dict] = []
            reference: list[dict] = []
            compare(_runner(f"synthetic:{size}", work, subject), _runner(f"bundled:{warehouse}", work, reference),
                    1 if quick else repeats)
            reference_all += reference
            first = subject[0]
            label = (f"{size} instances x 5 benchmarks ({first['rows']} rows, {first['footnotes']} notes, "
                     f"{first['figures']} charts, {first['pages']} pages)")
            ref = reference[0]
            ref_label = (f"bundled report ({ref['rows']} rows, {ref['footnotes']} notes, {ref['figures']} charts, "
                         f"{ref['pages']} pages)")
            for stage in STAGES:
                ours = [Sample(*r[stage]) for r in subject]
                theirs = [Sample(*r[stage]) for r in reference]
                rows.append(row(f"render {stage}: {label}", ours, f"render {stage}: {ref_label}", theirs,
                                instances=size, stage=stage, **_cpu(ours, theirs),
                                html_bytes=first["html_bytes"], pdf_bytes=first["pdf_bytes"]))
        # the reference on its own, every repeat of it pooled
        for stage in STAGES:
            samples = [Sample(*r[stage]) for r in reference_all]
            rows.append(row(f"render {stage}: bundled report", samples, f"render {stage}: bundled report", samples,
                            instances=0, stage=stage, **_cpu(samples, samples)))
        return rows
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _cpu(ours: list[Sample], theirs: list[Sample]) -> dict:
    """CPU seconds of the stage (user + system of the process): steadier than wall time on a busy machine."""
    return {"cpu_median_s": round(stats([s.cpu_s for s in ours])[0], 3),
            "ref_cpu_median_s": round(stats([s.cpu_s for s in theirs])[0], 3)}


def _print(rows: list[dict]) -> None:
    print(f"{'name':<100} {'median s':>9} {'spread':>7} {'cpu s':>7} {'peak MiB':>9} {'ref s':>7} {'ref cpu':>7}")
    for r in rows:
        print(f"{r['name'][:100]:<100} {r['median_s']:>9.3f} {r['spread_s']:>7.3f} {r['cpu_median_s']:>7.3f} "
              f"{r['peak_mib']:>9.1f} {r['ref_median_s']:>7.3f} {r['ref_cpu_median_s']:>7.3f}")


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    result = measure(repeats=1 if quick else 3, quick=quick)
    _print(result)
    print(json.dumps(result, indent=1))
