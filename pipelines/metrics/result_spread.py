"""How sure a figure is: the spread of the MLPerf results that could stand for an instance's accelerators.

An instance's time to train is one measured system's (its mapping, or for a whole-market offer the system
chosen for its accelerators). Other submitters measured the same accelerators at the same scale too; their
times say how much the figure depends on whose result was picked. For each priced row:

    the results that could stand for it = the closed-division results of the same benchmark, on the same
        accelerator model (accelerators.csv's, as the atlas matches it), with as many accelerators as the
        instance has, in every round the data set holds; the row's own result is always among them
    results_count                 = how many results (round, system) that is
    time_to_train_minutes_low/_high = the least and the greatest of their times to train
    cost_to_train_usd_low/_high   = usd_per_hour x those times / 60 (the row's own price: cost = price x time)

The point figure stays the row's own result's, so low <= point <= high. A workload timed from a team's own
measured throughput has one measurement: results_count 1, low = high = the point. A row without a time keeps
nulls.
"""

from __future__ import annotations

import polars as pl

from pipelines.metrics.cost import run_cost

SPREAD_COLUMNS = ["results_count", "time_to_train_minutes_low", "time_to_train_minutes_high",
                  "cost_to_train_usd_low", "cost_to_train_usd_high"]
_POOL = ["benchmark", "accelerator_model", "accelerator_count"]


def comparable_results(results: pl.DataFrame, models: dict[str, str | None]) -> pl.DataFrame:
    """The closed-division results of `results` (stg_results) with a time, each with its accelerator model (`models`:
    the accelerator catalog's model of each accelerator_model_name, ingest/accelerators.model_names) and accelerator
    count: _POOL, round, system, time."""
    closed = results.filter((pl.col("division") == "closed") & pl.col("time_to_train_minutes").is_not_null()
                            & pl.col("accelerator_model_name").is_not_null())
    return (closed.with_columns(
                pl.col("accelerator_model_name").replace_strict(models, default=None, return_dtype=pl.Utf8)
                .alias("accelerator_model"),
                pl.col("accelerators_count").cast(pl.Int64).alias("accelerator_count"))
            .filter(pl.col("accelerator_model").is_not_null())
            .select(*_POOL, "round", "system", "time_to_train_minutes")
            .unique(["benchmark", "round", "system"], keep="first", maintain_order=True))


def with_spread(cost: pl.DataFrame, instances: pl.DataFrame, comparable: pl.DataFrame) -> pl.DataFrame:
    """`cost` (cost_to_train rows) with SPREAD_COLUMNS (module docstring). `instances`: stg_instances (the
    instance's accelerator_model); `comparable`: comparable_results."""
    keyed = cost.with_row_index("_row").join(
        instances.select("provider", "instance_type", pl.col("accelerator_model").alias("_model")),
        on=["provider", "instance_type"], how="left", maintain_order="left")
    mlperf = keyed.filter(pl.col("time_to_train_minutes").is_not_null() & (pl.col("time_origin") == "MLPerf result"))
    own = mlperf.select("_row", "round", "system", "time_to_train_minutes")
    others = (mlperf.select("_row", "benchmark", pl.col("_model").alias("accelerator_model"),
                            pl.col("accelerator_count").cast(pl.Int64))
              .join(comparable, on=_POOL)
              .select("_row", "round", "system", "time_to_train_minutes"))
    spread = (pl.concat([own, others], how="vertical_relaxed")
              .unique(["_row", "round", "system"], keep="first")
              .group_by("_row").agg(pl.len().cast(pl.Int64).alias("results_count"),
                                    pl.col("time_to_train_minutes").min().alias("time_to_train_minutes_low"),
                                    pl.col("time_to_train_minutes").max().alias("time_to_train_minutes_high")))
    measured = pl.col("time_to_train_minutes").is_not_null() & (pl.col("time_origin") != "MLPerf result")
    out = (keyed.join(spread, on="_row", how="left", maintain_order="left")
           .with_columns(
               pl.when(measured).then(pl.lit(1, pl.Int64)).otherwise(pl.col("results_count")).alias("results_count"),
               pl.when(measured).then(pl.col("time_to_train_minutes")).otherwise(pl.col("time_to_train_minutes_low"))
               .alias("time_to_train_minutes_low"),
               pl.when(measured).then(pl.col("time_to_train_minutes")).otherwise(pl.col("time_to_train_minutes_high"))
               .alias("time_to_train_minutes_high"))
           .with_columns(
               run_cost(pl.col("usd_per_hour"), pl.col("time_to_train_minutes_low")).alias("cost_to_train_usd_low"),
               run_cost(pl.col("usd_per_hour"), pl.col("time_to_train_minutes_high")).alias("cost_to_train_usd_high")))
    return out.drop("_row", "_model")
