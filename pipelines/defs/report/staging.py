"""Staging: every raw input parsed, validated and loaded into a typed DuckDB table (sql/stg_*.sql)."""


from pathlib import Path

import dagster as dg
import polars as pl

from pipelines.config import BUNDLED_RAW
from pipelines.defs.metadata import POOL, input_errors_as_failures, table_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.domain.errors import InputError
from pipelines.ingest.raw_files import input_files
from pipelines.domain.mlperf import report_benchmark
from pipelines.domain.rounds import round_order
from pipelines.ingest.accelerators import read_catalog_table
from pipelines.ingest.board_power import has_board_power, read_board_power
from pipelines.ingest.carbon_factors import read_grid_intensity, read_pue
from pipelines.ingest.catalog_instances import read_aliases, resolve, unknown_accelerators, with_catalog_instances
from pipelines.ingest.prices import read_price_folder
from pipelines.ingest.prices.skypilot import read_catalog_folder
from pipelines.ingest.report_config import parse_report_config
from pipelines.ingest.results_summary import RESULT_COLUMNS, summary_results
from pipelines.ingest.systems_json import SYSTEM_SCHEMA, parse_system_json
from pipelines.ingest.tables import (
    check_catalog_links, read_instances, read_mappings, read_throughput, with_same_accelerator_mappings,
)
from pipelines.warehouse import create_table, read_table, to_polars, write_frame


def _relative(frame: pl.DataFrame, raw: Path, column: str = "file") -> pl.DataFrame:
    """File paths relative to RAW_DIR, so the report and exports do not leak local folders."""
    prefix = str(raw) + "/"
    return frame.with_columns(pl.col(column).str.strip_prefix(prefix))


def _need(path: Path, what: str) -> Path:
    if not path.exists() and not path.is_symlink():  # a dangling link or a loop: the reader says which
        raise InputError(path, None, f"is missing: the pipeline needs {what}")
    return path


def _load(context: dg.AssetExecutionContext, settings: PipelineSettings, table: str, **frames: pl.DataFrame) -> dg.MaterializeResult:
    with settings.connect() as conn:
        create_table(conn, table, **frames)
        meta = table_metadata(conn, table)
    return dg.MaterializeResult(metadata=meta)


def _files(settings: PipelineSettings, folder: str, pattern: str) -> list[Path]:
    return input_files(settings.raw / folder, pattern)


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_accelerators"], pool=POOL,
          description="The accelerator catalog (accelerators.csv): each way systems JSON name an accelerator, its model "
                      "and the cloud model it is priced as.")
@input_errors_as_failures
def stg_accelerators(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path, label = _public_facts(settings, "accelerators.csv")
    frame = read_catalog_table(path).with_columns(file=pl.lit(label))
    return _load(context, settings, "stg_accelerators", accelerators_in=_relative(frame, settings.raw))


def _public_facts(settings: PipelineSettings, relative: str) -> tuple[Path, str]:
    """(path, file label) of a file of public facts (the accelerator catalog, the carbon factors):
    hardware and grid facts, not a team's data, so a data set without its own uses the project's."""
    own = settings.raw / relative
    if own.exists() or own.is_symlink():
        return own, str(own)
    return BUNDLED_RAW / relative, f"{relative} (the project's: the data set has none)"


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_accelerators"], pool=POOL,
          description="Board power (TDP) per accelerator model, dated and sourced (the accelerator catalog's "
                      "board_power_* columns): the energy estimate of results without power logs.")
