"""The answer a buyer asks for, per comparison and benchmark (or workload): pure polars over the
cost_to_train rows of every pricing option (pipelines/metrics/cost.py).

    cheapest offer            the instance and pricing option with the least cost to train among
                              every option the data prices (on demand, spot, commitments)
    cheapest on-demand offer  the least cost to train at on-demand prices
    fastest offer             the least time to train; its cost on demand
    offer kind                list (a provider's list price), marketplace, community or reserved_only
    saving                    savings_pct of that offer: 100 x (1 - cost / baseline cost), the
                              baseline priced at report.toml's baseline_pricing (cost.py)

Ties go to report.toml's order of pricing options, then of instances, so the choice is the same on
every run. An offer without a measured result is never picked; a benchmark where no compared
instance has one keeps a row with empty offers ("no result", never zero).
"""

from __future__ import annotations

import polars as pl

KEYS = ["comparison", "benchmark"]
# what each offer carries from its cost_to_train row: <prefix>_<name>
OFFER = {"provider": "provider", "region": "region", "instance_type": "instance_type",
         "pricing_option": "pricing_option", "usd_per_hour": "usd_per_hour", "time_to_train_minutes": "minutes",
         "cost_to_train_usd": "cost_usd", "savings_pct": "savings_pct", "offer_kind": "offer_kind"}


def _offer(rows: pl.DataFrame, prefix: str, order: list[str]) -> pl.DataFrame:
    """The first row per comparison and benchmark in `order`, its OFFER columns as <prefix>_<name>."""
    return (rows.sort([*KEYS, *order], maintain_order=True).group_by(KEYS, maintain_order=True).first()
            .select(*KEYS, *[pl.col(c).alias(f"{prefix}_{name}") for c, name in OFFER.items()]))


def cheapest_offers(cost: pl.DataFrame, baseline_pricing: str = "on_demand") -> pl.DataFrame:
    """One row per comparison and benchmark of `cost` (the cost_to_train mart, every pricing option)."""
    on_demand = cost.filter(pl.col("pricing_option") == "on_demand")
    if "offer_kind" not in cost.columns:  # rows of a price book without the GPU clouds' catalogs: list prices
        cost = cost.with_columns(pl.lit("list").alias("offer_kind"))
    known = cost.filter(pl.col("cost_to_train_usd").is_not_null())
    known_on_demand = known.filter(pl.col("pricing_option") == "on_demand")
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
    offers = [
        _offer(known, "cheapest", ["cost_to_train_usd", "option_position", "position"]),
        _offer(known_on_demand, "cheapest_on_demand", ["cost_to_train_usd", "position"]),
        _offer(known_on_demand, "fastest", ["time_to_train_minutes", "cost_to_train_usd", "position"]),
    ]
    out = what.join(baseline, on=KEYS, how="left", maintain_order="left")
    for offer in offers:
        out = out.join(offer, on=KEYS, how="left", maintain_order="left")
    # the on-demand offers' pricing option is on demand by construction
    return out.drop("cheapest_on_demand_pricing_option", "fastest_pricing_option").sort("comparison", "benchmark_position")
