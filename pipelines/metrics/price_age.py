"""How old a price is at the date a document prices at, and whether it is stale (pure polars).

    price_age_days = price date - the price's as_of, in days
    stale          = price_age_days > stale_after_days (report.toml stale_after_days, default 365)

The one place this rule lives: the report's marts and the atlas call it alike.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.domain.pricing import DEFAULT_STALE_AFTER_DAYS


def with_price_age(frame: pl.DataFrame, on: date, stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
                   as_of: str = "price_as_of") -> pl.DataFrame:
    """`frame` with price_age_days and stale added from its `as_of` column (null where it has no price)."""
    age = (pl.lit(on, pl.Date) - pl.col(as_of).cast(pl.Date)).dt.total_days()
    return frame.with_columns(age.cast(pl.Int64).alias("price_age_days"),
                              (age > stale_after_days).alias("stale"))
