"""Reader for the CSV that the official MLPerf result summarizer writes.

Columns: division, availability, submitter, system, number_of_nodes, host_processor_model_name,
host_processors_count, accelerator_model_name, accelerators_count, framework, notes, private_id,
then one column per benchmark (minutes; empty = no score), then details_url, code_url.
The set of benchmark columns differs by round, so every column between private_id and
details_url is a benchmark. The output is long: one row per (system, benchmark) with a score.

The system id is the systems-JSON file stem taken from details_url (".../systems/<id>.json"),
because the summarizer's `system` column holds the JSON's system_name, which can differ from the
file name (Google's gpu-v100-8-TF2.0.json says "8xV100"). The round comes from details_url too
(".../training_results_v1.0/...").
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table, read_text

LEADING = [
    "division", "availability", "submitter", "system", "number_of_nodes",
    "host_processor_model_name", "host_processors_count", "accelerator_model_name",
    "accelerators_count", "framework", "notes", "private_id",
]
TRAILING = ["details_url", "code_url"]
_SYSTEM_URL = re.compile(r"/systems/([^/]+)\.json$")
_ROUND_URL = re.compile(r"training_results_(v\d+\.\d+)")

SCHEMA = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "system_name": pl.Utf8,
    "division": pl.Utf8, "availability": pl.Utf8, "accelerator_model_name": pl.Utf8,
    "accelerators_count": pl.Int64, "framework": pl.Utf8, "benchmark": pl.Utf8,
    "time_to_train_minutes": pl.Float64, "file": pl.Utf8, "line": pl.Int64,
}


def _benchmark_columns(path: Path, header_line: str) -> list[str]:
    header = [h.strip() for h in header_line.split(",")]
    if "private_id" not in header or "details_url" not in header:
        raise InputError(path, 1, "is not an MLPerf result-summarizer CSV: needs private_id and details_url columns")
    start, stop = header.index("private_id") + 1, header.index("details_url")
    benchmarks = header[start:stop]
    if not benchmarks:
        raise InputError(path, 1, "has no benchmark columns between private_id and details_url")
    return benchmarks


def read_results_summary(path: Path) -> pl.DataFrame:
    first_line = read_text(path).splitlines()[:1]
    if not first_line:
        raise InputError(path, 1, "is empty, expected a header line")
    benchmarks = _benchmark_columns(path, first_line[0])
    columns = [Column(c, required=False) for c in LEADING + TRAILING]
    columns[LEADING.index("submitter")] = Column("submitter")
    columns[LEADING.index("system")] = Column("system")
    columns[LEADING.index("accelerators_count")] = Column("accelerators_count", "int", positive=True)
    columns += [Column(b, "float", required=False) for b in benchmarks]
    wide = read_csv_table(path, columns)

    out = []
    for row in wide.iter_rows(named=True):
        url = row["details_url"] or ""
        system_match, round_match = _SYSTEM_URL.search(url), _ROUND_URL.search(url)
        for bench in benchmarks:
            minutes = row[bench]
            if minutes is None:
                continue
            if not (math.isfinite(minutes) and minutes > 0):
                raise InputError(path, f"{row['line']} column {bench}", f"{minutes} is not a positive time in minutes")
            out.append({
                "round": round_match.group(1) if round_match else None,
                "submitter": row["submitter"],
                "system": system_match.group(1) if system_match else row["system"],
                "system_name": row["system"],
                "division": row["division"],
                "availability": row["availability"],
                "accelerator_model_name": row["accelerator_model_name"],
                "accelerators_count": row["accelerators_count"],
                "framework": row["framework"],
                "benchmark": bench,
                "time_to_train_minutes": minutes,
                "file": str(path),
                "line": row["line"],
            })
    return pl.DataFrame(out, schema=SCHEMA)


# The columns of stg_results: scores from summarizer CSVs and from the MLPerf trees in one form.
RESULT_COLUMNS = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
    "time_to_train_minutes": pl.Float64, "runs": pl.Int64, "dropped_runs": pl.Int64,
    "samples_per_second": pl.Float64, "origin": pl.Utf8, "file": pl.Utf8, "line": pl.Utf8,
}


def summary_results(files: list[Path]) -> pl.DataFrame:
    """Every score of these summarizer CSVs in RESULT_COLUMNS (no run counts: the CSV has none)."""
    frames = [
        read_results_summary(f).select(
            "round", "submitter", "system", "benchmark", "time_to_train_minutes",
            pl.lit(None, pl.Int64).alias("runs"), pl.lit(None, pl.Int64).alias("dropped_runs"),
            pl.lit(None, pl.Float64).alias("samples_per_second"),
            pl.lit("result-summarizer CSV").alias("origin"), "file", pl.col("line").cast(pl.Utf8),
        )
        for f in files
    ]
    return pl.concat(frames) if frames else pl.DataFrame(schema=RESULT_COLUMNS)
