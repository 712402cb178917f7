"""The report's pricing-option tables, per comparison and benchmark: cost to train under each way of
paying side by side with the cheapest option, and the commitment break-even. Pure: the rows of the
cost_to_train and cheapest_options marts in, records.Table out (pipelines/metrics/pricing_options.py
has the formulas and chooses the cheapest option; nothing here computes a price)."""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.domain.offers import stale_spot
from pipelines.domain.pricing import HOURS_PER_MONTH, option_label, parse_option, pricing_model_of
from pipelines.domain.report_settings import ReportSettings
from pipelines.domain import units as fmt
from pipelines.publish.footnotes import price_note, price_source
from pipelines.publish.labels import instance_of as label
from pipelines.publish.numbering import Numbering
from pipelines.publish.records import Cell, Column, Note, Row, Table, Tag

SPOT_CAVEAT = ("Spot capacity can be reclaimed by the provider at short notice: a run can be interrupted and must "
               "restart from its last checkpoint, so a spot cost to train is the cost of an uninterrupted run.")


@dataclass(frozen=True)
class PricingTables:
    options: Table  # cost to train under each pricing option
    break_even: Table | None  # None when no compared instance has a commitment
    spot_note: str | None  # the spot caveat, where a spot price is shown
    cheapest: str | None  # "GCP a2-highgpu-8g on a 3-year commitment at $4.93"


def option_words(r: dict) -> str:
    """"1-year reserved, standard, all upfront" / "spot" / "on demand": what the row's price is."""
    model = pricing_model_of(r.get("pricing_model"))
    if model == "on_demand":
        return "on demand"
    if model == "spot":
        return "spot"
    parts = [f"{r['term_years']}-year {model.replace('_', ' ')}"]
    parts += [p.replace("_", " ") for p in (r.get("offering_class"), r.get("payment_option")) if p]
    return ", ".join(parts)


def own_price(r: dict) -> bool:
    return (r.get("whose_price") or "list") != "list"


def stale_spot_price(r: dict) -> bool:
    """A spot price marked stale (older than report.toml spot_stale_after_days: metrics/price_age.py)."""
    return bool(r.get("stale")) and pricing_model_of(r.get("pricing_model")) == "spot"


def price_tags(r: dict) -> tuple[Tag, ...]:
    """"own price" for a negotiated price, "stale" for an old one (a stale spot price's tooltip says it is no current
    price: it never headlines, domain/offers.in_headline)."""
    tags = ()
    if own_price(r):
        tags += (Tag("own price", title=r["whose_price"]),)
    if stale_spot_price(r):
        tags += (Tag("stale", title=stale_spot(r.get("price_age_days"))),)
    elif r.get("stale"):
        tags += (Tag("stale", title=f"price {r['price_age_days']} days old at the price date"),)
    return tags


def price_subs(r: dict) -> tuple[str, ...]:
    """The line under a stale spot price, in words: "spot, 203 days old: not a current price"."""
    return (stale_spot(r.get("price_age_days")),) if stale_spot_price(r) else ()


def option_note(r: dict, numbering: Numbering, price_lines: dict | None = None) -> Note:
    """The footnote of a row's price: date, certainty, pricing option, and whose price it is; it cites
    the price's source and file in the sources appendix. An on-demand list price keeps one note
    however many tables show it; `price_lines` gives the file and line of each price."""
    on_demand_list = r["pricing_option"] == "on_demand" and not own_price(r)
    where = (price_lines or {}).get(price_line_key(r))
    text = price_note(r["provider"], r["region"], r["instance_type"], r["usd_per_hour"], r["price_as_of"],
                      r.get("price_source"), approximate=r.get("certainty") == "approximate",
                      option=option_words(r), cited=True)
    source_key = ":".join(str(r.get(k)) for k in ("provider", "region", "instance_type", "pricing_model", "term_years",
                                                  "payment_option", "offering_class", "price_as_of"))
    source = (f"price:{source_key}", "price", price_source(r["provider"], r["region"], r["instance_type"],
                                                           r["price_as_of"], r.get("price_source"), where,
                                                           option_words(r)))
    if r.get("upfront_usd"):
        text += f" Upfront {fmt.usd(r['upfront_usd'])} and {fmt.usd_hour(r['recurring_usd_per_hour'])} per hour."
    if r.get("interruption_frequency"):
        text += f" Spot interruption frequency: {r['interruption_frequency']}."
    if own_price(r):
        text += f" Your own negotiated price ({r['whose_price']}), not a list price."
    if on_demand_list:
        return numbering.note(f"price:{r['provider']}:{r['region']}:{r['instance_type']}", text, source)
    key = ":".join(str(r.get(k)) for k in ("provider", "region", "instance_type", "pricing_option", "price_as_of",
                                             "whose_price"))
    return numbering.note(f"option:{key}", text, source)


def price_line_key(r: dict) -> tuple:
    """A priced row's key into the price book's file and line (Sources.price_lines): the instance, the
    price's pricing model and commitment terms, and its date."""
    return (r["provider"], r["region"], r["instance_type"], pricing_model_of(r.get("pricing_model")),
            r.get("term_years"), r.get("payment_option"), r.get("offering_class"), r["price_as_of"])


def cheapest_picks(cheapest: list[dict]) -> dict[tuple, dict]:
    """One benchmark's cheapest_options rows by (position, provider, instance_type, runs_per_month)."""
    return {(r["position"], r["provider"], r["instance_type"], r["runs_per_month"]): r for r in cheapest}


