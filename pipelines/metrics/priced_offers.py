"""Every offer of the whole market under every pricing option the report shows, at the price date: the offers a
described model is priced on (metrics/model_estimates.py). The prices are the cost_to_train mart's: prices in
force on the date (metrics/price_changes.py), the user's discounts, and for each option its cheapest rate
(metrics/pricing_options.choose_options); every region of every instance of the catalog, not only report.toml's.
Each price carries its age at the price date and whether it is stale (metrics/price_age.py): a described model's
estimate on an offer takes them (`with_offer_ages`), so a stale spot price never headlines it either.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.domain.offers import DEFAULT_SPOT_STALE_AFTER_DAYS
from pipelines.domain.pricing import DEFAULT_STALE_AFTER_DAYS
from pipelines.metrics.price_age import with_price_age
from pipelines.metrics.pricing_options import choose_options

OFFER_COLUMNS = ["provider", "region", "instance_type", "accelerator_model", "instance_accelerators", "pricing_option",
                 "usd_per_hour", "as_of", "offer_kind", "source"]
AGE_COLUMNS = ["price_age_days", "stale"]  # with a price date (metrics/price_age.py)
OFFER_KEY = ["provider", "region", "instance_type", "pricing_option"]


def priced_offers(prices: pl.DataFrame, instances: pl.DataFrame, options: list[str], on: date | None = None,
                  stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
                  spot_stale_after_days: int = DEFAULT_SPOT_STALE_AFTER_DAYS) -> pl.DataFrame:
    """One row per (provider, region, instance_type, pricing_option) with a price above zero and an accelerator.
    `prices`: the prices in force, discounted; `instances`: stg_instances; `on`: the price date, which adds each
    price's age and staleness (AGE_COLUMNS)."""
    chosen = choose_options(prices, options).filter(pl.col("usd_per_hour") > 0)
    if "offer_kind" not in chosen.columns:
        chosen = chosen.with_columns(pl.lit(None, pl.Utf8).alias("offer_kind"))
    joined = chosen.join(
        instances.select("provider", "instance_type", "accelerator_model",
                         pl.col("accelerator_count").cast(pl.Int64).alias("instance_accelerators")),
        on=["provider", "instance_type"], how="inner")
    out = (joined.filter(pl.col("accelerator_model").is_not_null() & (pl.col("instance_accelerators") > 0))
           .select(OFFER_COLUMNS).sort("provider", "region", "instance_type", "pricing_option"))
    return with_price_age(out, on, stale_after_days, "as_of", spot_stale_after_days) if on is not None else out


def with_offer_ages(estimates: pl.DataFrame, offers: pl.DataFrame) -> pl.DataFrame:
    """`estimates` (one row per offer and pricing option: metrics/model_estimates.py) with their offer's price age and
    staleness from `offers` (priced_offers at a price date); unchanged where `offers` has no ages."""
    if not set(AGE_COLUMNS) <= set(offers.columns):
        return estimates
    ages = offers.select(*OFFER_KEY, *AGE_COLUMNS).unique(OFFER_KEY, keep="first")
    return estimates.drop(AGE_COLUMNS, strict=False).join(ages, on=OFFER_KEY, how="left", maintain_order="left")
