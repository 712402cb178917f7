"""Everything the report shows, built from the marts (never from raw/), as typed records.

Pure: frames in, a `Report` out, built in reading order so figures, tables and footnotes are
numbered as they are read (pipelines/publish/numbering.py) and the HTML and the PDF agree.
Numbers are formatted here once (pipelines/domain/units.py): the tables, the chart labels and
the summary show the same strings. The stages, each in its own module:

    report_answer    the answer page: the cheapest offers per comparison and benchmark, and their savings
    report_sections  one chapter per comparison: per benchmark a table, charts and findings
    report_changes   what the last price snapshot changed ("since ..." and its own chapter)
    appendix         the sources the notes cite, and the input files with their SHA-256
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from pipelines.domain.offers import DEFAULT_SPOT_STALE_AFTER_DAYS
from pipelines.domain.pricing import HOURS_PER_MONTH, option_label
from pipelines.domain.report_settings import ReportSettings
from pipelines.domain import units as fmt
from pipelines.publish import labels
from pipelines.domain.llm import described_models
from pipelines.domain.rounds import round_key
from pipelines.publish.appendix import APPENDIX, inputs_table, sources_table
from pipelines.publish.model_chapter import ModelChapter, model_chapter
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.numbering import Numbering
from pipelines.publish.records import Counts, Front, Heading, Table
from pipelines.domain import offers
from pipelines.publish.benchmark_table import benchmarks_table
from pipelines.publish.price_index import PriceIndex, price_index_part
from pipelines.publish.report_answer import (ANSWER, Answer, Section as Where, answer_figure, answer_table, has_savings,
                                             model_rows)
from pipelines.publish.report_changes import UNMOVED, Changes, changes_chapter
from pipelines.publish.report_sections import (BenchmarkSection, Paying, Section, Sources, comparison_section,
                                               paying_appendix)


@dataclass(frozen=True)
class ReportPricing:
    """How the report prices, in words for the summary and the methodology."""

    baseline: str  # "on demand": the pricing option the chapters' main tables and savings use
    options: str  # the options the data prices, of those report.toml asks for: "On demand, Spot, 1-year commitment"
    discounts: str  # "12% off AWS on_demand; ..." or ""
    stale_after_days: int
    ages: str  # "price dates from 2019-04-05 to 2025-06-01; 9 of 20 prices older than 365 days"
    hours_per_month: int = HOURS_PER_MONTH
    spot_stale_after_days: int = DEFAULT_SPOT_STALE_AFTER_DAYS  # a spot price older than this is no current price


@dataclass(frozen=True)
class Report:
    front: Front
    price_date: str
    previous_date: str | None
    answer: Answer
    sections: tuple[Section, ...]
    changes: Changes
    paying: Paying  # appendix: every way of paying, per benchmark
    methodology: Heading
    appendix_heading: Heading
    sources: Table  # the sources the notes cite
    appendix: Table  # the input files
    counts: Counts
    pricing: ReportPricing
    unknown_accelerators: str = ""  # "V100 (lambda, 2 offers); ...": catalog offers never priced
    benchmark_table: Table | None = None  # what one run of each benchmark trains (methodology)
    price_index: PriceIndex | None = None  # the market's price per accelerator-hour over the snapshots
    offer_kinds: tuple[str, ...] = tuple(offers.MEANING.values())  # what each kind of price is, in words
    models: ModelChapter | None = None  # "Your model's cost": report.toml's described models (publish/model_chapter.py)

    @property
    def benchmarks(self) -> list[BenchmarkSection]:
        """Every comparison's benchmark sections, in reading order (the summary's list)."""
        return [b for s in self.sections for b in s.benchmarks]

    @property
    def cheapest_moved(self) -> list[BenchmarkSection]:
        """The benchmarks whose cheapest offer or its cost moved since the previous snapshot: the answer page names
        them with the chapters' own sentence (report_changes.since), so the two never disagree."""
        return [b for b in self.benchmarks if b.cheapest and b.since not in UNMOVED]

    @property
    def chapters(self) -> str:
        """"section 2" or "sections 2–5": where every instance is told."""
        first, last = self.sections[0].heading.number, self.sections[-1].heading.number
        return f"section {first}" if first == last else f"sections {first}–{last}"


