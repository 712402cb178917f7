"""The answer page: right after the cover (the PDF's page 2, the web page's first screen), one row
per comparison and benchmark (or workload) with the cheapest offer over every pricing option the
data prices, the cheapest on demand, the fastest, and the savings against the baseline, and one
chart of those savings. Pure: the cheapest_offers mart (pipelines/metrics/cheapest_offers.py) in,
records out; every figure is the mart's, formatted once (pipelines/domain/units.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.domain import offers
from pipelines.domain.pricing import option_label
from pipelines.domain import units as fmt
from pipelines.publish import charts, labels
from pipelines.publish.records import Cell, Column, Figure, Heading, Row, Table, chart_id

ANSWER = Heading("1", "The answer", "answer")
ANY_OPTION = "Cheapest, any pricing option"
ON_DEMAND = "Cheapest on demand"
MARKET = "Auction or marketplace"
# printed at fixed widths (a long name or range wraps inside its cell): eight columns fit the page's width
COLUMNS = (
    Column("Benchmark", header=True, width="11%"),
    Column("Instance", group=ANY_OPTION, short="Cheapest", width="19%"),
    Column("Cost", numeric=True, group=ANY_OPTION, width="9%"),
    Column("Instance", group=ON_DEMAND, short="On demand", width="17%"),
    Column("Cost", numeric=True, group=ON_DEMAND, short="Cost on demand", width="9%"),
    Column("Fastest", width="11%"),
    Column(MARKET, short="Auction or marketplace", width="15%"),
    Column("Saving vs baseline", numeric=True, css="wrap", short="Saving", width="9%"),
)


@dataclass(frozen=True)
class Section:
    """Where a comparison and benchmark is told in full: its section's number, anchor and short name."""

    number: str
    anchor: str
    short: str


@dataclass(frozen=True)
class Answer:
    heading: Heading
    table: Table
    figure: Figure | None  # None when no benchmark has a baseline to save against
    kinds: tuple[str, ...] = tuple(offers.MEANING[k] for k in offers.MARKET_KINDS)  # the market column in words


def _instance(row: dict, prefix: str) -> str:
    return labels.instance(row[f"{prefix}_provider"], row[f"{prefix}_instance_type"])



def _kind(row: dict, prefix: str) -> tuple[str, ...]:
    """("quote",) for an offer whose kind the tables tag (not the provider's own published price), else ()."""
    kind = row.get(f"{prefix}_offer_kind")
    return (kind.replace("_", " "),) if labels.offer_tag_title(kind) else ()


def _sureness(row: dict, prefix: str) -> tuple[str, ...]:
    """How sure the offer's price is: its age at the price date, and "approximate" where it is."""
    days = row.get(f"{prefix}_price_age_days")
    return tuple(part for part in (f"{days:,} d" if days is not None else "",
                                   "approx." if row.get(f"{prefix}_certainty") == "approximate" else "") if part)


def _cost(row: dict, prefix: str, strong: bool = False) -> Cell:
    """The offer's cost, with the spread of the results behind it beneath (metrics/result_spread.py)."""
    spread = fmt.usd_range(row.get(f"{prefix}_cost_usd_low"), row.get(f"{prefix}_cost_usd_high"),
                           row.get(f"{prefix}_results_count"))
    return Cell(fmt.usd(row[f"{prefix}_cost_usd"]), sort=row[f"{prefix}_cost_usd"], strong=strong,
                subs=(spread.replace(" over ", " · "),) if spread else ())


def _fastest(row: dict) -> Cell:
    """The fastest offer, or "tie" where several share the least time (they stand for one measured result)."""
    time = fmt.minutes(row["fastest_minutes"])
    if (row.get("fastest_tied") or 1) > 1:
        return Cell(f"tie: {row['fastest_tied']} offers", subs=(f"{time} · from {fmt.usd(row['fastest_cost_usd'])}",))
    return Cell(_instance(row, "fastest"), names=True,
                subs=(f"{time} · {fmt.usd(row['fastest_cost_usd'])}",))


def _market(row: dict) -> Cell:
    """The cheapest offer of a kind the headline leaves out (an auction's bid, a host's listing), labelled."""
    if row.get("market_cost_usd") is None:
        return Cell("–")
    option = "" if row["market_pricing_option"] == "on_demand" else f" {option_label(row['market_pricing_option']).lower()}"
    return Cell(_instance(row, "market"), names=True,
                subs=(f"{row['market_offer_kind']}{option} · {fmt.usd(row['market_cost_usd'])}",))


