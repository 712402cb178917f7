"""Cost to train, savings and speedup: pure polars, one row per (comparison, benchmark, instance,
pricing option); the options and the break-even are pipelines/metrics/pricing_options.py's.

    time to train (min)  = the MLPerf score of the mapped system, or for a workload of the team's
                           own (report.toml [workloads]): samples per run / measured samples_per_second / 60
    cost to train (USD)  = usd_per_hour x time_to_train_minutes / 60 (usd_per_hour: the option's
                           effective hourly rate; for a commitment, as if all its hours are used)
    samples per dollar   = samples_per_second x 3600 / usd_per_hour for measured throughput (a
                           workload's samples / cost is the same figure); for an MLPerf result,
                           samples to converge / cost to train where the logs give it, else the
                           logged throughput's samples_per_second x 3600 / usd_per_hour
    relative value       = samples per dollar / the baseline's (the baseline is 1.00)
    monthly cost (USD)   = cost to train x the workload's runs_per_month
    USD per accelerator-hour = usd_per_hour / accelerator_count (per-chip billing: count 1, per chip)
    savings_pct          = 100 x (1 - cost / baseline cost), the baseline priced at baseline_pricing
    speedup              = baseline time / time
    price to beat (USD/h)= baseline cost / (time / 60): the hourly price at which this instance
                           would train exactly as cheaply as the baseline (break-even); likewise the cheapest
    cut_to_beat_cheapest_pct = 100 x (1 - price to beat the cheapest / usd_per_hour): how far this
                           instance's price must fall to train as cheaply as the cheapest
    break_even_share, break_even_runs_per_month: commitments only, against the instance's on-demand
                           price (pricing_options.py)

Rank, cheapest and the Pareto front are within one pricing option; cheapest_option marks the
option under which an instance trains for the least. The rank breaks ties by domain/best.py's one
rule, and ranks an offer not in the headline (domain/offers.in_headline: an auction's or marketplace's offer,
outside report.toml headline_offer_kinds, or a spot price older than spot_stale_after_days, whose `stale` the
rows carry from metrics/price_age.py) last.

An instance with no measured result keeps null figures: the report says "no result", never 0.
"""

from __future__ import annotations

import polars as pl

from pipelines.domain.columns import CONVERGENCE_BASIS, LOGGED_BASIS, MEASURED_BASIS, OWN_MEASUREMENT
from pipelines.domain.offers import HEADLINE_DEFAULT, in_headline
from pipelines.domain.pricing import LIST_PRICE, OPTION_PRICE_COLUMNS
from pipelines.domain.best import with_rank
from pipelines.metrics.pricing_options import break_even_runs_per_month, break_even_share

# The export's first columns, in this order (the data contract of the report's CSV/Parquet).
EXPORT_COLUMNS = [
    "comparison", "benchmark", "provider", "region", "instance_type", "accelerator",
    "accelerator_count", "system", "time_to_train_minutes", "usd_per_hour", "cost_to_train_usd",
    "baseline_instance_type", "savings_pct", "speedup", "price_as_of", "samples_per_dollar", "relative_value",
]
# ...then the pricing option of the row's price (on-demand rows: on_demand and nulls), whose price
# it is (list, or the user's own after a discount) and the price per accelerator-hour.
OPTION_EXPORT_COLUMNS = [*OPTION_PRICE_COLUMNS, "whose_price", "usd_per_accelerator_hour", "offer_kind"]
# what a price row brings along besides its rate and date, where the price frame has it
_PRICE_EXTRAS = ["pricing_model", "term_years", "payment_option", "offering_class", "upfront_usd",
                 "recurring_usd_per_hour", "whose_price", "offer_kind", "certainty", "interruption_frequency", "zone_count",
                 "zone_min_usd_per_hour", "zone_max_usd_per_hour"]



WORKLOAD_SCHEMA = {"benchmark": pl.Utf8, "workload_title": pl.Utf8, "workload_description": pl.Utf8,
                   "workload_samples": pl.Float64, "runs_per_month": pl.Int64}


def hours_to_train(minutes: pl.Expr | None = None) -> pl.Expr:
    """A row's time to train in hours (time_to_train_minutes / 60)."""
    return (pl.col("time_to_train_minutes") if minutes is None else minutes) / 60.0