def build_context(
    *,
    settings: ReportSettings,
    dates: dict,
    cost: pl.DataFrame,
    cost_changes: pl.DataFrame,
    price_changes: pl.DataFrame,
    price_history: pl.DataFrame,
    systems: pl.DataFrame,
    time_to_train: pl.DataFrame,
    input_files: pl.DataFrame,
    generated_on: date,
    offers: pl.DataFrame,
    options: pl.DataFrame | None = None,
    cheapest: pl.DataFrame | None = None,
    unknown_accelerators: pl.DataFrame | None = None,
    chart_cache: ChartCache = NO_CACHE,
    models: dict[str, pl.DataFrame] | None = None,
    price_index: pl.DataFrame | None = None,
) -> Report:
    """`cost` holds the rows at the baseline's pricing option; `options` every pricing option's rows;
    `cheapest` the cheapest_options mart (the cheapest option per instance, in the pricing tables);
    `offers` the cheapest_offers mart (the answer page); the charts are drawn through `chart_cache`; `models` the
    tables of "Your model's cost" (stg_models, model_estimates, model_picks, model_not_priced, llm_throughput,
    model_calibration)."""
    numbering = Numbering()
    answer_number = numbering.table()  # the answer's table and chart come first in reading order
    answer_chart = numbering.figure() if has_savings(offers) else None
    sources = Sources.from_marts(dates=dates, systems=systems, time_to_train=time_to_train,
                                 price_history=price_history, cost_changes=cost_changes, cost=cost, options=options,
                                 cheapest=cheapest, settings=settings, chart_cache=chart_cache)
    sections = tuple(comparison_section(number, cost.filter(pl.col("comparison") == cid), sources, numbering)
                     for number, cid in enumerate(dict.fromkeys(cost["comparison"].to_list()), start=2))
    changes = changes_chapter(
        len(sections) + 2, cost=cost, cost_changes=cost_changes, price_changes=price_changes,
        comparison_titles={s.heading.anchor: s.heading.title for s in sections},
        price_date=dates["price_date"], previous_date=sources.previous_date, numbering=numbering)
    index = (price_index_part(price_index, dates["price_date"], numbering, chart_cache)
             if price_index is not None else None)
    model_chap = None
    if models and models["stg_models"].height:
        model_chap = model_chapter(len(sections) + 3, described_models(models["stg_models"].to_dicts()),
                                   models["model_estimates"], models["model_picks"], models["model_not_priced"],
                                   models["llm_throughput"], models["model_calibration"], numbering, chart_cache)
    paying, sections = paying_appendix("A", sections, sources, numbering)
    methodology = Heading("B", "Methodology", "methodology", kind="appendix")
    benchmark_table = benchmarks_table(numbering.table(), [b.benchmark for s in sections for b in s.benchmarks
                                                           if b.trains] + newest_benchmarks(time_to_train))
    sources_list = sources_table(numbering.table(), numbering.sources())
    appendix = inputs_table(numbering.table(), input_files)
    previous = fmt.day(sources.previous_date) if sources.previous_date else None
    pricing = report_pricing(settings, options if options is not None else cost)
    where = {(b.comparison_id, b.benchmark): Where(b.heading.number, b.heading.anchor, b.short)
             for s in sections for b in s.benchmarks}
    described = (model_rows(models["model_picks"], tuple(
        (Where(s.heading.number, s.heading.anchor, s.title), s.name)
        for s in model_chap.models)) if model_chap else ())
    answer = Answer(ANSWER, answer_table(answer_number, offers, where, described),
                    answer_figure(answer_chart, offers, where) if answer_chart else None)
    return Report(
        front=front(settings, dates, generated_on, sections, (ANSWER, *(s.heading for s in sections),
                                                              changes.heading,
                                                              *((model_chap.heading,) if model_chap else ()),
                                                              paying.heading, methodology, APPENDIX), pricing),
        price_date=fmt.day(dates["price_date"]), previous_date=previous, answer=answer,
        sections=sections, changes=changes, paying=paying, methodology=methodology,
        appendix_heading=APPENDIX, sources=sources_list, appendix=appendix, counts=numbering.counts(), pricing=pricing,
        unknown_accelerators=unknown_list(unknown_accelerators), benchmark_table=benchmark_table, price_index=index, models=model_chap,
    )


def newest_benchmarks(time_to_train: pl.DataFrame, rounds: int = 2) -> list[str]:
    """The benchmarks of the results of the newest `rounds` rounds held (today's: v5.1's FLUX.1 and Llama 3.1 8B,
    v6.0's mixtures of experts), for the benchmark table beside those the chapters compare."""
    held = sorted(set(time_to_train["round"].drop_nulls()), key=round_key)[-rounds:]
    return sorted(set(time_to_train.filter(pl.col("round").is_in(held))["benchmark"]))


