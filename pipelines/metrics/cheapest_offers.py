"""The answer a buyer asks for, per comparison and benchmark (or workload): pure polars over the
cost_to_train rows of every pricing option (pipelines/metrics/cost.py).

    cheapest offer            the instance and pricing option with the least cost to train among
                              every option the data prices (on demand, spot, commitments), over the
                              offers in the headline (domain/offers.in_headline: the offer kinds of
                              report.toml headline_offer_kinds, default list, spot, commitment and
                              quote: prices one can buy at; never a spot price older than
                              spot_stale_after_days, which is no current price)
    cheapest on-demand offer  the least cost to train at on-demand prices, over the same kinds
    fastest offer             the least time to train at on-demand prices, over the same kinds; its
                              cost; fastest_tied counts the offers that share that time (the answer
                              says "tie" then)
    cheapest market offer     the least cost among the kinds the headline leaves out (auction,
                              marketplace; domain/offers.in_market): shown apart, labelled, never as
                              "cheapest". A stale spot price is in neither: the chapters list it, aged
    offer kind                what the price is (domain/offers.py)
    saving                    savings_pct of that offer: 100 x (1 - cost / baseline cost), the
                              baseline priced at report.toml's baseline_pricing (cost.py)

Each offer carries its results' spread (metrics/result_spread.py), its price's date, age and certainty.
Ties follow the one rule of domain/best.py. An offer without a measured result is never picked; a
benchmark where no compared instance has one keeps a row with empty offers ("no result", never zero).
"""

from __future__ import annotations

import polars as pl

from pipelines.domain.offers import HEADLINE_DEFAULT, LIST, in_headline, in_market
from pipelines.domain.best import TIED, pick

KEYS = ["comparison", "benchmark"]
# what each offer carries from its cost_to_train row: <prefix>_<name>
OFFER = {"provider": "provider", "region": "region", "instance_type": "instance_type",
         "pricing_option": "pricing_option", "usd_per_hour": "usd_per_hour", "time_to_train_minutes": "minutes",
         "cost_to_train_usd": "cost_usd", "savings_pct": "savings_pct", "offer_kind": "offer_kind",
         "results_count": "results_count", "cost_to_train_usd_low": "cost_usd_low",
         "cost_to_train_usd_high": "cost_usd_high", "price_as_of": "price_as_of", "price_age_days": "price_age_days",
         "certainty": "certainty"}
_OPTIONAL = {"offer_kind": pl.Utf8, "results_count": pl.Int64, "cost_to_train_usd_low": pl.Float64,
             "cost_to_train_usd_high": pl.Float64, "price_age_days": pl.Int64, "certainty": pl.Utf8,
             "price_as_of": pl.Date}


def _offer(rows: pl.DataFrame, prefix: str, by: str, tied: bool = False) -> pl.DataFrame:
    """The pick per comparison and benchmark (domain/best.py), its OFFER columns as <prefix>_<name>."""
    picked = pick(rows, KEYS, by)
    return picked.select(*KEYS, *[pl.col(c).alias(f"{prefix}_{name}") for c, name in OFFER.items()],
                         *([pl.col(TIED).alias(f"{prefix}_{TIED}")] if tied else []))


def cheapest_offers(cost: pl.DataFrame, baseline_pricing: str = "on_demand",
                    headline_kinds: tuple[str, ...] | list[str] = HEADLINE_DEFAULT) -> pl.DataFrame:
    """One row per comparison and benchmark of `cost` (the cost_to_train mart, every pricing option)."""
    on_demand = cost.filter(pl.col("pricing_option") == "on_demand")
    for column, kind in _OPTIONAL.items():  # a price book without them: list prices, no spread
        if column not in cost.columns:
            cost = cost.with_columns((pl.lit(LIST) if column == "offer_kind" else pl.lit(None, kind)).alias(column))
    cost = cost.with_columns(pl.col("offer_kind").fill_null(LIST))  # a price nobody labelled: a list price
    known = cost.filter(pl.col("cost_to_train_usd").is_not_null())
    headline = known.filter(in_headline(headline_kinds, known.columns))
    market = known.filter(in_market(headline_kinds, known.columns))
    workload = pl.col("workload_title") if "workload_title" in cost.columns else pl.lit(None, pl.Utf8)
    what = on_demand.group_by(KEYS, maintain_order=True).agg(
        pl.col("comparison_title").first(), pl.col("benchmark_position").first(),
        workload.first().alias("workload_title"),
        pl.len().cast(pl.Int64).alias("instances"),
        pl.col("time_to_train_minutes").is_not_null().sum().cast(pl.Int64).alias("instances_with_result"),
    )
    baseline = on_demand.filter(pl.col("is_baseline")).select(
        *KEYS, pl.col("provider").alias("baseline_provider"), pl.col("instance_type").alias("baseline_instance_type"),
        pl.lit(baseline_pricing).alias("baseline_pricing_option"),
        pl.col("baseline_cost_usd"), pl.col("time_to_train_minutes").alias("baseline_minutes"))
    headline_on_demand = headline.filter(pl.col("pricing_option") == "on_demand")
    offers = [
        _offer(headline, "cheapest", "cost"),
        _offer(headline_on_demand, "cheapest_on_demand", "cost"),
        _offer(headline_on_demand, "fastest", "time", tied=True),
        _offer(market, "market", "cost"),
    ]
    out = what.join(baseline, on=KEYS, how="left", maintain_order="left")
    for offer in offers:
        out = out.join(offer, on=KEYS, how="left", maintain_order="left")
    # the on-demand offers' pricing option is on demand by construction
    return out.drop("cheapest_on_demand_pricing_option", "fastest_pricing_option").sort("comparison", "benchmark_position")
