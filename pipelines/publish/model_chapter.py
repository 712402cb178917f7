"""The chapter "Your model's cost": each described model of report.toml ([models]) with its budget on every offer (the
model_estimates mart, in the report's order), its cheapest, fastest and market offer (the model_picks mart: the
answer page names the same), the accelerators left out and why, the measured throughput behind it, and the
published runs the budget is calibrated on. Formats what the marts hold; picks and orders nothing."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

import polars as pl

from pipelines.domain import offers
from pipelines.domain import units as fmt
from pipelines.domain.llm import LLM_BENCHMARKS, MOE, DescribedModel
from pipelines.domain.pricing import option_label
from pipelines.publish import charts, labels
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.numbering import Numbering
from pipelines.publish.palette import Palette
from pipelines.publish.records import Cell, Column, Figure, Heading, Row, Table, chart_id

SHOWN_OFFERS = 12  # offers in a model's table; data/model_estimates.csv has every one
BUYABLE = offers.LIST  # a provider's own on-demand rate: the tables tag every other kind (domain/offers.py)


@dataclass(frozen=True)
class ModelSection:
    heading: Heading
    title: str
    description: str
    facts: str  # what the model is and what it costs in FLOPs
    cheapest: str  # the cheapest offer that may headline, in words
    cheapest_any: str  # the cheapest auction or marketplace offer, when cheaper ("" otherwise)
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
    calibration_summary: str  # "1.40 from 6 runs; ..." or "not calibrated ..."
    method: Heading


def age_words(r: dict) -> str:
    """"3 days old", "202 days old, approx.": the price's age and certainty."""
    age = r.get("price_age_days")
    return (f"{age:,} days old" if age is not None else "age not known") + (
        ", approx." if r.get("certainty") == "approximate" else "")


def price_words(r: dict) -> str:
    """"on demand, 3 days old", "spot, 202 days old, approx.": the pricing option, the price's age and certainty."""
    return f"{option_label(r['pricing_option']).lower()}, {age_words(r)}"


def offer_words(r: dict) -> str:
    """The offer, its price and its budget in one sentence, as the answer and the chapter say it."""
    return (f"{r['instances']:,} × {r['provider']} {r['instance_type']} ({r['region']}; {price_words(r)}): "
            f"{fmt.usd(r['cost_usd'], 0)} ({fmt.usd(r['cost_usd_low'], 0)}–{fmt.usd(r['cost_usd_high'], 0)}) in "
            f"{fmt.wall_clock(r['hours'])} on {r['accelerators']:,} {r['accelerator_model']}; "
            f"at MLPerf's speed {fmt.usd(r['mlperf_cost_usd'], 0)}")


OFFER_COLUMNS = (
    Column("Offer", header=True, css="system"), Column("Price", css="small words"), Column("Instances", numeric=True),
    Column("Accelerator"), Column("GPU-hours (budget)", numeric=True, css="wrap"), Column("Time", numeric=True),
    Column("Cost (budget)", numeric=True, css="wrap"), Column("At MLPerf's speed", numeric=True, css="wrap"),
    Column("Basis", css="small"),
)


def basis_words(basis: str) -> str:
    """"Llama 3.1 8B 45% + Llama 3.1 405B 55%": a basis's benchmark names as readers know them."""
    return re.sub(r"[a-z][a-z0-9_]*", lambda m: labels.short_benchmark(m.group()) if m.group() in labels.BENCHMARKS
                  else m.group(), basis)


