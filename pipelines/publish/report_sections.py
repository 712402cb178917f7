"""The report's chapters: one per comparison of report.toml, and in it one section per benchmark
with its table, its charts and what they show (cheapest, fastest, Pareto front, break-even)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date

import polars as pl

from pipelines.domain.best import TIED
from pipelines.domain.benchmarks import benchmark_facts
from pipelines.domain.offers import LIST, headline_rows
from pipelines.domain.pricing import on_demand
from pipelines.domain.report_settings import ReportSettings
from pipelines.domain import units as fmt
from pipelines.publish import charts, labels
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.labels import instance_of as label
from pipelines.publish.energy_cells import ENERGY_COLUMNS, emissions_figure, energy_cells
from pipelines.domain.columns import MEASURED_BASIS, OWN_MEASUREMENT
from pipelines.publish.footnotes import runs_note, system_note, throughput_note
from pipelines.publish.numbering import Numbering
from pipelines.publish.palette import Palette
from pipelines.publish.records import Cell, Column, Figure, Heading, Note, Row, Table, Tag, chart_id
from pipelines.publish.report_changes import since
from pipelines.publish.report_pricing import (PricingTables, option_note, price_line_key, price_subs, price_tags,
                                             pricing_tables)

MAX_BARS = 12  # bars per chart: two charts to a printed row stay legible (a whole market has 20 offers)
MAX_POINT_LABELS = 15  # labelled points in a scatter plot
MAX_SERIES = 10  # lines in the price history
INSTANCE_KEY = ("provider", "region", "instance_type")


@dataclass(frozen=True)
class Sources:
    """What the footnotes, the price history and the "since" sentences look up, built once."""

    systems: dict  # system -> its stg_systems row
    scores: dict  # (system, benchmark) -> its time_to_train row
    price_lines: dict  # report_pricing.price_line_key of every price -> "<file> line <n>"
    history: dict  # (provider, region, instance_type) -> [(as_of, usd_per_hour)] up to the price date
    changes: dict  # (comparison, benchmark) -> its cost_changes rows
    price_date: date
    previous_date: date | None
    options: dict  # (comparison, benchmark) -> its cost_to_train rows of every pricing option
    cheapest: dict  # (comparison, benchmark) -> its cheapest_options rows (the cheapest option per instance)
    settings: ReportSettings  # report.toml's
    palette: Palette  # one colour and marker per instance, in every figure
    chart_cache: ChartCache = NO_CACHE  # each chart drawn once per content (publish/chart_cache.py)

    @classmethod
    def from_marts(cls, *, dates: dict, systems: pl.DataFrame, time_to_train: pl.DataFrame,
                   price_history: pl.DataFrame, cost_changes: pl.DataFrame, cost: pl.DataFrame,
                   options: pl.DataFrame | None = None, cheapest: pl.DataFrame | None = None,
                   settings: ReportSettings, chart_cache: ChartCache = NO_CACHE) -> Sources:
        # where every price comes from (the sources appendix), then the chapters' history charts: on-demand
        # list prices (the pricing options' table has its own, report_pricing.py)
        price_lines = {price_line_key({**r, "price_as_of": r["as_of"]}): f"{r['file']} line {r['line']}"
                       for r in price_history.iter_rows(named=True)}
        price_history = on_demand(price_history)
        history: dict[tuple, list] = {}
        for r in price_history.filter(pl.col("as_of") <= dates["price_date"]).sort("as_of").iter_rows(named=True):
            history.setdefault(tuple(r[k] for k in INSTANCE_KEY), []).append((r["as_of"], r["usd_per_hour"]))
        changes: dict[tuple, list] = {}
        for r in cost_changes.iter_rows(named=True):
            changes.setdefault((r["comparison"], r["benchmark"]), []).append(r)
        by_benchmark: dict[tuple, list] = {}
        for r in (options.iter_rows(named=True) if options is not None else ()):
            by_benchmark.setdefault((r["comparison"], r["benchmark"]), []).append(r)
        picks: dict[tuple, list] = {}
        for r in (cheapest.iter_rows(named=True) if cheapest is not None else ()):
            picks.setdefault((r["comparison"], r["benchmark"]), []).append(r)
        return cls(
            systems={r["system"]: r for r in systems.iter_rows(named=True)},
            scores={(r["system"], r["benchmark"]): r for r in time_to_train.iter_rows(named=True)},
            price_lines=price_lines,
            history=history, changes=changes,
            price_date=dates["price_date"], previous_date=dates.get("previous_price_date"),
            options=by_benchmark, cheapest=picks, settings=settings,
            palette=Palette(label(r) for r in cost.sort("position", maintain_order=True).iter_rows(named=True)),
            chart_cache=chart_cache,
        )


@dataclass(frozen=True)
class Pick:
    """An instance the text singles out (the cheapest, the fastest), with the figures it quotes."""

    label: str
    cost: str
    time: str
    usd: float
    minutes: float
    kind: str = ""  # "an auction price": an offer that is not the provider's own published price (its offer_kind)
    tied: int = 1  # the offers that share its figure (the fastest: one measured result behind several offers)


@dataclass(frozen=True)
class RunnerUp:
    """The next cheapest instance and the hourly price at which it would match the cheapest."""

    label: str
    price: str
    price_to_beat: str
    cut: str  # how far its price must fall, in percent


@dataclass(frozen=True)
class BenchmarkSection:
    heading: Heading
    short: str  # "ResNet-50"
    comparison: str  # the comparison's title
    table: Table
    figures: tuple[Figure, ...]  # cost; savings and time against cost where there is something to show
    cheapest: Pick | None
    fastest: Pick | None
    baseline: str | None
    baseline_cost: str | None  # None when the baseline has no result
    cheapest_is_baseline: bool
    cheapest_is_fastest: bool
    savings: str | None  # the cheapest's savings, as the tables show them
    savings_pct: float | None
    savings_words: str | None  # "costs 63.8% less than the baseline"
    runner_up: RunnerUp | None
    front: tuple[str, ...]
    front_sentence: str
    since: str  # what the last price snapshot changed
    missing: tuple[str, ...]  # instances without a measured result
    pricing: PricingTables | None = None  # cost under each pricing option (its appendix); None when all is on demand
    paying: Heading | None = None  # where the appendix shows those tables
    about: str = ""  # a workload's description (report.toml [workloads])
    trains: str = ""  # what one MLPerf run of the benchmark trains (domain/benchmarks.py); "" for a workload
    monthly: str = ""  # a workload's cost a month at its runs_per_month
    value: str = ""  # the best samples per dollar against the baseline's
    comparison_id: str = ""  # report.toml's id of the comparison
    benchmark: str = ""  # the benchmark (or workload) name


@dataclass(frozen=True)
class Section:
    heading: Heading
    description: str
    baseline: str | None
    benchmarks: tuple[BenchmarkSection, ...]
    history: Figure
    notes: tuple[Note, ...]  # the footnotes first called in this chapter


def ordered(rows: list[dict]) -> list[dict]:
    """In the order of cost_rank (domain/best.py's one rule: cheapest first, an auction's or a marketplace's offer
    after every other); instances without a result last, in report.toml's order."""
    return sorted(rows, key=lambda r: (r["cost_rank"] is None, r["cost_rank"] or 0, r["position"]))


