"""What a price change does to cost to train and to the ranking in each comparison (pure polars)."""

from __future__ import annotations

import polars as pl

KEY = ["comparison", "benchmark", "provider", "region", "instance_type", "pricing_option"]


def cost_changes(current: pl.DataFrame, previous: pl.DataFrame) -> pl.DataFrame:
    """Join cost_to_train at the previous and the current price date, one row per compared instance
    and pricing option (the report's "What changed" shows the baseline's pricing option).

    change_pct = 100 x (current cost / previous cost - 1); rank 1 is the cheapest to train; previous_savings_pct is
    the previous snapshot's savings_pct (metrics/cost.py), which "savings +63.8% → +51.7%" compares with today's.
    `previous` is empty when there is no earlier snapshot: every previous figure is then null.
    """
    before = previous.select(
        *KEY,
        pl.col("usd_per_hour").alias("previous_usd_per_hour"),
        pl.col("cost_to_train_usd").alias("previous_cost_usd"),
        pl.col("cost_rank").alias("previous_rank"),
        pl.col("savings_pct").alias("previous_savings_pct"),
    )
    return (
        current.select(*KEY, "benchmark_position", "position", "option_position", "system", "usd_per_hour", "cost_to_train_usd", "cost_rank")
        .join(before, on=KEY, how="left")
        .select(
            *KEY, "system",
            "previous_usd_per_hour", pl.col("usd_per_hour").alias("current_usd_per_hour"),
            "previous_cost_usd", pl.col("cost_to_train_usd").alias("current_cost_usd"),
            (100.0 * (pl.col("cost_to_train_usd") / pl.col("previous_cost_usd") - 1.0)).alias("cost_change_pct"),
            "previous_rank", pl.col("cost_rank").alias("current_rank"), "previous_savings_pct",
            "benchmark_position", "position", "option_position",
        )
        .sort("comparison", "benchmark_position", "position", "option_position")
        .drop("benchmark_position", "position", "option_position")
    )