def _offer_row(r: dict) -> Row:
    tags = tuple(t for t in ((r["offer_kind"],) if r.get("offer_kind") not in (None, BUYABLE) else ())
                 + (("fabric not stated",) if not r["cluster_proven"] else ()))
    stale = offers.stale_spot(r.get("price_age_days")) if r.get("stale") and r.get("offer_kind") == offers.SPOT else None
    return Row((
        Cell(f"{r['provider']} {r['instance_type']}", subs=(r["region"],) + tags, breakable=True),
        Cell(option_label(r["pricing_option"]).lower(),
             subs=(age_words(r), f"{fmt.usd(r['usd_per_hour'])}/h") + ((stale,) if stale else ())),
        Cell(f"{r['instances']:,}", sort=r["instances"]),
        Cell(r["accelerator_model"]),
        Cell(fmt.gpu_hours(r["gpu_hours"]), sort=r["gpu_hours"],
             subs=(f"{fmt.gpu_hours(r['gpu_hours_low'])}–{fmt.gpu_hours(r['gpu_hours_high'])}",)),
        Cell(fmt.wall_clock(r["hours"]), sort=r["hours"]),
        Cell(fmt.usd(r["cost_usd"], 0), sort=r["cost_usd"],
             subs=(f"{fmt.usd(r['cost_usd_low'], 0)}–{fmt.usd(r['cost_usd_high'], 0)}",)),
        Cell(fmt.usd(r["mlperf_cost_usd"], 0), sort=r["mlperf_cost_usd"],
             subs=(fmt.gpu_hours(r["mlperf_gpu_hours"]),)),
        Cell(basis_words(r["basis_benchmark"]), subs=(f"{len(r['basis_results'].split('; '))} result(s)",)
             + ((r["basis_note"],) if r["basis_note"] else ())),
    ))


def _offers_table(number: int, model: str, rows: pl.DataFrame) -> Table:
    shown = rows.head(SHOWN_OFFERS)
    return Table(number, f"{model}: the first {shown.height} of {rows.height} offers in the report's order, every "
                         "pricing option (budget: MLPerf's speed corrected by published runs, with its range; MLPerf's "
                         "own speed beside it, the optimistic bound)",
                 OFFER_COLUMNS, tuple(_offer_row(r) for r in shown.iter_rows(named=True)), css="model-offers",
                 csv="model_estimates",
                 empty="No offer: no accelerator of the price book has an MLPerf LLM result of this kind.")


def _facts(m: DescribedModel) -> str:
    if m.architecture == MOE:
        size = f"a mixture of experts, {m.parameters / 1e9:,.3g}B of {m.total_parameters / 1e9:,.4g}B parameters active"
    else:
        size = f"dense, {m.parameters / 1e9:,.3g}B parameters"
    shape = f", {m.layers} layers" if m.layers else ""
    if m.flops_per_token:
        shape += f", {m.flops_per_token:.3g} FLOPs per token as stated"
    elif m.has_attention_shape:
        shape += f" ({m.attention or 'gqa'} attention)"
    cluster = (f"the smallest cluster that finishes within {m.deadline_days:g} days"
               + (f" (at most {m.accelerators:,} accelerators)" if m.accelerators else "")
               if m.deadline_days else f"a cluster of {m.accelerators:,} accelerators")
    return (f"{m.kind}: {size}, {m.tokens / 1e12:,.4g}T tokens in sequences of {m.sequence_length:,}{shape}; "
            f"{m.training_flops():.3g} model FLOPs; trained in {(m.precision or 'bf16').upper()}; priced on {cluster}.")


def front(points: list[tuple[float, float]]) -> set[tuple[float, float]]:
    """The (hours, cost) points no other point beats on both: faster and cheaper, or as fast and cheaper."""
    best, out = float("inf"), set()
    for hours, cost in sorted(set(points)):
        if cost < best:
            out.add((hours, cost))
            best = cost
    return out


def cost_time_figure(number: int, title: str, rows: pl.DataFrame, cache: ChartCache) -> Figure | None:
    """Cost against wall-clock time of every offer of one model (its budget), coloured by accelerator model, the
    Pareto front ringed: the price of finishing sooner."""
    if rows.is_empty():
        return None
    palette = Palette(sorted(set(rows["accelerator_model"])))
    ringed = front(list(zip(rows["hours"], rows["cost_usd"])))
    points = [charts.Point("", r["hours"] * 60, r["cost_usd"], (r["hours"], r["cost_usd"]) in ringed,
                           palette[r["accelerator_model"]],
                           tip=f"{r['provider']} {r['instance_type']} ({r['region']}, {r['pricing_option']}): "
                               f"{fmt.usd(r['cost_usd'], 0)} in {fmt.wall_clock(r['hours'])}",
                           key=r["accelerator_model"]) for r in rows.iter_rows(named=True)]
    alt = (f"{title}: budget cost against wall-clock time of {rows.height} offers; the cheapest "
           f"{fmt.usd(rows['cost_usd'].min(), 0)}, the fastest {fmt.wall_clock(rows['hours'].min())}")
    caption = (f"{title}: budget cost to train against wall-clock time (in minutes) of every offer and pricing option, "
               "coloured by accelerator; the offers no other beats on both are ringed")
    return Figure(number, cache.svg(charts.pareto_chart, points, chart_id(number), alt), alt, caption)