def comparison_section(number: int, comparison: pl.DataFrame, sources: Sources, numbering: Numbering) -> Section:
    """Chapter `number`: one comparison's benchmarks, then its price history and its notes."""
    first = comparison.row(0, named=True)
    notes = numbering.chapter()
    benchmarks = tuple(
        benchmark_section(f"{number}.{i}", ordered(comparison.filter(pl.col("benchmark") == bench).to_dicts()),
                          sources, numbering)
        for i, bench in enumerate(dict.fromkeys(comparison["benchmark"].to_list()), start=1)
    )
    baseline = next((label(r) for r in comparison.iter_rows(named=True) if r["is_baseline"]), None)
    return Section(
        heading=Heading(str(number), first["comparison_title"], first["comparison"],
                        children=tuple(b.heading for b in benchmarks)),
        description=first.get("description") or "", baseline=baseline, benchmarks=benchmarks,
        history=history_figure(numbering.figure(), number, comparison, sources), notes=tuple(notes),
    )


def benchmark_section(number: str, rows: list[dict], sources: Sources, numbering: Numbering) -> BenchmarkSection:
    """One benchmark of a comparison; `rows` in the table's order (cheapest first)."""
    first = rows[0]
    bench, workload = first["benchmark"], first.get("workload_title")
    short = workload.split(" (")[0] if workload else labels.short_benchmark(bench)
    known = [r for r in rows if r["cost_to_train_usd"] is not None]
    baseline = next((r for r in rows if r["is_baseline"]), None)
    # the pick: the first in the headline (rows rank an auction's, a marketplace's or a stale spot price last)
    cheapest = next(iter(headline_rows(known, sources.settings.headline_offer_kinds)), None)
    fastest = fastest_of(known, sources.settings.headline_offer_kinds)
    front = tuple(label(r) for r in sorted(known, key=lambda r: (r["time_to_train_minutes"], r["position"]))
                  if r["on_pareto_front"])
    table = cost_table(numbering.table(), short, rows, sources, numbering)
    return BenchmarkSection(
        heading=Heading(number, workload or labels.benchmark(bench), f"{first['comparison']}-{bench}"),
        short=short, comparison=first["comparison_title"], table=table,
        figures=cost_figures(rows, short, front, numbering, sources.palette, sources.chart_cache),
        cheapest=_pick(cheapest), fastest=_pick(fastest),
        baseline=label(baseline) if baseline else None,
        baseline_cost=fmt.usd(baseline["cost_to_train_usd"]) if baseline and baseline["cost_to_train_usd"] is not None else None,
        cheapest_is_baseline=bool(cheapest and cheapest["is_baseline"]),
        cheapest_is_fastest=bool(cheapest and fastest and label(cheapest) == label(fastest)),
        savings=fmt.savings(cheapest["savings_pct"]) if cheapest else None,
        savings_pct=cheapest["savings_pct"] if cheapest else None,
        savings_words=("costs " + fmt.less_more(-cheapest["savings_pct"]) + " than the baseline"
                       if cheapest and cheapest["savings_pct"] is not None else None),
        runner_up=runner_up(known),
        front=front, front_sentence=front_sentence(front, len(known)),
        since=since(rows, sources.changes.get((first["comparison"], bench), []), sources.previous_date),
        missing=tuple(label(r) for r in rows if r["cost_to_train_usd"] is None),
        about=first.get("workload_description") or "",
        trains="" if workload else benchmark_facts(bench).one_run,
        monthly=monthly_sentence(known), value=value_sentence(known), comparison_id=first["comparison"],
        benchmark=bench,
    )


