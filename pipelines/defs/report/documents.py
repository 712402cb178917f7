"""Report assets: HTML and PDF from one template, the data exports, and the atomic publish."""


import dagster as dg
import polars as pl

from pipelines.defs.metadata import layout_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.domain.columns import UNPUBLISHED_COLUMNS
from pipelines.metrics.cost import EXPORT_COLUMNS
from pipelines.metrics.model_calibration import CALIBRATION_COLUMNS
from pipelines.metrics.model_estimates import ESTIMATE_COLUMNS as MODEL_ESTIMATE_COLUMNS
from pipelines.metrics.model_picks import PICK_COLUMNS
from pipelines.publish.exports import write_table
from pipelines.publish.from_marts import report_context
from pipelines.publish.store import build_dir, dated_dir, publish, write_atomic
from pipelines.warehouse import read_table

# matplotlib (charts) and WeasyPrint (render, index_page) are imported inside the assets that use
# them: loading the definitions then costs ~1.7 s of CPU and 64 MiB less (BENCHMARKS.md) for every
# process that loads them without rendering: marts-only runs, sensor ticks, dg check, each step
# process of a multiprocess run.

# What the report's context reads (publish/from_marts.py), and what its HTML depends on: the marts
# plus the staging tables whose rows it shows as they are.
REPORT_MARTS = ["cheapest_offers", "cheapest_options", "cost_to_train", "cost_changes", "price_changes", "price_history",
                "time_to_train", "input_files", "report_dates", "catalog_unknown_accelerators",
                "model_estimates", "model_picks", "model_not_priced", "model_calibration", "llm_throughput",
                "price_index"]
REPORT_STAGING = ["stg_systems", "stg_report_settings", "stg_comparisons", "stg_models"]
REPORT_TABLES = REPORT_MARTS + REPORT_STAGING
EXPORTED_STAGING = ["stg_mlperf_scores", "stg_mlperf_runs"]  # exported as they are (data/mlperf_*.csv)


def _tables(settings: PipelineSettings, names: list[str]) -> dict[str, pl.DataFrame]:
    with settings.connect(read_only=False) as conn:
        return {name: read_table(conn, name) for name in names}


@dg.asset(group_name="report", kinds={"html", "jinja"}, deps=REPORT_TABLES,
          description="The report as one self-contained HTML page (inline CSS and SVG charts), written to the run's "
                      "build folder; published by published_report.")
