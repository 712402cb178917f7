"""Cost to train, savings and speedup: pure polars, one row per (comparison, benchmark, instance).

    cost to train (USD)  = usd_per_hour x time_to_train_minutes / 60
    samples per dollar   = samples_per_second x 3600 / usd_per_hour
    savings_pct          = 100 x (1 - cost / baseline cost)
    speedup              = baseline time / time
    price to beat (USD/h)= baseline cost / (time / 60): the hourly price at which this instance
                           would train exactly as cheaply as the baseline (break-even)

An instance with no measured result keeps null figures: the report says "no result", never 0.
"""

from __future__ import annotations

import polars as pl

# The export's first columns, in this order (the data contract of the report's CSV/Parquet).
EXPORT_COLUMNS = [
    "comparison", "benchmark", "provider", "region", "instance_type", "accelerator",
    "accelerator_count", "system", "time_to_train_minutes", "usd_per_hour", "cost_to_train_usd",
    "baseline_instance_type", "savings_pct", "speedup", "price_as_of",
]


def assemble_inputs(
    comparisons: pl.DataFrame,
    instances: pl.DataFrame,
    mappings: pl.DataFrame,
    time_to_train: pl.DataFrame,
    prices: pl.DataFrame,
    throughput: pl.DataFrame,
) -> pl.DataFrame:
    """Join what each compared instance needs: accelerators, measured system, time and price.

    `prices` holds the price in force at the report's price date per (provider, region, type).
    Throughput measured by a team wins over throughput derived from MLPerf logs.
    """
    logged = time_to_train.select(
        "system", "benchmark", "round", "time_to_train_minutes", "runs", "dropped_runs",
        pl.col("samples_per_second").alias("logged_samples_per_second"),
    )
    return (
        comparisons.select(
            "comparison", "comparison_title", "position", "provider", "region", "instance_type",
            "benchmark", "benchmark_position", "is_baseline",
        )
        .join(instances.select("provider", "instance_type", "accelerator", "accelerator_count"),
              on=["provider", "instance_type"], how="left")
        .join(mappings.select("provider", "instance_type", "benchmark", "system", pl.col("note").alias("mapping_note")),
              on=["provider", "instance_type", "benchmark"], how="left")
        .join(logged, on=["system", "benchmark"], how="left")
        .join(prices.select("provider", "region", "instance_type", "usd_per_hour",
                            pl.col("as_of").alias("price_as_of"), pl.col("source").alias("price_source")),
              on=["provider", "region", "instance_type"], how="left")
        .join(throughput.select("system", "benchmark", pl.col("samples_per_second").alias("measured_samples_per_second")),
              on=["system", "benchmark"], how="left")
        .with_columns(
            pl.coalesce("measured_samples_per_second", "logged_samples_per_second").alias("samples_per_second"),
            pl.when(pl.col("measured_samples_per_second").is_not_null()).then(pl.lit("measured"))
            .when(pl.col("logged_samples_per_second").is_not_null()).then(pl.lit("MLPerf log"))
            .otherwise(None).alias("throughput_origin"),
        )
        .drop("measured_samples_per_second", "logged_samples_per_second")
    )


def cost_to_train(inputs: pl.DataFrame) -> pl.DataFrame:
    """Add cost, savings, speedup, samples per dollar, price to beat and rank to assembled rows."""
    group = ["comparison", "benchmark"]
    hours = pl.col("time_to_train_minutes") / 60.0
    with_cost = inputs.with_columns(
        (pl.col("usd_per_hour") * hours).alias("cost_to_train_usd"),
        (pl.col("samples_per_second") * 3600.0 / pl.col("usd_per_hour")).alias("samples_per_dollar"),
    )
    baseline = (
        with_cost.filter(pl.col("is_baseline"))
        .select(
            *group,
            pl.col("instance_type").alias("baseline_instance_type"),
            pl.col("provider").alias("baseline_provider"),
            pl.col("cost_to_train_usd").alias("baseline_cost_usd"),
            pl.col("time_to_train_minutes").alias("baseline_minutes"),
        )
    )
    cheapest = with_cost.group_by(group).agg(pl.col("cost_to_train_usd").min().alias("cheapest_cost_usd"))
    out = (
        with_cost.join(baseline, on=group, how="left")
        .join(cheapest, on=group, how="left")
        .with_columns(
            (100.0 * (1.0 - pl.col("cost_to_train_usd") / pl.col("baseline_cost_usd"))).alias("savings_pct"),
            (pl.col("baseline_minutes") / pl.col("time_to_train_minutes")).alias("speedup"),
            (pl.col("baseline_cost_usd") / hours).alias("price_to_beat_baseline"),
            (pl.col("cheapest_cost_usd") / hours).alias("price_to_beat_cheapest"),
            pl.col("cost_to_train_usd").rank("min").over(group).cast(pl.Int64).alias("cost_rank"),
        )
        .with_columns(pareto_front(pl.col("time_to_train_minutes"), pl.col("cost_to_train_usd")).over(group).alias("on_pareto_front"))
        .drop("baseline_minutes", "cheapest_cost_usd")
    )
    rest = [c for c in out.columns if c not in EXPORT_COLUMNS]
    return out.select(EXPORT_COLUMNS + rest).sort("comparison", "benchmark_position", "position")


def pareto_front(time: pl.Expr, cost: pl.Expr) -> pl.Expr:
    """True where no other row of the group is at least as fast and as cheap and better in one of
    the two (ties in both are on the front together); null where time or cost is unknown.

    Quadratic in the group's size, which is small (the instances of one comparison, the results
    of one round and benchmark), so the plain form is kept for clarity.
    """
    known = time.is_not_null() & cost.is_not_null()
    # unknown rows can neither dominate nor be on the front: infinity, then null below
    t = time.fill_null(float("inf"))
    c = cost.fill_null(float("inf"))
    mask = pl.struct(t.alias("t"), c.alias("c")).map_batches(
        lambda s: _front_mask(s.struct.field("t").to_list(), s.struct.field("c").to_list()),
        return_dtype=pl.Boolean,
    )
    return pl.when(known).then(mask).otherwise(None)


def _front_mask(times: list[float], costs: list[float]) -> pl.Series:
    mask = []
    for i, (t, c) in enumerate(zip(times, costs)):
        dominated = any(
            (t2 <= t and c2 <= c and (t2 < t or c2 < c))
            for j, (t2, c2) in enumerate(zip(times, costs)) if j != i
        )
        mask.append(not dominated)
    return pl.Series(mask, dtype=pl.Boolean)
