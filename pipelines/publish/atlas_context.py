"""Everything the atlas shows, built from the atlas marts (never from the corpus), as typed records.

Pure: frames in, an `Atlas` out, built in reading order with the report's numbering, footnotes,
number formats, charts and records (pipelines/publish/). The stages: the summary and the trend
across rounds (here), one chapter per round (atlas_rounds), the entries not priced and the
instances with their prices (here).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

import polars as pl

from pipelines.domain.rounds import round_key
from pipelines.domain.pricing import DEFAULT_STALE_AFTER_DAYS
from pipelines.domain import units as fmt
from pipelines.publish import charts, labels
from pipelines.publish.atlas_rounds import (WEB, Detail, RoundChapter, Scoring, anchor, instances_label, model_name,
                                           round_chapter, scoring, target)
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.numbering import Numbering
from pipelines.publish.palette import Palette
from pipelines.publish.context import age_spread, unknown_list
from pipelines.publish.records import Cell, Column, Counts, Figure, Front, Heading, Row, Table, Tag, chart_id
from pipelines.publish.web_assets import json_rows

SUMMARY = Heading("1", "Summary", "summary")
TREND = Heading("2", "The cheapest cost to train across rounds", "trend", running="2 Across rounds")
INSTANCES = Heading("A", "Cloud instances and prices", "instances", running="A Cloud instances", kind="appendix")
# The digest prints the instances appendix apart: it changes with the price book only, so a new round
# does not lay out its pages again (13 of atlas.pdf's 28 for the whole corpus).
INSTANCES_FILE = "atlas-instances.pdf"


@dataclass(frozen=True)
class Facts:
    scoring: Scoring  # the corpus's benchmark entries: by the official summarizer, by the rules, unscored
    priced_results: int
    pairs: int  # result × instance pairs
    unpriced: int
    instances: int
    runs: int  # result files
    estimate_pairs: int  # pairs not measured on the cloud they are priced on
    price_oldest: str | None  # the oldest and newest date of the prices the pairs use
    price_newest: str | None
    prices_used: int  # distinct prices (instance, region, date) the pairs use
    prices_stale: int  # of them, older than the stale age at the price date
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS  # report.toml stale_after_days

    @property
    def entries(self) -> int:
        return self.scoring.entries

    @property
    def scored(self) -> int:
        return self.scoring.scored

    @property
    def unscored(self) -> int:
        return self.scoring.unscored

    @property
    def price_ages(self) -> str:
        return price_ages(self)

    @property
    def unpriced_share(self) -> str:
        return fmt.pct(100.0 * self.unpriced / self.entries, signed=False) if self.entries else "–"


@dataclass(frozen=True)
class Unpriced:
    heading: Heading
    total: int
    reasons: tuple[tuple[str, int], ...]  # (why, entries), most frequent first
    table: Table | None  # the first entries (Detail.unpriced_listed)


@dataclass(frozen=True)
class Atlas:
    front: Front
    price_date: str
    facts: Facts
    summary_heading: Heading
    summary: Table
    trend_heading: Heading
    trend_figure: Figure | None
    trend: Table
    chapters: tuple[RoundChapter, ...]
    unpriced: Unpriced
    methodology: Heading
    instances_heading: Heading
    instances: Table
    pairs: Table | None  # web only: every priced result × instance pair
    counts: Counts
    detail: Detail = WEB
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    unknown_accelerators: str = ""  # the catalogs' accelerators no alias names (never priced)


def build_context(tables: dict[str, pl.DataFrame], *, price_date: date, generated_on: str, mlperf_dir: str,
                  detail: Detail = WEB, stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
                  cache: ChartCache = NO_CACHE) -> Atlas:
    """`tables`: the atlas marts and staging tables (atlas_costs, atlas_unpriced, atlas_trend, atlas_scores,
    atlas_runs, atlas_systems, atlas_instances, and atlas_instance_prices: metrics.atlas.instance_prices, which the
    wiring computes). `detail`: the web edition's (WEB) or the
    PDF digest's (atlas_rounds.DIGEST). `cache`: where drawn charts are kept (publish/chart_cache.py).
    `generated_on`: the build day as printed (YYYY-MM-DD; the digest's PDFs take pdf_parts.GENERATED)."""
    numbering = Numbering()
    costs = with_system_facts(tables["atlas_costs"], tables["atlas_systems"])
    scores, trend = tables["atlas_scores"], tables["atlas_trend"]
    rounds = sorted(set(scores["round"].drop_nulls().to_list()), key=round_key)
    # one colour per accelerator model in every figure: the catalog's models, sorted
    palette = Palette(sorted(set(tables["atlas_instances"]["accelerator_model"].drop_nulls().to_list())
                             | set(costs["accelerator_model"].drop_nulls().to_list())))
    summary = summary_table(numbering.table(), trend, fixed=detail.fixed_tables, links=not detail.apart)
    trend_figure = trend_chart(numbering.figure(), trend, rounds, palette, cache) if trend.height else None
    trend_rows = trend_table(numbering.table(), trend, fixed=detail.fixed_tables)
    chapters = tuple(round_chapter(number, round_, costs.filter(pl.col("round") == round_),
                                   scoring(scores.filter(pl.col("round") == round_)), numbering, palette, detail, cache)
                     for number, round_ in enumerate(sorted(set(costs["round"].to_list()), key=round_key), start=3))
    unpriced = unpriced_section(len(chapters) + 3, tables["atlas_unpriced"], numbering, detail.unpriced_listed)
    methodology = Heading(str(len(chapters) + 4), "Methodology", "methodology")
    instances_heading = replace(INSTANCES, file=INSTANCES_FILE) if detail.apart else INSTANCES
    # numbered within the appendix (A.1), so a new round, which numbers its own tables, leaves it unchanged
    instances = instances_table(f"{INSTANCES.number}.1", tables["atlas_instance_prices"], price_date,
                                fixed=detail.fixed_tables)
    facts = corpus_facts(scores, costs, tables["atlas_unpriced"], tables["atlas_instances"], tables["atlas_runs"],
                         stale_after_days)
    contents = (SUMMARY, TREND, *(c.heading for c in chapters), unpriced.heading, methodology, instances_heading)
    return Atlas(
        front=front(price_date, generated_on, mlperf_dir, rounds, facts, contents), price_date=fmt.day(price_date),
        facts=facts, summary_heading=SUMMARY, summary=summary, trend_heading=TREND, trend_figure=trend_figure,
        trend=trend_rows, chapters=chapters, unpriced=unpriced, methodology=methodology,
        instances_heading=instances_heading, instances=instances, pairs=pairs_table(tables["atlas_costs"]) if detail.every_pair else None,
        detail=detail, stale_after_days=stale_after_days,
        counts=numbering.counts(), unknown_accelerators=unknown_list(tables.get("catalog_unknown_accelerators")))


@dataclass(frozen=True)
class RoundDocument:
    """One round of the digest as a document of its own (atlas_round.html.j2, printed as its heading's file)."""

    front: Front
    chapter: RoundChapter
    price_date: str
    stale_after_days: int


def round_documents(atlas: Atlas) -> tuple[RoundDocument, ...]:
    """The rounds that `atlas` prints apart (Detail.apart), each with a title page of its own."""
    return tuple(RoundDocument(round_front(atlas.front, c), c, atlas.price_date, atlas.stale_after_days)
                 for c in atlas.chapters if c.heading.file)


@dataclass(frozen=True)
class InstancesDocument:
    """The instances appendix as a document of its own (atlas_instances.html.j2, printed as its heading's file)."""

    front: Front
    heading: Heading
    instances: Table


def instances_document(atlas: Atlas) -> InstancesDocument | None:
    """The instances appendix, where `atlas` prints it apart (Detail.apart), with a title page of its own."""
    heading = atlas.instances_heading
    if not heading.file:
        return None
    front = part_front(
        atlas.front, title="Cloud instances and prices: the price-performance atlas",
        kicker=f"Price-performance atlas · appendix {heading.number}",
        subtitle="Every cloud instance the atlas prices, its on-demand price in force and that price's source",
        description=f"The cloud instances of the MLPerf price-performance atlas and their on-demand prices as of "
                    f"{atlas.price_date}.",
        facts=(("Instance types", str(len(atlas.instances.rows))),
               ("The whole atlas", "atlas.pdf (summary, trend, methodology), atlas-<round>.pdf (each round), "
                                   "atlas.html (every result)")),
        contents=(heading,))
    return InstancesDocument(front, heading, atlas.instances)


def round_front(atlas: Front, chapter: RoundChapter) -> Front:
    """The title page and contents of one round's PDF: the atlas's, narrowed to the round."""
    results, pairs = sum(m.results for m in chapter.models), sum(m.pairs for m in chapter.models)
    return part_front(
        atlas, title=f"MLPerf Training {chapter.round}: the price-performance atlas",
        kicker=f"Price-performance atlas · digest of round {chapter.round}",
        subtitle=f"Every published MLPerf Training {chapter.round} result, priced on every matching cloud instance",
        description=f"MLPerf Training {chapter.round}: the cheapest results per benchmark model at on-demand cloud "
                    f"prices as of {atlas.price_date}.",
        facts=(("Benchmark models", str(len(chapter.models))),
               ("Benchmark entries", str(chapter.scoring)),
               ("Priced results", f"{results} ({pairs} result × instance pairs)"),
               ("The whole atlas", f"atlas.pdf (summary, trend, methodology), {INSTANCES_FILE} (prices), "
                                   "atlas.html (every result)")),
        contents=chapter.heading.children)


def part_front(atlas: Front, *, title: str, kicker: str, subtitle: str, description: str,
               facts: tuple[tuple[str, str], ...], contents: tuple[Heading, ...]) -> Front:
    """The title page of a part of the digest printed apart: the atlas's, with its own title, facts
    (after the atlas's price date and build day) and contents."""
    return replace(
        atlas, title=title, kicker=kicker, subtitle=subtitle, description=description,
        facts=(("Prices as of", atlas.price_date), ("Generated", atlas.generated_on), *facts), contents=contents,
        colophon=f"{title} · prices as of {atlas.price_date} · generated {atlas.generated_on}")


def corpus_facts(scores: pl.DataFrame, costs: pl.DataFrame, unpriced: pl.DataFrame, instances: pl.DataFrame,
                 runs: pl.DataFrame, stale_after_days: int = DEFAULT_STALE_AFTER_DAYS) -> Facts:
    """What the cover and the summary count: entries, what is priced, what is an estimate, how old the prices are."""
    ages = age_spread(costs) if "stale" in costs.columns else {"oldest": None, "newest": None, "prices": 0, "stale": 0}
    return Facts(
        scoring=scoring(scores),
        priced_results=costs.select("folder", "system", "round", "benchmark").unique().height, pairs=costs.height,
        unpriced=unpriced.height, instances=instances.height, runs=runs.height,
        estimate_pairs=costs.filter(pl.col("price_basis") != "same cloud").height,
        price_oldest=fmt.day(ages["oldest"]) if ages["oldest"] else None,
        price_newest=fmt.day(ages["newest"]) if ages["newest"] else None,
        prices_used=ages["prices"], prices_stale=ages["stale"], stale_after_days=stale_after_days)


def price_ages(facts: Facts) -> str:
    """"6 prices dated 2022-02-08 to 2025-06-01; 5 stale (over 365 days old)": the cover's and summary's line."""
    if not facts.prices_used:
        return "no price used"
    dates = facts.price_oldest if facts.price_oldest == facts.price_newest else f"{facts.price_oldest} to {facts.price_newest}"
    return f"{facts.prices_used} prices dated {dates}; {facts.prices_stale} stale (over {facts.stale_after_days} days old)"


def with_system_facts(costs: pl.DataFrame, systems: pl.DataFrame) -> pl.DataFrame:
    """atlas_costs with what the footnotes say of each system that atlas_costs lacks (host, framework,
    software, accelerator memory, where the node count comes from)."""
    facts = systems.select("round", "folder", "system",
                           *(c for c in ("host_processor_model_name", "framework", "software", "accelerator_memory_capacity",
                                         "nodes_source")
                             if c not in costs.columns))
    return costs.join(facts, on=["round", "folder", "system"], how="left")


def front(price_date: date, generated_on: str, mlperf_dir: str, rounds: list[str], facts: Facts,
          contents: tuple[Heading, ...]) -> Front:
    title, subtitle = ("The MLPerf price-performance atlas",
                       "Every published MLPerf Training result, priced on every matching cloud instance")
    day = fmt.day(price_date)
    corpus = mlperf_dir.rstrip("/").rsplit("/", 1)[-1]
    return Front(
        title=title, subtitle=subtitle, author="Cost-to-train pipeline", kicker="Price-performance atlas",
        description=(f"{subtitle}: scale-aware cost to train of MLPerf Training results {', '.join(rounds)} at "
                     f"on-demand cloud prices as of {day}."),
        keywords="MLPerf, atlas, cost to train, cloud, GPU, TPU, price-performance",
        generator="cost-to-train pipeline (atlas)", price_date=day, generated_on=generated_on,
        facts=(("Prices as of", day), ("Generated", generated_on), ("Rounds", ", ".join(rounds)),
               ("Benchmark entries", f"{facts.scoring}; {fmt.count(facts.runs)} result files"),
               ("Priced results", f"{facts.priced_results} on {facts.instances} cloud instance types "
                                  f"({facts.pairs} result × instance pairs)"),
               ("Estimates", f"{facts.estimate_pairs} of {facts.pairs} pairs (not measured on that cloud)"),
               ("Not priced", f"{facts.unpriced} of {facts.entries} entries ({facts.unpriced_share})"),
               ("Price ages", price_ages(facts))),
        note=("Cost to train = instances needed for the result's accelerators × on-demand price per hour × time to "
              "train. List prices in USD, without discounts, storage or network. Results measured outside the cloud "
              "are priced at cloud rates: those costs are estimates. “Cheapest”: among the priced results."),
        contents=contents,
        colophon=f"{title} · corpus {corpus} · prices as of {day} · generated {generated_on}",
    )


def _by_round(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda r: round_key(r["round"]))


def _configuration(r: dict) -> str:
    return f"{r['system']} ({r['submitter']})"


SUMMARY_COLUMNS = (Column("Benchmark model", header=True, width="18%"), Column("Round", facet="Round", width="7%"),
                   Column("Cheapest cost", numeric=True, width="11%"), Column("Configuration", css="system", width="32%"),
                   Column("Time to train", numeric=True, width="10%"), Column("Against the first priced round", width="22%"))


def summary_table(number: int, trend: pl.DataFrame, fixed: bool = False, links: bool = True) -> Table:
    """Per benchmark model: its cheapest configuration in the newest priced round, against the first.
    `links`: each model links to its section (not where the rounds are documents of their own)."""
    rows = []
    for model in sorted(set(trend["benchmark_model"].to_list())):
        rounds = _by_round(trend.filter(pl.col("benchmark_model") == model).to_dicts())
        first, last = rounds[0], rounds[-1]
        change = last["change_since_first_pct"]
        rows.append(Row((
            Cell(model_name(model), link=anchor(last["round"], model) if links else None), Cell(last["round"]),
            Cell(fmt.usd(last["cheapest_cost_usd"]), sort=last["cheapest_cost_usd"]),
            Cell(f"{_configuration(last)} on {instances_label(last)}", breakable=True),
            Cell(fmt.minutes(last["time_to_train_minutes"]), sort=last["time_to_train_minutes"]),
            Cell(f"{fmt.less_more(change)} than in {first['round']}" if len(rounds) > 1 else "first round priced",
                 sort=change if len(rounds) > 1 else None),
        ), facets=(("Provider", labels.provider(last["provider"])), ("Accelerator", last["accelerator_model"] or "–"))))
    return Table(number, "Cheapest cost to train per benchmark model, newest priced round", SUMMARY_COLUMNS,
                 tuple(rows), css="summary-table", csv="atlas_trend", empty="No result could be priced.", cards=True,
                 fixed=fixed)


def trend_chart(number: int, trend: pl.DataFrame, rounds: list[str], palette: Palette,
                cache: ChartCache = NO_CACHE) -> Figure:
    """Small multiples: a panel per benchmark model, its cheapest cost per round coloured by accelerator."""
    panels = {model_name(model): [charts.TrendPoint(
                  rounds.index(r["round"]), r["cheapest_cost_usd"], r["accelerator_model"],
                  f"{model_name(model)}, {r['round']}: {fmt.usd(r['cheapest_cost_usd'])}, {_configuration(r)} on "
                  f"{instances_label(r)}, {fmt.minutes(r['time_to_train_minutes'])}")
              for r in sorted(trend.filter(pl.col("benchmark_model") == model).to_dicts(), key=lambda r: round_key(r["round"]))
              if r["round"] in rounds]
              for model in sorted(set(trend["benchmark_model"].to_list()))}
    alt = ("Small multiples, one panel per benchmark model, of the cheapest cost to train per MLPerf round (log scale), "
           "each point coloured by the accelerator of that configuration: "
           + "; ".join(f"{name}: " + ", ".join(f"{rounds[p.round_index]} {fmt.usd(p.usd)} ({p.key})" for p in points)
                       for name, points in panels.items()) + ".")
    styles = {k: palette[k] for k in sorted(set(trend["accelerator_model"].drop_nulls().to_list()))}  # sorted: a stable key
    return Figure(number, cache.svg(charts.trend_chart, panels, rounds, styles, chart_id(number), alt), alt,
                  "Cheapest cost to train per round, one panel per benchmark model (log scale, each panel its own "
                  "range), coloured by the accelerator of the cheapest configuration.", css="wide")


TREND_COLUMNS = (Column("Benchmark model", header=True, width="15%"), Column("Round", facet="Round", width="7%"),
                 Column("Cheapest cost", numeric=True, width="9%"), Column("Change", numeric=True, width="8%"),
                 Column("Result", css="system", width="16%"), Column("Instances", width="16%"),
                 Column("Time", numeric=True, width="9%"), Column("Quality target", width="20%"))


def trend_table(number: int, trend: pl.DataFrame, fixed: bool = False) -> Table:
    """Every benchmark model's cheapest result per round; a change of quality target is tagged."""
    rows, previous = [], None
    for r in sorted(trend.to_dicts(), key=lambda r: (r["benchmark_model"], round_key(r["round"]))):
        goal = target(r["round"], r["benchmark"])
        changed = previous is not None and previous[0] == r["benchmark_model"] and previous[1] != goal
        previous = (r["benchmark_model"], goal)
        rows.append(Row((
            Cell(model_name(r["benchmark_model"]), subs=(r["benchmark"],)), Cell(r["round"]),
            Cell(fmt.usd(r["cheapest_cost_usd"]), sort=r["cheapest_cost_usd"]),
            Cell(fmt.pct(r["change_pct"]), sort=r["change_pct"]),
            Cell(_configuration(r), subs=(f"{r['results_priced']} result(s) priced",), breakable=True),
            Cell(instances_label(r)),
            Cell(fmt.minutes(r["time_to_train_minutes"]), sort=r["time_to_train_minutes"]),
            Cell(goal, tags=(Tag("target changed"),) if changed else ()),
        ), facets=(("Provider", labels.provider(r["provider"])), ("Accelerator", r["accelerator_model"] or "–"),
                   ("Benchmark", model_name(r["benchmark_model"])))))
    return Table(number, "Cheapest cost to train per benchmark model and round", TREND_COLUMNS, tuple(rows),
                 css="trend-table", csv="atlas_trend", fixed=fixed)


UNPRICED_COLUMNS = (Column("Round", facet="Round"), Column("Submitter"), Column("System", css="system"),
                    Column("Benchmark", facet="Benchmark"),
                    Column("Why"))


def unpriced_section(number: int, unpriced: pl.DataFrame, numbering: Numbering, listed_rows: int) -> Unpriced:
    """Why entries have no cost: counted by reason, and the first ones listed."""
    reasons = (unpriced.with_columns(pl.col("not_priced_because").str.split(": ").list.first().alias("why"))
               .group_by("why").agg(pl.len().alias("entries")).sort("entries", "why", descending=[True, False]))
    listed = unpriced.sort("round", "folder", "system", "benchmark", nulls_last=True).head(listed_rows).to_dicts()
    table = None
    if listed:
        caption = "Entries not priced" + (f" (first {len(listed)} of {unpriced.height}; all in data/atlas_not_priced.csv)"
                                          if len(listed) < unpriced.height else "")
        table = Table(numbering.table(), caption, UNPRICED_COLUMNS, tuple(
            Row((Cell(r["round"]), Cell(r["submitter"] or r["folder"]), Cell(r["system"], breakable=True),
                 Cell(r["benchmark"] or "?"), Cell(r["not_priced_because"])))
            for r in listed), css="unpriced-table", csv="atlas_not_priced")
    return Unpriced(Heading(str(number), "Entries not priced, and why", "not-priced", running=f"{number} Not priced"),
                    unpriced.height, tuple(reasons.iter_rows()), table)


INSTANCE_COLUMNS = (Column("Instance", header=True, width="15%"), Column("Accelerators", width="12%"),
                    Column("Billed per", width="8%"), Column("USD per hour", numeric=True, width="9%"),
                    Column("Region, as of", width="11%"), Column("Certainty", width="11%"),
                    Column("Source", css="small", width="34%"))


def instances_table(number: str, instance_prices: pl.DataFrame, price_date: date, fixed: bool = False) -> Table:
    """Every cloud instance of the atlas with its on-demand price in force on the price date
    (metrics.atlas.instance_prices, in its order)."""
    rows = instance_prices.to_dicts()
    return Table(number, f"Cloud instances, prices in force on {fmt.day(price_date)} and their sources", INSTANCE_COLUMNS,
                 tuple(Row((
                     Cell(labels.instance(r["provider"], r["instance_type"]), breakable=True),
                     Cell(f"{r['accelerator_count']} × {r['accelerator_model']}"), Cell(r["billing"]),
                     Cell(fmt.usd_hour(r["usd_per_hour"]) if r["usd_per_hour"] is not None else "no price",
                          sort=r["usd_per_hour"]),
                     Cell(r["region"] or "–", subs=(fmt.day(r["as_of"]),)), Cell(r["certainty"] or "–"),
                     Cell((r["source"] or "–") + (f" ({r['notes']})" if r["notes"] else "")),
                 ), facets=(("Provider", labels.provider(r["provider"])), ("Accelerator", r["accelerator_model"] or "–")))
                 for r in rows), css="instances-table", csv="atlas_prices", fixed=fixed)


def _words(value) -> str:
    return str(value).replace("_", " ") if value is not None else "–"


# Columns of atlas_costs that only some corpora or price books have: shown, and filtered by, when present.
OPTIONAL_PAIR_COLUMNS = tuple((key, Column(name, facet=name)) for key, name in labels.OPTIONAL_FACETS)


def pairs_table(costs: pl.DataFrame) -> Table:
    """The web edition's table of every priced result × instance pair, in data/atlas.csv's order (its
    rows travel as JSON and are drawn a page at a time: the whole corpus has 10,000+)."""
    optional = [(name, column) for name, column in OPTIONAL_PAIR_COLUMNS if name in costs.columns]
    # on screen, the columns after the cost are shown on request (Column.detail): the table fits 1280 px
    columns = (Column("Round", facet="Round"), Column("Benchmark model"), *(replace(c, detail=True) for _, c in optional),
               Column("Submitter", detail=True), Column("System", header=True, css="system"), Column("Accelerators"),
               Column("Time to train", numeric=True), Column("Instance"), Column("Region", detail=True),
               Column("Instances", numeric=True, detail=True), Column("USD per hour", numeric=True),
               Column("Cost to train", numeric=True), Column("Accel\u200berator-hours", numeric=True, detail=True),
               Column("USD per accel\u200berator-hour", numeric=True, detail=True), Column("Rank", numeric=True),
               Column("Tags", detail=True))

    def row(r: dict) -> Row:
        tags = ", ".join(t for t, on in (("Pareto", r["on_pareto_front"]), ("fastest", r["fastest"]),
                                         ("cheapest " + (r["accelerator_model"] or ""), r["cheapest_for_accelerator"]),
                                         ("estimate", r["price_basis"] != "same cloud"),
                                         ("division unknown", r.get("division") is None),
                                         ("scored by the rules", r.get("score_basis") == "rules")) if on)
        return Row((
            Cell(r["round"]), Cell(model_name(r["benchmark_model"])), *(Cell(_words(r[name])) for name, _ in optional),
            Cell(r["submitter"] or r["folder"]), Cell(r["system"]),
            Cell(f"{r['accelerators_total']} × {r['accelerator_model']}", sort=r["accelerators_total"]),
            Cell(fmt.minutes(r["time_to_train_minutes"]), sort=r["time_to_train_minutes"]),
            Cell(labels.instance(r["provider"], r["instance_type"])), Cell(r["region"] or "–"),
            Cell(fmt.count(r["instances_needed"]), sort=r["instances_needed"]),
            Cell(fmt.usd_hour(r["usd_per_hour"]), sort=r["usd_per_hour"]),
            Cell(fmt.usd(r["cost_to_train_usd"]), sort=r["cost_to_train_usd"]),
            Cell("–" if r["accelerator_hours"] is None else f"{r['accelerator_hours']:,.1f}", sort=r["accelerator_hours"]),
            Cell(fmt.usd(r["usd_per_accelerator_hour"]), sort=r["usd_per_accelerator_hour"]),
            Cell(fmt.count(r["cost_rank"]), sort=r["cost_rank"]), Cell(tags),
        ), facets=(("Provider", labels.provider(r["provider"])), ("Accelerator", r["accelerator_model"] or "–"),
                   ("Benchmark", model_name(r["benchmark_model"]))))

    rows = json_rows(columns, (row(r) for r in costs.iter_rows(named=True)))  # one row's cells at a time
    return Table(0, f"Every priced result × instance pair ({rows.count:,}; on demand: the on-demand rows of data/atlas.csv)", columns,
                 rows, css="pairs-table", csv="atlas", empty="This table needs JavaScript; data/atlas.csv "
                 "has the same rows.", anchor="every-pair", web_only=True)