def unknown_list(unknown: pl.DataFrame | None) -> str:
    """The catalogs' accelerators no alias matches, in words: "A6000 (lambda; 3 offers), ..." (both methodologies)."""
    if unknown is None or unknown.is_empty():
        return ""
    return "; ".join(f"{r['accelerator']} ({', '.join(labels.provider(p) for p in r['providers'].split(', '))}: "
                     f"{r['offers']} offer{'s' if r['offers'] != 1 else ''})" for r in unknown.iter_rows(named=True))


def report_pricing(settings: ReportSettings, options: pl.DataFrame) -> ReportPricing:
    """The pricing settings in words, and the spread of the shown prices' ages (pipelines/metrics/price_age.py)."""
    stale_after = settings.stale_after_days
    discounts = "; ".join(
        f"{d['percent']:g}% off {labels.provider(d['provider'])}{' ' + d['instance_type'] if d['instance_type'] else ''} "
        f"{d['pricing_model']}" for d in settings.discounts)
    ages = ""
    if "stale" in options.columns:
        spread = age_spread(options)
        if spread["prices"]:
            ages = (f"price dates from {fmt.day(spread['oldest'])} to {fmt.day(spread['newest'])}; "
                    f"{spread['stale']} of {spread['prices']} prices stale (older than {stale_after} days; spot: "
                    f"{settings.spot_stale_after_days})")
    # only the options the data prices: a data set with on-demand prices alone does not list spot or commitments
    priced = set(options.filter(pl.col("usd_per_hour").is_not_null())["pricing_option"].to_list()) \
        if "pricing_option" in options.columns else {"on_demand"}
    return ReportPricing(
        baseline=option_label(settings.baseline_pricing).lower(),
        options=", ".join(option_label(o) for o in settings.pricing_models if o in priced),
        discounts=discounts, stale_after_days=stale_after, ages=ages,
        spot_stale_after_days=settings.spot_stale_after_days)


def front(settings: ReportSettings, dates: dict, generated_on: date, sections: tuple[Section, ...],
          contents: tuple[Heading, ...], pricing: ReportPricing) -> Front:
    price_date = fmt.day(dates["price_date"])
    previous = dates.get("previous_price_date")
    benchmarks = ", ".join(labels.short_benchmark(b) for b in settings.benchmarks)
    facts = (("Prices as of", price_date),) + ((("Previous snapshot", fmt.day(previous)),) if previous else ()) + (
        ("Generated", fmt.day(generated_on)), ("Benchmarks", benchmarks), ("Comparisons", str(len(sections))),
        ("Pricing", f"{pricing.options}; savings against the baseline {pricing.baseline}"),
    ) + ((("Price ages", pricing.ages),) if pricing.ages else ()) + (
        (("Own prices", pricing.discounts),) if pricing.discounts else ())
    title, author = settings.title, settings.author
    return Front(
        title=title, subtitle=settings.subtitle, author=author, kicker="Price-performance report",
        description=(f"{settings.subtitle or 'Cost to train per cloud instance'}: cost to train, savings and "
                     f"speedup against a baseline, at {pricing.baseline} prices as of {price_date}, and under each "
                     f"pricing option ({pricing.options})."),
        keywords=f"MLPerf, cost to train, cloud, GPU, price-performance, {benchmarks}",
        generator="cost-to-train pipeline", price_date=price_date, generated_on=fmt.day(generated_on), facts=facts,
        note=("Cost to train = price per hour × measured time to train, under each pricing option (a commitment at its "
              "effective hourly rate). Prices are in USD without storage or network; "
              + (f"list prices except the user's own negotiated prices ({pricing.discounts}), marked “own price”."
                 if pricing.discounts else "list prices, without negotiated discounts.")),
        contents=contents,
        colophon=" · ".join(p for p in (title, f"prices as of {price_date}", f"generated {fmt.day(generated_on)}",
                                        author) if p),
    )


def age_spread(frame: pl.DataFrame, as_of: str = "price_as_of") -> dict:
    """The oldest and newest price date of `frame` and how many distinct prices are stale (the summary's line).

    Counts each (provider, region, instance_type, pricing_option) price once however many rows show it."""
    priced = frame.filter(pl.col(as_of).is_not_null())
    key = [c for c in ("provider", "region", "instance_type", "pricing_option") if c in priced.columns]
    prices = priced.unique(subset=key + [as_of])
    return {
        "oldest": prices[as_of].min() if prices.height else None,
        "newest": prices[as_of].max() if prices.height else None,
        "prices": prices.height,
        "stale": int(prices["stale"].sum()) if prices.height else 0,
    }
