"""The report's tables as CSV and Parquet files, for people who want the numbers."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl

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