def monthly_sentence(known: list[dict]) -> str:
    """"At 4 runs a month: AWS p4d.24xlarge $150.11, ...": a workload's bill, cheapest first."""
    priced = [r for r in known if r.get("monthly_cost_usd") is not None]
    if not priced:
        return ""
    return (f"At {priced[0]['runs_per_month']} runs a month: "
            + "; ".join(f"{label(r)} {fmt.usd(r['monthly_cost_usd'])}" for r in priced) + " a month.")


def value_sentence(known: list[dict]) -> str:
    """The most samples per dollar and its value against the baseline (1.00×)."""
    valued = [r for r in known if r.get("samples_per_dollar") is not None]
    if not valued:
        return ""
    best = max(valued, key=lambda r: (r["samples_per_dollar"], -r["position"]))
    # a no-break space: "4.37 M" broke after 4.37 at a line's end
    text = f"Most samples per dollar: {label(best)}, {fmt.per_dollar(best['samples_per_dollar']).replace(' ', chr(0xA0))}"
    if best.get("relative_value") is not None and not best["is_baseline"]:
        text += f", {fmt.times(best['relative_value'])} the baseline's value"
    unknown = len(known) - len(valued)
    return text + (f" ({unknown} of {len(known)} instances have no throughput or samples to converge)." if unknown else ".")


def _pick(row: dict | None) -> Pick | None:
    if row is None:
        return None
    kind = row.get("offer_kind") or LIST
    return Pick(label(row), fmt.usd(row["cost_to_train_usd"]), fmt.minutes(row["time_to_train_minutes"]),
                row["cost_to_train_usd"], row["time_to_train_minutes"],
                f"an {kind} price" if labels.offer_tag_title(kind) and kind[0] in "aeiou" else
                f"a {kind} price" if labels.offer_tag_title(kind) else "", row.get(TIED) or 1)


