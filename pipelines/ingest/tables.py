"""Readers for the hand-kept CSV inputs of the data contract: instances, mappings, throughput."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table

PROVIDERS = ("aws", "gcp", "azure")


def _check_provider(path: Path):
    def check(record: dict, line: int) -> None:
        if record["provider"] not in PROVIDERS:
            raise InputError(
                path, f"{line} column provider",
                f"{record['provider']!r} is not one of {', '.join(PROVIDERS)}",
            )
    return check


def _unique(frame: pl.DataFrame, path: Path, key: list[str]) -> pl.DataFrame:
    """Refuse two rows with the same key: the report would not know which one to trust."""
    dup = frame.filter(pl.struct(key).is_duplicated())
    if dup.height:
        first = dup.row(0, named=True)
        lines = dup.filter(pl.all_horizontal(pl.col(k) == first[k] for k in key))["line"].to_list()
        shown = ", ".join(f"{k}={first[k]}" for k in key)
        raise InputError(path, lines[-1], f"duplicate key ({shown}) also on line(s) {', '.join(map(str, lines[:-1]))}")
    return frame


def read_instances(path: Path) -> pl.DataFrame:
    frame = read_csv_table(
        path,
        [
            Column("provider"),
            Column("instance_type"),
            Column("accelerator"),
            Column("accelerator_count", "int", positive=True),
            Column("accelerator_memory_gb", "float", required=False, positive=True),
            Column("vcpus", "int", positive=True),
            Column("memory_gib", "float", positive=True),
        ],
        _check_provider(path),
    )
    return _unique(frame, path, ["provider", "instance_type"])


def read_mappings(path: Path) -> pl.DataFrame:
    """Which measured system stands for an instance per benchmark; an empty system says
    explicitly that no measured result exists (shown as such in the report, never as zero)."""
    frame = read_csv_table(
        path,
        [
            Column("provider"),
            Column("instance_type"),
            Column("benchmark"),
            Column("system", required=False),
            Column("note", required=False),
        ],
        _check_provider(path),
    )
    return _unique(frame, path, ["provider", "instance_type", "benchmark"])


def read_throughput(path: Path) -> pl.DataFrame:
    frame = read_csv_table(
        path,
        [
            Column("system"),
            Column("benchmark"),
            Column("samples_per_second", "float", positive=True),
            Column("framework", required=False),
            Column("precision", required=False),
            Column("global_batch_size", "int", required=False, positive=True),
            Column("source"),
            Column("measured_on", "date"),
        ],
    )
    return _unique(frame, path, ["system", "benchmark"])
