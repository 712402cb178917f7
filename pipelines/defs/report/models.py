"""Your model's cost: described models (report.toml [models]) priced from MLPerf's measured LLM throughput.

    stg_results, stg_systems, stg_accelerators, stg_mlperf_precision -> llm_throughput (achieved FLOP/s per
      accelerator of each LLM result, and at BF16)
    stg_published_runs + llm_throughput -> model_calibration (the correction from MLPerf's speed to a production
      budget, checked run by run)
    stg_models + llm_throughput + priced_offers (the whole market, every pricing option) + the calibration
      -> model_estimates, model_not_priced -> model_picks (cheapest, fastest, market: what every document names)
"""

import dagster as dg
import duckdb
import polars as pl

from pipelines.defs.metadata import POOL, input_errors_as_failures, table_metadata
from pipelines.defs.report.marts import report_settings
from pipelines.defs.report.staging import read_report_config
from pipelines.defs.resources import PipelineSettings
from pipelines.defs.staging import public_facts_frame
from pipelines.domain.llm import DescribedModel, described_models
from pipelines.estimate import model_inputs
from pipelines.ingest.accelerators import catalog_rows, normalize
from pipelines.ingest.published_runs import read_published_runs
from pipelines.metrics.llm_throughput import llm_throughput as compute_throughput
from pipelines.metrics.model_calibration import calibrate
from pipelines.metrics.model_estimates import ESTIMATE_COLUMNS, NOT_PRICED_COLUMNS, model_estimates as estimate, not_priced
from pipelines.metrics.model_picks import model_picks as compute_picks, ranked
from pipelines.metrics.price_changes import offered, prices_in_force
from pipelines.metrics.priced_offers import priced_offers as compute_offers
from pipelines.metrics.pricing_options import apply_discounts
from pipelines.warehouse import read_table, write_frame

MODEL_COLUMNS = {
    "name": pl.Utf8, "title": pl.Utf8, "parameters": pl.Float64, "tokens": pl.Float64, "sequence_length": pl.Int64,
    "kind": pl.Utf8, "layers": pl.Int64, "hidden_size": pl.Int64, "accelerators": pl.Int64,
    "deadline_days": pl.Float64, "precision": pl.Utf8, "description": pl.Utf8, "total_parameters": pl.Float64,
    "attention": pl.Utf8, "qk_width": pl.Int64, "v_width": pl.Int64, "flops_per_token": pl.Float64,
}


def _done(conn: duckdb.DuckDBPyConnection, table: str) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata=table_metadata(conn, table, preview=True))


@dg.asset(group_name="staging", kinds={"duckdb", "python"}, deps=["raw_report_config"], pool=POOL,
          description="report.toml's described models ([models.<name>]): size, tokens, sequence length, shape, "
                      "kind (pretrain or lora), and the cluster size or deadline to price.")
@input_errors_as_failures
def stg_models(settings: PipelineSettings) -> dg.MaterializeResult:
    _, config = read_report_config(settings)
    frame = pl.DataFrame([m.__dict__ for m in config.models], schema=MODEL_COLUMNS)
    with settings.connect() as conn:
        write_frame(conn, "stg_models", frame)
        return _done(conn, "stg_models")


@dg.asset(group_name="staging", kinds={"duckdb", "polars"}, deps=["raw_published_runs"], pool=POOL,
          description="Public training runs with published accelerator-hours and their sources "
                      "(published_runs.csv; the project's when the data set has none): the calibration's runs.")
@input_errors_as_failures
def stg_published_runs(settings: PipelineSettings) -> dg.MaterializeResult:
    frame = public_facts_frame(settings, "published_runs.csv", read_published_runs)
    with settings.connect() as conn:
        write_frame(conn, "stg_published_runs", frame)
        return _done(conn, "stg_published_runs")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL,
          deps=["stg_results", "stg_systems", "stg_accelerators", "stg_mlperf_precision"],
          description="Achieved model FLOP/s per accelerator of every closed-division MLPerf LLM result (GPT-3, "
                      "Llama 3.1 405B/8B, Llama 2 70B LoRA, DeepSeek-V3, GPT-OSS 20B): model FLOPs of the tokens "
                      "trained / (time x accelerators), with and without attention, at the precision the result ran "
                      "at and turned to BF16, and the accelerator model it is priced as.")
