"""Every offer of the whole market under every pricing option the report shows, at the price date: the offers a
described model is priced on (metrics/model_estimates.py). The prices are the cost_to_train mart's: prices in
force on the date (metrics/price_changes.py), the user's discounts, and for each option its cheapest rate
(metrics/pricing_options.choose_options); every region of every instance of the catalog, not only report.toml's.
"""

from __future__ import annotations

import polars as pl

from pipelines.metrics.pricing_options import choose_options

OFFER_COLUMNS = ["provider", "region", "instance_type", "accelerator_model", "instance_accelerators", "pricing_option",
                 "usd_per_hour", "as_of", "offer_kind", "source"]


def priced_offers(prices: pl.DataFrame, instances: pl.DataFrame, options: list[str]) -> pl.DataFrame:
    """One row per (provider, region, instance_type, pricing_option) with a price above zero and an accelerator.
    `prices`: the prices in force, discounted; `instances`: stg_instances."""
    chosen = choose_options(prices, options).filter(pl.col("usd_per_hour") > 0)
    if "offer_kind" not in chosen.columns:
        chosen = chosen.with_columns(pl.lit(None, pl.Utf8).alias("offer_kind"))
    joined = chosen.join(
        instances.select("provider", "instance_type", "accelerator_model",
                         pl.col("accelerator_count").cast(pl.Int64).alias("instance_accelerators")),
        on=["provider", "instance_type"], how="inner")
    return (joined.filter(pl.col("accelerator_model").is_not_null() & (pl.col("instance_accelerators") > 0))
            .select(OFFER_COLUMNS).sort("provider", "region", "instance_type", "pricing_option"))
