"""The answer page: right after the cover (the PDF's page 2, the web page's first screen), one row
per comparison and benchmark (or workload) with the cheapest offer over every pricing option the
data prices, the cheapest on demand, the fastest, and the savings against the baseline, and one
chart of those savings. Pure: the cheapest_offers mart (pipelines/metrics/cheapest_offers.py) in,
records out; every figure is the mart's, formatted once (pipelines/domain/units.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.domain.pricing import option_label
from pipelines.domain import units as fmt
from pipelines.publish import charts, labels
from pipelines.publish.records import Cell, Column, Figure, Heading, Row, Table, chart_id

ANSWER = Heading("1", "The answer", "answer")
ANY_OPTION = "Cheapest, any pricing option"
ON_DEMAND = "Cheapest on demand"
COLUMNS = (
    Column("Benchmark", header=True),
    Column("Instance", group=ANY_OPTION, short="Cheapest"), Column("Cost", numeric=True, group=ANY_OPTION),
    Column("Instance", group=ON_DEMAND, short="On demand"), Column("Cost", numeric=True, group=ON_DEMAND,
                                                                   short="Cost on demand"),
    Column("Fastest"),
    Column("Saving vs baseline", numeric=True, css="wrap", short="Saving"),
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


def _instance(row: dict, prefix: str) -> str:
    return labels.instance(row[f"{prefix}_provider"], row[f"{prefix}_instance_type"])


def _kind(row: dict, prefix: str) -> tuple[str, ...]:
    """("marketplace",) for an offer that is not a provider's list price (the chapters' tables tag it), else ()."""
    kind = row.get(f"{prefix}_offer_kind")
    return (kind.replace("_", " "),) if labels.offer_tag_title(kind) else ()


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
            Cell(_instance(r, "cheapest"), strong=True, breakable=True,
                 subs=(" · ".join((option_label(r["cheapest_pricing_option"]).lower(), *_kind(r, "cheapest"),
                                   fmt.minutes(r["cheapest_minutes"]))),)),
            Cell(fmt.usd(r["cheapest_cost_usd"]), sort=r["cheapest_cost_usd"], strong=True),
            Cell(_instance(r, "cheapest_on_demand"), breakable=True,
                 subs=(" · ".join((*_kind(r, "cheapest_on_demand"), fmt.minutes(r["cheapest_on_demand_minutes"]))),)),
            Cell(fmt.usd(r["cheapest_on_demand_cost_usd"]), sort=r["cheapest_on_demand_cost_usd"]),
            Cell(_instance(r, "fastest"), breakable=True, subs=(f"{fmt.minutes(r['fastest_minutes'])} · {fmt.usd(r['fastest_cost_usd'])}",)),
            Cell(_saving(r["cheapest_savings_pct"]), sort=r["cheapest_savings_pct"], subs=_on_demand_saving(r)),
        ), group=group)))
    return tuple(row for _, row in rows)


def answer_table(number: int, offers: pl.DataFrame, sections: dict[tuple[str, str], Section]) -> Table:
    return Table(number, "The cheapest way to train each benchmark, over every pricing option and on demand; the "
                         "fastest; the savings against the baseline",
                 COLUMNS, answer_rows(offers, sections), css="answer-table", csv="cheapest_offers", cards=True,
                 sortable=False)


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