def fastest_of(known: list[dict], headline_kinds: tuple[str, ...]) -> dict | None:
    """The fastest offer in the headline: the cost_to_train mart's time_rank 1 (domain/best.py's one rule) with its
    fastest_tied count; None when no offer in the headline has a result."""
    first = next((r for r in known if r.get("time_rank") == 1), None)
    if first is None or not headline_rows([first], headline_kinds):
        return None
    return first | {TIED: first["fastest_tied"]}


def runner_up(known: list[dict]) -> RunnerUp | None:
    """The next cheapest after the cheapest, and the break-even price at which it would match it."""
    beaters = [r for r in known if r["cost_rank"] != 1]
    if not beaters or not beaters[0]["usd_per_hour"]:
        return None
    r = beaters[0]
    return RunnerUp(label(r), fmt.usd_hour(r["usd_per_hour"]), fmt.usd_hour(r["price_to_beat_cheapest"]),
                    fmt.pct(r["cut_to_beat_cheapest_pct"], signed=False))


def front_sentence(front: tuple[str, ...], known: int) -> str:
    if not front:
        return ""
    if len(front) == 1:
        return f"{front[0]} alone is on the Pareto front: no other instance is faster or cheaper."
    return (f"Pareto front: {', '.join(front)} — each is either faster or cheaper than every other; "
            f"the other {known - len(front)} are matched or beaten on both time and cost.")


PRICE_TO_BEAT = "Price to beat (USD/hour)"
COST_COLUMNS = (
    Column("Instance", header=True), Column("Reference system", css="system"),
    Column("Time to train", numeric=True), Column("USD per hour", numeric=True), Column("Cost to train", numeric=True),
    Column("Savings vs baseline", numeric=True, css="wrap"), Column("Speed\u00adup", numeric=True),
    Column("baseline", numeric=True, group=PRICE_TO_BEAT, detail=True),
    Column("cheapest", numeric=True, group=PRICE_TO_BEAT, detail=True),
) + ENERGY_COLUMNS  # price to beat, energy and emissions on screen on request: the table fits 1280 px


# A comparison of the whole market prices every offer with the compared accelerators (20 in the bundled
# report's current generation): its printed table keeps the cheapest PRINTED_ROWS, the Pareto front and the
# baseline; the web edition and data/cost_to_train.csv have every row.
PRINTED_ROWS = 8


def printed_rows(rows: list[dict]) -> list[bool]:
    """Which rows (cheapest first) the printed table shows: all, up to PRINTED_ROWS + 2; past that the
    cheapest PRINTED_ROWS, the Pareto front and the baseline."""
    if len(rows) <= PRINTED_ROWS + 2:
        return [True] * len(rows)
    return [i < PRINTED_ROWS or bool(r["is_baseline"]) or bool(r["on_pareto_front"]) for i, r in enumerate(rows)]


def cost_table(number: int, short: str, rows: list[dict], sources: Sources, numbering: Numbering) -> Table:
    shown = printed_rows(rows)
    caption = f"{short}: time and cost to train per instance, cheapest first"
    if not all(shown):
        caption += (f" (printed: the {PRINTED_ROWS} cheapest, the Pareto front and the baseline, {sum(shown)} of "
                    f"{len(rows)}; the web edition and data/cost_to_train.csv have every instance)")
    return Table(number, caption, COST_COLUMNS,
                 tuple(cost_row(r, short, sources, numbering, printed=p) for r, p in zip(rows, shown)),
                 css="cost-table", csv="cost_to_train")


