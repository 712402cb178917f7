"""Staging of MLPerf results: the times to train (scored trees and result-summarizer CSVs) and the measured
systems' configuration (systems JSON). The trees themselves are scored in mlperf/trees.py."""


import dagster as dg
import polars as pl

from pipelines.defs.metadata import POOL, input_errors_as_failures, table_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.defs.staging import files_in_raw, load_table, public_facts_frame, relative_to_raw
from pipelines.domain.mlperf import report_benchmark
from pipelines.domain.rounds import round_order
from pipelines.ingest.mlperf.precision import read_mlperf_precision
from pipelines.ingest.results_summary import RESULT_COLUMNS, summary_results
from pipelines.ingest.systems_json import SYSTEM_SCHEMA, parse_system_json
from pipelines.warehouse import to_polars, write_frame


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
    from_csv = relative_to_raw(summary_results(files_in_raw(settings, "results", "*.csv")), settings.raw)
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
    return load_table(context, settings, "stg_results", results_in=frame)


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_systems", "raw_mlperf"], pool=POOL,
          description="Configuration of each measured system from its MLPerf systems JSON (systems/ and mlperf/ trees).")
@input_errors_as_failures
def stg_systems(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    files = files_in_raw(settings, "systems", "*.json") + [
        f for f in files_in_raw(settings, "mlperf", "*.json") if f.parent.name == "systems"
    ]
    rows = [parse_system_json(f) for f in files]
    frame = pl.DataFrame(rows, schema=SYSTEM_SCHEMA, orient="row") if rows else pl.DataFrame(schema=SYSTEM_SCHEMA)
    # The same system may come both from systems/ and from a result tree (or two trees): the first
    # wins, systems/ before mlperf/, so a curated copy in systems/ overrides a tree's.
    shadowed = frame.filter(pl.col("system").is_duplicated() & ~pl.col("system").is_first_distinct())
    frame = frame.filter(pl.col("system").is_first_distinct())
    with settings.connect() as conn:  # stored as parsed (SYSTEM_SCHEMA), by system
        write_frame(conn, "stg_systems", relative_to_raw(frame, settings.raw).sort("system"))
        result = dg.MaterializeResult(metadata=table_metadata(conn, "stg_systems"))
    result.metadata["shadowed_files"] = dg.MetadataValue.md("\n".join(f"- {f}" for f in shadowed["file"]) or "none")
    return result


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_mlperf_precision"], pool=POOL,
          description="The numeric precision each MLPerf LLM result trained in (bf16, fp8, fp4, int8) and how it is "
                      "known: its log, or its submission's configuration (mlperf_precision.csv; the project's when "
                      "the data set has none). The model estimate turns each result to BF16 by it.")
@input_errors_as_failures
def stg_mlperf_precision(settings: PipelineSettings) -> dg.MaterializeResult:
    frame = public_facts_frame(settings, "mlperf_precision.csv", read_mlperf_precision)
    with settings.connect() as conn:
        write_frame(conn, "stg_mlperf_precision", frame)
        return dg.MaterializeResult(metadata=table_metadata(conn, "stg_mlperf_precision"))