def pricing_tables(short: str, rows: list[dict], settings: ReportSettings, numbering: Numbering,
                   price_lines: dict | None = None, cheapest: list[dict] = ()) -> PricingTables:
    """`rows`: one benchmark's cost_to_train rows of every pricing option, in report.toml's instance order;
    `cheapest`: its cheapest_options rows (the cheapest option per instance, for one run and at N runs a month)."""
    picks = cheapest_picks(list(cheapest))
    instances: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        instances.setdefault((r["position"], r["provider"], r["instance_type"]), {})[r["pricing_option"]] = r
    shown = [o for o in settings.pricing_models if any(o in by for by in instances.values())]
    number = numbering.table()  # before its rows: their notes are called from this table
    columns = (Column("Instance", header=True),) + tuple(
        Column(option_label(o), numeric=True, group="Cost to train (USD per hour below)") for o in shown
    ) + (Column("Cheapest option", short="Cheapest"),)
    table_rows, best = [], None
    for key, by in sorted(instances.items()):
        first = next(iter(by.values()))
        cells = [Cell(label(first), tags=(Tag("baseline"),) if first["is_baseline"] else ())]
        pick = picks.get((*key, None))
        cheapest = pick["pricing_option"] if pick else None
        for o in shown:
            r = by.get(o)
            if r is None:
                cells.append(Cell("–", subs=("no price",)))
                continue
            approx = "≈ " if r.get("certainty") == "approximate" else ""
            cost = r["cost_to_train_usd"]
            subs = (f"{approx}{fmt.usd_hour(r['usd_per_hour'])}/h",)
            if r.get("pricing_model") == "spot" and r.get("interruption_frequency"):
                subs += (f"interrupted {r['interruption_frequency']}",)
            subs += price_subs(r)
            cells.append(Cell(fmt.usd(cost) if cost is not None else fmt.NO_RESULT, sort=cost, subs=subs,
                              note=option_note(r, numbering, price_lines), strong=o == cheapest, tags=price_tags(r)))
        cells.append(Cell(option_label(cheapest) if cheapest else fmt.NO_RESULT))
        table_rows.append(Row(tuple(cells), classes=("baseline",) if first["is_baseline"] else ()))
        if cheapest and pick["cheapest_of_benchmark"]:
            best = (cheapest, by[cheapest])
    options = Table(number, f"{short}: cost to train under each pricing option (a commitment at its "
                                       f"effective hourly rate, as if all its hours are used; cheapest in bold)",
                    columns, tuple(table_rows), css="options-table", csv="cost_to_train", cards=True)
    return PricingTables(
        options=options, break_even=break_even_table(short, instances, shown, settings.runs_per_month, numbering, picks),
        spot_note=(SPOT_CAVEAT + (" The provider's interruption-frequency bucket is shown under the price where the "
                                  "price list gives it." if any(r.get("interruption_frequency") for r in rows)
                                  else " The price lists give no interruption-frequency bucket for these instances.")
                   if "spot" in shown else None),
        cheapest=(f"{label(best[1])} ({option_label(best[0]).lower()}) at {fmt.usd(best[1]['cost_to_train_usd'])}"
                  if best else None),
    )


def break_even_table(short: str, instances: dict, shown: list[str], runs_per_month: tuple[int, ...],
                     numbering: Numbering, picks: dict[tuple, dict]) -> Table | None:
    """Per instance with a commitment: the share of the term and the runs a month from which each
    commitment beats on demand, and the cheapest option at report.toml's runs_per_month (`picks`:
    cheapest_picks of the cheapest_options mart)."""
    commitments = [o for o in shown if parse_option(o)[1] is not None]
    rows = []
    for key, by in sorted(instances.items()):
        if not any(o in by for o in commitments):
            continue
        first = next(iter(by.values()))
        cells = [Cell(label(first), subs=(f"on demand {fmt.usd_hour(by['on_demand']['usd_per_hour'])}/h"
                                          if "on_demand" in by else "no on-demand price",))]
        for o in commitments:
            r = by.get(o)
            if r is None or r["break_even_share"] is None:
                cells.append(Cell("–"))
                continue
            runs = r["break_even_runs_per_month"]
            cells.append(Cell(fmt.pct(100 * r["break_even_share"], signed=False) + " of the term",
                              sort=r["break_even_share"],
                              subs=(f"{fmt.usd_hour(r['usd_per_hour'])}/h",
                                    f"from {fmt.count(runs)} runs a month" if runs is not None else "no result")))
        for n in runs_per_month:
            pick = picks.get((*key, n))
            cells.append(Cell(option_label(pick["pricing_option"]) if pick else fmt.NO_RESULT,
                              sort=pick["cost_usd"] if pick else None,
                              subs=(f"{fmt.usd(pick['cost_usd'], 0)} a month",) if pick else ()))
        rows.append(Row(tuple(cells)))
    if not rows:
        return None
    columns = (Column("Instance", header=True),) + tuple(
        Column(option_label(o), numeric=True, group="Commitment pays off from") for o in commitments
    ) + tuple(Column(f"{n:,} run{'s' if n != 1 else ''}", group="Cheapest at … a month") for n in runs_per_month)
    return Table(numbering.table(),
                 f"{short}: when a commitment costs less than on demand (share of the term spent training; runs a "
                 f"month at {HOURS_PER_MONTH} h a month), and the cheapest option at a given number of runs",
                 columns, tuple(rows), css="break-even-table", cards=True)

