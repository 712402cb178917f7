"""Everything the report shows, built from the marts (never from raw/), as typed records.

Pure: frames in, a `Report` out, built in reading order so figures, tables and footnotes are
numbered as they are read (pipelines/publish/numbering.py) and the HTML and the PDF agree.
Numbers are formatted here once (pipelines/publish/numbers.py): the tables, the chart labels and
the summary show the same strings. The stages, each in its own module:

    report_sections  one chapter per comparison: per benchmark a table, charts and findings
    report_changes   what the last price snapshot changed ("since ..." and its own chapter)
    appendix         the input files with their SHA-256
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from pipelines.publish import labels, numbers as fmt
from pipelines.publish.appendix import APPENDIX, inputs_table
from pipelines.publish.numbering import Numbering
from pipelines.publish.records import Cell, Column, Counts, Front, Heading, Row, Table
from pipelines.publish.report_changes import Changes, changes_chapter
from pipelines.publish.report_sections import BenchmarkSection, Section, Sources, comparison_section

SUMMARY = Heading("1", "Summary", "summary")


@dataclass(frozen=True)
class Report:
    front: Front
    price_date: str
    previous_date: str | None
    summary_heading: Heading
    summary: Table
    sections: tuple[Section, ...]
    changes: Changes
    methodology: Heading
    appendix_heading: Heading
    appendix: Table
    counts: Counts

    @property
    def benchmarks(self) -> list[BenchmarkSection]:
        """Every comparison's benchmark sections, in reading order (the summary's list)."""
        return [b for s in self.sections for b in s.benchmarks]


def build_context(
    *,
    settings: dict,
    dates: dict,
    cost: pl.DataFrame,
    cost_changes: pl.DataFrame,
    price_changes: pl.DataFrame,
    price_history: pl.DataFrame,
    systems: pl.DataFrame,
    time_to_train: pl.DataFrame,
    input_files: pl.DataFrame,
    generated_on: date,
) -> Report:
    numbering = Numbering()
    summary_number = numbering.table()  # the summary's table comes first in reading order
    sources = Sources.from_marts(dates=dates, systems=systems, time_to_train=time_to_train,
                                 price_history=price_history, cost_changes=cost_changes, cost=cost)
    sections = tuple(comparison_section(number, cost.filter(pl.col("comparison") == cid), sources, numbering)
                     for number, cid in enumerate(dict.fromkeys(cost["comparison"].to_list()), start=2))
    changes = changes_chapter(
        len(sections) + 2, cost=cost, cost_changes=cost_changes, price_changes=price_changes,
        comparison_titles={s.heading.anchor: s.heading.title for s in sections},
        price_date=dates["price_date"], previous_date=sources.previous_date, numbering=numbering)
    methodology = Heading(str(len(sections) + 3), "Methodology", "methodology")
    appendix = inputs_table(numbering.table(), input_files)
    previous = fmt.day(sources.previous_date) if sources.previous_date else None
    return Report(
        front=front(settings, dates, generated_on, sections, (SUMMARY, *(s.heading for s in sections),
                                                              changes.heading, methodology, APPENDIX)),
        price_date=fmt.day(dates["price_date"]), previous_date=previous,
        summary_heading=SUMMARY, summary=summary_table(summary_number, sections, previous),
        sections=sections, changes=changes, methodology=methodology,
        appendix_heading=APPENDIX, appendix=appendix, counts=numbering.counts(),
    )


def front(settings: dict, dates: dict, generated_on: date, sections: tuple[Section, ...],
          contents: tuple[Heading, ...]) -> Front:
    price_date = fmt.day(dates["price_date"])
    previous = dates.get("previous_price_date")
    benchmarks = ", ".join(labels.short_benchmark(b) for b in settings.get("benchmarks") or [])
    facts = (("Prices as of", price_date),) + ((("Previous snapshot", fmt.day(previous)),) if previous else ()) + (
        ("Generated", fmt.day(generated_on)), ("Benchmarks", benchmarks), ("Comparisons", str(len(sections))))
    title, author = settings["title"], settings.get("author") or ""
    return Front(
        title=title, subtitle=settings.get("subtitle") or "", author=author, kicker="Price-performance report",
        description=(f"{settings.get('subtitle') or 'Cost to train per cloud instance'}: cost to train, savings and "
                     f"speedup against a baseline, at on-demand prices as of {price_date}."),
        keywords=f"MLPerf, cost to train, cloud, GPU, price-performance, {benchmarks}",
        generator="cost-to-train pipeline", price_date=price_date, generated_on=fmt.day(generated_on), facts=facts,
        note=("Cost to train = on-demand price per hour × measured time to train. All prices are list prices in USD, "
              "without discounts, storage or network."),
        contents=contents,
        colophon=" · ".join(p for p in (title, f"prices as of {price_date}", f"generated {fmt.day(generated_on)}",
                                        author) if p),
    )


def summary_table(number: int, sections: tuple[Section, ...], previous: str | None) -> Table:
    """Table 1: per comparison and benchmark, the cheapest and the fastest instance, and what changed."""
    columns = (
        Column("Benchmark", header=True), Column("Cheapest to train", short="Cheapest"),
        Column("Cost", numeric=True), Column("Savings vs baseline", numeric=True, short="Savings"),
        Column("Fastest"), Column("Pareto front"),
        Column(f"Since {previous or 'the previous snapshot'}", short=f"Since {previous or 'last snapshot'}"),
    )
    rows = []
    for s in sections:
        for b in s.benchmarks:
            head = Cell(b.short, link=b.heading.anchor, subs=(b.comparison,))
            facets = (("Benchmark", b.short),)
            if b.cheapest is None:
                rows.append(Row((head,), span="no measured result on any compared instance", facets=facets))
                continue
            rows.append(Row((
                head, Cell(b.cheapest.label, strong=True), Cell(b.cheapest.cost, sort=b.cheapest.usd),
                Cell("baseline" if b.cheapest_is_baseline else b.savings, sort=b.savings_pct, subs=(f"vs {b.baseline}",)),
                Cell(b.fastest.label, sort=b.fastest.minutes, subs=(b.fastest.time,)), Cell(", ".join(b.front)), Cell(b.since),
            ), facets=facets))
    return Table(number, "Cheapest and fastest instance per comparison and benchmark, and what the last price "
                         "snapshot changed", columns, tuple(rows), css="summary-table", cards=True)