def _saving(value: float | None) -> str:
    return fmt.savings(value) if value is not None else "–"


def _on_demand_saving(r: dict) -> tuple[str, ...]:
    """Under the saving: the cheapest on-demand offer's, or that it is the baseline itself."""
    if r["cheapest_on_demand_savings_pct"] is None:
        return ()
    if ((r["cheapest_on_demand_provider"], r["cheapest_on_demand_instance_type"])
            == (r["baseline_provider"], r["baseline_instance_type"]) and r["baseline_pricing_option"] == "on_demand"):
        return ("on demand: the baseline",)
    return (f"on demand {_saving(r['cheapest_on_demand_savings_pct'])}",)


def answer_rows(offers: pl.DataFrame, sections: dict[tuple[str, str], Section]) -> tuple[Row, ...]:
    """The table's rows, each comparison's first row naming it and its baseline."""
    rows = []
    for r in offers.iter_rows(named=True):
        where = sections[(r["comparison"], r["benchmark"])]
        head = Cell(f"{where.number} {where.short}", link=where.anchor,
                    subs=(f"baseline {fmt.usd(r['baseline_cost_usd'])}" if r["baseline_cost_usd"] is not None
                          else "baseline: no result",))
        group = (f"{r['comparison_title']} · baseline {labels.instance(r['baseline_provider'], r['baseline_instance_type'])}"
                 f" at {option_label(r['baseline_pricing_option']).lower()} prices"
                 if not rows or rows[-1][0] != r["comparison"] else None)
        if r["cheapest_cost_usd"] is None:
            rows.append((r["comparison"], Row((head,), span="no measured result on any compared instance", group=group)))
            continue
        rows.append((r["comparison"], Row((
            head,
            Cell(_instance(r, "cheapest"), strong=True, names=True,
                 subs=(" · ".join((option_label(r["cheapest_pricing_option"]).lower(), *_kind(r, "cheapest"),
                                   fmt.minutes(r["cheapest_minutes"]), *_sureness(r, "cheapest"))),)),
            _cost(r, "cheapest", strong=True),
            Cell(_instance(r, "cheapest_on_demand"), names=True,
                 subs=(" · ".join((*_kind(r, "cheapest_on_demand"), fmt.minutes(r["cheapest_on_demand_minutes"]),
                                   *_sureness(r, "cheapest_on_demand"))),)),
            _cost(r, "cheapest_on_demand"),
            _fastest(r),
            _market(r),
            Cell(_saving(r["cheapest_savings_pct"]), sort=r["cheapest_savings_pct"], subs=_on_demand_saving(r)),
        ), group=group)))
    return tuple(row for _, row in rows)


def _model_offer(r: dict) -> str:
    return f"{r['instances']:,} × {labels.instance(r['provider'], r['instance_type'])}"


def _model_cost(r: dict) -> Cell:
    """The budget's cost, with its range and the price's age."""
    return Cell(fmt.usd(r["cost_usd"], 0), sort=r["cost_usd"], strong=True,
                subs=(f"{fmt.usd(r['cost_usd_low'], 0)}–{fmt.usd(r['cost_usd_high'], 0).lstrip('$')} · "
                      f"{_price_age(r)}",))


def _price_age(r: dict) -> str:
    days = r.get("price_age_days")
    age = f"price {days:,} d old" if days is not None else "price age not known"
    return age + (" · approx." if r.get("certainty") == "approximate" else "")


