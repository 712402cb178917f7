"""The atlas's chapters: one per MLPerf round, and in it one section per benchmark model with its
results ranked by cost to train on their cheapest instance, and time against cost."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.ingest.mlperf_quirks import MODEL_NAMES
from pipelines.ingest.mlperf_rules import RULES
from pipelines.publish import charts, labels, numbers as fmt
from pipelines.publish.energy_cells import ENERGY_COLUMNS, energy_cells
from pipelines.publish.footnotes import price_note, runs_note, system_note
from pipelines.publish.numbering import Numbering
from pipelines.publish.palette import Palette
from pipelines.publish.records import Cell, Column, Figure, Heading, Note, Row, Table, Tag, chart_id

TOP_ROWS = 10  # a table lists the 10 cheapest results and every tagged one; data/atlas.csv has all
MAX_FRONT_LABELS = 12  # labelled points of the Pareto front in a chart
# Footnotes list a system's software up to this many characters (data/atlas_systems.csv has all): a
# 600-character list of library versions made WeasyPrint 70 push footnotes off their call's page
# and, on a page laid out twice, lose them (3 of 590 footnotes of the whole corpus).
SOFTWARE_LIMIT = 120


def model_name(key: str) -> str:
    return MODEL_NAMES.get(key, key)


def target(round_: str, benchmark: str) -> str:
    """The round's quality target of a benchmark, in words."""
    rule = RULES.get(round_, {}).get(benchmark)
    if rule is None or rule.target is None:
        return "quality target not checked"
    return rule.target.describe()


def anchor(round_: str, model: str) -> str:
    return f"r{round_.replace('.', '-')}-{model}"


@dataclass(frozen=True)
class Result:
    """A result the text names: where it is cheapest to train and what that costs."""

    system: str
    submitter: str
    instance: str  # "2 × AWS p4d.24xlarge"
    cost: str
    time: str
    estimate: bool  # not measured on that cloud


@dataclass(frozen=True)
class ModelSection:
    heading: Heading
    benchmark: str  # the benchmark folder name(s)
    target: str
    results: int  # results priced
    pairs: int  # result × instance pairs priced
    cheapest: Result | None
    fastest: Result | None
    cheapest_per: tuple[tuple[str, str, str], ...]  # (accelerator model, cost, system), cheapest first
    front: tuple[str, ...]
    table: Table
    figure: Figure | None


@dataclass(frozen=True)
class RoundChapter:
    heading: Heading
    round: str
    models: tuple[ModelSection, ...]
    notes: tuple[Note, ...]


def round_chapter(number: int, round_: str, costs: pl.DataFrame, numbering: Numbering, palette: Palette) -> RoundChapter:
    """Chapter `number`: the results of one round (`costs`: its rows of atlas_costs)."""
    notes = numbering.chapter()
    models = tuple(model_section(f"{number}.{i}", round_, model, costs.filter(pl.col("benchmark_model") == model),
                                 numbering, palette)
                   for i, model in enumerate(sorted(set(costs["benchmark_model"].to_list())), start=1))
    return RoundChapter(
        heading=Heading(str(number), f"MLPerf Training {round_}", f"round-{round_.replace('.', '-')}",
                        children=tuple(m.heading for m in models)),
        round=round_, models=models, notes=tuple(notes))


def best_per_result(group: pl.DataFrame) -> list[dict]:
    """Each result on its cheapest instance, cheapest first; with how many instances it was priced on."""
    priced_on = group.group_by("folder", "system", "benchmark").agg(pl.len().alias("instances_priced"))
    return (group.sort("cost_to_train_usd", "provider", "instance_type")
            .group_by("folder", "system", "benchmark", maintain_order=True).first()
            .join(priced_on, on=["folder", "system", "benchmark"], how="left")
            .sort("cost_to_train_usd", "submitter", "system").to_dicts())