def cost_row(r: dict, short: str, sources: Sources, numbering: Numbering, printed: bool = True) -> Row:
    """A row of the cost table; a row the printed table leaves out is on screen only (web-only) and calls no
    note, so every note is called from a printed row."""
    notes = numbering if printed else None
    cheapest = r["cost_rank"] == 1
    tags = ((Tag("baseline"),) if r["is_baseline"] else ()) + ((Tag("cheapest", "best"),) if cheapest else ()) \
        + ((Tag("Pareto", "front"),) if r["on_pareto_front"] else ()) \
        + ((Tag(r["offer_kind"].replace("_", " "), title=labels.offer_tag_title(r["offer_kind"])),)
           if labels.offer_tag_title(r.get("offer_kind")) else ())
    accelerators = f"{r['accelerator_count']}× {r['accelerator']}" if r["accelerator"] else "–"
    if notes is None:
        system_call = price_call = None
    else:
        system_call = (notes.note(f"sys:{r['system']}:{r['benchmark']}", *system_footnote(r, sources)) if r["system"]
                       else notes.note(f"nosys:{r['instance_type']}:{r['benchmark']}",
                                       f"No measured {short} result for {r['instance_type']}: "
                                       f"{r.get('mapping_note') or 'no mapping'}."))
        price_call = option_note(r, notes, sources.price_lines)
    cost = r["cost_to_train_usd"]
    return Row((
        Cell(label(r), subs=(accelerators,), tags=tags, breakable=True),  # Standard_ND96isr_MI300X_v5 fits A4
        Cell(r["system"] or "none", note=system_call, breakable=True),
        Cell(fmt.minutes(r["time_to_train_minutes"]), sort=r["time_to_train_minutes"]),
        Cell(fmt.usd_hour(r["usd_per_hour"]), sort=r["usd_per_hour"], note=price_call, tags=price_tags(r),
             subs=tuple(t for t in (
                 f"{fmt.usd_hour(r['usd_per_accelerator_hour'])}/accelerator" if r.get("usd_per_accelerator_hour") else None,
                 fmt.day(r["price_as_of"]) if r.get("price_as_of") else None) if t) + price_subs(r)),
        # samples per dollar and its value against the baseline under the cost: a column more would not fit A4
        Cell(fmt.usd(cost) if cost is not None else fmt.NO_RESULT, sort=cost, subs=value_subs(r)),
        Cell("baseline" if r["is_baseline"] else fmt.savings(r["savings_pct"]), sort=r["savings_pct"]),
        Cell(fmt.times(r["speedup"]), sort=r["speedup"]),
        Cell("baseline" if r["is_baseline"] else fmt.usd_hour(r["price_to_beat_baseline"]), sort=r["price_to_beat_baseline"]),
        Cell("cheapest" if cheapest else fmt.usd_hour(r["price_to_beat_cheapest"]), sort=r["price_to_beat_cheapest"]),
        *energy_cells(r, notes, f"{r['system']}:{r['benchmark']}", cited=True),
    ), classes=tuple(c for c, on in (("baseline", r["is_baseline"]), ("cheapest", cheapest),
                                     ("no-result", cost is None), ("web-only", not printed)) if on),
        facets=(("Provider", labels.provider(r["provider"])), ("Accelerator", r["accelerator"] or "–"))
        + labels.optional_facets(r))


def value_subs(r: dict) -> tuple[str, ...]:
    """"3.07 M per $", "value 2.54×": samples a dollar buys, and against the baseline (1.00×); no-break
    spaces keep each on one line in the narrow cell."""
    if r.get("samples_per_dollar") is None:
        return ()
    value = r.get("relative_value")
    per_dollar = fmt.per_dollar(r["samples_per_dollar"]).replace(" ", "\u00a0")
    return (f"{per_dollar}\u00a0per\u00a0$",) + ((f"value\u00a0{fmt.times(value)}",) if value is not None else ())


# A mapping derived from an instance with the same accelerators names that instance's row of mappings.csv
# (ingest/tables.py): the note keeps the instance, its sources entry the file and line.
MAPPING_LINE = re.compile(r" \(mappings\.csv line \d+\)")


def without_file_line(note: str) -> str:
    return MAPPING_LINE.sub("", note)