def _picked(picks: pl.DataFrame, name: str, which: str) -> dict | None:
    rows = picks.filter((pl.col("model") == name) & (pl.col("pick") == which))
    return rows.row(0, named=True) if rows.height else None


def model_section(number: str, m: DescribedModel, estimates: pl.DataFrame, picks: pl.DataFrame,
                  not_priced: pl.DataFrame, numbering: Numbering, cache: ChartCache = NO_CACHE) -> ModelSection:
    rows = estimates.filter(pl.col("model") == m.name)  # in the report's order (metrics/model_picks.ranked)
    best, market, fast = (_picked(picks, m.name, which) for which in ("cheapest", "market", "fastest"))
    cheapest = offer_words(best) if best else "no offer at a price one can buy at, on a cluster that can train"
    cheapest_any = f"{offer_words(market)} ({offers.meaning(market['offer_kind'])})" if market else ""
    fastest = (f"a tie of {fast['tied']} offers, {fmt.wall_clock(fast['hours'])}; the cheapest of them "
               f"{offer_words(fast)}" if fast and fast["tied"] > 1 else offer_words(fast) if fast else "none")
    deadline = ""
    if m.deadline_days and rows.height:
        late = rows.filter(~pl.col("meets_deadline").fill_null(True))
        deadline = (f"Each accelerator model is priced on the smallest cluster whose budget finishes within "
                    f"{m.deadline_days:g} days"
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
                      Column("Scales (accelerators)", css="wrap"), Column("Precision", css="small"),
                      Column("Model TFLOP/s per accelerator, as run", numeric=True, css="wrap"),
                      Column("At BF16", numeric=True, css="wrap"))


def throughput_table(number: int, throughput: pl.DataFrame) -> Table:
    summary = (throughput.filter(pl.col("accelerator_model").is_not_null())
               .group_by("benchmark", "accelerator_model")
               .agg(pl.len().alias("results"), pl.col("accelerators").unique().sort().alias("scales"),
                    pl.col("precision").unique().sort().alias("precisions"),
                    (pl.col("precision_evidence") == "assumed").sum().alias("assumed"),
                    (pl.col("flops_with_attention_per_accelerator_s").median() / 1e12).alias("median"),
                    (pl.col("flops_with_attention_per_accelerator_s").min() / 1e12).alias("low"),
                    (pl.col("flops_with_attention_per_accelerator_s").max() / 1e12).alias("high"),
                    (pl.col("bf16_flops_with_attention_per_accelerator_s").median() / 1e12).alias("bf16"))
               .sort("benchmark", "accelerator_model"))
    return Table(number, "Achieved model FLOP/s per accelerator of the closed-division MLPerf LLM results (model FLOPs "
                         "of the tokens trained, attention included, / time × accelerators): median, least–greatest, "
                         "and at BF16 by the precision each ran at",
                 THROUGHPUT_COLUMNS, tuple(Row((
                     Cell(LLM_BENCHMARKS[r["benchmark"]].title), Cell(r["accelerator_model"]),
                     Cell(str(r["results"]), sort=r["results"]),
                     Cell(", ".join(f"{s:,}" for s in r["scales"])),
                     Cell(", ".join(r["precisions"]), subs=(f"{r['assumed']} assumed",) if r["assumed"] else ()),
                     Cell(f"{r['median']:,.0f}", sort=r["median"], subs=(f"{r['low']:,.0f}–{r['high']:,.0f}",)),
                     Cell(f"{r['bf16']:,.0f}", sort=r["bf16"]),
                 )) for r in summary.iter_rows(named=True)), css="model-throughput", csv="llm_throughput")