def model_section(number: str, round_: str, model: str, group: pl.DataFrame, numbering: Numbering,
                  palette: Palette) -> ModelSection:
    results = best_per_result(group)
    table_number = numbering.table()
    figure = scatter_figure(numbering.figure(), round_, model, results, palette) if len(results) >= 2 else None
    benchmarks = sorted(set(group["benchmark"].to_list()))
    fastest = next((r for r in results if r["fastest"]), None)
    return ModelSection(
        heading=Heading(number, model_name(model), anchor(round_, model)),
        benchmark=", ".join(benchmarks), target="; ".join(target(round_, b) for b in benchmarks),
        results=len(results), pairs=group.height,
        cheapest=_result(results[0]) if results else None, fastest=_result(fastest),
        cheapest_per=tuple((r["accelerator_model"], fmt.usd(r["cost_to_train_usd"]), r["system"])
                           for r in results if r["cheapest_for_accelerator"]),
        front=tuple(r["system"] for r in results if r["on_pareto_front"]),
        table=results_table(table_number, model, round_, results, numbering), figure=figure,
    )


def _instances(r: dict) -> str:
    return f"{r['instances_needed']} × {labels.instance(r['provider'], r['instance_type'])}"


def _estimate(r: dict) -> bool:
    return r["price_basis"] != "same cloud"


def _result(r: dict | None) -> Result | None:
    if r is None:
        return None
    return Result(r["system"], r["submitter"], _instances(r), fmt.usd(r["cost_to_train_usd"]),
                  fmt.minutes(r["time_to_train_minutes"]), _estimate(r))


def _tagged(r: dict) -> bool:
    return bool(r["on_pareto_front"] or r["fastest"] or r["cheapest_for_accelerator"])


RESULT_COLUMNS = (
    Column("#", numeric=True), Column("Result", header=True, css="system"), Column("Accelerators"),
    Column("Time to train", numeric=True), Column("Cheapest instance"), Column("USD per hour", numeric=True),
    Column("Cost to train", numeric=True), Column("Accel\u200berator-hours", numeric=True),
    Column("USD per accel\u200berator-hour", numeric=True),
) + ENERGY_COLUMNS


def results_table(number: int, model: str, round_: str, results: list[dict], numbering: Numbering) -> Table:
    """The cheapest results and every tagged one (front, fastest, cheapest per accelerator), ranked."""
    rows = tuple(result_row(rank, r, numbering) for rank, r in enumerate(results, start=1)
                 if rank <= TOP_ROWS or _tagged(r))
    hidden = len(results) - len(rows)
    caption = f"{model_name(model)}, {round_}: results ranked by cost to train" + (
        f" (the {len(rows)} cheapest or tagged of {len(results)}; all in data/atlas.csv)" if hidden else "")
    return Table(number, caption, RESULT_COLUMNS, rows, css="atlas-table", csv="atlas")


def result_row(rank: int, r: dict, numbering: Numbering) -> Row:
    """One result on its cheapest instance; its footnotes are numbered here, in reading order."""
    tags = tuple(t for t, on in (
        (Tag(f"cheapest {r['accelerator_model']}", "best"), r["cheapest_for_accelerator"]),
        (Tag("fastest"), r["fastest"]), (Tag("Pareto", "front"), r["on_pareto_front"]),
        (Tag("estimate", title=r["price_basis"]), _estimate(r))) if on)
    instance_subs = tuple(s for s, on in ((f"{r['idle_accelerators']} accelerator(s) idle", r["idle_accelerators"]),
                                          (f"+{r['instances_priced'] - 1} other instance(s)", r["instances_priced"] > 1)) if on)
    approximate = r["price_certainty"] == "approximate"
    return Row((
        Cell(str(rank), sort=rank),
        Cell(r["system"], subs=(r["submitter"],), tags=tags, breakable=True,
             note=numbering.note(f"sys:{r['folder']}:{r['system']}", result_footnote(r))),
        Cell(f"{r['number_of_nodes']} × {r['accelerators_per_node']} {r['accelerator_model']}", sort=r["accelerators_total"]),
        Cell(fmt.minutes(r["time_to_train_minutes"]), sort=r["time_to_train_minutes"]),
        Cell(_instances(r), subs=instance_subs, breakable=True),
        Cell(fmt.usd_hour(r["usd_per_hour"]), sort=r["usd_per_hour"], tags=(Tag("≈ price"),) if approximate else (),
             note=numbering.note(f"price:{r['provider']}:{r['instance_type']}", price_note(
                 r["provider"], r["region"], r["instance_type"], r["usd_per_hour"], r["price_as_of"], r["price_source"],
                 unit=_billing(r), approximate=approximate))),
        Cell(fmt.usd(r["cost_to_train_usd"]), sort=r["cost_to_train_usd"]),
        Cell("–" if r["accelerator_hours"] is None else f"{r['accelerator_hours']:,.1f}", sort=r["accelerator_hours"]),
        Cell(fmt.usd(r["usd_per_accelerator_hour"]), sort=r["usd_per_accelerator_hour"]),
        *energy_cells(r, numbering, f"{r['folder']}:{r['system']}:{r['benchmark']}"),
    ), classes=("cheapest",) if rank == 1 else (),
        facets=(("Provider", labels.provider(r["provider"])), ("Accelerator", r["accelerator_model"] or "–"))
        + labels.optional_facets(r))


