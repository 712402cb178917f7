"""published_runs.csv: public training runs whose accelerator-hours were published, to calibrate the model
estimates against (pipelines/metrics/model_calibration.py). Each row cites its source.

    run,accelerator_model,parameters,tokens,sequence_length,layers,hidden_size,accelerators,
    published_gpu_hours,published_source,note

accelerator_model is a cloud_model of accelerators.csv (what the run is estimated on); parameters are the
active parameters of a mixture of experts; accelerators is the cluster size (empty: not known).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table

COLUMNS = [
    Column("run"), Column("accelerator_model"), Column("parameters", "float", positive=True),
    Column("tokens", "float", positive=True), Column("sequence_length", "int", positive=True),
    Column("layers", "int", required=False, positive=True), Column("hidden_size", "int", required=False, positive=True),
    Column("accelerators", "int", required=False, positive=True),
    Column("published_gpu_hours", "float", positive=True), Column("published_source"),
    Column("note", required=False),
]


def read_published_runs(path: Path) -> pl.DataFrame:
    frame = read_csv_table(path, COLUMNS)
    dup = frame.filter(pl.col("run").is_duplicated())
    if dup.height:
        raise InputError(path, dup["line"][-1], f"run {dup['run'][-1]!r} is listed twice")
    return frame
