"""The atlas's publish assets: HTML, PDF and data exports in the run's build folder, then the atomic
publish to REPORTS_DIR/atlas/<price date>/ and REPORTS_DIR/atlas/latest/ (as the report's)."""


import dagster as dg

from pipelines.config import build_day
from pipelines.defs.atlas.marts import (ATLAS_TABLES, atlas_asset, atlas_multi_asset, atlas_priced_on,
                                       stale_after_days)
from pipelines.defs.mlperf.rounds import mlperf_dir_or_fail
from pipelines.defs.metadata import layout_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.metrics.atlas import instance_prices
from pipelines.publish.store import build_dir, dated_dir, publish, write_atomic
from pipelines.warehouse import read_table

ATLAS_FILES = ("atlas.html", "atlas.pdf", "data")


def _atlas_reports(settings: PipelineSettings):
    return settings.reports / "atlas"


def _price_date(settings: PipelineSettings):
    with settings.connect() as conn:
        return atlas_priced_on(conn)


@atlas_multi_asset([
    ("atlas_html", ATLAS_TABLES + ["catalog_unknown_accelerators"], "The atlas's web edition: one self-contained HTML page with every chart, written to the "
     "run's build folder. Charts are drawn once per content (publish/chart_cache.py)."),
    ("atlas_pdf", ATLAS_TABLES + ["catalog_unknown_accelerators"], "The atlas's digest as tagged PDFs (WeasyPrint): atlas.pdf (summary, trend, entries not "
     "priced, methodology), atlas-<round>.pdf per round with its cheapest results per model and atlas-instances.pdf "
     "(instances and prices); each laid out once per content (publish/pdf_parts.py). The web edition (atlas_html) "
     "has every chart and result."),
], kinds=("html", "pdf", "jinja"), pool=None)
def atlas_documents(context: dg.AssetExecutionContext, settings: PipelineSettings):
    """Both editions in one step, side by side: the digest's PDFs not printed before are laid out in worker
    processes while this one draws the web edition's charts."""
    from pipelines.publish.atlas_rounds import WEB
    from pipelines.publish.chart_cache import ChartCache
    from pipelines.publish.pdf_parts import PdfCache, Printing
    from pipelines.publish.render import render_pieces

    charts, pdfs = ChartCache(settings.chart_cache("atlas")), PdfCache(settings.pdf_cache("atlas"))
    folder = build_dir(_atlas_reports(settings), context.run.run_id)
    inputs = _atlas_inputs(settings)
    pages = _digest_pages(inputs, charts)
    with Printing(pages, inputs["price_date"], pdfs, generated_on=inputs["generated_on"]) as printing:
        web_edition = _context(inputs, WEB, charts)  # its charts drawn while the workers lay the PDFs out
        printed = printing.result()  # the workers stopped: their memory is given back before the page is rendered
    web_bytes = write_atomic(folder / "atlas.html",
                             (piece.encode("utf-8") for piece in render_pieces(web_edition, "atlas.html.j2")))
    for name, pdf in printed.items():
        write_atomic(folder / name, pdf.pdf)
    pruned = charts.prune()  # the web edition draws every chart the digest does, and more
    pdfs.prune()
    yield dg.MaterializeResult(asset_key="atlas_html", metadata={
        "path": dg.MetadataValue.path(str(folder / "atlas.html")), "bytes": web_bytes,
        "charts_drawn": charts.drawn, "charts_reused": len(charts.used) - charts.drawn, "charts_pruned": pruned,
        "published_as": dg.MetadataValue.path(str(dated_dir(_atlas_reports(settings), inputs["price_date"]) / "atlas.html"))})
    yield dg.MaterializeResult(asset_key="atlas_pdf", metadata={
        "path": dg.MetadataValue.path(str(folder / "atlas.pdf")), "bytes": len(printed["atlas.pdf"].pdf),
        "files": dg.MetadataValue.json(list(printed)), "pages": sum(p.pages for p in printed.values()),
        "laid_out": dg.MetadataValue.json(list(printing.laid_out)),
        "layouts": max((printed[name].layouts for name in printing.laid_out), default=0),
        **layout_metadata(context, printed)})


