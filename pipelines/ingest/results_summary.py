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

The summarizer's detailed CSV (``--csv x.csv`` also writes ``x_detailed.csv``; recognized by its
header) has, instead of one column per benchmark, ``<benchmark>:<metric>`` columns: time_to_train
(minutes), Energy, GBS (global batch size; -1 = the tool could not tell), samples_to_converge, RCP
and rcp_scaling_factor. Only time_to_train, GBS and samples_to_converge are read; the rest is
ignored. A row without time_to_train for a benchmark has no score for it.

The tool's samples_to_converge is the olympic mean over runs of what the RCP checker reads from the
eval line before run_stop: `samples_count` for Stable Diffusion (v4.0 on) and the LLM benchmarks
(samples), `epoch_num` for the others, which BERT logs in samples but RetinaNet, R-GAT, DLRM-DCNv2
and ResNet in epochs (RetinaNet whole epochs, the others fractions). domain.mlperf.training_samples
turns it into training samples (null where the unit is not known).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table, read_text
from pipelines.domain.mlperf import training_samples
from pipelines.domain.rounds import round_in

LEADING = [
    "division", "availability", "submitter", "system", "number_of_nodes",
    "host_processor_model_name", "host_processors_count", "accelerator_model_name",
    "accelerators_count", "framework", "notes", "private_id",
]
TRAILING = ["details_url", "code_url"]
_SYSTEM_URL = re.compile(r"/systems/([^/]+)\.json$")
_DETAILED_COLUMN = re.compile(r"^(?P<benchmark>[^:]+):(?P<metric>[^:]+)$")

_MAX_BATCH = 2**53  # a batch size beyond this is no batch size (and would not survive a float)

SCHEMA = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "system_name": pl.Utf8,
    "division": pl.Utf8, "availability": pl.Utf8, "accelerator_model_name": pl.Utf8,
    "accelerators_count": pl.Int64, "framework": pl.Utf8, "benchmark": pl.Utf8,
    "time_to_train_minutes": pl.Float64, "global_batch_size": pl.Int64, "samples_to_converge": pl.Float64,
    "file": pl.Utf8, "line": pl.Int64,
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


def _detailed_benchmarks(columns: list[str]) -> list[str] | None:
    """The benchmarks of a detailed CSV (each has a `<benchmark>:time_to_train` column), or None if
    the columns are the plain CSV's."""
    found = [m.group("benchmark") for c in columns if (m := _DETAILED_COLUMN.match(c)) and m.group("metric") == "time_to_train"]
    return found or None


def _batch_size(path: Path, line: int, column: str, value: float | None) -> int | None:
    if value is None or value == -1:  # -1: the tool found no batch size, or runs that disagree
        return None
    if not (math.isfinite(value) and value > 0 and value == int(value) and value < _MAX_BATCH):
        raise InputError(path, f"{line} column {column}", f"{value} is not a global batch size (a whole number above 0)")
    return int(value)


def _samples(path: Path, line: int, column: str, value: float | None, round_: str | None, benchmark: str,
             batch: int | None) -> float | None:
    if value is None:
        return None
    if not (math.isfinite(value) and value > 0):
        raise InputError(path, f"{line} column {column}", f"{value} is not a positive number of samples or epochs")
    return training_samples(round_, benchmark, value, batch) if round_ is not None else None  # the unit depends on the round


def read_results_summary(path: Path) -> pl.DataFrame:
    first_line = read_text(path).splitlines()[:1]
    if not first_line:
        raise InputError(path, 1, "is empty, expected a header line")
    detailed = _detailed_benchmarks([h.strip() for h in first_line[0].split(",")])
    benchmarks = detailed or _benchmark_columns(path, first_line[0])
    columns = [Column(c, required=False) for c in LEADING + TRAILING]
    columns[LEADING.index("submitter")] = Column("submitter")
    columns[LEADING.index("system")] = Column("system")
    columns[LEADING.index("accelerators_count")] = Column("accelerators_count", "int", positive=True)
    if detailed:
        time_column = {b: f"{b}:time_to_train" for b in benchmarks}
        columns += [Column(f"{b}:{metric}", "float", required=False)
                    for b in benchmarks for metric in ("time_to_train", "GBS", "samples_to_converge")]
    else:
        time_column = {b: b for b in benchmarks}
        columns += [Column(b, "float", required=False) for b in benchmarks]
    wide = read_csv_table(path, columns)

    out = []
    for row in wide.iter_rows(named=True):
        url = row["details_url"] or ""
        system_match, round_ = _SYSTEM_URL.search(url), round_in(url)
        for bench in benchmarks:
            minutes = row[time_column[bench]]
            if minutes is None:
                continue
            if not (math.isfinite(minutes) and minutes > 0):
                raise InputError(path, f"{row['line']} column {time_column[bench]}",
                                 f"{minutes} is not a positive time in minutes")
            batch = samples = None
            if detailed:
                batch = _batch_size(path, row["line"], f"{bench}:GBS", row[f"{bench}:GBS"])
                samples = _samples(path, row["line"], f"{bench}:samples_to_converge",
                                   row[f"{bench}:samples_to_converge"], round_, bench, batch)
            out.append({
                "round": round_,
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
                "global_batch_size": batch,
                "samples_to_converge": samples,
                "file": str(path),
                "line": row["line"],
            })
    return pl.DataFrame(out, schema=SCHEMA)


# The columns of stg_results: scores from summarizer CSVs and from the MLPerf trees in one form.
# global_batch_size and samples_to_converge (training samples) come from the summarizer's detailed
# CSV or, for a tree, from its logs as the summarizer reads them; null for the summarizer's plain CSV.
# division and the accelerators (name as submitted, count in the whole system) tell which results could stand
# for an instance (metrics/result_spread.py): the CSV's own columns, or a tree's systems JSON.
RESULT_COLUMNS = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
    "division": pl.Utf8, "accelerator_model_name": pl.Utf8, "accelerators_count": pl.Int64,
    "time_to_train_minutes": pl.Float64, "runs": pl.Int64, "dropped_runs": pl.Int64,
    "samples_per_second": pl.Float64, "global_batch_size": pl.Int64, "samples_to_converge": pl.Float64,
    "origin": pl.Utf8, "file": pl.Utf8, "line": pl.Utf8,
}


def summary_results(files: list[Path]) -> pl.DataFrame:
    """Every score of these results/ CSVs in RESULT_COLUMNS: the summarizer's (no run counts: the CSV has none), and
    run records scored by the summarizer's rule (ingest/mlperf/run_records.py), told apart by their header."""
    from pipelines.ingest.mlperf.run_records import is_run_records, read_run_records

    records = [f for f in files if is_run_records(_header(f))]
    frames = [read_run_records(f) for f in records] + [
        read_results_summary(f).select(
            "round", "submitter", "system", "benchmark", "division", "accelerator_model_name", "accelerators_count",
            "time_to_train_minutes", pl.lit(None, pl.Int64).alias("runs"), pl.lit(None, pl.Int64).alias("dropped_runs"),
            pl.lit(None, pl.Float64).alias("samples_per_second"), "global_batch_size", "samples_to_converge",
            pl.lit("result-summarizer CSV").alias("origin"), "file", pl.col("line").cast(pl.Utf8),
        )
        for f in files if f not in records
    ]
    return pl.concat(frames) if frames else pl.DataFrame(schema=RESULT_COLUMNS)


def _header(path: Path) -> list[str]:
    first = read_text(path).splitlines()[:1]
    return [h.strip() for h in first[0].split(",")] if first else []