def run_cost(usd_per_hour: pl.Expr, minutes: pl.Expr | None = None) -> pl.Expr:
    """The cost kernel, one home for the report and the atlas: a training run's cost at an hourly rate
    (the rate of everything the run occupies), rate x time to train in hours (the row's own time unless
    `minutes` says another, such as the low end of its results' spread)."""
    return usd_per_hour * hours_to_train(minutes)


def workload_frame(workloads: list[dict]) -> pl.DataFrame:
    """report.toml's workloads (stg_report_settings.workloads) as one row per workload name."""
    return pl.DataFrame([{"benchmark": w["name"], "workload_title": w["title"],
                          "workload_description": w.get("description") or None, "workload_samples": w["samples"],
                          "runs_per_month": w["runs_per_month"]} for w in workloads], schema=WORKLOAD_SCHEMA)


def instance_reference(provider: pl.Expr, instance_type: pl.Expr) -> pl.Expr:
    """"aws/p4d.24xlarge": how a throughput row names the cloud instance it was measured on."""
    return pl.concat_str(provider, pl.lit("/"), instance_type)


def with_own_measurements(mappings: pl.DataFrame, throughput: pl.DataFrame) -> pl.DataFrame:
    """mappings.csv, plus the throughput rows measured on a compared instance itself (system
    "aws/p4d.24xlarge"): such a row stands for its instance without a mapping; a mapping wins."""
    key = ["provider", "instance_type", "benchmark"]
    parts = pl.col("system").str.splitn("/", 2)
    own = (throughput.filter(pl.col("system").str.count_matches("/") == 1)
           .select(parts.struct.field("field_0").alias("provider"), parts.struct.field("field_1").alias("instance_type"),
                   "benchmark", "system", pl.lit(OWN_MEASUREMENT).alias("note")))
    mapped = mappings.select(*key, "system", "note")
    return pl.concat([mapped, own.join(mapped, on=key, how="anti")])


