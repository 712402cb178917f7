"""Staging of what is the report's own: report.toml (its comparisons and settings), which measured system
stands for which instance (mappings.csv) and the team's own throughput; they say what the report
compares, so neither the price book nor the MLPerf results need them. (The atlas reads
stg_report_settings by its key, for the regions bought in.)"""


import dagster as dg
import polars as pl

from pipelines.defs.metadata import POOL, input_errors_as_failures, table_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.defs.staging import files_in_raw, load_table, need_input, relative_to_raw
from pipelines.domain.errors import InputError
from pipelines.domain.report_settings import table_row
from pipelines.ingest.report_config import parse_report_config
from pipelines.ingest.tables import read_mappings, read_throughput, with_same_accelerator_mappings
from pipelines.warehouse import create_table, read_table


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_mappings", "stg_instances"],
          pool=POOL,
          description="Measured system per instance and benchmark (mappings.csv), and for an instance without "
                      "a row the mapping of an instance with the same accelerators (derived_from says which), typed.")
@input_errors_as_failures
def stg_mappings(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path = need_input(settings.raw / "mappings.csv", "the instance-to-system mappings")
    frame = read_mappings(path).with_columns(file=pl.lit(str(path)))
    with settings.connect(read_only=True) as conn:
        instances = read_table(conn, "stg_instances")
    frame = with_same_accelerator_mappings(frame, instances).with_columns(pl.col("file").fill_null(str(path)))
    return load_table(context, settings, "stg_mappings", mappings_in=relative_to_raw(frame, settings.raw))


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_throughput"], pool=POOL,
          description="Throughput a team measured itself (samples per second), typed.")
@input_errors_as_failures
def stg_throughput(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    frames = [read_throughput(f).with_columns(file=pl.lit(str(f))) for f in files_in_raw(settings, "throughput", "*.csv")]
    schema = {"system": pl.Utf8, "benchmark": pl.Utf8, "samples_per_second": pl.Float64, "framework": pl.Utf8,
              "precision": pl.Utf8, "global_batch_size": pl.Int64, "source": pl.Utf8, "measured_on": pl.Date,
              "line": pl.Int64, "file": pl.Utf8}
    frame = pl.concat([f.select(list(schema)) for f in frames]) if frames else pl.DataFrame(schema=schema)
    dup = frame.filter(pl.struct("system", "benchmark").is_duplicated())
    if dup.height:
        row = dup.row(-1, named=True)
        raise InputError(row["file"], row["line"], f"throughput for {row['system']}/{row['benchmark']} is given twice")
    return load_table(context, settings, "stg_throughput", throughput_in=relative_to_raw(frame, settings.raw))


def read_report_config(settings: PipelineSettings):
    path = need_input(settings.raw / "report.toml", "report.toml")
    return path, parse_report_config(path)


@dg.asset(group_name="staging", kinds={"duckdb", "python"}, deps=["raw_report_config"], pool=POOL,
          description="report.toml: the comparisons, one row per comparison, instance and benchmark.")
@input_errors_as_failures
def stg_comparisons(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path, config = read_report_config(settings)
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
                      "the baseline's pricing, the user's discounts, the break-even's runs a month, the ages "
                      "after which a price and a spot price are stale, the offer kinds excluded and headlined, and "
                      "the team's own workloads: the fields of pipelines/domain/report_settings.ReportSettings.")
@input_errors_as_failures
def stg_report_settings(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    path, config = read_report_config(settings)
    # every column, its type and its value are report_settings.ReportSettings' fields (declared once there)
    row = table_row(config, config_path=str(path.relative_to(settings.raw)))
    return load_table(context, settings, "stg_report_settings", settings_in=row)
