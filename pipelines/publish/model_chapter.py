"""The chapter "Your model's cost": each described model of report.toml ([models]) priced on every offer from
MLPerf's measured LLM throughput (the model_estimates mart), the accelerators left out and why, the achieved
FLOP/s behind the estimates, and the calibration against published training runs."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.domain import offers
from pipelines.domain.best import pick, with_rank
from pipelines.domain import units as fmt
from pipelines.domain.llm import LLM_BENCHMARKS, model_flops, DescribedModel
from pipelines.publish import charts
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.numbering import Numbering
from pipelines.publish.palette import Palette
from pipelines.publish.records import Cell, Column, Figure, Heading, Row, Table, chart_id

SHOWN_OFFERS = 12  # offers in a model's table; data/model_estimates.csv has every one
BUYABLE = "list"  # a provider's own on-demand rate: the tables tag every other kind (domain/offers.py)


@dataclass(frozen=True)
class ModelSection:
    heading: Heading
    title: str
    description: str
    facts: str  # what the model is and what it costs in FLOPs
    cheapest: str  # the cheapest list offer, in words
    cheapest_any: str  # the cheapest offer of any kind, when it is not a list price ("" otherwise)
    fastest: str
    deadline: str  # what the deadline chose ("" without one)
    table: Table
    not_priced: str
    figure: Figure | None = None  # cost against wall-clock time, one point per offer and pricing option
    name: str = ""  # the model's name in report.toml ([models.<name>])


@dataclass(frozen=True)
class ModelChapter:
    heading: Heading
    models: tuple[ModelSection, ...]
    throughput: Table
    calibration: Table
    calibration_range: str  # "0.33-0.57 (6 runs)"
    method: Heading


def _offer(r: dict) -> str:
    return (f"{r['instances']:,} × {r['provider']} {r['instance_type']} ({r['region']}, {r['pricing_option']}): "
            f"{fmt.usd(r['cost_usd'], 0)} ({fmt.usd(r['cost_usd_low'], 0)}–{fmt.usd(r['cost_usd_high'], 0)}) in "
            f"{fmt.wall_clock(r['hours'])} on {r['accelerators']:,} {r['accelerator_model']}")


OFFER_COLUMNS = (
    Column("Offer", header=True, css="system"), Column("Option"), Column("Instances", numeric=True),
    Column("Accelerator"), Column("GPU-hours", numeric=True, css="wrap"), Column("Time", numeric=True),
    Column("Cost", numeric=True, css="wrap"), Column("Basis", css="small"),
)


def _offers_table(number: int, model: str, rows: pl.DataFrame) -> Table:
    shown = rows.head(SHOWN_OFFERS)
    return Table(number, f"{model}: the {shown.height} cheapest of {rows.height} offers, every pricing option "
                         "(GPU-hours and cost: median of the basis results, least–greatest under it)",
                 OFFER_COLUMNS, tuple(Row((
                     Cell(f"{r['provider']} {r['instance_type']}", subs=(r["region"],) + (
                         (r["offer_kind"],) if r.get("offer_kind") not in (None, BUYABLE) else ()), breakable=True),
                     Cell(r["pricing_option"]), Cell(f"{r['instances']:,}", sort=r["instances"]),
                     Cell(r["accelerator_model"]),
                     Cell(fmt.gpu_hours(r["gpu_hours"]), sort=r["gpu_hours"],
                          subs=(f"{fmt.gpu_hours(r['gpu_hours_low'])}–{fmt.gpu_hours(r['gpu_hours_high'])}",)),
                     Cell(fmt.wall_clock(r["hours"]), sort=r["hours"]),
                     Cell(fmt.usd(r["cost_usd"], 0), sort=r["cost_usd"],
                          subs=(f"{fmt.usd(r['cost_usd_low'], 0)}–{fmt.usd(r['cost_usd_high'], 0)}",)),
                     Cell(f"{r['basis_benchmark']} at {r['basis_accelerators']:,}: "
                          f"{len(r['basis_results'].split('; '))} result(s)"),
                 )) for r in shown.iter_rows(named=True)), css="model-offers", csv="model_estimates",
                 empty="No offer: no accelerator of the price book has an MLPerf LLM result of this kind.")


def _facts(m: DescribedModel) -> str:
    shape = f", {m.layers} layers × {m.hidden_size} hidden" if m.layers and m.hidden_size else ""
    flops = model_flops(m, with_attention=bool(m.layers and m.hidden_size))
    size = f"{m.parameters / 1e9:,.3g}B parameters (active ones for a mixture of experts)"
    cluster = (f"the smallest cluster that finishes within {m.deadline_days:g} days"
               + (f" (at most {m.accelerators:,} accelerators)" if m.accelerators else "")
               if m.deadline_days else f"a cluster of {m.accelerators:,} accelerators")
    precision = f"; stated precision {m.precision} (the estimates are at the precision of the MLPerf results)" \
        if m.precision else ""
    return (f"{m.kind}: {size}, {m.tokens / 1e12:,.4g}T tokens in sequences of {m.sequence_length:,}{shape}; "
            f"{flops:.3g} model FLOPs; priced on {cluster}{precision}.")


def front(points: list[tuple[float, float]]) -> set[tuple[float, float]]:
    """The (hours, cost) points no other point beats on both: faster and cheaper, or as fast and cheaper."""
    best, out = float("inf"), set()
    for hours, cost in sorted(set(points)):
        if cost < best:
            out.add((hours, cost))
            best = cost
    return out


def cost_time_figure(number: int, title: str, rows: pl.DataFrame, cache: ChartCache) -> Figure | None:
    """Cost against wall-clock time of every offer of one model, coloured by accelerator model, the Pareto
    front ringed: the price of finishing sooner."""
    if rows.is_empty():
        return None
    palette = Palette(sorted(set(rows["accelerator_model"])))
    ringed = front(list(zip(rows["hours"], rows["cost_usd"])))
    points = [charts.Point("", r["hours"] * 60, r["cost_usd"], (r["hours"], r["cost_usd"]) in ringed,
                           palette[r["accelerator_model"]],
                           tip=f"{r['provider']} {r['instance_type']} ({r['region']}, {r['pricing_option']}): "
                               f"{fmt.usd(r['cost_usd'], 0)} in {fmt.wall_clock(r['hours'])}",
                           key=r["accelerator_model"]) for r in rows.iter_rows(named=True)]
    alt = (f"{title}: cost against wall-clock time of {rows.height} offers; the cheapest "
           f"{fmt.usd(rows['cost_usd'].min(), 0)}, the fastest {fmt.wall_clock(rows['hours'].min())}")
    caption = (f"{title}: cost to train against wall-clock time (in minutes) of every offer and pricing option, "
               "coloured by accelerator; the offers no other beats on both are ringed")
    return Figure(number, cache.svg(charts.pareto_chart, points, chart_id(number), alt), alt, caption)


def model_section(number: str, m: DescribedModel, estimates: pl.DataFrame, not_priced: pl.DataFrame,
                  numbering: Numbering, cache: ChartCache = NO_CACHE,
                  headline_kinds: tuple[str, ...] = offers.HEADLINE_DEFAULT) -> ModelSection:
    # the table's order is the report's one rule: cheapest first, auction and marketplace offers after the rest
    rows = (with_rank(estimates.filter(pl.col("model") == m.name), [], "cost", "_rank", list(headline_kinds),
                      cost="cost_usd", time="hours").sort("_rank", nulls_last=True).drop("_rank"))
    # cheapest and fastest by the report's one rule (domain/best.py), over the kinds its headline considers
    headline = rows.filter(pl.col("offer_kind").fill_null(BUYABLE).is_in(list(headline_kinds)))
    best = pick(headline, [], "cost", cost="cost_usd", time="hours")
    cheapest = _offer(best.row(0, named=True)) if best.height else "no offer at a price one can buy at"
    market = pick(rows.filter(~pl.col("offer_kind").fill_null(BUYABLE).is_in(list(headline_kinds))), [], "cost",
                  cost="cost_usd", time="hours")
    cheapest_any = (f"{_offer(market.row(0, named=True))} ({offers.meaning(market['offer_kind'][0])})"
                    if market.height and (not best.height or market["cost_usd"][0] < best["cost_usd"][0]) else "")
    fastest_row = pick(headline, [], "time", cost="cost_usd", time="hours")
    fastest = _offer(fastest_row.row(0, named=True)) if fastest_row.height else "none"
    deadline = ""
    if m.deadline_days and rows.height:
        late = rows.filter(~pl.col("meets_deadline").fill_null(True))
        deadline = (f"Each accelerator model is priced on the smallest cluster that finishes within {m.deadline_days:g} days"
                    + (f"; on {', '.join(sorted(set(late['accelerator_model'])))} none does within the cap, so the "
                       "largest tried is shown" if late.height else "") + ".")
    gaps = not_priced.filter(pl.col("model") == m.name)
    gap_text = "; ".join(f"{r['accelerator_model']} ({r['offers']} offer{'s' if r['offers'] > 1 else ''})"
                         for r in gaps.iter_rows(named=True))
    table = _offers_table(numbering.table(), m.title, rows)
    return ModelSection(
        Heading(number, m.title, f"model-{m.name.replace('_', '-')}"), m.title, m.description, _facts(m),
        cheapest, cheapest_any, fastest, deadline, table,
        f"Not priced, having no closed-division MLPerf {m.kind} LLM result: {gap_text}." if gap_text else "",
        cost_time_figure(numbering.figure(), m.title, rows, cache) if rows.height else None, m.name)


THROUGHPUT_COLUMNS = (Column("Benchmark", header=True), Column("Accelerator"), Column("Results", numeric=True),
                      Column("Scales (accelerators)", css="wrap"), Column("Model TFLOP/s per accelerator", numeric=True,
                                                                          css="wrap"))


def throughput_table(number: int, throughput: pl.DataFrame) -> Table:
    summary = (throughput.filter(pl.col("accelerator_model").is_not_null())
               .group_by("benchmark", "accelerator_model")
               .agg(pl.len().alias("results"), pl.col("accelerators").unique().sort().alias("scales"),
                    (pl.col("flops_per_accelerator_s").median() / 1e12).alias("median"),
                    (pl.col("flops_per_accelerator_s").min() / 1e12).alias("low"),
                    (pl.col("flops_per_accelerator_s").max() / 1e12).alias("high"))
               .sort("benchmark", "accelerator_model"))
    return Table(number, "Achieved model FLOP/s per accelerator of the closed-division MLPerf LLM results "
                         "(6·N·tokens, LoRA 4·N·tokens, / time × accelerators): median, least–greatest",
                 THROUGHPUT_COLUMNS, tuple(Row((
                     Cell(LLM_BENCHMARKS[r["benchmark"]].title), Cell(r["accelerator_model"]),
                     Cell(str(r["results"]), sort=r["results"]),
                     Cell(", ".join(f"{s:,}" for s in r["scales"])),
                     Cell(f"{r['median']:,.0f}", sort=r["median"], subs=(f"{r['low']:,.0f}–{r['high']:,.0f}",)),
                 )) for r in summary.iter_rows(named=True)), css="model-throughput", csv="llm_throughput")


CALIBRATION_COLUMNS = (Column("Run", header=True), Column("Accelerator"), Column("Published GPU-hours", numeric=True),
                       Column("Estimated GPU-hours", numeric=True, css="wrap"), Column("Ratio", numeric=True),
                       Column("Source and notes", css="small"))


def calibration_table(number: int, calibration: pl.DataFrame) -> Table:
    return Table(number, "The estimates against published training runs: ratio = estimated / published accelerator-hours",
                 CALIBRATION_COLUMNS, tuple(Row((
                     Cell(r["run"]), Cell(r["accelerator_model"]),
                     Cell(fmt.gpu_hours(r["published_gpu_hours"]), sort=r["published_gpu_hours"]),
                     Cell(fmt.gpu_hours(r["estimated_gpu_hours"]), sort=r["estimated_gpu_hours"],
                          subs=(f"{r['basis_benchmark']} at {r['accelerators']:,}",) if r["basis_benchmark"] else ()),
                     Cell(f"{r['ratio']:.2f}" if r["ratio"] is not None else "not estimated", sort=r["ratio"]),
                     Cell("; ".join(filter(None, [r["published_source"], r["note"]]))),
                 )) for r in calibration.iter_rows(named=True)), css="model-calibration", csv="model_calibration")


def model_chapter(number: int, models: list[DescribedModel], estimates: pl.DataFrame, not_priced: pl.DataFrame,
                  throughput: pl.DataFrame, calibration: pl.DataFrame, numbering: Numbering,
                  cache: ChartCache = NO_CACHE,
                  headline_kinds: tuple[str, ...] = offers.HEADLINE_DEFAULT) -> ModelChapter | None:
    """The chapter, or None when report.toml describes no model."""
    if not models:
        return None
    sections = tuple(model_section(f"{number}.{i}", m, estimates, not_priced, numbering, cache, headline_kinds)
                     for i, m in enumerate(models, start=1))
    method = Heading(f"{number}.{len(sections) + 1}", "How a model is estimated", "model-method")
    ratios = calibration["ratio"].drop_nulls()
    spread = f"{ratios.min():.2f}–{ratios.max():.2f} ({ratios.len()} runs)" if ratios.len() else "none"
    heading = Heading(str(number), "Your model's cost", "your-model",
                      children=tuple(s.heading for s in sections) + (method,))
    return ModelChapter(heading, sections, throughput_table(numbering.table(), throughput),
                        calibration_table(numbering.table(), calibration), spread, method)