@input_errors_as_failures
def stg_board_power(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path, _ = _public_facts(settings, "accelerators.csv")
    if not has_board_power(path):  # a data set's own catalog from before the board power columns
        path = BUNDLED_RAW / "accelerators.csv"
    return _load(context, settings, "stg_board_power", board_power_in=read_board_power(path))


def _carbon_table(context: dg.AssetExecutionContext, settings: PipelineSettings, name: str, reader) -> dg.MaterializeResult:
    """carbon/<name>.csv read by ``reader`` into stg_<name> (its SQL reads the frame as <name>_in)."""
    path, label = _public_facts(settings, f"carbon/{name}.csv")
    frame = reader(path).with_columns(file=pl.lit(label))
    return _load(context, settings, f"stg_{name}", **{f"{name}_in": _relative(frame, settings.raw)})


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
    path, _ = _public_facts(settings, "accelerator_aliases.csv")
    with settings.connect(read_only=True) as conn:
        cloud_models = to_polars(conn.sql("select distinct cloud_model from stg_accelerators where cloud_model is not null"))
    own = path.parent == settings.raw  # the project's table serves a data set's own catalog as far as it matches
    resolved = resolve(catalog.offers, read_aliases(path, cloud_models["cloud_model"].to_list(), strict=own))
    resolved = resolved.with_columns(file=pl.lit(str(folder) + "/") + pl.col("file"))
    result = _load(context, settings, "stg_catalog_offers", offers_in=_relative(resolved, settings.raw))
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
    path = _need(settings.raw / "instances.csv", "the instance table")
    frame = read_instances(path)
    with settings.connect(read_only=True) as conn:
        cloud_models = to_polars(conn.sql("select cloud_model from stg_accelerators where cloud_model is not null"))
        offers = read_table(conn, "stg_catalog_offers")
    check_catalog_links(frame, path, cloud_models["cloud_model"].to_list())
    frame = with_catalog_instances(frame.with_columns(file=pl.lit(str(path))), offers, settings.raw)
    return _load(context, settings, "stg_instances", instances_in=_relative(frame, settings.raw))


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_mappings", "stg_instances"],
          pool=POOL,
          description="Measured system per instance and benchmark (mappings.csv), and for an instance without "
                      "a row the mapping of an instance with the same accelerators (derived_from says which), typed.")
@input_errors_as_failures
def stg_mappings(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path = _need(settings.raw / "mappings.csv", "the instance-to-system mappings")
    frame = read_mappings(path).with_columns(file=pl.lit(str(path)))
    with settings.connect(read_only=True) as conn:
        instances = read_table(conn, "stg_instances")
    frame = with_same_accelerator_mappings(frame, instances).with_columns(pl.col("file").fill_null(str(path)))
    return _load(context, settings, "stg_mappings", mappings_in=_relative(frame, settings.raw))


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_prices", "stg_instances"], pool=POOL,
          description="The one price book: every price snapshot, from normalized CSVs and the providers' own price "
                      "lists, for the instances of the catalog; one USD price per (provider, region, instance_type, "
                      "pricing option, as_of), with its source and certainty.")
@input_errors_as_failures
def stg_prices(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    folder = _need(settings.raw / "prices", "a prices/ folder with at least one snapshot")
    input_files(folder)  # refuses FIFOs, dangling links and link loops, which the price reader would skip
    with settings.connect(read_only=True) as conn:
        instances = read_table(conn, "stg_instances")
    # Provider price lists price machines; Cloud TPUs (billed per chip) come from normalized rows.
    frame = read_price_folder(folder, instances.filter(pl.col("billing") == "instance"))
    if frame.is_empty():
        raise InputError(folder, None, "holds no prices for the instances in instances.csv")
    frame = frame.with_columns(file=pl.lit(str(folder) + "/") + pl.col("file"))
    return _load(context, settings, "stg_prices", prices_in=_relative(frame, settings.raw))


def _report_benchmarks(frame: pl.DataFrame) -> pl.DataFrame:
    """Each result under the benchmark name the report compares it by (domain.mlperf.report_benchmark:
    v2.0-v4.1 ssd is retinanet, v4.0-v4.1 gnn is rgat)."""
    names = frame.select("round", "benchmark").unique().with_columns(
        pl.struct("round", "benchmark").map_elements(lambda r: report_benchmark(r["round"], r["benchmark"]),
                                                     return_dtype=pl.Utf8).alias("report_benchmark"))
    return (frame.join(names, on=["round", "benchmark"], how="left", nulls_equal=True, maintain_order="left")
            .with_columns(pl.col("report_benchmark").alias("benchmark")).drop("report_benchmark"))


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_results", "stg_mlperf_scores", "stg_systems"],
          pool=POOL,
          description="MLPerf times to train, one row per round, system and benchmark: scored from the result trees "
                      "(with run counts) and read from result-summarizer CSVs; a tree's score wins over a CSV's.")