def model_rows(picks: pl.DataFrame, models: tuple[tuple[Section, str], ...]) -> tuple[Row, ...]:
    """A row per described model (report.toml [models]) from the model_picks mart, the picks its chapter names: the
    cheapest offer over every pricing option and on demand, the fastest, and the cheapest auction or marketplace
    offer. No baseline: a model is not compared with one. `models`: each model's section and its name."""
    rows = []
    for where, name in models:
        mine = {r["pick"]: r for r in picks.filter(pl.col("model") == name).iter_rows(named=True)}
        head = Cell(f"{where.number} {name}", link=where.anchor, subs=("your model",))
        group = "Your models (report.toml [models]): a budget from MLPerf-measured throughput" if not rows else None
        b, on_demand, f, mk = (mine.get(p) for p in ("cheapest", "cheapest_on_demand", "fastest", "market"))
        if b is None:
            rows.append(Row((head,), span="no offer with an MLPerf LLM result for its accelerators", group=group))
            continue
        rows.append(Row((
            head,
            Cell(_model_offer(b), strong=True, names=True,
                 subs=(f"{option_label(b['pricing_option']).lower()} · {fmt.wall_clock(b['hours'])}",)),
            _model_cost(b),
            Cell(_model_offer(on_demand), names=True, subs=(fmt.wall_clock(on_demand["hours"]),)) if on_demand
            else Cell("–"),
            Cell(fmt.usd(on_demand["cost_usd"], 0), sort=on_demand["cost_usd"], subs=(_price_age(on_demand),))
            if on_demand else Cell("–"),
            (Cell(f"tie: {f['tied']} offers", subs=(f"{fmt.wall_clock(f['hours'])} · from {fmt.usd(f['cost_usd'], 0)}",))
             if f and f["tied"] > 1 else Cell(_model_offer(f), names=True,
                                              subs=(f"{fmt.wall_clock(f['hours'])} · {fmt.usd(f['cost_usd'], 0)}",))
             if f else Cell("–")),
            Cell(_model_offer(mk), names=True, subs=(f"{mk['offer_kind']} · {fmt.usd(mk['cost_usd'], 0)}",))
            if mk else Cell("–"),
            Cell("–", subs=("no baseline",)),
        ), group=group))
    return tuple(rows)


def answer_table(number: int, offers: pl.DataFrame, sections: dict[tuple[str, str], Section],
                 models: tuple[Row, ...] = ()) -> Table:
    return Table(number, "The cheapest way to train each benchmark (and each model you described), over every "
                         "pricing option and on demand; the fastest; the savings against the baseline",
                 COLUMNS, answer_rows(offers, sections) + models, css="answer-table", csv="cheapest_offers", cards=True,
                 sortable=False, fixed=True)


def has_savings(offers: pl.DataFrame) -> bool:
    """Is there a saving to chart (a benchmark whose baseline has a result)?"""
    return offers.filter(pl.col("cheapest_savings_pct").is_not_null()).height > 0


def answer_figure(number: int, offers: pl.DataFrame, sections: dict[tuple[str, str], Section]) -> Figure:
    """Each benchmark's savings against its baseline: the cheapest offer over every option (filled) and
    the cheapest on demand (hollow), on one scale."""
    rows = []
    for r in offers.iter_rows(named=True):
        where = sections[(r["comparison"], r["benchmark"])]
        any_option = r["cheapest_savings_pct"]
        rows.append(charts.SavingsRow(
            f"{where.number} {where.short}", any_option, r["cheapest_on_demand_savings_pct"],
            f"{_saving(any_option)} {option_label(r['cheapest_pricing_option']).lower()}" if any_option is not None
            else "no baseline result" if r["cheapest_cost_usd"] is not None else fmt.NO_RESULT,
            tip=" · ".join(p for p in (
                f"{where.number} {where.short}",
                f"cheapest {_instance(r, 'cheapest')} ({option_label(r['cheapest_pricing_option']).lower()}) "
                f"{fmt.usd(r['cheapest_cost_usd'])}, saving {_saving(any_option)}" if any_option is not None else None,
                f"cheapest on demand {_instance(r, 'cheapest_on_demand')} {fmt.usd(r['cheapest_on_demand_cost_usd'])}, "
                f"saving {_saving(r['cheapest_on_demand_savings_pct'])}"
                if r["cheapest_on_demand_savings_pct"] is not None else None) if p)))
    alt = ("Dot chart of each benchmark's savings against its comparison's baseline: "
           + "; ".join(f"{row.label}: cheapest over every pricing option {row.text}"
                       + (f", cheapest on demand {_saving(row.on_demand)}" if row.on_demand is not None else "")
                       for row in rows) + ".")
    return Figure(number, charts.savings_dot_chart(rows, chart_id(number), alt), alt,
                  "Savings against each comparison's baseline: the cheapest offer over every pricing option (filled "
                  "dot, its saving and option beside it) and on demand (hollow dot).",
                  css="answer-chart")