def system_footnote(r: dict, sources: Sources) -> tuple[str, tuple[str, str, str]]:
    """The measured system behind an instance's time, as a short note (its accelerators, how it was
    scored, how close a match) and the sources appendix entry it cites (key, kind, text): the whole
    systems JSON description with its software, and the file and line of the time and the throughput."""
    score = sources.scores.get((r["system"], r["benchmark"]))
    info = sources.systems.get(r["system"])
    measured_on = f" on {fmt.day(r['measured_on'])}" if r.get("measured_on") else ""
    throughput = (throughput_note(r["samples_per_second"], r.get("throughput_source"), r.get("measured_on"),
                                  r.get("throughput_line")) if r.get("throughput_origin") == "measured" else None)
    if r.get("time_origin") == MEASURED_BASIS:  # a workload of the team's own: no MLPerf in it
        own = r.get("mapping_note") == OWN_MEASUREMENT
        parts = [f"{r['system']}:" if own else system_note(r["system"], info, None, detail=False),
                 f"time to train = {fmt.count(r['samples_per_run'])} samples per run (report.toml [workloads]) / "
                 f"{fmt.count(r['samples_per_second'])} samples per second measured{measured_on}."]
        if not own and r.get("mapping_note"):
            parts.append(f"Match: {without_file_line(r['mapping_note'])}.")
        source = " ".join(p for p in (None if own else system_note(r["system"], info, None), f"{throughput}.") if p)
        return " ".join(parts), (f"throughput:{r['system']}:{r['benchmark']}", "throughput", source)
    round_ = score.get("round") if score else None
    parts = [system_note(r["system"], info, round_, detail=False)]
    if score and score.get("runs") is not None:
        parts.append(runs_note(score["runs"], score["dropped_runs"]))
    if throughput:
        parts.append(f"Samples per dollar from {fmt.count(r['samples_per_second'])} samples per second "
                     f"measured{measured_on}.")
    if r.get("mapping_note"):
        parts.append(f"Match: {without_file_line(r['mapping_note'])}.")
    source = [system_note(r["system"], info, round_)]
    if score and score.get("file"):
        source.append(f"time to train from {score['file']}" + (f" line {score['line']}" if score.get("line") else "")
                      + (" (MLPerf result summarizer)." if score.get("runs") is None else "."))
    if throughput:
        source.append(f"Samples per second: {throughput}.")
    if r.get("mapping_note") and MAPPING_LINE.search(r["mapping_note"]):  # the mapping's own row, for a derived one
        source.append(f"Match: {r['mapping_note']}.")
    return " ".join(parts), (f"system:{r['system']}:{r['benchmark']}", "measured system", " ".join(source))


def _bar_kind(row: dict) -> str:
    if row["is_baseline"]:
        return "baseline"
    return "best" if row["cost_rank"] == 1 else "normal"


def _listed(items: list[str]) -> str:
    return "; ".join(items)


def tip(r: dict) -> str:
    """A row's details for the hover text of its bar or point: the table's figures, formatted once."""
    parts = [label(r), f"{r['accelerator_count']}× {r['accelerator']}" if r["accelerator"] else None,
             f"time to train {fmt.minutes(r['time_to_train_minutes'])}", f"{fmt.usd_hour(r['usd_per_hour'])} per hour",
             f"cost to train {fmt.usd(r['cost_to_train_usd'])}" if r["cost_to_train_usd"] is not None else fmt.NO_RESULT,
             "baseline" if r["is_baseline"] else (f"savings {fmt.savings(r['savings_pct'])}"
                                                  if r["savings_pct"] is not None else None),
             f"speedup {fmt.times(r['speedup'])}" if r["speedup"] is not None else None]
    return " · ".join(p for p in parts if p)


def cost_figures(rows: list[dict], short: str, front: tuple[str, ...], numbering: Numbering,
                 palette: Palette, cache: ChartCache = NO_CACHE) -> tuple[Figure, ...]:
    """The cost chart; the savings chart when the baseline has a cost; time against cost from two results."""
    known = [r for r in rows if r["cost_to_train_usd"] is not None]
    baseline = next((r for r in rows if r["is_baseline"]), None)
    # A chart stays legible: past MAX_BARS instances it shows the cheapest ones and the baseline.
    shown, bars_note = rows, ""
    if len(rows) > MAX_BARS:
        keep = {id(r) for r in known[:MAX_BARS - 1]}
        shown = [r for r in rows if id(r) in keep or r["is_baseline"]]
        bars_note = (f", the {len(shown) - (1 if baseline else 0)} cheapest of {len(rows)} instances"
                     + (" and the baseline" if baseline else ""))
    figures = [cost_figure(numbering.figure(), shown, short, bars_note, palette, cache)]
    if baseline and baseline["cost_to_train_usd"] is not None and known:
        figures.append(savings_figure(numbering.figure(), shown, short, label(baseline), bars_note, palette, cache))
    if len(known) >= 2:
        figures.append(pareto_figure(numbering.figure(), known, short, front, palette, cache))
    if sum(r.get("relative_value") is not None for r in shown) >= 2:
        figures.append(value_figure(numbering.figure(), shown, short, label(baseline), bars_note, palette, cache))
    emissions = emissions_figure(numbering, known, short, label, cache)
    return tuple(figures) + ((emissions,) if emissions else ())


