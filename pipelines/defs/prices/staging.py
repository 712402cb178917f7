"""Staging of the cloud market: the accelerator catalog and its board power, the public catalogs' offers, the
one instance catalog, the price book, and the grid carbon intensity and PUE per provider and region (facts
of where an instance runs, read by the report's and the atlas's marts alike)."""


import dagster as dg
import polars as pl

from pipelines.config import BUNDLED_RAW
from pipelines.defs.metadata import POOL, input_errors_as_failures
from pipelines.defs.resources import PipelineSettings
from pipelines.defs.staging import load_table, need_input, public_facts, public_facts_frame, relative_to_raw
from pipelines.domain.errors import InputError
from pipelines.ingest.raw_files import input_files
from pipelines.ingest.accelerators import read_catalog_table
from pipelines.ingest.board_power import has_board_power, read_board_power
from pipelines.ingest.carbon_factors import read_grid_intensity, read_pue
from pipelines.ingest.catalog_instances import read_aliases, resolve, unknown_accelerators, with_catalog_instances
from pipelines.ingest.prices import read_price_folder
from pipelines.ingest.prices.skypilot import read_catalog_folder
from pipelines.ingest.tables import check_catalog_links, read_instances
from pipelines.warehouse import read_table, to_polars


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_accelerators"], pool=POOL,
          description="The accelerator catalog (accelerators.csv): each way systems JSON name an accelerator, its model "
                      "and the cloud model it is priced as.")
@input_errors_as_failures
def stg_accelerators(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    frame = public_facts_frame(settings, "accelerators.csv", read_catalog_table)
    return load_table(context, settings, "stg_accelerators", accelerators_in=frame)


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_accelerators"], pool=POOL,
          description="Board power (TDP) per accelerator model, dated and sourced (the accelerator catalog's "
                      "board_power_* columns): the energy estimate of results without power logs.")
@input_errors_as_failures
def stg_board_power(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path, _ = public_facts(settings, "accelerators.csv")
    if not has_board_power(path):  # a data set's own catalog from before the board power columns
        path = BUNDLED_RAW / "accelerators.csv"
    return load_table(context, settings, "stg_board_power", board_power_in=read_board_power(path))


def _carbon_table(context: dg.AssetExecutionContext, settings: PipelineSettings, name: str, reader) -> dg.MaterializeResult:
    """carbon/<name>.csv read by ``reader`` into stg_<name> (its SQL reads the frame as <name>_in)."""
    frame = public_facts_frame(settings, f"carbon/{name}.csv", reader)
    return load_table(context, settings, f"stg_{name}", **{f"{name}_in": frame})


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_carbon"], pool=POOL,
          description="Location-based grid carbon intensity per cloud region (carbon/grid_intensity.csv).")
@input_errors_as_failures
def stg_grid_intensity(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    return _carbon_table(context, settings, "grid_intensity", read_grid_intensity)


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_carbon"], pool=POOL,
          description="Data-centre PUE per provider and region (carbon/pue.csv; an empty region: the fleet figure).")
@input_errors_as_failures
def stg_pue(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    return _carbon_table(context, settings, "pue", read_pue)


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_prices", "raw_accelerator_aliases", "stg_accelerators"],
          pool=POOL,
          description="Every offer of the public catalogs under prices/ (SkyPilot's skypilot_<date>/<cloud>/vms.csv): "
                      "provider, instance type, the catalog's accelerator name, GPUs per node, memory, form factor "
                      "and offer kind, with the cloud model the alias table (accelerator_aliases.csv) gives it; "
                      "null where the accelerator is unknown (never priced).")
@input_errors_as_failures
def stg_catalog_offers(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    folder = settings.raw / "prices"
    catalog = read_catalog_folder(folder)
    path, _ = public_facts(settings, "accelerator_aliases.csv")
    with settings.connect(read_only=True) as conn:
        cloud_models = to_polars(conn.sql("select distinct cloud_model from stg_accelerators where cloud_model is not null"))
    own = path.parent == settings.raw  # the project's table serves a data set's own catalog as far as it matches
    resolved = resolve(catalog.offers, read_aliases(path, cloud_models["cloud_model"].to_list(), strict=own))
    resolved = resolved.with_columns(file=pl.lit(str(folder) + "/") + pl.col("file"))
    result = load_table(context, settings, "stg_catalog_offers", offers_in=relative_to_raw(resolved, settings.raw))
    unknown = unknown_accelerators(resolved)
    result.metadata["rows_not_offers"] = dg.MetadataValue.md(
        "\n".join(f"- {reason}: {count:,}" for reason, count in sorted(catalog.skipped.items())) or "none")
    result.metadata["unknown_accelerators"] = dg.MetadataValue.md(
        "\n".join(f"- {r['accelerator']}: {r['offers']} offer(s) ({r['providers']})" for r in unknown.iter_rows(named=True))
        or "none")
    # the same as numbers, so the UI can chart them and a run's metadata says at a glance what was dropped
    result.metadata["unknown_accelerator_count"] = dg.MetadataValue.int(unknown.height)
    result.metadata["unknown_accelerator_offers"] = dg.MetadataValue.int(int(unknown["offers"].sum()) if unknown.height else 0)
    return result


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_instances", "stg_accelerators", "stg_catalog_offers"],
          pool=POOL,
          description="The one instance catalog: instances.csv's rows and every catalog offer whose accelerator the "
                      "alias table knows (origin says which); its accelerators, GPUs per node and, where stated, "
                      "inter-node fabric, linked to the accelerator catalog; typed.")
@input_errors_as_failures
def stg_instances(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path = need_input(settings.raw / "instances.csv", "the instance table")
    frame = read_instances(path)
    with settings.connect(read_only=True) as conn:
        cloud_models = to_polars(conn.sql("select cloud_model from stg_accelerators where cloud_model is not null"))
        offers = read_table(conn, "stg_catalog_offers")
    check_catalog_links(frame, path, cloud_models["cloud_model"].to_list())
    frame = with_catalog_instances(frame.with_columns(file=pl.lit(str(path))), offers, settings.raw)
    return load_table(context, settings, "stg_instances", instances_in=relative_to_raw(frame, settings.raw))


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_prices", "stg_instances"], pool=POOL,
          description="The one price book: every price snapshot, from normalized CSVs and the providers' own price "
                      "lists, for the instances of the catalog; one USD price per (provider, region, instance_type, "
                      "pricing option, as_of), with its source and certainty.")
@input_errors_as_failures
def stg_prices(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    folder = need_input(settings.raw / "prices", "a prices/ folder with at least one snapshot")
    input_files(folder)  # refuses FIFOs, dangling links and link loops, which the price reader would skip
    with settings.connect(read_only=True) as conn:
        instances = read_table(conn, "stg_instances")
    # Provider price lists price machines; Cloud TPUs (billed per chip) come from normalized rows.
    frame = read_price_folder(folder, instances.filter(pl.col("billing") == "instance"))
    if frame.is_empty():
        raise InputError(folder, None, "holds no prices for the instances in instances.csv")
    frame = frame.with_columns(file=pl.lit(str(folder) + "/") + pl.col("file"))
    return load_table(context, settings, "stg_prices", prices_in=relative_to_raw(frame, settings.raw))
