"""Pricing options: which price of an instance the report shows under each way of paying, the user's
negotiated discounts, and the commitment break-even (pure polars and arithmetic).

A pricing option is spelled as report.toml's `pricing_models` spells it:

    on_demand          the on-demand list price
    spot               the spot price (a run can be interrupted and must restart from a checkpoint)
    reserved_1y        the cheapest 1-year reserved instance (any payment option and offering class)
    savings_plan_3y    the cheapest 3-year savings plan (Compute or EC2 Instance)
    committed_use_1y   the 1-year committed use discount (GCP)
    commitment_1y      the cheapest 1-year commitment of any kind the provider sells
                       (reserved, savings plan or committed use); likewise _3y

"Cheapest" is the lowest effective hourly rate (recurring + upfront / (term x 8,760 h)); ties go
to the payment option that pays less upfront (no, partial, all upfront), then to the offering class
in alphabetical order, so the choice is the same on every run.

A negotiated discount is a percentage off one pricing model (on_demand, spot, reserved,
savings_plan, committed_use) of a provider, or of one instance (which then wins over the
provider's): every part of the price (effective, recurring and upfront) is cut by it, and the row's
`whose_price` says it is the user's own price, never a list price.

Commitment break-even, for a commitment option against the same instance's on-demand price:

    break_even_share          = committed effective rate / on-demand rate: the share of the term
                                the instance must spend training for the commitment to cost less
    monthly cost, N runs      on demand or spot: N x hours per run x rate (only hours used are billed)
                              commitment: 730 h x rate x commitments needed, where one commitment
                              covers one instance for 730 h a month: ceil(N x hours per run / 730)
    break_even_runs_per_month = 730 x committed rate / (on-demand rate x hours per run): from this
                                many runs a month on, one commitment costs less than on demand

The cheapest option of a compared instance (the cheapest_options mart; the report's pricing-option
and break-even tables show it): of report.toml's pricing_models, the one with the least cost to
train for one run, and the one with the least monthly bill (domain.pricing.monthly_cost) at each of
report.toml's runs_per_month; ties go to the first option in report.toml's order.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipelines.domain.offers import HEADLINE_DEFAULT, OFFER_KINDS, in_headline
from pipelines.domain.pricing import HOURS_PER_MONTH, KEY, LIST_PRICE, PAYMENT_OPTIONS, monthly_cost, parse_option


def discount_label(percent: float, pricing_model: str) -> str:
    """The whose_price of a discounted row: "own: 12% off on_demand list"."""
    return f"own: {percent:g}% off {pricing_model} list"


def apply_discounts(prices: pl.DataFrame, discounts: list[dict]) -> pl.DataFrame:
    """Cut each price by the user's discount for its provider (or instance) and pricing model.

    `discounts`: dicts with provider, instance_type (None: the whole provider), pricing_model and
    percent. An instance's own discount wins over its provider's. Adds `whose_price`: "list", or
    the discount that made it the user's own price.
    """
    out = prices.with_columns(pl.lit(None, pl.Float64).alias("_percent"), pl.lit(LIST_PRICE).alias("whose_price"))
    # provider-wide first, so that an instance's own discount, applied after, overrides it
    for d in sorted(discounts, key=lambda d: d.get("instance_type") is not None):
        hit = (pl.col("provider") == d["provider"]) & (pl.col("pricing_model") == d["pricing_model"])
        if d.get("instance_type") is not None:
            hit = hit & (pl.col("instance_type") == d["instance_type"])
        out = out.with_columns(
            pl.when(hit).then(pl.lit(float(d["percent"]))).otherwise(pl.col("_percent")).alias("_percent"),
            pl.when(hit).then(pl.lit(discount_label(d["percent"], d["pricing_model"])))
            .otherwise(pl.col("whose_price")).alias("whose_price"),
        )
    keep = 1.0 - pl.col("_percent").fill_null(0.0) / 100.0
    return out.with_columns(
        *[(pl.col(c) * keep).alias(c) for c in ("usd_per_hour", "upfront_usd", "recurring_usd_per_hour")
          if c in out.columns]
    ).drop("_percent")


def choose_options(prices: pl.DataFrame, options: list[str] | tuple[str, ...]) -> pl.DataFrame:
    """The price each instance has under each option: one row per (provider, region, instance_type,
    pricing_option), the cheapest effective rate among the rows the option stands for; an instance
    without such a price has no row for that option. `prices` are the prices in force (one row per
    price option) with all PRICE_SCHEMA columns."""
    payment_rank = pl.col("payment_option").replace_strict(
        PAYMENT_OPTIONS, range(len(PAYMENT_OPTIONS)), default=-1, return_dtype=pl.Int64)
    chosen = []
    for position, option in enumerate(options):
        models, term = parse_option(option)
        rows = prices.filter(pl.col("pricing_model").is_in(list(models)))
        if term is not None:
            rows = rows.filter(pl.col("term_years") == term)
        chosen.append(
            rows.sort(["usd_per_hour", payment_rank, "offering_class"], nulls_last=False)
            .group_by(KEY, maintain_order=True).first()
            .with_columns(pl.lit(option).alias("pricing_option"), pl.lit(position).alias("option_position"))
        )
    return pl.concat(chosen, how="diagonal_relaxed") if chosen else prices.clear()


def break_even_share(committed_usd_per_hour: pl.Expr, on_demand_usd_per_hour: pl.Expr) -> pl.Expr:
    """Share of the term the instance must train for the commitment to cost less than on demand."""
    return committed_usd_per_hour / on_demand_usd_per_hour


def break_even_runs_per_month(committed_usd_per_hour: pl.Expr, on_demand_usd_per_hour: pl.Expr,
                              hours_per_run: pl.Expr) -> pl.Expr:
    """Runs a month from which one commitment costs less than paying on demand for each run."""
    return HOURS_PER_MONTH * committed_usd_per_hour / (on_demand_usd_per_hour * hours_per_run)



def cheapest_at(options: dict[str, float], hours_per_run: float, runs: float) -> tuple[str, float] | None:
    """The cheapest option (and its monthly cost) at `runs` a month; `options`: option -> effective
    USD/h, in report order (the first wins a tie)."""
    costs = [(monthly_cost(o, rate, hours_per_run, runs), i, o) for i, (o, rate) in enumerate(options.items())
             if rate is not None]
    if not costs:
        return None
    cost, _, option = min(costs)
    return option, cost


CHEAPEST_INSTANCE = ["comparison", "benchmark", "position", "provider", "instance_type"]
CHEAPEST_SCHEMA = {"comparison": pl.Utf8, "benchmark": pl.Utf8, "position": pl.Int64, "provider": pl.Utf8,
                   "region": pl.Utf8, "instance_type": pl.Utf8, "runs_per_month": pl.Int64, "pricing_option": pl.Utf8,
                   "cost_usd": pl.Float64, "cheapest_of_benchmark": pl.Boolean}


def cheapest_options(cost: pl.DataFrame, options: Sequence[str], runs_per_month: Sequence[int],
                     headline_kinds: Sequence[str] = HEADLINE_DEFAULT) -> pl.DataFrame:
    """The cheapest of `options` (report.toml's pricing_models, in order) per compared instance of `cost`
    (the cost_to_train mart, every pricing option), by comparison, benchmark and report.toml's instance order:

    - runs_per_month null: the option with the least cost to train (cost_usd), among those with one;
      cheapest_of_benchmark marks the instance whose choice costs least in its comparison and
      benchmark (ties: the first instance in report.toml's order);
    - runs_per_month N: the option with the least monthly bill at N runs a month (cost_usd), for an
      instance with a time to train; no row where no option is priced.

    A spot price marked stale (older than report.toml spot_stale_after_days) is no current price: no instance's
    cheapest option (domain/offers.in_headline over every kind); and cheapest_of_benchmark is a pick like the
    answer's, among the offers in the headline (`headline_kinds`: an auction's or a marketplace's is never it).
    """
    cost = cost.with_columns(in_headline(OFFER_KINDS, cost.columns).alias("_current"),
                             in_headline(headline_kinds, cost.columns).alias("_headline"))
    instances: dict[tuple, dict[str, dict]] = {}
    for r in cost.iter_rows(named=True):
        instances.setdefault(tuple(r[k] for k in CHEAPEST_INSTANCE), {})[r["pricing_option"]] = r
    rows, best = [], {}
    for key, by in sorted(instances.items()):
        first = next(iter(by.values()))
        where = {**dict(zip(CHEAPEST_INSTANCE, key)), "region": first["region"]}
        known = {o: r for o, r in by.items() if o in options and r["cost_to_train_usd"] is not None and r["_current"]}
        shown = [o for o in options if o in by]
        cheapest = min(known, key=lambda o: (known[o]["cost_to_train_usd"], shown.index(o))) if known else None
        row = {**where, "runs_per_month": None, "pricing_option": cheapest,
               "cost_usd": known[cheapest]["cost_to_train_usd"] if cheapest else None, "cheapest_of_benchmark": False}
        rows.append(row)
        group = key[:2]
        if cheapest and known[cheapest]["_headline"] and (group not in best or row["cost_usd"] < best[group]["cost_usd"]):
            best[group] = row
        hours = (first["time_to_train_minutes"] or 0) / 60 or None
        rates = {o: by[o]["usd_per_hour"] for o in shown if by[o]["_current"]}
        for n in runs_per_month:
            pick = cheapest_at(rates, hours, n) if hours else None
            if pick:
                rows.append({**where, "runs_per_month": n, "pricing_option": pick[0], "cost_usd": pick[1],
                             "cheapest_of_benchmark": False})
    for row in best.values():
        row["cheapest_of_benchmark"] = True
    return pl.DataFrame(rows, schema=CHEAPEST_SCHEMA)
