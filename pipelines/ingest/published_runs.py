"""published_runs.csv: public training runs whose accelerator-hours were published, to calibrate the model
estimates against (pipelines/metrics/model_calibration.py). Each row cites its source.

    run,accelerator_model,parameters,total_parameters,tokens,sequence_length,layers,hidden_size,qk_width,v_width,
    precision,accelerators,published_gpu_hours,published_basis,published_source,note

accelerator_model is a cloud_model of accelerators.csv (what the run is estimated on); parameters are the
active parameters, total_parameters a mixture of experts' whole size (empty: dense); qk_width and v_width the
attention's widths where they are not the hidden size (multi-head latent attention, domain/llm.py); precision
what it trained in (bf16, fp8, fp4); accelerators the cluster size (empty: not known); published_gpu_hours the
accelerator-hours of the part the estimate covers, which published_basis names: pre-training (the run's
pre-training alone) or total (all the authors published, when they give no split).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.domain.precision import PRECISIONS, normalize
from pipelines.ingest.csv_table import Column, read_csv_table
from pipelines.ingest.names import not_one_of

BASES = ("pre-training", "total")

COLUMNS = [
    Column("run"), Column("accelerator_model"), Column("parameters", "float", positive=True),
    Column("total_parameters", "float", required=False, positive=True),
    Column("tokens", "float", positive=True), Column("sequence_length", "int", positive=True),
    Column("layers", "int", required=False, positive=True), Column("hidden_size", "int", required=False, positive=True),
    Column("qk_width", "int", required=False, positive=True), Column("v_width", "int", required=False, positive=True),
    Column("precision"), Column("accelerators", "int", required=False, positive=True),
    Column("published_gpu_hours", "float", positive=True), Column("published_basis"), Column("published_source"),
    Column("note", required=False),
]


def read_published_runs(path: Path) -> pl.DataFrame:
    frame = read_csv_table(path, COLUMNS)
    dup = frame.filter(pl.col("run").is_duplicated())
    if dup.height:
        raise InputError(path, dup["line"][-1], f"run {dup['run'][-1]!r} is listed twice")
    for row in frame.iter_rows(named=True):
        if normalize(row["precision"]) is None:
            raise InputError(path, f"{row['line']} column precision", f"{row['precision']!r} is not one of "
                                                                       f"{', '.join(PRECISIONS)}")
        if row["published_basis"] not in BASES:
            raise InputError(path, f"{row['line']} column published_basis", not_one_of(row["published_basis"], BASES))
        if row["total_parameters"] is not None and row["total_parameters"] < row["parameters"]:
            raise InputError(path, f"{row['line']} column total_parameters", "is below parameters (the active ones)")
    return frame.with_columns(pl.col("precision").map_elements(normalize, return_dtype=pl.Utf8))