def _bars_alt(what: str, bars: list[charts.Bar]) -> str:
    return f"Bar chart of {what}: " + _listed([f"{b.label} {b.text if b.value is not None else 'no result'}"
                                               for b in bars]) + "."


def _bar(r: dict, value: float | None, text: str, palette: Palette) -> charts.Bar:
    return charts.Bar(label(r), value, text, _bar_kind(r), palette[label(r)].color, tip(r))


def cost_figure(number: int, shown: list[dict], short: str, bars_note: str, palette: Palette,
                cache: ChartCache = NO_CACHE) -> Figure:
    bars = [_bar(r, r["cost_to_train_usd"], fmt.usd(r["cost_to_train_usd"]), palette) for r in shown]
    alt = _bars_alt(f"the cost to train {short} on each instance", bars)
    return Figure(number, cache.svg(charts.bar_chart, bars, "Cost to train (USD)", chart_id(number), alt), alt,
                  f"{short}: cost to train per instance{bars_note}; the cheapest and the baseline (hatched) in bold, "
                  f"each instance in its colour in every figure.")


def savings_figure(number: int, shown: list[dict], short: str, baseline: str, bars_note: str,
                   palette: Palette, cache: ChartCache = NO_CACHE) -> Figure:
    bars = [_bar(r, r["savings_pct"], fmt.savings(r["savings_pct"]), palette) for r in shown if not r["is_baseline"]]
    alt = _bars_alt(f"the savings against the baseline {baseline}", bars)
    return Figure(number, cache.svg(charts.bar_chart, bars, f"Savings against {baseline} (%)", chart_id(number), alt,
                                    signed=True),
                  alt, f"{short}: savings against the baseline {baseline}{bars_note}: right of zero cheaper, left of "
                       f"zero dearer, written as a multiple of the baseline's cost.")


def value_figure(number: int, shown: list[dict], short: str, baseline: str, bars_note: str,
                 palette: Palette, cache: ChartCache = NO_CACHE) -> Figure:
    """Relative value: samples per dollar against the baseline's (1.00×), the Gaudi study's headline."""
    bars = [_bar(r, r.get("relative_value"), fmt.times(r.get("relative_value")), palette) for r in shown]
    alt = _bars_alt(f"samples per dollar relative to the baseline {baseline}", bars)
    return Figure(number, cache.svg(charts.bar_chart, bars, f"Samples per dollar relative to {baseline} (×)",
                                    chart_id(number), alt, missing_text="no throughput known", dollars=False),
                  alt, f"{short}: relative value, samples per dollar against the baseline {baseline} (1.00×){bars_note}; "
                       f"longer is more training for the money; no bar: no throughput or samples to converge known.")


def pareto_figure(number: int, known: list[dict], short: str, front: tuple[str, ...], palette: Palette,
                  cache: ChartCache = NO_CACHE) -> Figure:
    """Time against cost; past MAX_POINT_LABELS points only the front and the baseline are labelled."""
    many = len(known) > MAX_POINT_LABELS
    points = [charts.Point(label(r) if not many or r["on_pareto_front"] or r["is_baseline"] else "",
                           r["time_to_train_minutes"], r["cost_to_train_usd"], bool(r["on_pareto_front"]),
                           palette[label(r)], tip(r))
              for r in sorted(known, key=lambda r: r["position"])]
    alt = (f"Scatter plot of time to train against cost to train for {short}: "
           + _listed([f"{label(r)} {fmt.minutes(r['time_to_train_minutes'])}, {fmt.usd(r['cost_to_train_usd'])}"
                      for r in known]) + ". On the Pareto front: " + ", ".join(front) + ".")
    caption = (f"{short}: time against cost to train. Ringed points are the Pareto front ({', '.join(front)})"
               + (", joined by a dashed staircase" if len(front) > 1 else "")
               + "; every other point is matched or beaten on both time and cost by a point on the front"
               + (" (labels on the front and the baseline only)" if many else "") + ".")
    return Figure(number, cache.svg(charts.pareto_chart, points, chart_id(number), alt), alt, caption)