def _billing(r: dict) -> str:
    return "per chip" if r.get("billing") == "chip" else f"an instance of {r['instance_accelerators']} accelerators"


def result_footnote(r: dict) -> str:
    """The system, how its score was computed, and which catalog model it is priced as."""
    parts = [system_note(r["system"], r, r["round"], software_limit=SOFTWARE_LIMIT)]
    if r.get("runs") is not None:
        parts.append(runs_note(r["runs"], r.get("dropped_runs")))
    if r.get("scaling_factor") not in (None, 1.0):
        parts.append(f"The review committee's scaling.json factor {r['scaling_factor']:g} is applied.")
    parts.append(f"Priced as catalog model {r.get('accelerator_model') or 'unknown'}"
                 + (f" ({r['assumption']})." if r.get("assumption") else "."))
    if r.get("quirk"):
        parts.append(f"Layout: {r['quirk']}.")
    return " ".join(parts)


def tip(r: dict) -> str:
    """A result's details for the hover text of its point, formatted as the table formats them."""
    return " · ".join((f"{r['system']} ({r['submitter']})",
                       f"{r['number_of_nodes']} × {r['accelerators_per_node']} {r['accelerator_model']}",
                       f"time to train {fmt.minutes(r['time_to_train_minutes'])}", f"on {_instances(r)}",
                       f"{fmt.usd_hour(r['usd_per_hour'])} per hour", f"cost to train {fmt.usd(r['cost_to_train_usd'])}")
                      + (("estimate",) if _estimate(r) else ()))


def scatter_figure(number: int, round_: str, model: str, results: list[dict], palette: Palette) -> Figure:
    """Time against cost of every priced result of the group, coloured by accelerator model; the front's
    first points labelled."""
    labelled = {id(r) for r in sorted((r for r in results if r["on_pareto_front"]),
                                      key=lambda r: (r["time_to_train_minutes"], r["cost_to_train_usd"]))[:MAX_FRONT_LABELS]}
    points = [charts.Point(r["system"] if id(r) in labelled else "", r["time_to_train_minutes"], r["cost_to_train_usd"],
                           bool(r["on_pareto_front"]), palette[r["accelerator_model"]], tip(r), r["accelerator_model"])
              for r in results]
    front = [r["system"] for r in results if r["on_pareto_front"]]
    alt = (f"{model_name(model)}, MLPerf {round_}: scatter plot of time against cost to train of {len(results)} priced "
           f"results, each on its cheapest instance; on the Pareto front: {', '.join(front)}.")
    return Figure(number, charts.pareto_chart(points, chart_id(number), alt), alt,
                  f"{model_name(model)}, {round_}: time against cost to train of each priced result on its cheapest "
                  f"instance, coloured by accelerator model. Ringed points are the Pareto front.")