@input_errors_as_failures
def stg_results(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    from_csv = _relative(summary_results(_files(settings, "results", "*.csv")), settings.raw)
    with settings.connect() as conn:
        from_trees = to_polars(conn.sql(
            "select s.round, s.submitter, s.system, s.benchmark, s.division, y.accelerator_model_name, "
            "y.accelerators_total::bigint as accelerators_count, s.time_to_train_minutes, s.runs::bigint as runs, "
            "s.dropped_runs::bigint as dropped_runs, s.samples_per_second, s.global_batch_size, s.samples_to_converge, "
            "'MLPerf result tree' as origin, s.tree as file, null::varchar as line "
            "from stg_mlperf_scores s left join stg_systems y using (system) where s.time_to_train_minutes is not null"
        ))
    keys = ["round", "system", "benchmark"]
    frame = pl.concat([from_trees.select(list(RESULT_COLUMNS)).cast(RESULT_COLUMNS),
                       from_csv.join(from_trees.select(keys), on=keys, how="anti")])
    frame = _report_benchmarks(frame).with_columns(round_order(pl.col("round")).alias("round_order"))
    return _load(context, settings, "stg_results", results_in=frame)


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_throughput"], pool=POOL,
          description="Throughput a team measured itself (samples per second), typed.")
@input_errors_as_failures
def stg_throughput(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    frames = [read_throughput(f).with_columns(file=pl.lit(str(f))) for f in _files(settings, "throughput", "*.csv")]
    schema = {"system": pl.Utf8, "benchmark": pl.Utf8, "samples_per_second": pl.Float64, "framework": pl.Utf8,
              "precision": pl.Utf8, "global_batch_size": pl.Int64, "source": pl.Utf8, "measured_on": pl.Date,
              "line": pl.Int64, "file": pl.Utf8}
    frame = pl.concat([f.select(list(schema)) for f in frames]) if frames else pl.DataFrame(schema=schema)
    dup = frame.filter(pl.struct("system", "benchmark").is_duplicated())
    if dup.height:
        row = dup.row(-1, named=True)
        raise InputError(row["file"], row["line"], f"throughput for {row['system']}/{row['benchmark']} is given twice")
    return _load(context, settings, "stg_throughput", throughput_in=_relative(frame, settings.raw))


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_systems", "raw_mlperf"], pool=POOL,
          description="Configuration of each measured system from its MLPerf systems JSON (systems/ and mlperf/ trees).")