def history_figure(number: int, section: int, comparison: pl.DataFrame, sources: Sources) -> Figure:
    """Step lines of the compared instances' hourly prices over the snapshots, up to the price date."""
    instances = comparison.select(*INSTANCE_KEY).unique(maintain_order=True)
    note = ""
    if instances.height > MAX_SERIES:  # the baseline, then the cheapest to train, in the table's order
        ranked = comparison.sort(pl.col("is_baseline").not_(), "cost_rank", "position", nulls_last=True)
        keep = ranked.select(*INSTANCE_KEY).unique(maintain_order=True).head(MAX_SERIES)
        note = f" (the baseline and the cheapest to train, {keep.height} of {instances.height} instances)"
        instances = instances.join(keep, on=list(INSTANCE_KEY), how="semi", maintain_order="left")
    series = {label(i): sources.history.get(tuple(i[k] for k in INSTANCE_KEY), [])
              for i in instances.iter_rows(named=True)}
    alt = ("Step chart of each compared instance's on-demand hourly price over the price snapshots, "
           f"each price in force until the next snapshot or {fmt.day(sources.price_date)}: "
           + _listed([f"{k}: " + (", ".join(f"{d.isoformat()} {fmt.usd_hour(p)}" for d, p in v) or "no price")
                      for k, v in series.items()]) + ".")
    tips = {k: [f"{k}: {fmt.usd_hour(p)} per hour from {d.isoformat()}" for d, p in v] for k, v in series.items()}
    svg = sources.chart_cache.svg(charts.price_history_chart, series, "On-demand price (USD per hour)", chart_id(number),
                                  alt, until=sources.price_date, styles={k: sources.palette[k] for k in series}, tips=tips)
    return Figure(number, svg, alt, f"On-demand price history of the instances compared in section {section}{note}, "
                                    f"up to {fmt.day(sources.price_date)}.")


@dataclass(frozen=True)
class Paying:
    """The appendix of every way of paying: per benchmark with more than on-demand prices, its heading
    (linking back to the benchmark's section) and its pricing tables."""

    heading: Heading
    benchmarks: tuple[tuple[Heading, BenchmarkSection], ...]  # (its heading here, the benchmark's section)
    notes: tuple[Note, ...]


def paying_appendix(letter: str, sections: tuple[Section, ...], sources: Sources,
                    numbering: Numbering) -> tuple[Paying, tuple[Section, ...]]:
    """Cost to train under each pricing option and the commitment break-even, per benchmark, as an
    appendix after the chapters (their numbers follow the reading order); the sections get their
    benchmarks' tables back (BenchmarkSection.pricing) to name the cheapest option and link here."""
    notes = numbering.chapter()
    parts, done = [], []
    for s in sections:
        benchmarks = []
        for b in s.benchmarks:
            rows = sources.options.get((b.comparison_id, b.benchmark), [])
            if any(r["pricing_option"] != "on_demand" for r in rows):
                heading = Heading(f"{letter}.{len(parts) + 1}", f"{b.short}: {b.comparison}",
                                  f"paying-{b.heading.anchor}", kind="appendix")
                b = replace(b, pricing=pricing_tables(b.short, rows, sources.settings, numbering, sources.price_lines,
                                                      sources.cheapest.get((b.comparison_id, b.benchmark), [])),
                            paying=heading)
                parts.append((heading, b))
            benchmarks.append(b)
        done.append(replace(s, benchmarks=tuple(benchmarks)))
    heading = Heading(letter, "Every way of paying", "paying", kind="appendix",
                      children=tuple(h for h, _ in parts))
    return Paying(heading, tuple(parts), tuple(notes)), tuple(done)
