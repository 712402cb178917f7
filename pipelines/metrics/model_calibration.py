"""How the model estimates compare with published training runs (the model_calibration mart).

Each published run (published_runs.csv) is estimated as a described model on its accelerator at its
cluster size (metrics/model_estimates.py: basis); ratio = estimated / published accelerator-hours. MLPerf
runs are short, tuned by the submitter and at the precision it chose (FP8 for most): a production run also
pays for restarts after failures, evaluation, checkpoints and data stalls, so a ratio below 1 is expected.
A run whose accelerator has no MLPerf LLM result is listed, not estimated, with the reason.
"""

from __future__ import annotations

import polars as pl

from pipelines.domain.llm import PRETRAIN, DescribedModel
from pipelines.metrics.model_estimates import basis

DEFAULT_ACCELERATORS = 1024  # a run whose cluster size is not known (none of the bundled runs that are estimated)

CALIBRATION_COLUMNS = {
    "run": pl.Utf8, "accelerator_model": pl.Utf8, "parameters": pl.Float64, "tokens": pl.Float64,
    "published_gpu_hours": pl.Float64, "published_source": pl.Utf8, "estimated_gpu_hours": pl.Float64,
    "ratio": pl.Float64, "estimated_gpu_hours_low": pl.Float64, "estimated_gpu_hours_high": pl.Float64,
    "accelerators": pl.Int64, "basis_benchmark": pl.Utf8, "basis_results": pl.Utf8, "note": pl.Utf8,
}


def model_calibration(published: pl.DataFrame, throughput: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for r in published.iter_rows(named=True):
        accelerators = r["accelerators"] or DEFAULT_ACCELERATORS
        model = DescribedModel(r["run"], r["run"], r["parameters"], r["tokens"], r["sequence_length"], PRETRAIN,
                               r["layers"], r["hidden_size"], accelerators)
        found = basis(model, throughput, r["accelerator_model"], accelerators)
        note = r["note"]
        if found is None:
            note = "; ".join(filter(None, [f"not estimated: {r['accelerator_model']} has no closed-division MLPerf "
                                           "LLM pretraining result", note]))
        rows.append({
            "run": r["run"], "accelerator_model": r["accelerator_model"], "parameters": r["parameters"],
            "tokens": r["tokens"], "published_gpu_hours": r["published_gpu_hours"],
            "published_source": r["published_source"],
            "estimated_gpu_hours": found.gpu_hours if found else None,
            "ratio": found.gpu_hours / r["published_gpu_hours"] if found else None,
            "estimated_gpu_hours_low": found.gpu_hours_low if found else None,
            "estimated_gpu_hours_high": found.gpu_hours_high if found else None,
            "accelerators": accelerators if found else r["accelerators"], "basis_benchmark": found.benchmark if found else None,
            "basis_results": "; ".join(found.results) if found else None, "note": note,
        })
    return pl.DataFrame(rows, schema=CALIBRATION_COLUMNS)