def _atlas_inputs(settings: PipelineSettings) -> dict:
    """What both editions are built from: the atlas's tables, its price date and stale age, the corpus folder."""
    mlperf = mlperf_dir_or_fail(settings)
    with settings.connect() as conn:
        tables = {name: read_table(conn, name) for name in ATLAS_TABLES}
        tables["catalog_unknown_accelerators"] = read_table(conn, "catalog_unknown_accelerators")
        price_date = atlas_priced_on(conn)
        # publish renders prices; which one is in force on the price date is the metrics' to say
        tables["atlas_instance_prices"] = instance_prices(tables["atlas_instances"], tables["atlas_prices"], price_date)
        return {"tables": tables, "price_date": price_date,
                "stale_after_days": stale_after_days(conn), "mlperf_dir": str(mlperf),
                "generated_on": build_day().isoformat()}


def _context(inputs: dict, detail, cache, generated_on: str | None = None):
    from pipelines.publish.atlas_context import build_context

    return build_context(inputs["tables"], price_date=inputs["price_date"],
                         generated_on=generated_on or inputs["generated_on"],
                         mlperf_dir=inputs["mlperf_dir"], detail=detail, stale_after_days=inputs["stale_after_days"],
                         cache=cache)


def _digest_pages(inputs: dict, cache) -> dict[str, str]:
    """The digest's documents, file name -> HTML: atlas.pdf, each round's PDF, the instances appendix. Their build day is
    pdf_parts.GENERATED, which Printing fills in: a PDF is laid out again for its content, not for a new day."""
    from pipelines.publish.atlas_context import instances_document, round_documents
    from pipelines.publish.atlas_rounds import DIGEST
    from pipelines.publish.pdf_parts import GENERATED
    from pipelines.publish.render import render_html

    digest = _context(inputs, DIGEST, cache, generated_on=GENERATED)
    instances = instances_document(digest)
    return {"atlas.pdf": render_html(digest, "atlas.html.j2", web=False),
            **{doc.chapter.heading.file: render_html(doc, "atlas_round.html.j2", web=False)
               for doc in round_documents(digest)},
            **({instances.heading.file: render_html(instances, "atlas_instances.html.j2", web=False)}
               if instances else {})}


@atlas_asset("atlas_data", ATLAS_TABLES, "Every atlas table as data/<table>.csv and .parquet (mlperf_scores, atlas, "
             "atlas_not_priced, atlas_trend, mlperf_runs, atlas_systems, atlas_prices) in the run's build folder.",
             kinds=("csv", "parquet"), pool=None)
def atlas_data(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    from pipelines.publish.exports import write_atlas_data

    with settings.connect() as conn:
        tables = {name: read_table(conn, name) for name in ATLAS_TABLES}
    folder = build_dir(_atlas_reports(settings), context.run.run_id) / "data"
    written = write_atlas_data(folder, tables)
    return dg.MaterializeResult(metadata={"files": dg.MetadataValue.md("\n".join(f"- {p.name}" for p in written)),
                                          "path": dg.MetadataValue.path(str(folder))})


@atlas_asset("published_atlas", ["atlas_html", "atlas_pdf", "atlas_data"],
             "Publishes the run's atlas atomically to REPORTS_DIR/atlas/<price date>/ and REPORTS_DIR/atlas/latest/. "
             "A failed run never replaces a published atlas.", kinds=("python",), pool=None)
def published_atlas(context: dg.AssetExecutionContext, settings: PipelineSettings) -> dg.MaterializeResult:
    reports = _atlas_reports(settings)
    folder = build_dir(reports, context.run.run_id)
    missing = [name for name in ATLAS_FILES if not (folder / name).exists()]
    if missing:
        raise dg.Failure(description=f"the run's atlas build folder lacks {', '.join(missing)}: nothing was published")
    price_date = _price_date(settings)
    target = publish(reports, folder, price_date, context.run.run_id)
    return dg.MaterializeResult(metadata={
        "path": dg.MetadataValue.path(str(target)),
        "html": dg.MetadataValue.path(str(target / "atlas.html")),
        "pdf": dg.MetadataValue.path(str(target / "atlas.pdf")),
        "data": dg.MetadataValue.path(str(target / "data")),
        "price_date": price_date.isoformat(),
    })
