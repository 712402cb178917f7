"""MLPerf results scored from run records: one row per result log, as read from the published logs where the result
tree itself cannot be copied (MLPerf Training v6.0: raw/SOURCES.md says how each record was read).

A run-records CSV lies in results/ beside the summarizer's CSVs and is told from them by its run_start_ms and
run_stop_ms columns. Its columns:

    round, submitter, system, benchmark, division, availability, accelerator_model_name, accelerators_per_node,
    number_of_nodes, scaling_factor, log, run_start_ms, run_stop_ms, status, samples_count, global_batch_size,
    max_sequence_length, note, source

`system` is the systems-JSON file stem of the result folder; `scaling_factor` is the folder's scaling.json factor
(empty: the folder has none); `note` flags what could not be read (a scaling.json, a systems JSON).

A folder is scored as the official result summarizer scores one, with its functions (ingest/mlperf/summarizer.py):
a run counts when its status is success, minutes = (run_stop_ms - run_start_ms) / 60,000, the benchmark's rule of
the round (domain/mlperf.py) drops the fastest and slowest and averages the rest, times the scaling factor.
Samples to converge is the np.mean of the kept runs' samples_count (a failed run counts as not converged, as the
tool's RCP reading counts it), the global batch size the runs' one value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from pipelines.domain.errors import InputError
from pipelines.domain.mlperf import RULES, normalize_round, training_samples
from pipelines.ingest.csv_table import Column, read_csv_table

ORIGIN = "MLPerf run records (read from the published logs)"
SUCCESS = "success"

COLUMNS = [
    Column("round"), Column("submitter"), Column("system"), Column("benchmark"), Column("division"),
    Column("availability", required=False), Column("accelerator_model_name"),
    Column("accelerators_per_node", "int", positive=True), Column("number_of_nodes", "int", positive=True),
    Column("scaling_factor", "float", required=False, positive=True), Column("log"),
    Column("run_start_ms", "int", positive=True), Column("run_stop_ms", "int", positive=True), Column("status"),
    Column("samples_count", "float", required=False, positive=True),
    Column("global_batch_size", "int", required=False, positive=True),
    Column("max_sequence_length", "int", required=False, positive=True), Column("note", required=False),
    Column("source"),
]


def is_run_records(header: list[str]) -> bool:
    """A results/ CSV of run records (not the summarizer's): it has the runs' start and stop times."""
    return "run_start_ms" in header and "run_stop_ms" in header


def read_run_records(path: Path) -> pl.DataFrame:
    """One row per (round, system, benchmark) of the file, scored by the official rule (module docstring), with
    runs, dropped_runs, origin, file and line (the folder's first record)."""
    from pipelines.ingest.results_summary import RESULT_COLUMNS

    runs = read_csv_table(path, COLUMNS)
    out = []
    for key, folder in runs.group_by(["round", "submitter", "system", "benchmark"], maintain_order=True):
        out.append(_score(path, folder))
    return pl.DataFrame(out, schema=RESULT_COLUMNS) if out else pl.DataFrame(schema=RESULT_COLUMNS)


def _one(path: Path, folder: pl.DataFrame, column: str) -> object:
    """The value every record of a folder shares (a folder is one system, one benchmark, one configuration)."""
    values = folder[column].unique().to_list()
    if len(values) != 1:
        raise InputError(path, f"{folder['line'][0]} column {column}",
                         f"the records of {folder['system'][0]} {folder['benchmark'][0]} disagree: {sorted(map(str, values))}")
    return values[0]


def _score(path: Path, folder: pl.DataFrame) -> dict:
    from pipelines.ingest.mlperf.summarizer import olympic_mean

    first = folder.row(0, named=True)
    where = f"{first['line']} column"
    round_ = normalize_round(first["round"], path)
    benchmark = first["benchmark"]
    rule = RULES[round_].get(benchmark)
    if rule is None:
        raise InputError(path, f"{where} benchmark", f"{benchmark!r} is no benchmark of MLPerf Training {round_}")
    for row in folder.iter_rows(named=True):
        if row["run_stop_ms"] <= row["run_start_ms"]:
            raise InputError(path, f"{row['line']} column run_stop_ms", "is not after run_start_ms")
    for column in ("division", "accelerator_model_name", "accelerators_per_node", "number_of_nodes", "scaling_factor",
                   "global_batch_size"):
        _one(path, folder, column)
    scored = folder.filter(pl.col("status") == SUCCESS)
    failures = folder.height - scored.height
    minutes = ((scored["run_stop_ms"] - scored["run_start_ms"]) / 60_000.0).to_list()
    mean = olympic_mean(minutes, failures, rule.max_failures)
    factor = first["scaling_factor"] or 1.0
    batch = first["global_batch_size"]
    notes = sorted({n for n in folder["note"].to_list() if n})
    return {
        "round": round_, "submitter": first["submitter"], "system": first["system"], "benchmark": benchmark,
        "division": first["division"], "accelerator_model_name": first["accelerator_model_name"],
        "accelerators_count": first["accelerators_per_node"] * first["number_of_nodes"],
        "time_to_train_minutes": mean * factor if mean is not None else None,
        "runs": folder.height, "dropped_runs": failures,
        "samples_per_second": None, "global_batch_size": batch,
        "samples_to_converge": training_samples(round_, benchmark, _samples(scored, failures, rule.max_failures), batch),
        "origin": "; ".join([ORIGIN, *notes]), "file": str(path), "line": str(first["line"]),
    }


def _samples(scored: pl.DataFrame, failures: int, max_failures: int) -> float | None:
    """The mean samples_count of the kept runs (the fastest and slowest to converge dropped, a failed run counted as
    never converging), as np.mean, as the summarizer takes it; None when a run has no count."""
    counts = scored["samples_count"].to_list()
    if failures > max_failures or any(c is None for c in counts):
        return None
    points = sorted(counts + [float("inf")] * failures)
    kept = points[1:-1]
    return float(np.mean(kept)) if kept and all(np.isfinite(kept)) else None
