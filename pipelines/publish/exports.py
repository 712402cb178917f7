"""The report's and the atlas's tables as CSV and Parquet files, for people who want the numbers."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl

from pipelines.domain.columns import DATA_FILES, UNPUBLISHED_COLUMNS
from pipelines.publish.store import write_atomic


def write_table(folder: Path, name: str, frame: pl.DataFrame) -> list[Path]:
    """data/<name>.csv and data/<name>.parquet, each written atomically."""
    csv_buffer = io.BytesIO()
    frame.write_csv(csv_buffer, float_precision=None)
    parquet_buffer = io.BytesIO()
    frame.write_parquet(parquet_buffer, statistics=False)
    paths = [folder / f"{name}.csv", folder / f"{name}.parquet"]
    write_atomic(paths[0], csv_buffer.getvalue())
    write_atomic(paths[1], parquet_buffer.getvalue())
    return paths


# mlperf_scores.csv starts with the columns the official result summarizer's CSV has
SCORE_COLUMNS = ["round", "submitter", "system", "benchmark", "runs", "dropped_runs", "time_to_train_minutes"]
# the atlas's data files: file name -> the atlas table it holds (one list with the landing page's)
ATLAS_FILES = {name: table for name, (table, _rows) in DATA_FILES["atlas"].items()}


def atlas_pairs(costs: pl.DataFrame, options: pl.DataFrame | None) -> pl.DataFrame:
    """data/atlas.csv: every pair on demand (atlas_costs's rows and columns, pricing_option on_demand),
    then the same pairs under each other pricing option its instance has (atlas_option_costs; rank,
    tags and energy are the on-demand rows')."""
    on_demand = costs.with_columns(pl.lit("on_demand").alias("pricing_option"), pl.lit("on_demand").alias("pricing_model"))
    if options is None or options.is_empty():
        return on_demand
    return pl.concat([on_demand, options], how="diagonal_relaxed").select(
        on_demand.columns + [c for c in options.columns if c not in on_demand.columns])


def write_atlas_data(folder: Path, tables: dict[str, pl.DataFrame]) -> list[Path]:
    """Every atlas table as data/<file>.csv and .parquet (ATLAS_FILES)."""
    written = []
    for name, table in ATLAS_FILES.items():
        frame = tables[table]
        if name == "mlperf_scores":
            frame = frame.select(SCORE_COLUMNS + [c for c in frame.columns if c not in SCORE_COLUMNS])
        if name == "atlas":
            frame = atlas_pairs(frame, tables.get("atlas_option_costs"))
        written += write_table(folder, name, frame.drop(UNPUBLISHED_COLUMNS, strict=False))
    return written