def report_html(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    from pipelines.publish.chart_cache import ChartCache
    from pipelines.publish.render import render_html

    tables = _tables(settings, REPORT_TABLES)
    charts = ChartCache(settings.chart_cache("report"))
    html = render_html(report_context(tables, charts))
    pruned = charts.prune()
    path = build_dir(settings.reports, context.run.run_id) / "report.html"
    write_atomic(path, html.encode("utf-8"))
    published = dated_dir(settings.reports, tables["report_dates"]["price_date"][0]) / "report.html"
    return dg.MaterializeResult(metadata={"path": dg.MetadataValue.path(str(path)), "bytes": len(html.encode()),
                                          "charts_drawn": charts.drawn, "charts_reused": len(charts.used) - charts.drawn,
                                          "charts_pruned": pruned, "published_as": dg.MetadataValue.path(str(published))})


@dg.asset(group_name="report", kinds={"pdf"}, deps=["report_html"],
          description="The report as a tagged PDF (WeasyPrint, PDF/UA-1) from the same HTML: page numbers, table of "
                      "contents, footnotes on the page of their call. Laid out once per content (publish/pdf_parts.py): "
                      "an unchanged report is served from the PDF cache, a changed one starts from the rows the last "
                      "layout moved to new pages.")
def report_pdf(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    folder = build_dir(settings.reports, context.run.run_id)
    html_path = folder / "report.html"
    if not html_path.exists():
        raise dg.Failure(f"{html_path} is missing: the PDF is laid out from the HTML built in the same run")
    with settings.connect() as conn:
        price_date = conn.sql("select price_date from report_dates").fetchall()[0][0]
    from pipelines.publish.pdf_parts import PdfCache, print_kept

    html = html_path.read_text(encoding="utf-8")
    cache = PdfCache(settings.pdf_cache("report"))
    printed = print_kept("report.pdf", html, price_date, cache)
    cache.prune()
    write_atomic(folder / "report.pdf", printed.pdf)
    published = dated_dir(settings.reports, price_date) / "report.pdf"
    return dg.MaterializeResult(metadata={
        "path": dg.MetadataValue.path(str(folder / "report.pdf")), "bytes": len(printed.pdf), "pages": printed.pages,
        "layouts": printed.layouts, "published_as": dg.MetadataValue.path(str(published)),
        **layout_metadata(context, {"report.pdf": printed})})


# file name -> (table, columns): the contract's columns first; `exact` files carry only those.
EXPORTS = {
    "cheapest_offers": ("cheapest_offers", None, False),
    "cost_to_train": ("cost_to_train", EXPORT_COLUMNS, False),
    "price_history": ("price_history", ["provider", "region", "instance_type", "usd_per_hour", "as_of", "source",
                                        "pricing_model", "term_years", "payment_option", "offering_class",
                                        "upfront_usd", "recurring_usd_per_hour", "certainty", "zone_count",
                                        "zone_min_usd_per_hour", "zone_max_usd_per_hour", "interruption_frequency",
                                        "offer_kind"], True),
    "catalog_unknown_accelerators": ("catalog_unknown_accelerators", None, False),
    "price_changes": ("price_changes", None, False),
    "price_index": ("price_index", None, False),
    "cost_changes": ("cost_changes", None, False),
    "time_to_train": ("time_to_train", None, False),
    "input_files": ("input_files", None, False),
    "mlperf_scores": ("stg_mlperf_scores", ["round", "submitter", "system", "benchmark", "runs", "dropped_runs",
                                            "time_to_train_minutes"], False),
    "mlperf_runs": ("stg_mlperf_runs", None, False),
    "model_estimates": ("model_estimates", list(MODEL_ESTIMATE_COLUMNS), False),
    "model_picks": ("model_picks", list(PICK_COLUMNS), False),
    "model_not_priced": ("model_not_priced", None, False),
    "model_calibration": ("model_calibration", list(CALIBRATION_COLUMNS), False),
    "llm_throughput": ("llm_throughput", None, False),
}


@dg.asset(group_name="report", kinds={"csv", "parquet"}, deps=REPORT_MARTS + EXPORTED_STAGING,
          description="Every table of the report that has rows as data/<table>.csv and .parquet in the run's build "
                      "folder (a table without rows, such as the MLPerf scores of a data set without result trees, "
                      "is not published; index.html says so).")
def report_data(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    tables = _tables(settings, REPORT_MARTS + EXPORTED_STAGING)
    folder = build_dir(settings.reports, context.run.run_id) / "data"
    written, empty = [], []
    for name, (mart, first, exact) in EXPORTS.items():
        frame = tables[mart]
        if frame.is_empty():
            # a header-only file reads as data: index.html linked data/mlperf_scores.csv of a data set
            # without MLPerf trees as "MLPerf scores computed from the result trees"; it lists it as empty
            empty.append(name)
            continue
        if first:
            frame = frame.select(first + ([] if exact else [c for c in frame.columns if c not in first]))
        written += write_table(folder, name, frame.drop(UNPUBLISHED_COLUMNS, strict=False))
    published = dated_dir(settings.reports, tables["report_dates"]["price_date"][0]) / "data"
    return dg.MaterializeResult(metadata={"files": dg.MetadataValue.md("\n".join(f"- {p.name}" for p in written)),
                                          "not published (no rows)": ", ".join(empty) or "none",
                                          "path": dg.MetadataValue.path(str(folder)),
                                          "published_as": dg.MetadataValue.path(str(published))})


@dg.asset(group_name="report", kinds={"python"}, deps=["report_html", "report_pdf", "report_data"],
          description="Publishes the run's report atomically to REPORTS_DIR/<price date>/ and REPORTS_DIR/latest/, "
                      "and lists it in REPORTS_DIR/index.html. A failed run never replaces a published report.")
def published_report(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    folder = settings.reports / ".build" / context.run.run_id
    missing = [name for name in ("report.html", "report.pdf", "data") if not (folder / name).exists()]
    if missing:
        raise dg.Failure(f"the run's build folder lacks {', '.join(missing)}: nothing was published")
    with settings.connect() as conn:
        price_date, title = conn.sql("select d.price_date, s.title from report_dates d, stg_report_settings s").fetchall()[0]
    from pipelines.publish.index_page import write_index

    target = publish(settings.reports, folder, price_date, context.run.run_id,
                     then=lambda: write_index(settings.reports, title))
    index = settings.reports / "index.html"
    return dg.MaterializeResult(metadata={
        "path": dg.MetadataValue.path(str(target)),
        "html": dg.MetadataValue.path(str(target / "report.html")),
        "pdf": dg.MetadataValue.path(str(target / "report.pdf")),
        "index": dg.MetadataValue.path(str(index)),
        "price_date": price_date.isoformat(),
    })
