"""Marts: what the report shows, computed with polars from staging and written back to DuckDB."""


from datetime import date
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl

from pipelines.defs.metadata import POOL, table_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.ingest.accelerators import catalog_rows, model_names, normalized_systems
from pipelines.ingest.catalog_instances import unknown_accelerators
from pipelines.fingerprint import file_sha256, files_sha256
from pipelines.ingest.raw_files import input_files as list_files
from pipelines.metrics.result_spread import comparable_results, with_spread
from pipelines.metrics.cheapest_offers import cheapest_offers as compute_offers
from pipelines.metrics.cost import assemble_inputs, cost_to_train as compute_cost, workload_frame
from pipelines.metrics.energy import report_energy
from pipelines.metrics.cost_changes import cost_changes as compute_cost_changes
from pipelines.domain.pricing import on_demand
from pipelines.domain.report_settings import ReportSettings
from pipelines.metrics.price_changes import offered, price_changes as compute_price_changes, prices_in_force
from pipelines.metrics.market import with_market
from pipelines.metrics.price_age import with_price_age
from pipelines.metrics.price_index import price_index as compute_price_index
from pipelines.metrics.price_dates import report_dates as compute_report_dates
from pipelines.metrics.pricing_options import apply_discounts, cheapest_options as compute_cheapest_options, choose_options
from pipelines.warehouse import create_table, query, read_table, to_polars, write_frame

AGE_COLUMNS = ["price_age_days", "stale"]  # metrics/price_age.with_price_age's


def _done(conn: duckdb.DuckDBPyConnection, table: str) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=table_metadata(conn, table, preview=True))


# time_to_train waits for every results-side staging step (systems JSON and the MLPerf trees
# too), so a run whose systems JSON is bad does not rebuild it from the same run's new results:
# the warehouse keeps the last good data. Prices stay out, so a price-only run never rebuilds it.
@dg.asset(group_name="marts", kinds={"duckdb"}, deps=["stg_results", "stg_systems", "stg_mlperf_runs", "stg_throughput"], pool=POOL,
          description="Time to train per measured system and benchmark: the newest round that scored it.")
