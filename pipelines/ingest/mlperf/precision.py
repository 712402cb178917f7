"""mlperf_precision.csv: the numeric precision each MLPerf LLM result trained in, and how it is known (the model
estimate turns every result to BF16 by it: domain/precision.py, metrics/llm_throughput.py).

    round,submitter,system,benchmark,precision,evidence,where

system is the result folder's systems-JSON stem; precision as the log or configuration spells it (bf16, fp8,
mxfp8, nvfp4, int8 ...); evidence is log (an MLLOG key of the result's log), config (the submission's
configuration: a config file, or a configuration dump inside the log) or none (nothing read says: the estimate's
assumption applies, metrics/llm_throughput.ASSUMED); where quotes the file, line and setting.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.domain.mlperf import normalize_round
from pipelines.domain.precision import RESULT_PRECISIONS, normalize
from pipelines.ingest.csv_table import Column, read_csv_table
from pipelines.ingest.names import not_one_of

EVIDENCE = ("log", "config", "none")
COLUMNS = [Column("round"), Column("submitter"), Column("system"), Column("benchmark"),
           Column("precision", required=False), Column("evidence"), Column("where")]


def read_mlperf_precision(path: Path) -> pl.DataFrame:
    """The file's rows with precision in the estimate's vocabulary (domain/precision.py); a row with evidence none
    or no precision is left out (the assumption applies to it)."""
    frame = read_csv_table(path, COLUMNS)
    rows = []
    seen: dict[tuple, int] = {}
    for r in frame.iter_rows(named=True):
        where = r["line"]
        if r["evidence"] not in EVIDENCE:
            raise InputError(path, f"{where} column evidence", not_one_of(r["evidence"], EVIDENCE))
        key = (normalize_round(r["round"], path), r["system"], r["benchmark"])
        if key in seen:
            raise InputError(path, where, f"duplicate key (round, system, benchmark) also on line {seen[key]}")
        seen[key] = where
        if r["evidence"] == "none":
            continue
        precision = normalize(r["precision"])
        if precision is None:
            raise InputError(path, f"{where} column precision",
                             f"{r['precision']!r} is not a precision (one of {', '.join(RESULT_PRECISIONS)} or a "
                             "spelling of one: bfloat16, mxfp8, nvfp4, ...)")
        rows.append({"round": key[0], "submitter": r["submitter"], "system": r["system"], "benchmark": r["benchmark"],
                     "precision": precision, "evidence": r["evidence"], "where": r["where"], "line": where})
    return pl.DataFrame(rows, schema={"round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
                                      "precision": pl.Utf8, "evidence": pl.Utf8, "where": pl.Utf8, "line": pl.Int64})