def assemble_inputs(
    comparisons: pl.DataFrame,
    instances: pl.DataFrame,
    mappings: pl.DataFrame,
    time_to_train: pl.DataFrame,
    prices: pl.DataFrame,
    throughput: pl.DataFrame,
    options: tuple[str, ...] | list[str] = ("on_demand",),
    workloads: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Join what each compared instance needs: accelerators, measured system, time and price.

    `prices` holds the price in force at the report's price date per (provider, region, type) and
    `pricing_option` (pricing_options.choose_options; without that column every price is on_demand).
    One row per compared instance and option of `options`: always on_demand (null figures when it
    has no price, as before), the other options only where the instance has that price.
    Throughput measured by a team wins over throughput derived from MLPerf logs. A benchmark named
    in `workloads` (workload_frame) takes its time from measured throughput and its samples per run.
    """
    workloads = workloads if workloads is not None else pl.DataFrame(schema=WORKLOAD_SCHEMA)
    if "pricing_option" not in prices.columns:
        prices = prices.with_columns(pl.lit("on_demand").alias("pricing_option"))
    option_order = pl.DataFrame({"pricing_option": list(options), "option_position": list(range(len(options)))},
                                schema={"pricing_option": pl.Utf8, "option_position": pl.Int64})
    logged = time_to_train.select(
        "system", "benchmark", "round", "time_to_train_minutes", "runs", "dropped_runs",
        pl.col("samples_per_second").alias("logged_samples_per_second"),
        (pl.col("samples_to_converge") if "samples_to_converge" in time_to_train.columns
         else pl.lit(None, pl.Float64)).alias("samples_to_converge"),
    )
    measured = throughput.select(
        "system", "benchmark", pl.col("samples_per_second").alias("measured_samples_per_second"),
        pl.col("source").alias("throughput_source"), "measured_on",
        (pl.col("file") + pl.lit(" line ") + pl.col("line").cast(pl.Utf8)).alias("throughput_line"),
    ) if "source" in throughput.columns else throughput.select(
        "system", "benchmark", pl.col("samples_per_second").alias("measured_samples_per_second"))
    return (
        comparisons.select(
            "comparison", "comparison_title", "position", "provider", "region", "instance_type",
            "benchmark", "benchmark_position", "is_baseline",
        )
        .join(option_order, how="cross")
        .join(instances.select("provider", "instance_type", "accelerator", "accelerator_count"),
              on=["provider", "instance_type"], how="left")
        .join(with_own_measurements(mappings, throughput).rename({"note": "mapping_note"}),
              on=["provider", "instance_type", "benchmark"], how="left")
        .join(logged, on=["system", "benchmark"], how="left")
        .join(prices.select("provider", "region", "instance_type", "pricing_option", "usd_per_hour",
                            pl.col("as_of").alias("price_as_of"), pl.col("source").alias("price_source"),
                            *[c for c in _PRICE_EXTRAS if c in prices.columns]),
              on=["provider", "region", "instance_type", "pricing_option"], how="left")
        .filter((pl.col("pricing_option") == "on_demand") | pl.col("usd_per_hour").is_not_null())
        .join(measured, on=["system", "benchmark"], how="left")
        .join(workloads, on="benchmark", how="left")
        .with_columns(
            pl.when(pl.col("workload_samples").is_not_null())
            .then(pl.col("workload_samples") / pl.col("measured_samples_per_second") / 60.0)
            .otherwise(pl.col("time_to_train_minutes")).alias("time_to_train_minutes"),
            pl.coalesce("workload_samples", "samples_to_converge").alias("samples_per_run"),
            pl.coalesce("measured_samples_per_second", "logged_samples_per_second").alias("samples_per_second"),
            pl.when(pl.col("measured_samples_per_second").is_not_null()).then(pl.lit("measured"))
            .when(pl.col("logged_samples_per_second").is_not_null()).then(pl.lit("MLPerf log"))
            .otherwise(None).alias("throughput_origin"),
            pl.when(pl.col("workload_samples").is_not_null()).then(pl.lit(MEASURED_BASIS))
            .when(pl.col("time_to_train_minutes").is_not_null()).then(pl.lit("MLPerf result"))
            .otherwise(None).alias("time_origin"),
        )
        .drop("measured_samples_per_second", "logged_samples_per_second", "workload_samples")
    )


def cost_to_train(inputs: pl.DataFrame, baseline_pricing: str = "on_demand",
                  headline_kinds: tuple[str, ...] | list[str] = HEADLINE_DEFAULT) -> pl.DataFrame:
    """Add cost, savings, speedup, samples per dollar, price to beat, rank and the commitment
    break-even to assembled rows; savings and speedup are against the baseline at `baseline_pricing`;
    the rank follows domain/best.py's rule, offers of a kind outside `headline_kinds` last."""
    if "pricing_option" not in inputs.columns:
        inputs = inputs.with_columns(pl.lit("on_demand").alias("pricing_option"), pl.lit(0).alias("option_position"))
    for column, kind in (("pricing_model", pl.Utf8), ("term_years", pl.Int64), ("payment_option", pl.Utf8),
                         ("offering_class", pl.Utf8), ("upfront_usd", pl.Float64),
                         ("recurring_usd_per_hour", pl.Float64), ("whose_price", pl.Utf8),
                         ("samples_per_run", pl.Float64), ("runs_per_month", pl.Int64), ("throughput_origin", pl.Utf8),
                         ("offer_kind", pl.Utf8)):
        if column not in inputs.columns:
            inputs = inputs.with_columns(pl.lit(None, kind).alias(column))
    inputs = inputs.with_columns(
        pl.col("pricing_model").fill_null(pl.when(pl.col("pricing_option") == "on_demand").then(pl.lit("on_demand"))),
        pl.col("whose_price").fill_null(pl.when(pl.col("usd_per_hour").is_not_null()).then(pl.lit(LIST_PRICE))),
    )
    group = ["comparison", "benchmark", "pricing_option"]
    instance = ["comparison", "benchmark", "provider", "region", "instance_type"]
    hours = hours_to_train()
    cost = run_cost(pl.col("usd_per_hour"))
    per_run = pl.col("samples_per_run") / cost
    per_throughput = pl.col("samples_per_second") * 3600.0 / pl.col("usd_per_hour")
    measured = pl.col("throughput_origin") == "measured"
    with_cost = inputs.with_columns(
        cost.alias("cost_to_train_usd"),
        pl.when(measured).then(per_throughput).otherwise(pl.coalesce(per_run, per_throughput)).alias("samples_per_dollar"),
        pl.when(measured & per_throughput.is_not_null()).then(pl.lit(MEASURED_BASIS))
        .when(per_run.is_not_null()).then(pl.lit(CONVERGENCE_BASIS))
        .when(per_throughput.is_not_null()).then(pl.lit(LOGGED_BASIS)).alias("samples_per_dollar_basis"),
        (pl.col("usd_per_hour") / pl.col("accelerator_count")).alias("usd_per_accelerator_hour"),
        (cost * pl.col("runs_per_month")).alias("monthly_cost_usd"),
    )
    on_demand = with_cost.filter(pl.col("pricing_option") == "on_demand").select(
        *instance, pl.col("usd_per_hour").alias("on_demand_usd_per_hour"))
    committed = pl.col("term_years").is_not_null()
    baseline = (
        with_cost.filter(pl.col("is_baseline") & (pl.col("pricing_option") == baseline_pricing))
        .select(
            "comparison", "benchmark",
            pl.col("instance_type").alias("baseline_instance_type"),
            pl.col("provider").alias("baseline_provider"),
            pl.col("cost_to_train_usd").alias("baseline_cost_usd"),
            pl.col("time_to_train_minutes").alias("baseline_minutes"),
            pl.col("samples_per_dollar").alias("baseline_samples_per_dollar"),
        )
    )
    cheapest = with_cost.group_by(group).agg(pl.col("cost_to_train_usd").min().alias("cheapest_cost_usd"))
    out = (
        with_cost.join(baseline, on=["comparison", "benchmark"], how="left")
        .join(cheapest, on=group, how="left")
        .join(on_demand, on=instance, how="left")
        .with_columns(
            pl.when(committed).then(break_even_share(pl.col("usd_per_hour"), pl.col("on_demand_usd_per_hour")))
            .alias("break_even_share"),
            pl.when(committed).then(break_even_runs_per_month(pl.col("usd_per_hour"), pl.col("on_demand_usd_per_hour"), hours))
            .alias("break_even_runs_per_month"),
            (pl.col("cost_to_train_usd").rank("min").over(instance) == 1).alias("cheapest_option"),
            (100.0 * (1.0 - pl.col("cost_to_train_usd") / pl.col("baseline_cost_usd"))).alias("savings_pct"),
            (pl.col("baseline_minutes") / pl.col("time_to_train_minutes")).alias("speedup"),
            (pl.col("samples_per_dollar") / pl.col("baseline_samples_per_dollar")).alias("relative_value"),
            (pl.col("baseline_cost_usd") / hours).alias("price_to_beat_baseline"),
            (pl.col("cheapest_cost_usd") / hours).alias("price_to_beat_cheapest"),
        )
        .with_columns(pareto_front(pl.col("time_to_train_minutes"), pl.col("cost_to_train_usd")).over(group).alias("on_pareto_front"),
                      (100.0 * (1.0 - pl.col("price_to_beat_cheapest") / pl.col("usd_per_hour")))
                      .alias("cut_to_beat_cheapest_pct"))
        .drop("baseline_minutes", "cheapest_cost_usd", "baseline_samples_per_dollar")
    )
    out = with_time_rank(with_rank(out, group, "cost", "cost_rank", headline_kinds), group, headline_kinds)
    first = EXPORT_COLUMNS + OPTION_EXPORT_COLUMNS
    rest = [c for c in out.columns if c not in first]
    return out.select(first + rest).sort("comparison", "benchmark_position", "position", "option_position")


def with_time_rank(rows: pl.DataFrame, group: list[str], headline_kinds: tuple[str, ...] | list[str]) -> pl.DataFrame:
    """`rows` with time_rank (1: the fastest of its group by domain/best.py's rule, offers outside the headline last)
    and fastest_tied: how many offers in the headline share the least time (one measured result on several clouds is
    a tie, not a pick)."""
    out = with_rank(rows, group, "time", "time_rank", headline_kinds)
    headline = in_headline(headline_kinds, out.columns)
    least = pl.when(headline).then(pl.col("time_to_train_minutes")).min().over(group)
    return out.with_columns((headline & (pl.col("time_to_train_minutes") == least)).sum().over(group)
                            .cast(pl.Int64).alias("fastest_tied"))


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
