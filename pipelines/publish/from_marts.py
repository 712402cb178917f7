"""What the report and the atlas take from the warehouse besides their tables: the report's
context from its marts (which mart feeds which argument of build_context)."""

from __future__ import annotations

import polars as pl

from pipelines.config import build_day
from pipelines.domain.report_settings import ReportSettings


def report_context(tables: dict[str, pl.DataFrame], chart_cache=None) -> dict:
    """The report's template context from the marts (REPORT_TABLES in pipelines/defs/report/documents.py), its charts
    drawn through `chart_cache` (publish/chart_cache.py; None: every chart drawn)."""
    settings = ReportSettings.from_row(tables["stg_report_settings"].row(0, named=True))
    dates = tables["report_dates"].row(0, named=True)
    # the chapters' tables, the summary and "What changed" are at the baseline's pricing option
    # (report.toml baseline_pricing); the pricing options' table reads every option
    pricing = settings.baseline_pricing
    all_options = tables["cost_to_train"]
    cost = all_options.filter(pl.col("pricing_option") == pricing)
    cost_changes = tables["cost_changes"].filter(pl.col("pricing_option") == pricing)
    if "stg_comparisons" in tables and "description" not in cost.columns:  # each comparison's text from report.toml
        descriptions = tables["stg_comparisons"].select("comparison", "description").unique("comparison", keep="first")
        cost = cost.join(descriptions, on="comparison", how="left", maintain_order="left")
    from pipelines.publish.chart_cache import NO_CACHE
    from pipelines.publish.context import build_context

    return build_context(
        settings=settings, dates=dates, cost=cost, cost_changes=cost_changes,
        price_changes=tables["price_changes"], price_history=tables["price_history"], systems=tables["stg_systems"],
        time_to_train=tables["time_to_train"], input_files=tables["input_files"], generated_on=build_day(),
        offers=tables["cheapest_offers"], options=all_options, cheapest=tables["cheapest_options"],
        unknown_accelerators=tables.get("catalog_unknown_accelerators"), chart_cache=chart_cache or NO_CACHE,
        models={name: tables[name] for name in MODEL_TABLES} if all(name in tables for name in MODEL_TABLES) else None,
        price_index=tables.get("price_index"),
    )


# the tables of the chapter "Your model's cost" (publish/model_chapter.py)
MODEL_TABLES = ("stg_models", "model_estimates", "model_picks", "model_not_priced", "llm_throughput",
                "model_calibration")
