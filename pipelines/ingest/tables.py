"""Readers for the hand-kept CSV inputs of the data contract: instances, mappings, throughput.

instances.csv is the one instance catalog: every cloud instance the report compares or the atlas
prices, linked to the accelerator catalog (raw/accelerators.csv) by `accelerator_model`, the
catalog's cloud_model. `billing` says how the provider sells it: "instance" (a machine with
`accelerator_count` accelerators, vcpus and memory_gib required: the GCP price composer needs them)
or "chip" (Cloud TPUs, sold per chip-hour: count 1, no host of their own). Optional `fabric` (EFA,
InfiniBand, RoCE ...) and `fabric_gbps_per_accelerator` say how instances join into a cluster, where
the provider states it: a multi-node result priced on an instance without one is flagged.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table
from pipelines.ingest.names import did_you_mean, not_one_of, provider_problem

BILLING = ("instance", "chip")


def _check_provider(path: Path):
    def check(record: dict, line: int) -> None:
        problem = provider_problem(record["provider"])
        if problem:
            raise InputError(path, f"{line} column provider", problem)
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
            Column("vcpus", "int", required=False, positive=True),
            Column("memory_gib", "float", required=False, positive=True),
            Column("notes", required=False),
            Column("accelerator_model"),
            Column("billing"),
            Column("fabric", required=False, may_be_absent=True),
            Column("fabric_gbps_per_accelerator", "float", required=False, positive=True, may_be_absent=True),
        ],
        _check_instance(path),
    )
    return _unique(frame, path, ["provider", "instance_type"])


def _check_instance(path: Path):
    provider = _check_provider(path)

    def check(record: dict, line: int) -> None:
        provider(record, line)
        if record["billing"] not in BILLING:
            raise InputError(path, f"{line} column billing", not_one_of(record["billing"], BILLING))
        for column in ("vcpus", "memory_gib"):
            if record["billing"] == "instance" and record[column] is None:
                raise InputError(path, f"{line} column {column}", "is empty (an instance billed per instance needs it)")
    return check


def check_catalog_links(instances: pl.DataFrame, path: Path | str, cloud_models: list[str]) -> None:
    """Every instance's accelerator_model must be a cloud_model of the accelerator catalog."""
    unknown = instances.filter(~pl.col("accelerator_model").is_in(sorted(set(cloud_models))))
    if unknown.height:
        row = unknown.row(0, named=True)
        raise InputError(path, f"{row['line']} column accelerator_model",
                         f"{row['accelerator_model']!r} is no cloud_model of the accelerator catalog (accelerators.csv)"
                         + did_you_mean(row["accelerator_model"], cloud_models))


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


def with_same_accelerator_mappings(mappings: pl.DataFrame, instances: pl.DataFrame) -> pl.DataFrame:
    """mappings.csv, plus a mapping for each instance and benchmark that has none, taken from an instance
    with the same accelerator model and count that has one (the first in mappings.csv).

    A measured system stands for an accelerator configuration (8x H100 SXM), not for one provider's
    instance: a catalog offer of the same configuration needs no hand-typed mapping. The derived row's
    note names the instance it comes from and keeps that mapping's note; `derived_from` says which row.
    """
    config = instances.select("provider", "instance_type", "accelerator_model", "accelerator_count")
    key = ["provider", "instance_type", "benchmark"]
    known = (mappings.join(config, on=["provider", "instance_type"], how="inner").sort("line")
             .unique(["accelerator_model", "accelerator_count", "benchmark"], keep="first", maintain_order=True)
             .select("accelerator_model", "accelerator_count", "benchmark", "system",
                     pl.concat_str(pl.lit("same "), pl.col("accelerator_count").cast(pl.Utf8), pl.lit("x "),
                                   pl.col("accelerator_model"), pl.lit(" as "), pl.col("provider"), pl.lit("/"),
                                   pl.col("instance_type"), pl.lit(" (mappings.csv line "), pl.col("line").cast(pl.Utf8),
                                   pl.lit("): "), pl.col("note").fill_null("")).alias("note"),
                     pl.concat_str(pl.col("provider"), pl.lit("/"), pl.col("instance_type")).alias("derived_from")))
    missing = (config.join(known, on=["accelerator_model", "accelerator_count"], how="inner")
               .join(mappings.select(key), on=key, how="anti")
               .select(*key, "system", "note", "derived_from"))
    hand = mappings.with_columns(pl.lit(None, pl.Utf8).alias("derived_from"))
    return pl.concat([hand, missing], how="diagonal_relaxed").sort(key)


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
