"""The atlas marts: the stored rounds (Parquet, read with DuckDB) priced with the one price book
(stg_prices) on the one instance catalog (stg_instances, stg_accelerators).

Nothing here reads a log: a price or catalog change rebuilds these tables from the stored rounds.
"""


from pathlib import Path

import dagster as dg
import polars as pl

from pipelines.defs.mlperf.rounds import mlperf_dir_or_fail
from pipelines.defs.report.marts import report_settings
from pipelines.defs.metadata import POOL, input_errors_as_failures, table_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.ingest.accelerators import NORMALIZED_COLUMNS, catalog_rows, normalized_systems
from pipelines.ingest.mlperf.corpus import SYSTEMS_SCHEMA
from pipelines.ingest.corpus_rounds import corpus_rounds
from pipelines.ingest.mlperf.tree import RUNS_ORDER, RUNS_SCHEMA, SCORES_ORDER, SCORES_SCHEMA, stored
from pipelines.metrics import atlas as metrics
from pipelines.domain.pricing import on_demand
from pipelines.metrics.price_changes import offered, prices_in_force
from pipelines.metrics.price_age import with_price_age
from pipelines.warehouse import create_table, read_table, to_polars, write_frame

UNPRICED_COLUMNS = ["round", "submitter", "system", "benchmark", "benchmark_model", "time_to_train_minutes",
                    "accelerator_model_name", "accelerator_model", "accelerators_total", "not_priced_because",
                    "folder", "benchmark_path", "quirk"]
ATLAS_COLUMNS = [
    "round", "benchmark", "benchmark_model", "division", "submitter", "system", "accelerator_model", "number_of_nodes",
    "accelerators_per_node", "accelerators_total", "time_to_train_minutes", "provider", "region",
    "instance_type", "instance_accelerators", "instances_needed", "idle_accelerators", "usd_per_hour",
    "cost_to_train_usd", "accelerator_hours", "usd_per_accelerator_hour", "cost_rank",
    "cheapest_for_accelerator", "fastest", "on_pareto_front", "price_basis", "status", "price_as_of",
    "price_age_days", "stale", "price_certainty", "price_source", "offer_kind", "cluster_flag", "assumption", "folder",
    "energy_kwh", "energy_basis",
    "emissions_kg_co2e", "emissions_basis", "energy_rank",
]


def _done(conn, table: str, preview: bool = False) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=table_metadata(conn, table, preview=preview))


def round_files(settings: PipelineSettings, asset: str) -> list[str]:
    """The stored Parquet file of `asset` for every round now in MLPERF_DIR; a one-line failure
    names the rounds not scored yet."""
    rounds = sorted(corpus_rounds(mlperf_dir_or_fail(settings)))
    files = [settings.round_file(asset, key) for key in rounds]
    if "://" not in settings.atlas_rounds_dir:
        missing = [key for key, f in zip(rounds, files) if not Path(f).is_file()]
        if missing:
            raise dg.Failure(description=f"round(s) {', '.join(missing)} of {settings.mlperf} not scored yet: "
                                         f"make atlas scores them (or mlperf_rounds_sensor, or atlas_job per round)",
                             allow_retries=False)
    return files


def _rounds(conn, settings: PipelineSettings, asset: str):
    """A DuckDB relation over the stored round files (union by name: rounds add columns over time)."""
    return conn.read_parquet(round_files(settings, asset), union_by_name=True)


def atlas_asset(name: str, deps: list[str], description: str, kinds=("duckdb",), pool: str | None = POOL):
    """An asset of group atlas (rebuilt on its own only where the atlas is on: pipelines/definitions.py)."""
    return dg.asset(name=name, group_name="atlas", kinds=set(kinds), deps=deps, pool=pool, description=description)


def atlas_multi_asset(specs: list[tuple[str, list[str], str]], kinds=("duckdb",), pool: str | None = POOL):
    """One step that makes several atlas assets at once: [(name, deps, description)]."""
    return dg.multi_asset(group_name="atlas", pool=pool, specs=[
        dg.AssetSpec(name, deps=deps, description=description, kinds=set(kinds))
        for name, deps, description in specs])


