"""The whole market in a comparison: every priced offer with the accelerators of an instance it lists.

A comparison of report.toml with `whole_market = true` compares, besides the instances it lists, every
other instance of the instance catalog (instances.csv and the public catalogs' offers) whose accelerator
model and count are those of a listed instance and that has an on-demand price in force at the report's
price date. Each is priced in one region, by the atlas's rule (atlas.atlas_price_history: report.toml's
region of its provider where it is sold there, else its cheapest region). Its time to train comes from
the mapping of an instance with the same accelerators (ingest/tables.with_same_accelerator_mappings).
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.metrics.atlas import atlas_price_history


def with_market(comparisons: pl.DataFrame, instances: pl.DataFrame, on_demand_history: pl.DataFrame,
                regions: dict[str, str], on: date | None) -> pl.DataFrame:
    """`comparisons` (stg_comparisons) plus one row per market offer and benchmark of each whole_market
    comparison, listed after its own instances (by provider and instance type), never the baseline."""
    market = comparisons.filter(pl.col("whole_market")) if "whole_market" in comparisons.columns else comparisons.clear()
    if market.is_empty() or on is None or on_demand_history.is_empty():
        return comparisons
    config = instances.select("provider", "instance_type", "accelerator_model", "accelerator_count")
    chosen = (atlas_price_history(on_demand_history.filter(pl.col("as_of") <= on), regions, on)
              .select("provider", "instance_type", "region").unique())
    listed = market.select("comparison", "provider", "instance_type").unique()
    offers = (listed.join(config, on=["provider", "instance_type"])
              .select("comparison", "accelerator_model", "accelerator_count").unique()
              .join(config, on=["accelerator_model", "accelerator_count"])
              .join(listed, on=["comparison", "provider", "instance_type"], how="anti")
              .join(chosen, on=["provider", "instance_type"])
              .sort("comparison", "provider", "instance_type"))
    if offers.is_empty():
        return comparisons
    last = market.group_by("comparison").agg(pl.col("position").max().alias("_last"))
    offers = (offers.join(last, on="comparison")
              .with_columns((pl.col("_last") + 1 + pl.int_range(pl.len()).over("comparison")).alias("position")))
    per_comparison = market.select("comparison", "comparison_title", "description", "benchmark", "benchmark_position",
                                   "whole_market").unique(["comparison", "benchmark"])
    rows = (offers.join(per_comparison, on="comparison")
            .with_columns(pl.lit(False).alias("is_baseline"),
                          (pl.lit("report.toml comparison ") + pl.col("comparison") + pl.lit(" whole_market: ")
                           + pl.col("provider") + pl.lit("/") + pl.col("instance_type")).alias("config_path")))
    out = pl.concat([comparisons, rows.select(comparisons.columns)], how="vertical_relaxed")
    return out.sort("comparison", "benchmark_position", "position")