def llm_throughput(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        catalog = catalog_rows(read_table(conn, "stg_accelerators"))
        frame = compute_throughput(read_table(conn, "stg_results"), read_table(conn, "stg_systems"),
                                   lambda name, system: normalize(catalog, name, None, system).cloud_model,
                                   read_table(conn, "stg_mlperf_precision"))
        write_frame(conn, "llm_throughput", frame)
        return _done(conn, "llm_throughput")


def offers_frame(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every priced offer at the report's price date under every pricing option it shows (and on demand)."""
    settings = report_settings(conn)
    price_date = conn.sql("select price_date from report_dates").fetchall()[0][0]
    history = offered(read_table(conn, "stg_prices"), list(settings.exclude_offer_kinds))
    prices = apply_discounts(prices_in_force(history, price_date), list(settings.discounts))
    return compute_offers(prices, read_table(conn, "stg_instances"), list(settings.priced_options), price_date,
                          settings.stale_after_days, settings.spot_stale_after_days)


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL,
          deps=["report_dates", "stg_prices", "stg_instances", "stg_report_settings"],
          description="Every offer of the whole market (every provider, region and instance with accelerators) "
                      "under every pricing option the report shows, at the report's price date, with the user's "
                      "discounts, each price's age and staleness: the offers a described model is priced on.")
def priced_offers(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        write_frame(conn, "priced_offers", offers_frame(conn))
        return _done(conn, "priced_offers")


def _models(conn: duckdb.DuckDBPyConnection) -> list[DescribedModel]:
    return described_models(read_table(conn, "stg_models").to_dicts())


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL,
          deps=["stg_models", "llm_throughput", "priced_offers", "stg_published_runs", "stg_instances",
                "stg_report_settings"],
          description="Each described model on every offer whose accelerator has an MLPerf LLM result: the budget "
                      "(MLPerf's speed at the model's precision, corrected by the published runs), its range, "
                      "wall-clock hours and cost under every pricing option, MLPerf's own speed beside it as the "
                      "optimistic bound, the basis, the price's age and whether the cluster's fabric is stated "
                      "in the report's order (metrics/model_picks.ranked; exported as model_estimates.csv).")
def model_estimates(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        throughput, offers, calibration, fabrics = model_inputs(conn)
        frames = [estimate(m, throughput, offers, calibration, fabrics) for m in _models(conn)]
        every = pl.concat(frames) if frames else pl.DataFrame(schema=ESTIMATE_COLUMNS)
        write_frame(conn, "model_estimates", ranked(every, report_settings(conn).headline_offer_kinds))
        return _done(conn, "model_estimates")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL, deps=["model_estimates", "stg_report_settings"],
          description="Each described model's cheapest offer (every pricing option, and on demand), fastest, and "
                      "cheapest auction or marketplace offer, by the report's one rule over the offers that may "
                      "headline: what the answer page, the model's chapter and the estimate command name.")
def model_picks(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        picks = compute_picks(read_table(conn, "model_estimates"), report_settings(conn).headline_offer_kinds)
        write_frame(conn, "model_picks", picks)
        return _done(conn, "model_picks")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL,
          deps=["stg_models", "llm_throughput", "priced_offers"],
          description="The accelerators of the priced offers that no described model is priced on, and why (no "
                      "closed-division MLPerf LLM result of the model's kind on them).")
def model_not_priced(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        throughput, offers = read_table(conn, "llm_throughput"), read_table(conn, "priced_offers")
        gaps = [not_priced(m, throughput, offers) for m in _models(conn)]
        write_frame(conn, "model_not_priced", pl.concat(gaps) if gaps else pl.DataFrame(schema=NOT_PRICED_COLUMNS))
        return _done(conn, "model_not_priced")


@dg.asset(group_name="marts", kinds={"duckdb", "polars"}, pool=POOL,
          deps=["stg_published_runs", "llm_throughput"],
          description="Published training runs estimated as described models: MLPerf-speed accelerator-hours, and "
                      "the budget made without each run (leave-one-out) with its range and error against the "
                      "published figure (exported as model_calibration.csv).")
def model_calibration(settings: PipelineSettings) -> dg.MaterializeResult:
    with settings.connect() as conn:
        _, table = calibrate(read_table(conn, "stg_published_runs"), read_table(conn, "llm_throughput"))
        write_frame(conn, "model_calibration", table)
        return _done(conn, "model_calibration")