@input_errors_as_failures
def stg_systems(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    files = _files(settings, "systems", "*.json") + [
        f for f in _files(settings, "mlperf", "*.json") if f.parent.name == "systems"
    ]
    rows = [parse_system_json(f) for f in files]
    frame = pl.DataFrame(rows, schema=SYSTEM_SCHEMA, orient="row") if rows else pl.DataFrame(schema=SYSTEM_SCHEMA)
    # The same system may come both from systems/ and from a result tree (or two trees): the first
    # wins, systems/ before mlperf/, so a curated copy in systems/ overrides a tree's.
    shadowed = frame.filter(pl.col("system").is_duplicated() & ~pl.col("system").is_first_distinct())
    frame = frame.filter(pl.col("system").is_first_distinct())
    with settings.connect() as conn:  # stored as parsed (SYSTEM_SCHEMA), by system
        write_frame(conn, "stg_systems", _relative(frame, settings.raw).sort("system"))
        result = dg.MaterializeResult(metadata=table_metadata(conn, "stg_systems"))
    result.metadata["shadowed_files"] = dg.MetadataValue.md("\n".join(f"- {f}" for f in shadowed["file"]) or "none")
    return result


def _report_config(settings: PipelineSettings):
    path = _need(settings.raw / "report.toml", "report.toml")
    return path, parse_report_config(path)


@dg.asset(group_name="staging", kinds={"duckdb", "python"}, deps=["raw_report_config"], pool=POOL,
          description="report.toml: the comparisons, one row per comparison, instance and benchmark.")
@input_errors_as_failures
def stg_comparisons(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path, config = _report_config(settings)
    relative = str(path.relative_to(settings.raw))
    rows = [
        {
            "comparison": c.id, "comparison_title": c.title, "description": c.description, "position": i,
            "provider": inst.provider, "region": inst.region or config.regions[inst.provider], "instance_type": inst.instance_type,
            "benchmark": bench, "benchmark_position": config.all_benchmarks.index(bench), "is_baseline": inst == c.baseline,
            "whole_market": c.whole_market,
            "config_path": f"{relative}:comparisons[{ci}].instances[{i}]",
        }
        for ci, c in enumerate(config.comparisons)
        for i, inst in enumerate(c.instances)
        for bench in c.benchmarks
    ]
    with settings.connect() as conn:
        create_table(conn, "stg_comparisons", comparisons_in=pl.DataFrame(rows))
        meta = table_metadata(conn, "stg_comparisons", preview=True)
    return dg.MaterializeResult(metadata=meta)


@dg.asset(group_name="staging", kinds={"duckdb", "python"}, deps=["raw_report_config"], pool=POOL,
          description="report.toml's settings (one row): title, subtitle, author, benchmarks, price date, the "
                      "region bought in per provider (the report's and the atlas's), the pricing options shown, "
                      "the baseline's pricing, the user's discounts, the break-even's runs a month and the "
                      "age after which a price is stale, and the team's own workloads (samples per training run).")
@input_errors_as_failures
def stg_report_settings(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path, config = _report_config(settings)
    row = pl.DataFrame([{
        "title": config.title, "subtitle": config.subtitle, "author": config.author,
        "benchmarks": list(config.benchmarks), "price_date": config.price_date,
        "regions": [{"provider": k, "region": v} for k, v in sorted(config.regions.items())],
        "config_path": str(path.relative_to(settings.raw)),
        "pricing_models": list(config.pricing_models), "baseline_pricing": config.baseline_pricing,
        "discounts": [{"provider": d.provider, "instance_type": d.instance_type, "pricing_model": d.pricing_model,
                       "percent": d.percent} for d in config.discounts],
        "runs_per_month": list(config.runs_per_month), "stale_after_days": config.stale_after_days,
        "exclude_offer_kinds": list(config.exclude_offer_kinds),
        "headline_offer_kinds": list(config.headline_offer_kinds),
        "workloads": [{"name": w.name, "title": w.title, "samples": w.samples, "runs_per_month": w.runs_per_month,
                       "description": w.description} for w in config.workloads],
    }], schema={"title": pl.Utf8, "subtitle": pl.Utf8, "author": pl.Utf8, "benchmarks": pl.List(pl.Utf8),
                "price_date": pl.Date, "regions": pl.List(pl.Struct({"provider": pl.Utf8, "region": pl.Utf8})),
                "config_path": pl.Utf8, "pricing_models": pl.List(pl.Utf8), "baseline_pricing": pl.Utf8,
                "discounts": pl.List(pl.Struct({"provider": pl.Utf8, "instance_type": pl.Utf8,
                                                "pricing_model": pl.Utf8, "percent": pl.Float64})),
                "runs_per_month": pl.List(pl.Int64), "stale_after_days": pl.Int64,
                "exclude_offer_kinds": pl.List(pl.Utf8), "headline_offer_kinds": pl.List(pl.Utf8),
                "workloads": pl.List(pl.Struct({"name": pl.Utf8, "title": pl.Utf8, "samples": pl.Float64,
                                                "runs_per_month": pl.Int64, "description": pl.Utf8}))})
    return _load(context, settings, "stg_report_settings", settings_in=row)