@atlas_asset("atlas_scores", ["atlas_round_scores"], "Every benchmark entry of every round in MLPERF_DIR, scored.")
@input_errors_as_failures
def atlas_scores(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        write_frame(conn, "atlas_scores", stored(to_polars(_rounds(conn, settings, "atlas_round_scores")), SCORES_SCHEMA,
                                                 SCORES_ORDER))
        return _done(conn, "atlas_scores", preview=True)


@atlas_asset("atlas_runs", ["atlas_round_runs"], "Every result file of every round in MLPERF_DIR: minutes, status, why dropped.")
@input_errors_as_failures
def atlas_runs(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        write_frame(conn, "atlas_runs", stored(to_polars(_rounds(conn, settings, "atlas_round_runs")), RUNS_SCHEMA, RUNS_ORDER))
        return _done(conn, "atlas_runs")


@atlas_asset("atlas_systems", ["atlas_round_systems", "stg_accelerators"],
        "Every systems JSON of the corpus with its accelerator catalog model and the cloud model it is priced as.",
        kinds=("duckdb", "polars"))
@input_errors_as_failures
def atlas_systems(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        systems = to_polars(_rounds(conn, settings, "atlas_round_systems"))
        catalog = catalog_rows(read_table(conn, "stg_accelerators"))
        write_frame(conn, "atlas_systems", stored(normalized_systems(systems, catalog), SYSTEMS_SCHEMA | NORMALIZED_COLUMNS,
                                                  ("round", "folder", "system")))
        return _done(conn, "atlas_systems")


@atlas_asset("atlas_instances", ["stg_instances"], "The instance catalog as the atlas prices on it: cloud model, count, billing.")
@input_errors_as_failures
def atlas_instances(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        create_table(conn, "atlas_instances")
        return _done(conn, "atlas_instances")


@atlas_asset("atlas_prices", ["stg_prices", "stg_instances", "stg_report_settings", "atlas_systems"],
        "The price book's on-demand history of every atlas instance, in the region it is priced in "
        "(report.toml's region of its provider, else its cheapest).", kinds=("duckdb", "polars"))
@input_errors_as_failures
def atlas_prices(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        instances, prices = read_table(conn, "stg_instances"), read_table(conn, "stg_prices")
        report = report_settings(conn)
        exclude = list(report.exclude_offer_kinds)
        history = on_demand(offered(prices, exclude)).join(
            instances.select("provider", "instance_type"), on=["provider", "instance_type"], how="semi")
        regions = dict(report.regions)
        used = to_polars(conn.sql("select distinct cloud_model from atlas_systems where cloud_model is not null"))
        price_date = metrics.atlas_price_date(prices, instances, used["cloud_model"].to_list(), exclude)
        chosen = metrics.atlas_price_history(history, regions, price_date).with_columns(price_date=pl.lit(price_date))
        create_table(conn, "atlas_prices", prices_in=chosen)
        return _done(conn, "atlas_prices", preview=True)


def _entries(conn) -> pl.DataFrame:
    """Every scored entry and why it is not priced; a cloud model no priced offer carries is named."""
    offered_models = to_polars(conn.sql(
        "select distinct i.accelerator_model from atlas_instances i semi join atlas_prices p using (provider, instance_type)"))
    return metrics.entries(read_table(conn, "atlas_scores"), read_table(conn, "atlas_systems"),
                           offered_models["accelerator_model"].to_list())


def atlas_priced_on(conn):
    """The atlas's price date, as the atlas_prices mart stores it (metrics.atlas.atlas_price_date computes it)."""
    return conn.sql("select max(price_date) from atlas_prices").fetchall()[0][0]


def stale_after_days(conn) -> int:
    """report.toml's stale_after_days: the report and the atlas mark prices stale alike."""
    return report_settings(conn).stale_after_days


def _headline(conn) -> tuple[str, ...]:
    """report.toml's headline_offer_kinds: the kinds the atlas's "cheapest" considers, as the report's."""
    return report_settings(conn).headline_offer_kinds


def _option_costs(conn, ranked: pl.DataFrame, price_date) -> pl.DataFrame:
    """The pairs of `ranked` under report.toml's other pricing options, in the atlas's regions."""
    options = report_settings(conn).pricing_models
    option_prices = metrics.atlas_option_prices(read_table(conn, "stg_prices"), read_table(conn, "atlas_prices"),
                                                price_date, list(options))
    return metrics.option_costs(ranked, option_prices)


_COSTS_DEPS = ["atlas_scores", "atlas_systems", "atlas_instances", "atlas_prices", "stg_board_power", "stg_grid_intensity",
               "stg_pue", "stg_prices", "stg_report_settings"]
_OPTION_COLUMNS = ["round", "benchmark", "benchmark_model", "division", "submitter", "system", "accelerator_model",
                   "accelerators_total", "time_to_train_minutes", "provider", "region", "instance_type",
                   "instances_needed", *metrics.OPTION_PRICE_COLUMNS, "usd_per_hour", "cost_to_train_usd",
                   "accelerator_hours", "usd_per_accelerator_hour", "price_as_of", "price_certainty", "price_source",
                   "offer_kind", "cluster_flag", "folder"]


@atlas_multi_asset([
    ("atlas_costs", _COSTS_DEPS,
     "Every scored result x every instance with its accelerator, scale-aware: instances needed, cost to train, "
     "accelerator-hours, ranks, cheapest, fastest, Pareto front, price basis, the cheapest way to pay; energy per run "
     "(measured, else estimated from board power), location-based emissions in the instance's region, energy rank."),
    ("atlas_option_costs", _COSTS_DEPS,
     "Every priced pair under every other way to pay its instance has (report.toml pricing_models: spot and "
     "the cheapest 1- and 3-year commitment by default): the option's effective rate and cost to train."),
])
@input_errors_as_failures
def atlas_costs(settings: PipelineSettings):
    """One step for both tables: the option costs are computed once and give atlas_costs its cheapest way to pay."""
    with settings.connect() as conn:
        price_date = atlas_priced_on(conn)
        prices = prices_in_force(read_table(conn, "atlas_prices"), price_date)
        priced = metrics.price_results(_entries(conn), read_table(conn, "atlas_instances"), prices)
        priced = metrics.with_energy(priced, read_table(conn, "stg_board_power"), read_table(conn, "stg_grid_intensity"),
                                     read_table(conn, "stg_pue"))
        # each price's age before the rank: a stale spot price is never the cheapest (domain/offers.in_headline)
        report = report_settings(conn)
        aged = with_price_age(priced, price_date, report.stale_after_days,
                              spot_stale_after_days=report.spot_stale_after_days)
        ranked = metrics.rank(aged, report.headline_offer_kinds)
        options = _option_costs(conn, ranked, price_date)
        ranked = metrics.with_cheapest_option(ranked, options)
        write_frame(conn, "atlas_costs", ranked.select(ATLAS_COLUMNS + [c for c in ranked.columns if c not in ATLAS_COLUMNS]))
        write_frame(conn, "atlas_option_costs", options.select([c for c in _OPTION_COLUMNS if c in options.columns]))
        yield dg.MaterializeResult(asset_key="atlas_costs", metadata=table_metadata(conn, "atlas_costs", preview=True))
        yield dg.MaterializeResult(asset_key="atlas_option_costs",
                                   metadata=table_metadata(conn, "atlas_option_costs", preview=True))


@atlas_asset("atlas_unpriced", ["atlas_scores", "atlas_systems", "atlas_instances", "atlas_prices"],
        "Every entry of the corpus the atlas cannot price, and why.", kinds=("duckdb", "polars"))
@input_errors_as_failures
def atlas_unpriced(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        entries = _entries(conn)
        write_frame(conn, "atlas_unpriced", entries.filter(pl.col("not_priced_because").is_not_null()).select(UNPRICED_COLUMNS))
        return _done(conn, "atlas_unpriced", preview=True)


@atlas_asset("atlas_trend", ["atlas_costs", "stg_report_settings"],
             "The cheapest cost to train per benchmark model and round, and its change.",
        kinds=("duckdb", "polars"))
@input_errors_as_failures
def atlas_trend(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        write_frame(conn, "atlas_trend", metrics.trend(read_table(conn, "atlas_costs"), _headline(conn)))
        return _done(conn, "atlas_trend", preview=True)


ATLAS_TABLES = ["atlas_costs", "atlas_option_costs", "atlas_unpriced", "atlas_trend", "atlas_scores", "atlas_runs", "atlas_systems",
                "atlas_instances", "atlas_prices"]
