"""The atlas's chapters: one per MLPerf round, and in it one section per benchmark model with its
results ranked by cost to train on their cheapest instance, and time against cost."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.domain.mlperf import DIVISION_ORDER, MODEL_NAMES, RULES
from pipelines.domain.pricing import option_label
from pipelines.domain import units as fmt
from pipelines.publish import charts, labels
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.energy_cells import ENERGY_COLUMNS, energy_cells
from pipelines.publish.footnotes import SOFTWARE_LIMIT, price_note, runs_note, system_note
from pipelines.publish.numbering import Numbering
from pipelines.publish.palette import Palette
from pipelines.publish.records import Cell, Column, Figure, Heading, Note, Row, Table, Tag, chart_id

TOP_ROWS = 10  # a table lists the 10 cheapest results and every tagged one; data/atlas.csv has all


@dataclass(frozen=True)
class Detail:
    """How much of each round the document lists. The web edition (atlas.html) has every chart and the
    tagged results; the PDF is a digest a reader can print: the cheapest few per round and model and
    the cheapest per accelerator, no per-model chart (laying out ~100 charts and ~1,000 footnotes made
    a 200-page PDF that took two minutes and 1.5 GiB; issue 13's goals)."""

    top_rows: int
    tagged_rows: bool  # also every tagged result (cheapest per accelerator, fastest, Pareto front) beyond the top
    figures: bool
    unpriced_listed: int  # entries the "not priced" table lists (all are in data/atlas_not_priced.csv)
    every_pair: bool  # the web edition's table of every priced pair
    fixed_tables: bool  # tables printed at set column widths (fast to lay out; see records.Table.fixed)
    apart: bool = False  # each round (round_file, its footnotes numbered from 1) and the instances appendix a PDF of its own


WEB = Detail(top_rows=TOP_ROWS, tagged_rows=True, figures=True, unpriced_listed=80, every_pair=True, fixed_tables=False)
DIGEST = Detail(top_rows=3, tagged_rows=False, figures=False, unpriced_listed=0, every_pair=False, fixed_tables=True,
                apart=True)
MAX_FRONT_LABELS = 12  # labelled points of the Pareto front in a chart


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


def round_file(round_: str) -> str:
    """The digest's PDF of one round, beside atlas.pdf: laid out apart, so an unchanged round is not laid
    out again and a new one costs only its own pages (publish/pdf_parts.py)."""
    return f"atlas-{round_}.pdf"


@dataclass(frozen=True)
class Scoring:
    """How benchmark entries (a round's, or the corpus's) are scored: by the official summarizer, by the
    written rules where it stops on a systems JSON field its scoring never reads, or not at all."""

    entries: int
    official: int
    rules: int

    @property
    def scored(self) -> int:
        return self.official + self.rules

    @property
    def unscored(self) -> int:
        return self.entries - self.scored

    def __str__(self) -> str:
        """'728 (722 scored: 704 by the official summarizer, 18 by the rules where it stops)'."""
        return (f"{fmt.count(self.entries)} ({fmt.count(self.scored)} scored: {fmt.count(self.official)} by the "
                f"official summarizer, {fmt.count(self.rules)} by the rules where it stops)")


def scoring(scores: pl.DataFrame) -> Scoring:
    """The Scoring of atlas_scores rows (score_basis: official, rules, or empty for no score)."""
    basis = scores["score_basis"]
    return Scoring(scores.height, int((basis == "official").sum()), int((basis == "rules").sum()))


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
    division: str  # the division the words and the chart are about (closed when it has results)
    open_results: int  # open-division results ranked apart below the closed ones
    unranked_results: int  # results of unknown division: shown and priced, ranked against neither division
    table: Table
    figure: Figure | None


@dataclass(frozen=True)
class RoundChapter:
    heading: Heading
    round: str
    models: tuple[ModelSection, ...]
    notes: tuple[Note, ...]
    scoring: Scoring  # the round's entries, priced or not

    @property
    def pdf(self) -> str:
        """The round's digest PDF, published beside atlas.html."""
        return round_file(self.round)


def round_chapter(number: int, round_: str, costs: pl.DataFrame, scored: Scoring, numbering: Numbering,
                  palette: Palette, detail: Detail = WEB, cache: ChartCache = NO_CACHE) -> RoundChapter:
    """Chapter `number`: the results of one round (`costs`: its rows of atlas_costs; `scored`: how all its
    entries are scored, priced or not)."""
    notes = numbering.chapter(restart=detail.apart)
    models = tuple(model_section(f"{number}.{i}", round_, model, costs.filter(pl.col("benchmark_model") == model),
                                 numbering, palette, detail, cache)
                   for i, model in enumerate(sorted(set(costs["benchmark_model"].to_list())), start=1))
    return RoundChapter(
        heading=Heading(str(number), f"MLPerf Training {round_}", f"round-{round_.replace('.', '-')}",
                        children=tuple(m.heading for m in models), file=round_file(round_) if detail.apart else ""),
        round=round_, models=models, notes=tuple(notes), scoring=scored)


def best_per_result(group: pl.DataFrame) -> list[dict]:
    """Each result on its cheapest instance, closed division first, cheapest first within a division; with
    how many instances it was priced on and its rank among the results of its division (`result_rank`;
    none for a result of unknown division, which comes last)."""
    priced_on = group.group_by("folder", "system", "benchmark").agg(pl.len().alias("instances_priced"))
    # its cheapest instance: the first by cost_rank (domain/best.py's rule, auction and marketplace offers last)
    best = (group.sort("cost_rank", "cost_to_train_usd", "provider", "instance_type", nulls_last=True)
            .group_by("folder", "system", "benchmark", maintain_order=True).first()
            .join(priced_on, on=["folder", "system", "benchmark"], how="left")
            .sort(DIVISION_ORDER, "cost_to_train_usd", "submitter", "system", "folder", "benchmark"))  # ties: by folder
    rank = pl.int_range(1, pl.len() + 1).over("division")
    return best.with_columns(pl.when(pl.col("division").is_not_null()).then(rank).alias("result_rank")).to_dicts()


def _closed_first(results: list[dict]) -> list[dict]:
    """The results the section's words and chart are about: the closed division's, else the open one's
    (never those of unknown division, which are ranked against neither)."""
    for division in ("closed", "open"):
        found = [r for r in results if r.get("division") == division]
        if found:
            return found
    return []


def _ranked(results: list[dict]) -> list[dict]:
    """The results of a known division: those the chart draws."""
    return [r for r in results if r.get("division") is not None]


def model_section(number: str, round_: str, model: str, group: pl.DataFrame, numbering: Numbering,
                  palette: Palette, detail: Detail = WEB, cache: ChartCache = NO_CACHE) -> ModelSection:
    results = best_per_result(group)
    table_number = numbering.table()
    shown = _closed_first(results)
    figure = (scatter_figure(numbering.figure(), round_, model, results, palette, cache)
              if detail.figures and len(_ranked(results)) >= 2 else None)
    benchmarks = sorted(set(group["benchmark"].to_list()))
    fastest = next((r for r in shown if r["fastest"]), None)
    return ModelSection(
        heading=Heading(number, model_name(model), anchor(round_, model)),
        benchmark=", ".join(benchmarks), target="; ".join(target(round_, b) for b in benchmarks),
        results=len(results), pairs=group.height,
        cheapest=_result(shown[0]) if shown else None, fastest=_result(fastest),
        cheapest_per=tuple((r["accelerator_model"], fmt.usd(r["cost_to_train_usd"]), r["system"])
                           for r in shown if r["cheapest_for_accelerator"]),
        front=tuple(r["system"] for r in shown if r["on_pareto_front"]),
        division=shown[0].get("division") or "" if shown else "",
        open_results=sum(1 for r in results if r.get("division") == "open") if shown and shown[0]["division"] == "closed" else 0,
        unranked_results=sum(1 for r in results if r.get("division") is None),
        table=results_table(table_number, model, round_, results, numbering, detail), figure=figure,
    )


def instances_label(r: dict) -> str:
    """'2 × AWS p4d.24xlarge': the instances a result needs (the atlas's tables, tips and summary)."""
    return f"{r['instances_needed']} × {labels.instance(r['provider'], r['instance_type'])}"


def _estimate(r: dict) -> bool:
    return r["price_basis"] != "same cloud"


def _result(r: dict | None) -> Result | None:
    if r is None:
        return None
    return Result(r["system"], r["submitter"], instances_label(r), fmt.usd(r["cost_to_train_usd"]),
                  fmt.minutes(r["time_to_train_minutes"]), _estimate(r))


def _tagged(r: dict) -> bool:
    return bool(r["on_pareto_front"] or r["fastest"] or r["cheapest_for_accelerator"])


RESULT_COLUMNS = (
    Column("#", numeric=True, width="3%"), Column("Result", header=True, css="system", width="16%"),
    Column("Accelerators", width="11%"), Column("Time to train", numeric=True, width="8%"),
    Column("Cheapest instance", width="10%"), Column("USD per hour", numeric=True, width="10%"),
    Column("Cost to train", numeric=True, width="10%"),
    Column("Accel\u200berator-hours", numeric=True, width="7%", detail=True),
    Column("USD per accel\u200berator-hour", numeric=True, width="7%", detail=True),
) + ENERGY_COLUMNS  # the last four on screen on request: the table fits 1280 px


def results_table(number: int, model: str, round_: str, results: list[dict], numbering: Numbering,
                  detail: Detail = WEB) -> Table:
    """The cheapest results and every tagged one (front, fastest, cheapest per accelerator), ranked."""
    rows = tuple(result_row(r["result_rank"], r, numbering) for r in results
                 if r["result_rank"] is None or r["result_rank"] <= detail.top_rows or (detail.tagged_rows and _tagged(r)))
    hidden = len(results) - len(rows)
    divisions = sorted({r.get("division") for r in results if r.get("division")}, key=lambda d: d != "closed")
    unranked = sum(1 for r in results if r["result_rank"] is None)
    caption = f"{model_name(model)}, {round_}: results ranked by cost to train" + (
        ", closed division first, open division ranked apart" if len(divisions) > 1 else
        f", {divisions[0]} division" if divisions else "") + (
        f"; {unranked} of unknown division last, unranked (“–”: its systems JSON gives no division)" if unranked else "") + (
        f" (the {len(rows) - unranked} cheapest or tagged of {len(results) - unranked} ranked; a rank missing from # is "
        "a result not shown: atlas.html and data/atlas.csv have all)" if hidden else "")
    return Table(number, caption, RESULT_COLUMNS, rows, css="atlas-table", csv="atlas", fixed=detail.fixed_tables)


def result_row(rank: int | None, r: dict, numbering: Numbering) -> Row:
    """One result on its cheapest instance (`rank` None: of unknown division, unranked); its footnotes are
    numbered here, in reading order."""
    tags = tuple(t for t, on in (
        (Tag(f"cheapest {r['accelerator_model']}", "best"), r["cheapest_for_accelerator"]),
        (Tag("fastest"), r["fastest"]), (Tag("Pareto", "front"), r["on_pareto_front"]),
        (Tag("estimate", title=r["price_basis"]), _estimate(r)),
        (Tag("open division", title="ranked among open-division results only"), r.get("division") == "open"),
        (Tag("division unknown", title=UNRANKED), r.get("division") is None),
        (Tag("scored by the rules", title=f"the official summarizer stops: {r.get('official_crash')}"),
         r.get("score_basis") == "rules"),
        (Tag("rules deviation", title=r.get("rule_deviation") or ""), bool(r.get("deviates_from_rules")))) if on)
    instance_subs = tuple(s for s, on in ((f"{r['idle_accelerators']} accelerator(s) idle", r["idle_accelerators"]),
                                          (f"+{r['instances_priced'] - 1} other instance(s)", r["instances_priced"] > 1)) if on)
    approximate = r["price_certainty"] == "approximate"
    return Row((
        Cell(fmt.count(rank), sort=rank),
        Cell(r["system"], subs=(r["submitter"],), tags=tags, breakable=True,
             note=numbering.note(f"sys:{r['folder']}:{r['system']}", result_footnote(r))),
        Cell(f"{r['number_of_nodes']} × {r['accelerators_per_node']} {r['accelerator_model']}", sort=r["accelerators_total"]),
        Cell(fmt.minutes(r["time_to_train_minutes"]), sort=r["time_to_train_minutes"]),
        Cell(instances_label(r), subs=instance_subs, breakable=True),
        Cell(fmt.usd_hour(r["usd_per_hour"]), sort=r["usd_per_hour"], subs=(f"as of {fmt.day(r['price_as_of'])}",),
             tags=tuple(t for t, on in ((Tag("≈ price"), approximate),
                                        (Tag(str(r.get("offer_kind")).replace("_", " "),
                                             title=labels.offer_tag_title(r.get("offer_kind")) or ""),
                                         bool(labels.offer_tag_title(r.get("offer_kind")))),
                                        (Tag("fabric?", title=r.get("cluster_flag") or ""), bool(r.get("cluster_flag"))),
                                        (Tag("stale", title=f"{r.get('price_age_days')} days old at the price date"),
                                         bool(r.get("stale")))) if on),
             note=numbering.note(f"price:{r['provider']}:{r['instance_type']}", price_note(
                 r["provider"], r["region"], r["instance_type"], r["usd_per_hour"], r["price_as_of"], r["price_source"],
                 unit=_billing(r), approximate=approximate))),
        Cell(fmt.usd(r["cost_to_train_usd"]), sort=r["cost_to_train_usd"], subs=_cheaper_option(r)),
        Cell("–" if r["accelerator_hours"] is None else f"{r['accelerator_hours']:,.1f}", sort=r["accelerator_hours"]),
        Cell(fmt.usd(r["usd_per_accelerator_hour"]), sort=r["usd_per_accelerator_hour"]),
        *energy_cells(r, numbering, f"{r['folder']}:{r['system']}:{r['benchmark']}"),
    ), classes=("cheapest",) if rank == 1 else (),
        facets=(("Provider", labels.provider(r["provider"])), ("Accelerator", r["accelerator_model"] or "–"))
        + labels.optional_facets(r))


def _cheaper_option(r: dict) -> tuple[str, ...]:
    """"3-year commitment: $1.23" under the on-demand cost, when another way to pay is cheaper."""
    option = r.get("cheapest_option")
    if option in (None, "on_demand"):
        return ()
    return (f"{option_label(option)}: {fmt.usd(r['cheapest_option_cost_usd'])}",)


def _billing(r: dict) -> str:
    return "per chip" if r.get("billing") == "chip" else f"an instance of {r['instance_accelerators']} accelerators"


UNRANKED = ("its systems JSON gives no division and its name does not say: shown and priced, ranked against "
            "neither division")


def result_footnote(r: dict) -> str:
    """The system, how its score was computed, what its systems JSON lacks and where that was taken
    from, and which catalog model it is priced as."""
    parts = [system_note(r["system"], r, r["round"], software_limit=SOFTWARE_LIMIT)]
    if r.get("runs") is not None:
        parts.append(runs_note(r["runs"], r.get("dropped_runs")))
    if r.get("score_basis") == "rules":
        parts.append(f"The official summarizer stops on this system ({r['official_crash']}), a field its scoring never "
                     "reads: the runs are scored by the written rules, as its scoring function scores them.")
    if r.get("division") is None:
        parts.append(f"Division unknown: {UNRANKED}.")
    elif r.get("division_source") == "system name":
        parts.append(f"Division {r['division']} from the system name (its systems JSON has no division field).")
    source = r.get("nodes_source")
    if source not in (None, "systems JSON"):
        parts.append(f"Node count from {_nodes_from(source)} (the systems JSON has no number_of_nodes field).")
    if r.get("scaling_factor") not in (None, 1.0):
        parts.append(f"The review committee's scaling.json factor {r['scaling_factor']:g} is applied.")
    parts.append(f"Priced as catalog model {r.get('accelerator_model') or 'unknown'}"
                 + (f" ({r['assumption']})." if r.get("assumption") else "."))
    if r.get("quirk"):
        parts.append(f"Layout: {r['quirk']}.")
    if r.get("rule_deviation"):
        parts.append(f"The official score, kept as MLCommons published it, departs from the written rules: "
                     f"{r['rule_deviation']}.")
    return " ".join(parts)


def _nodes_from(source: str) -> str:
    """nodes_source in words: "system name" (NVIDIA's n<N>), or "systems JSON '<field>'" (a misspelt field)."""
    if source == "system name":
        return "NVIDIA's n<N> token of the system name"
    return f"the systems JSON's field {source.removeprefix('systems JSON ')}"


def tip(r: dict) -> str:
    """A result's details for the hover text of its point, formatted as the table formats them."""
    return " · ".join((f"{r['system']} ({r['submitter']})",
                       f"{r['number_of_nodes']} × {r['accelerators_per_node']} {r['accelerator_model']}",
                       f"time to train {fmt.minutes(r['time_to_train_minutes'])}", f"on {instances_label(r)}",
                       f"{fmt.usd_hour(r['usd_per_hour'])} per hour", f"cost to train {fmt.usd(r['cost_to_train_usd'])}")
                      + (("estimate",) if _estimate(r) else ())
                      + (("open division",) if r.get("division") == "open" else ()))


def scatter_figure(number: int, round_: str, model: str, results: list[dict], palette: Palette,
                   cache: ChartCache = NO_CACHE) -> Figure:
    """Time against cost of every priced result of the group, coloured by accelerator model; the front's
    first points labelled. Where the group has results of both divisions, the open ones are drawn
    hollow and the front is the closed division's (open results are ranked apart). Results of unknown
    division are not drawn (they are ranked against neither); the caption says how many."""
    left_off = len(results) - len(_ranked(results))
    results = _ranked(results)
    mixed = len({r.get("division") for r in results}) > 1
    shown = _closed_first(results)  # the division whose front is drawn
    on_front = {id(r) for r in shown if r["on_pareto_front"]}
    labelled = {id(r) for r in sorted((r for r in shown if id(r) in on_front),
                                      key=lambda r: (r["time_to_train_minutes"], r["cost_to_train_usd"]))[:MAX_FRONT_LABELS]}
    points = [charts.Point(r["system"] if id(r) in labelled else "", r["time_to_train_minutes"], r["cost_to_train_usd"],
                           id(r) in on_front, palette[r["accelerator_model"]], tip(r), r["accelerator_model"],
                           hollow=mixed and r.get("division") != "closed")
              for r in results]
    front = [r["system"] for r in shown if id(r) in on_front]
    opened = sum(1 for r in results if mixed and r.get("division") != "closed")
    alt = (f"{model_name(model)}, MLPerf {round_}: scatter plot of time against cost to train of {len(results)} priced "
           f"results, each on its cheapest instance" + (f" ({opened} of the open division, drawn hollow)" if opened else "")
           + f"; on the Pareto front: {', '.join(front)}.")
    division = shown[0].get("division") if shown else None
    if mixed:
        words = (": time against cost to train of each priced result on its cheapest instance, coloured by accelerator "
                 f"model; closed division filled, open division hollow. Ringed points are the {division} division's "
                 "Pareto front (the open division is ranked apart).")
    else:
        words = ((f", {division} division" if division else "") + ": time against cost to train of each priced result "
                 "on its cheapest instance, coloured by accelerator model. Ringed points are the Pareto front.")
    if left_off:
        words += f" Not drawn: {left_off} result(s) of unknown division (in the table, unranked)."
    return Figure(number, cache.svg(charts.pareto_chart, points, chart_id(number), alt), alt,
                  f"{model_name(model)}, {round_}" + words)
