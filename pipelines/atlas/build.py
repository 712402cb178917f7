"""Build and publish the atlas: MLPerf corpus -> DuckDB staging -> polars metrics -> marts ->
HTML, PDF and CSV under REPORTS_DIR/atlas/<price date>/, published atomically.

The same one-direction flow as the main report: the corpus and raw/atlas/ are read once into
atlas_* staging tables; metrics read the staging tables and write atlas_* marts; the report is
rendered from the marts only.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.accelerators import normalize, read_catalog, read_instances, read_prices
from pipelines.ingest.mlperf_corpus import score_corpus
from pipelines.metrics import atlas as metrics
from pipelines.publish.atlas_context import build_context
from pipelines.publish.exports import write_table
from pipelines.publish.render import render_html, render_pdf
from pipelines.publish.store import build_dir, publish, remove_build, write_atomic
from pipelines.warehouse import connect, create_table, read_table, replace_table

SCORE_COLUMNS = ["round", "submitter", "system", "benchmark", "runs", "dropped_runs", "time_to_train_minutes"]
ATLAS_COLUMNS = [
    "round", "benchmark", "benchmark_model", "submitter", "system", "accelerator_model", "number_of_nodes",
    "accelerators_per_node", "accelerators_total", "time_to_train_minutes", "provider", "region",
    "instance_type", "instance_accelerators", "instances_needed", "idle_accelerators", "usd_per_hour",
    "cost_to_train_usd", "accelerator_hours", "usd_per_accelerator_hour", "cost_rank",
    "cheapest_for_accelerator", "fastest", "on_pareto_front", "price_basis", "status", "price_as_of",
    "price_certainty", "price_source", "assumption", "folder",
]


@dataclass(frozen=True)
class AtlasInputs:
    catalog_file: Path
    instances_file: Path
    prices_file: Path

    @classmethod
    def under(cls, raw: Path) -> "AtlasInputs":
        folder = raw / "atlas"
        return cls(folder / "accelerators.csv", folder / "instances.csv", folder / "prices.csv")


def normalized_systems(systems: pl.DataFrame, catalog) -> pl.DataFrame:
    """Add the catalog's accelerator_model, vendor, cloud_model and assumption to each system."""
    found = [normalize(catalog, r["accelerator_model_name"], r["accelerator_memory_capacity"], r["system"])
             for r in systems.select("accelerator_model_name", "accelerator_memory_capacity", "system").iter_rows(named=True)]
    return systems.with_columns(
        pl.Series("accelerator_model", [a.model for a in found], dtype=pl.Utf8),
        pl.Series("vendor", [a.vendor for a in found], dtype=pl.Utf8),
        pl.Series("cloud_model", [a.cloud_model for a in found], dtype=pl.Utf8),
        pl.Series("assumption", [a.assumption for a in found], dtype=pl.Utf8),
    )


def stage(conn, mlperf_dir: Path, inputs: AtlasInputs, workers: int | None = None) -> None:
    """Read the corpus and raw/atlas/ into the atlas_* staging tables."""
    catalog = read_catalog(inputs.catalog_file)
    instances = read_instances(inputs.instances_file, catalog)
    prices = read_prices(inputs.prices_file, instances)
    scores, runs, systems = score_corpus(mlperf_dir, workers=workers)
    create_table(conn, "atlas_scores", scores_in=scores)
    create_table(conn, "atlas_runs", runs_in=runs)
    create_table(conn, "atlas_systems", systems_in=normalized_systems(systems, catalog))
    create_table(conn, "atlas_instances", instances_in=instances.drop("line"))
    create_table(conn, "atlas_prices", prices_in=prices.drop("line"))


def marts(conn, price_date: date | None = None) -> date:
    """Compute the atlas marts from the staging tables; returns the price date used."""
    prices = read_table(conn, "atlas_prices")
    if price_date is None:
        price_date = prices["as_of"].max()
    in_force = metrics.prices_in_force(prices, price_date)
    if in_force.is_empty():
        raise InputError("atlas prices", None, f"no atlas price is dated on or before {price_date}")
    entries = metrics.entries(read_table(conn, "atlas_scores"), read_table(conn, "atlas_systems"))
    ranked = metrics.rank(metrics.price_results(entries, read_table(conn, "atlas_instances"), in_force))
    unpriced = entries.filter(pl.col("not_priced_because").is_not_null()).select(
        "round", "submitter", "system", "benchmark", "benchmark_model", "time_to_train_minutes",
        "accelerator_model_name", "accelerator_model", "accelerators_total", "not_priced_because", "folder",
        "benchmark_path", "quirk",
    )
    replace_table(conn, "atlas_costs", ranked.select(ATLAS_COLUMNS + [c for c in ranked.columns if c not in ATLAS_COLUMNS]))
    replace_table(conn, "atlas_unpriced", unpriced)
    replace_table(conn, "atlas_trend", metrics.trend(ranked))
    return price_date


def build(mlperf_dir: Path, raw: Path, reports: Path, warehouse: Path, price_date: date | None = None,
          workers: int | None = None, generated_on: date | None = None) -> Path:
    """Everything: returns REPORTS_DIR/atlas/<price date> once published."""
    inputs = AtlasInputs.under(raw)
    with connect(warehouse) as conn:
        stage(conn, Path(mlperf_dir), inputs, workers)
        price_date = marts(conn, price_date)
        tables = {name: read_table(conn, name) for name in (
            "atlas_costs", "atlas_unpriced", "atlas_trend", "atlas_scores", "atlas_runs", "atlas_systems",
            "atlas_instances", "atlas_prices")}
    atlas_reports = reports / "atlas"
    run_id = uuid.uuid4().hex
    folder = build_dir(atlas_reports, run_id)
    try:
        context = build_context(tables, price_date=price_date, generated_on=generated_on or date.today(),
                                mlperf_dir=str(mlperf_dir))
        html = render(context)
        write_atomic(folder / "atlas.html", html.encode("utf-8"))
        write_atomic(folder / "atlas.pdf", render_pdf(html, created=price_date))
        write_data(folder / "data", tables)
        return publish(atlas_reports, folder, price_date, run_id)
    except BaseException:
        remove_build(folder)
        raise


def render(context) -> str:
    """The atlas's HTML: its context (pipelines.publish.atlas_context.Atlas) through templates/atlas.html.j2."""
    return render_html(context, "atlas.html.j2")


def write_data(folder: Path, tables: dict[str, pl.DataFrame]) -> list[Path]:
    scores = tables["atlas_scores"]
    written = write_table(folder, "mlperf_scores", scores.select(SCORE_COLUMNS + [c for c in scores.columns if c not in SCORE_COLUMNS]))
    written += write_table(folder, "atlas", tables["atlas_costs"])
    written += write_table(folder, "atlas_not_priced", tables["atlas_unpriced"])
    written += write_table(folder, "atlas_trend", tables["atlas_trend"])
    written += write_table(folder, "mlperf_runs", tables["atlas_runs"])
    written += write_table(folder, "atlas_systems", tables["atlas_systems"])
    written += write_table(folder, "atlas_prices", tables["atlas_prices"])
    return written
