"""Prices in force on a date, and what changed since the previous snapshot (pure polars).

An instance's price in force on a date is its newest price dated on or before that date, per
pricing option (on demand, spot, each commitment term and payment option): a snapshot may list only
the prices that changed, so older snapshots still count. This is the one place that rule lives.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.domain.pricing import KEY, PRICE_OPTION

def prices_in_force(history: pl.DataFrame, on: date) -> pl.DataFrame:
    """One row per (provider, region, instance_type, pricing option): its newest price dated on or
    before `on`."""
    key = KEY + [c for c in PRICE_OPTION if c in history.columns]
    return (
        history.filter(pl.col("as_of") <= on)
        .sort("as_of")
        .group_by(key, maintain_order=True)
        .last()
        .sort(key, nulls_last=False)
    )


def offered(history: pl.DataFrame, exclude_offer_kinds: list[str] | None) -> pl.DataFrame:
    """The price rows whose offer kind report.toml does not leave out (exclude_offer_kinds)."""
    if not exclude_offer_kinds or "offer_kind" not in history.columns:
        return history
    return history.filter(~pl.col("offer_kind").is_in(list(exclude_offer_kinds)))


def price_changes(history: pl.DataFrame, current_date: date, previous_date: date | None) -> pl.DataFrame:
    """Previous and current price per instance; change_pct = 100 x (current / previous - 1).

    "Previous" is the price in force on `previous_date`, the snapshot before `current_date` (both
    dates by the one rule, metrics/price_dates.py: the report_dates mart); an instance first priced
    after it has null previous figures; an unchanged one has 0 %; no previous date: all null.
    """
    now = prices_in_force(history, current_date).select(
        *KEY, pl.col("as_of").alias("current_as_of"), pl.col("usd_per_hour").alias("current_usd_per_hour"),
    )
    if previous_date is None:
        before = pl.DataFrame(schema={**{k: pl.Utf8 for k in KEY}, "previous_as_of": pl.Date,
                                      "previous_usd_per_hour": pl.Float64})
    else:
        before = prices_in_force(history, previous_date).select(
            *KEY, pl.col("as_of").alias("previous_as_of"), pl.col("usd_per_hour").alias("previous_usd_per_hour"),
        )
    return (
        now.join(before, on=KEY, how="left")
        .select(
            *KEY, "previous_as_of", "previous_usd_per_hour", "current_as_of", "current_usd_per_hour",
            (100.0 * (pl.col("current_usd_per_hour") / pl.col("previous_usd_per_hour") - 1.0)).alias("change_pct"),
        )
        .sort(KEY)
    )
