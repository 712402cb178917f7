"""How old a price is at the date a document prices at, and whether it is stale (pure polars).

    price_age_days = price date - the price's as_of, in days
    stale          = price_age_days > spot_stale_after_days for a spot price (report.toml spot_stale_after_days,
                     default 7: a spot price is a moment's auction of spare capacity), else
                     price_age_days > stale_after_days (report.toml stale_after_days, default 365)

A stale price is marked in the tables; a stale spot price is no current price and never headlines
(domain/offers.in_headline reads `stale`). The one place this rule lives: the report's marts, the described
models' offers and the atlas call it alike.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.domain.offers import DEFAULT_SPOT_STALE_AFTER_DAYS, SPOT
from pipelines.domain.pricing import DEFAULT_STALE_AFTER_DAYS


def is_spot(columns) -> pl.Expr:
    """A spot price: paid as spot (pricing_model), or, in a frame without the pricing model, a spot offer."""
    if "pricing_model" in columns:
        return pl.col("pricing_model").fill_null("") == "spot"
    if "offer_kind" in columns:
        return pl.col("offer_kind").fill_null("") == SPOT
    return pl.lit(False)


def with_price_age(frame: pl.DataFrame, on: date, stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
                   as_of: str = "price_as_of",
                   spot_stale_after_days: int = DEFAULT_SPOT_STALE_AFTER_DAYS) -> pl.DataFrame:
    """`frame` with price_age_days and stale added from its `as_of` column (null where it has no price)."""
    age = (pl.lit(on, pl.Date) - pl.col(as_of).cast(pl.Date)).dt.total_days()
    limit = pl.when(is_spot(frame.columns)).then(pl.lit(spot_stale_after_days)).otherwise(pl.lit(stale_after_days))
    return frame.with_columns(age.cast(pl.Int64).alias("price_age_days"), (age > limit).alias("stale"))
