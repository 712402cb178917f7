"""Instances from the public catalogs: each catalog offer named in the accelerator catalog's terms.

Catalogs name an accelerator their own way (H100, H100-SXM, H100-80G-SXM5, A100-80GB, RTXPRO6000,
tpu-v6e-8 ...). ONE alias table, raw/accelerator_aliases.csv, says which cloud model of the
accelerator catalog (accelerators.csv's cloud_model) each name is; rows are tried in file order and
the first whose conditions all hold wins:

    name_regex   searched in the catalog name simplified as accelerators.csv's names are (accelerators.simplify:
                 lower case, every run of other characters than a-z 0-9 . as one space): AcceleratorName,
                 then GpuInfo's Name
    memory_gb    optional; the offer's memory per accelerator must be this size (+-10 %)
    form_factor  optional; SXM, PCIe or NVL: the offer must state it (name, GpuInfo or instance type)

An offer whose form factor the cloud's naming leaves open between two parts (skypilot.UNSETTLED: Lium writes H200
for both NVIDIA's H200 and H200 NVL) matches no row: it is never priced as either.
    cloud_model  a cloud_model of accelerators.csv
    note         why the alias holds (shown nowhere else; for the reader of the table)

An offer no row matches keeps cloud_model null: it is listed (run metadata, the report's methodology)
and never priced, since a guessed accelerator would price a result on different hardware. A catalog
offer needs no row of instances.csv; a hand-typed row of instances.csv for the same provider and
instance type wins (it is checked, not guessed), and must agree on the accelerator count.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.accelerators import same_memory, simplify
from pipelines.ingest.csv_table import Column, read_csv_table
from pipelines.ingest.prices.skypilot import UNSETTLED

FORM_FACTORS = ("SXM", "PCIe", "NVL")


def read_aliases(path: Path, cloud_models: list[str], strict: bool = True) -> pl.DataFrame:
    """accelerator_aliases.csv, each regex compiled and each cloud_model checked against accelerators.csv.

    `strict` False (a data set without an alias table of its own, read with the project's): the rows
    naming a cloud model the data set's accelerator catalog lacks are left out instead of refused.
    """
    frame = read_csv_table(path, [
        Column("name_regex"), Column("memory_gb", "float", required=False, positive=True),
        Column("form_factor", required=False), Column("cloud_model"), Column("note", required=False),
    ])
    known = set(cloud_models)
    for row in frame.iter_rows(named=True):
        try:
            re.compile(row["name_regex"])
        except re.error as error:
            raise InputError(path, f"{row['line']} column name_regex", f"invalid regular expression: {error}") from None
        if row["form_factor"] is not None and row["form_factor"] not in FORM_FACTORS:
            raise InputError(path, f"{row['line']} column form_factor",
                             f"{row['form_factor']!r} is not one of {', '.join(FORM_FACTORS)}")
        if row["cloud_model"] not in known and strict:
            raise InputError(path, f"{row['line']} column cloud_model",
                             f"{row['cloud_model']!r} is no cloud_model of the accelerator catalog (accelerators.csv)")
    return frame.filter(pl.col("cloud_model").is_in(sorted(known)))


def cloud_model(aliases: pl.DataFrame, names: list[str | None], memory_gb: float | None,
                form: str | None) -> str | None:
    """The cloud model of an offer's accelerator, or None when no alias row holds (or its form is unsettled)."""
    if form == UNSETTLED:
        return None
    simple = [simplify(n) for n in names if n]
    for row in aliases.sort("line").iter_rows(named=True):
        if not any(re.search(row["name_regex"], s) for s in simple):
            continue
        if not same_memory(memory_gb, row["memory_gb"]):
            continue
        if row["form_factor"] is not None and row["form_factor"] != form:
            continue
        return row["cloud_model"]
    return None


def resolve(offers: pl.DataFrame, aliases: pl.DataFrame) -> pl.DataFrame:
    """The offers with `cloud_model` (null: the accelerator is not known to the alias table)."""
    models = [cloud_model(aliases, [r["catalog_accelerator"], r["gpu_name"]], r["accelerator_memory_gb"], r["form_factor"])
              for r in offers.iter_rows(named=True)]
    return offers.with_columns(pl.Series("cloud_model", models, dtype=pl.Utf8))


def unknown_accelerators(resolved: pl.DataFrame) -> pl.DataFrame:
    """Each catalog accelerator name no alias matched, with its providers and offer count."""
    return (resolved.filter(pl.col("cloud_model").is_null())
            .with_columns(pl.concat_str(  # the form factor where the name does not already say it
                pl.col("catalog_accelerator"),
                pl.when(pl.col("form_factor").is_not_null()
                        & ~pl.col("catalog_accelerator").str.to_lowercase().str.contains(
                            pl.col("form_factor").fill_null("").str.to_lowercase(), literal=True))
                .then(pl.lit(" (") + pl.col("form_factor") + pl.lit(")")).otherwise(pl.lit(""))).alias("accelerator"))
            .group_by("accelerator")
            .agg(pl.col("provider").unique().sort().str.join(", ").alias("providers"),
                 pl.len().cast(pl.Int64).alias("offers"))
            .sort("accelerator"))


def with_catalog_instances(instances: pl.DataFrame, resolved: pl.DataFrame, root: Path) -> pl.DataFrame:
    """instances.csv's rows plus every catalog offer with a known cloud model that instances.csv lacks.

    A catalog offer is billed per instance, carries the catalog's GPUs per node, vCPUs and memory,
    and no inter-node fabric (the catalogs do not state one). An instances.csv row that a catalog
    contradicts on the accelerator count is an InputError naming the catalog's line.
    """
    known = resolved.filter(pl.col("cloud_model").is_not_null())
    clash = known.join(instances.select("provider", "instance_type", pl.col("accelerator_count").alias("_hand")),
                       on=["provider", "instance_type"]).filter(pl.col("_hand") != pl.col("accelerator_count"))
    if clash.height:
        row = clash.row(0, named=True)
        raise InputError(root / row["file"], f"{row['line']} column AcceleratorCount",
                         f"{row['provider']}/{row['instance_type']} has {row['accelerator_count']} accelerators here "
                         f"and {row['_hand']} in instances.csv: one instance, two descriptions")
    added = (known.join(instances.select("provider", "instance_type"), on=["provider", "instance_type"], how="anti")
             .select(
                 "provider", "instance_type",
                 pl.coalesce("gpu_name", "catalog_accelerator").alias("accelerator"),
                 "accelerator_count", "accelerator_memory_gb",
                 pl.col("vcpus").round(0).cast(pl.Int64), "memory_gib",
                 pl.lit("from the SkyPilot catalog: ").add(pl.col("file")).alias("notes"),
                 pl.col("cloud_model").alias("accelerator_model"), pl.lit("instance").alias("billing"),
                 pl.lit(None, pl.Utf8).alias("fabric"), pl.lit(None, pl.Float64).alias("fabric_gbps_per_accelerator"),
                 pl.lit("catalog").alias("origin"), "file", "line"))
    hand = instances.with_columns(pl.lit("instances.csv").alias("origin"))
    for column, dtype in (("fabric", pl.Utf8), ("fabric_gbps_per_accelerator", pl.Float64)):
        if column not in hand.columns:
            hand = hand.with_columns(pl.lit(None, dtype).alias(column))
    return pl.concat([hand.select(added.columns), added], how="vertical_relaxed")