def time_to_train(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        create_table(conn, "time_to_train")
        return _done(conn, "time_to_train")


# stg_comparisons carries the blocking coverage check: the marts wait for it (and so does the report).
def report_dates_frame(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The report_dates mart's row: the one price-date rule (metrics/price_dates.py) over the instances the
    report compares (sql/marts/compared_instances.sql); the coverage check computes it before the marts exist."""
    settings = report_settings(conn)
    return compute_report_dates(read_table(conn, "stg_prices"), query(conn, "compared_instances"),
                                list(settings.exclude_offer_kinds), settings.price_date)


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, deps=["stg_prices", "stg_report_settings", "stg_comparisons",
                                                              "stg_instances"],
          pool=POOL,
          description="The report's price date (report.toml, else the newest on-demand snapshot) and the on-demand "
                      "snapshot before it, of the instances the report compares.")
def report_dates(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        write_frame(conn, "report_dates", report_dates_frame(conn))
        return _done(conn, "report_dates")


@dg.asset(group_name="marts", kinds={"duckdb"}, deps=["stg_prices"], pool=POOL,
          description="Every price snapshot ever loaded (exported as price_history.csv).")
def price_history(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        create_table(conn, "price_history")
        return _done(conn, "price_history")


def _dates(conn: duckdb.DuckDBPyConnection) -> tuple[date, date | None]:
    return conn.sql("select price_date, previous_price_date from report_dates").fetchall()[0]


def report_settings(conn: duckdb.DuckDBPyConnection) -> ReportSettings:
    """report.toml's settings from stg_report_settings' one row: the report and the atlas read them here."""
    return ReportSettings.from_row(read_table(conn, "stg_report_settings").row(0, named=True))


def _cost_at(conn: duckdb.DuckDBPyConnection, on: date | None) -> pl.DataFrame:
    """Cost to train under each pricing option with the prices in force on a date (an empty frame for no date)."""
    settings = report_settings(conn)
    history = offered(read_table(conn, "stg_prices"), list(settings.exclude_offer_kinds))
    options = list(settings.priced_options)
    prices = apply_discounts(prices_in_force(history, on) if on else history.clear(), list(settings.discounts))
    instances = read_table(conn, "stg_instances")
    comparisons = with_market(read_table(conn, "stg_comparisons"), instances, on_demand(history), dict(settings.regions),
                              on)
    inputs = assemble_inputs(
        comparisons, instances, read_table(conn, "stg_mappings"),
        read_table(conn, "time_to_train"), choose_options(prices, options), read_table(conn, "stg_throughput"),
        options, workload_frame(list(settings.workloads)),
    )
    results = read_table(conn, "stg_results")
    models = model_names(catalog_rows(read_table(conn, "stg_accelerators")),
                         results["accelerator_model_name"].drop_nulls().unique().sort().to_list())
    # each price's age before the rank: a stale spot price never headlines (domain/offers.in_headline)
    aged = with_price_age(inputs, on or date.min, settings.stale_after_days,  # no date: an empty frame
                          spot_stale_after_days=settings.spot_stale_after_days)
    cost = with_spread(compute_cost(aged, settings.baseline_pricing, settings.headline_offer_kinds), instances,
                       comparable_results(results, models))
    return cost.select(pl.exclude(AGE_COLUMNS), *AGE_COLUMNS)  # the age columns last, as the exports have them


def _with_energy(conn: duckdb.DuckDBPyConnection, cost: pl.DataFrame) -> pl.DataFrame:
    """Energy (measured, else the board-power estimate) and location-based emissions per row."""
    systems = normalized_systems(read_table(conn, "stg_systems"), catalog_rows(read_table(conn, "stg_accelerators")))
    return report_energy(cost, systems, read_table(conn, "stg_mlperf_scores"), read_table(conn, "stg_board_power"),
                         read_table(conn, "stg_grid_intensity"), read_table(conn, "stg_pue"),
                         instances=read_table(conn, "stg_instances"))


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL,
          deps=["report_dates", "time_to_train", "stg_instances", "stg_mappings", "stg_throughput", "stg_comparisons",
                "stg_systems", "stg_accelerators", "stg_results", "stg_mlperf_scores", "stg_board_power", "stg_grid_intensity",
                "stg_pue"],
          description="Cost to train, savings and speedup against the baseline at its own pricing, samples per dollar, "
                      "USD per accelerator-hour, price to beat, the Pareto front and the commitment break-even, per "
                      "comparison, benchmark, instance and pricing option (report.toml pricing_models, with the "
                      "user's discounts), at the report's price date; energy (measured, else estimated from board "
                      "power) and location-based emissions per run.")
def cost_to_train(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        price_date, _ = _dates(conn)
        write_frame(conn, "cost_to_train", _with_energy(conn, _cost_at(conn, price_date)))
        return _done(conn, "cost_to_train")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL, deps=["cost_to_train", "stg_report_settings"],
          description="The answer per comparison and benchmark: the cheapest offer over every pricing option (with "
                      "its option, cost and time), the cheapest on-demand offer, the fastest offer, and each one's "
                      "savings against the baseline at report.toml's baseline_pricing.")
def cheapest_offers(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        report = report_settings(conn)
        write_frame(conn, "cheapest_offers", compute_offers(read_table(conn, "cost_to_train"),
                                                            report.baseline_pricing, report.headline_offer_kinds))
        return _done(conn, "cheapest_offers")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL, deps=["cost_to_train", "stg_report_settings"],
          description="The cheapest of report.toml's pricing options per compared instance: for one training run (the "
                      "least cost to train) and at each of report.toml's runs_per_month (the least monthly bill; a "
                      "commitment bills every hour of the month), and the instance cheapest to train per benchmark.")
def cheapest_options(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        report = report_settings(conn)
        write_frame(conn, "cheapest_options", compute_cheapest_options(
            read_table(conn, "cost_to_train"), report.pricing_models, report.runs_per_month,
            report.headline_offer_kinds))
        return _done(conn, "cheapest_options")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL, deps=["report_dates", "price_history"],
          description="Previous and current price of every instance at the report date, and the change in percent.")
def price_changes(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        price_date, previous = _dates(conn)  # the dates cost_changes compares too
        write_frame(conn, "price_changes",
                    compute_price_changes(on_demand(read_table(conn, "stg_prices")), price_date, previous))
        return _done(conn, "price_changes")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL, deps=["cost_to_train", "report_dates"],
          description="What the price changes since the previous snapshot do to cost to train and to the ranking.")
def cost_changes(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        _, previous = _dates(conn)
        changes = compute_cost_changes(read_table(conn, "cost_to_train"), _cost_at(conn, previous))
        write_frame(conn, "cost_changes", changes)
        return _done(conn, "cost_changes")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL, deps=["stg_prices", "stg_instances"],
          description="The market's price index: the cheapest and median USD per accelerator-hour of each current "
                      "accelerator (H100, H200, B200, MI300X, A100 80 GB) at every snapshot date, list and spot apart "
                      "(auction and marketplace offers left out); it grows with each fetch.")
def price_index(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        write_frame(conn, "price_index", compute_price_index(read_table(conn, "stg_prices"),
                                                             read_table(conn, "stg_instances")))
        return _done(conn, "price_index")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL, deps=["stg_catalog_offers"],
          description="The public catalogs' accelerators that the alias table (accelerator_aliases.csv) does not know: "
                      "their offers are never priced; both methodologies list them.")
def catalog_unknown_accelerators(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        write_frame(conn, "catalog_unknown_accelerators", unknown_accelerators(read_table(conn, "stg_catalog_offers")))
        return _done(conn, "catalog_unknown_accelerators")


def _digest(raw: Path, name: str) -> tuple[str, int]:
    """SHA-256 and size of an input file; for a result tree, one hash over all its files."""
    path = raw / name
    if path.is_dir():
        files = list_files(path)
        return files_sha256(files, path), sum(f.stat().st_size for f in files)
    return file_sha256(path), path.stat().st_size


STAGED_FILES = {  # staging table -> kind shown in the appendix
    "stg_prices": "prices", "stg_instances": "instances", "stg_mappings": "mappings",
    "stg_results": "results", "stg_throughput": "throughput", "stg_systems": "systems",
}


@dg.asset(group_name="marts", kinds={"duckdb", "python"}, pool=POOL,
          deps=list(STAGED_FILES) + ["stg_report_settings", "stg_comparisons", "stg_mlperf_scores"],
          description="Every input file the report rests on, with its SHA-256 and the rows taken from it.")
def input_files(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        counts = pl.concat([
            to_polars(conn.sql(f"select ? as kind, file, count(*)::bigint as rows from {table} group by file", params=[kind]))
            for table, kind in STAGED_FILES.items()
        ] + [to_polars(conn.sql("select 'report config' as kind, config_path as file, 1::bigint as rows from stg_report_settings"))])
        counts = counts.with_columns(pl.col("file").str.replace(r"^(.*?\.[a-zA-Z0-9]+)(:.*)?$", "$1"))
        counts = counts.group_by("kind", "file").agg(pl.col("rows").sum()).sort("kind", "file")
        trees = to_polars(conn.sql("select tree as file, count(*)::bigint as rows from stg_mlperf_scores group by tree"))
        counts = pl.concat([
            counts.filter(~pl.col("file").is_in(trees["file"].implode())),
            trees.select(pl.lit("mlperf tree").alias("kind"), "file", "rows"),
        ])
        digests = {f: _digest(settings.raw, f) for f in counts["file"].unique()}  # each file read once
        counts = counts.with_columns(
            pl.col("file").replace_strict({f: d[0] for f, d in digests.items()}, return_dtype=pl.Utf8).alias("sha256"),
            pl.col("file").replace_strict({f: d[1] for f, d in digests.items()}, return_dtype=pl.Int64).alias("bytes"),
        ).sort("kind", "file")
        write_frame(conn, "input_files", counts)
        return _done(conn, "input_files")