CALIBRATION_COLUMNS = (Column("Run", header=True), Column("Accelerator"), Column("Published GPU-hours", numeric=True,
                                                                                   css="wrap"),
                       Column("At MLPerf's speed", numeric=True, css="wrap"),
                       Column("Budget without this run", numeric=True, css="wrap"), Column("Error", numeric=True),
                       Column("Source and notes", css="small"))


def calibration_table(number: int, calibration: pl.DataFrame) -> Table:
    def row(r: dict) -> Row:
        if r["estimated_gpu_hours"] is None:
            estimated = (Cell("not estimated"), Cell("–"), Cell("–"))
        else:
            inside = "inside" if r["within_range"] else "OUTSIDE"
            estimated = (Cell(fmt.gpu_hours(r["mlperf_gpu_hours"]), sort=r["mlperf_gpu_hours"],
                              subs=(f"{r['basis_benchmark']} on {r['accelerators']:,}",)),
                         Cell(fmt.gpu_hours(r["estimated_gpu_hours"]), sort=r["estimated_gpu_hours"],
                              subs=(f"{fmt.gpu_hours(r['estimated_gpu_hours_low'])}–"
                                    f"{fmt.gpu_hours(r['estimated_gpu_hours_high'])}: published {inside}",)),
                         Cell(fmt.pct(100 * r["error"]), sort=r["error"]))
        return Row((Cell(r["run"]), Cell(r["accelerator_model"]),
                    Cell(fmt.gpu_hours(r["published_gpu_hours"]), sort=r["published_gpu_hours"],
                         subs=(r["published_basis"], r["precision"].upper())),
                    *estimated, Cell("; ".join(filter(None, [r["published_source"], r["note"]])))))
    return Table(number, "The budget against published training runs: each run estimated at MLPerf's speed, and its "
                         "budget made without it (leave-one-out) with the range a buyer would have been given",
                 CALIBRATION_COLUMNS, tuple(row(r) for r in calibration.iter_rows(named=True)),
                 css="model-calibration", csv="model_calibration")


def calibration_summary(calibration: pl.DataFrame) -> str:
    """"x 1.40 from 6 runs; without each run, its budget was off by 13% (median), at most 22%, ..."."""
    done = calibration.filter(pl.col("estimated_gpu_hours").is_not_null())
    factor = calibration["correction"].drop_nulls()[0] if calibration["correction"].drop_nulls().len() else None
    if factor is None:
        return "not calibrated: fewer than 3 published runs with an MLPerf LLM result on their accelerator"
    errors = [abs(e) for e in done["error"]]
    inside = int(done["within_range"].sum())
    return (f"× {factor:.2f}, the geometric mean of published / MLPerf-speed accelerator-hours over {done.height} runs; "
            f"made without each run in turn, a run's budget was off by {statistics.median(errors):.0%} (median), "
            f"{max(errors):.0%} at most, and {inside} of {done.height} published figures lie inside their range")


def model_chapter(number: int, models: list[DescribedModel], estimates: pl.DataFrame, picks: pl.DataFrame,
                  not_priced: pl.DataFrame, throughput: pl.DataFrame, calibration: pl.DataFrame, numbering: Numbering,
                  cache: ChartCache = NO_CACHE) -> ModelChapter | None:
    """The chapter, or None when report.toml describes no model."""
    if not models:
        return None
    sections = tuple(model_section(f"{number}.{i}", m, estimates, picks, not_priced, numbering, cache)
                     for i, m in enumerate(models, start=1))
    method = Heading(f"{number}.{len(sections) + 1}", "How a model is estimated", "model-method")
    heading = Heading(str(number), "Your model's cost", "your-model",
                      children=tuple(s.heading for s in sections) + (method,))
    return ModelChapter(heading, sections, throughput_table(numbering.table(), throughput),
                        calibration_table(numbering.table(), calibration), calibration_summary(calibration),
                        method)
