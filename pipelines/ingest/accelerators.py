"""The accelerator catalog: one model name for the many ways systems JSON spell an accelerator,
and the atlas's table of cloud instances and their prices.

Why a catalog: submitters write the same part as "NVIDIA A100-SXM4-80GB (400W)",
"NVIDIA A100-SXM-80GB CTS" or "A100-SXM4-80GB", the TPU generation may only appear in the system
name ("TPU" in tpu-v4-128-TF.json), and some names carry no memory size ("NVIDIA V100", the
memory field saying "32GB"). Pricing a result on a cloud instance is only meaningful for the same
accelerator, so every name is first reduced to one catalog model, and the catalog says which cloud
accelerator (if any) that model is priced as, and under which assumption.

raw/atlas/accelerators.csv (rows are tried in file order; the first row whose conditions all hold
wins, so specific rows come first):
    model         the normalized accelerator model shown in the atlas
    vendor
    name_regex    searched in the simplified accelerator_model_name (lower case, "(R)" removed,
                  every run of other characters than a-z 0-9 . as one space)
    system_regex  optional; searched in the simplified system (file) name
    memory_gb     optional; the accelerator_memory_capacity field must state this size (+-10 %)
    cloud_model   optional; the cloud instances' accelerator this model is priced as (empty: none)
    assumption    optional; what pricing it as cloud_model assumes (shown in the atlas)

raw/atlas/instances.csv: provider, instance_type, accelerator_model (a cloud_model),
accelerator_count, billing ("instance", or "chip" for Cloud TPUs sold per chip-hour), notes.
raw/atlas/prices.csv: provider, region, instance_type, usd_per_hour, as_of, certainty ("exact"
for figures from the project's reference table or a price file, "approximate" for list prices
known otherwise), source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table
from pipelines.ingest.tables import PROVIDERS

BILLING = ("instance", "chip")
CERTAINTY = ("exact", "approximate")

_REGISTERED = re.compile(r"\((r|tm)\)", re.I)
_OTHER = re.compile(r"[^a-z0-9.]+")
_MEMORY = re.compile(r"^\s*(?:\d+\s*x\s*)?(\d+(?:\.\d+)?)\s*(gib|gb|g|mib|mb|m|tib|tb|t)?\s*(?:hbm\w*)?\s*$", re.I)


def simplify(text: str | None) -> str:
    """'Intel(R) Gaudi(R) 2 AI Accelerator' -> 'intel gaudi 2 ai accelerator'."""
    if not text:
        return ""
    return _OTHER.sub(" ", _REGISTERED.sub(" ", text).lower()).strip()


def memory_gb(text: str | None) -> float | None:
    """'80 GB', '80G', '80GiB', '81559 MiB', '2x 24 GB' -> gigabytes; placeholders -> None."""
    match = _MEMORY.match(text or "")
    if not match:
        return None
    value = float(match.group(1))
    unit = (match.group(2) or "gb").lower()
    if unit.startswith("m"):
        value /= 1024.0
    elif unit.startswith("t"):
        value *= 1024.0
    return value if value > 0 else None


@dataclass(frozen=True)
class CatalogRow:
    line: int
    model: str
    vendor: str
    name_regex: re.Pattern
    system_regex: re.Pattern | None
    memory_gb: float | None
    cloud_model: str | None
    assumption: str | None


@dataclass(frozen=True)
class Accelerator:
    """What one systems JSON's accelerator is: model None when the catalog does not know it."""

    model: str | None
    vendor: str | None
    cloud_model: str | None
    assumption: str | None


def _regex(path: Path, line: int, column: str, text: str | None) -> re.Pattern | None:
    if not text:
        return None
    try:
        return re.compile(text)
    except re.error as error:
        raise InputError(path, f"{line} column {column}", f"invalid regular expression: {error}") from None


def read_catalog(path: Path) -> list[CatalogRow]:
    frame = read_csv_table(path, [
        Column("model"), Column("vendor"), Column("name_regex"),
        Column("system_regex", required=False), Column("memory_gb", "float", required=False, positive=True),
        Column("cloud_model", required=False), Column("assumption", required=False),
    ])
    return [
        CatalogRow(
            line=r["line"], model=r["model"], vendor=r["vendor"],
            name_regex=_regex(path, r["line"], "name_regex", r["name_regex"]),  # type: ignore[arg-type]
            system_regex=_regex(path, r["line"], "system_regex", r["system_regex"]),
            memory_gb=r["memory_gb"], cloud_model=r["cloud_model"], assumption=r["assumption"],
        )
        for r in frame.iter_rows(named=True)
    ]


def normalize(catalog: list[CatalogRow], name: str | None, memory: str | None = None,
              system: str | None = None) -> Accelerator:
    """The catalog model of one accelerator_model_name (with its memory field and system name)."""
    simple_name, simple_system, gb = simplify(name), simplify(system), memory_gb(memory)
    for row in catalog:
        if not row.name_regex.search(simple_name):
            continue
        if row.system_regex is not None and not row.system_regex.search(simple_system):
            continue
        if row.memory_gb is not None and (gb is None or abs(gb - row.memory_gb) > 0.1 * row.memory_gb):
            continue
        return Accelerator(row.model, row.vendor, row.cloud_model, row.assumption)
    return Accelerator(None, None, None, None)


def _check(path: Path, allowed: dict[str, tuple[str, ...]]):
    def check(record: dict, line: int) -> None:
        for column, values in allowed.items():
            if record[column] not in values:
                raise InputError(path, f"{line} column {column}",
                                 f"{record[column]!r} is not one of {', '.join(values)}")
    return check


def read_instances(path: Path, catalog: list[CatalogRow] | None = None) -> pl.DataFrame:
    """The atlas's cloud instances; with a catalog, every accelerator_model must be a cloud_model."""
    frame = read_csv_table(path, [
        Column("provider"), Column("instance_type"), Column("accelerator_model"),
        Column("accelerator_count", "int", positive=True), Column("billing"), Column("notes", required=False),
    ], _check(path, {"provider": PROVIDERS, "billing": BILLING}))
    _unique(frame, path, ["provider", "instance_type"])
    if catalog is not None:
        known = {row.cloud_model for row in catalog if row.cloud_model}
        unknown = frame.filter(~pl.col("accelerator_model").is_in(sorted(known)))
        if unknown.height:
            row = unknown.row(0, named=True)
            raise InputError(path, f"{row['line']} column accelerator_model",
                             f"{row['accelerator_model']!r} is no cloud_model of the accelerator catalog")
    return frame


def read_prices(path: Path, instances: pl.DataFrame | None = None) -> pl.DataFrame:
    """Dated on-demand prices of the atlas instances (one per instance and date)."""
    frame = read_csv_table(path, [
        Column("provider"), Column("region"), Column("instance_type"),
        Column("usd_per_hour", "float", positive=True), Column("as_of", "date"),
        Column("certainty"), Column("source"),
    ], _check(path, {"provider": PROVIDERS, "certainty": CERTAINTY}))
    _unique(frame, path, ["provider", "instance_type", "as_of"])
    if instances is not None:
        orphans = frame.join(instances, on=["provider", "instance_type"], how="anti")
        if orphans.height:
            row = orphans.row(0, named=True)
            raise InputError(path, f"{row['line']} column instance_type",
                             f"{row['provider']}/{row['instance_type']} is not in the atlas instances table")
    return frame


def _unique(frame: pl.DataFrame, path: Path, key: list[str]) -> None:
    dup = frame.filter(pl.struct(key).is_duplicated())
    if dup.height:
        first = dup.row(0, named=True)
        shown = ", ".join(f"{k}={first[k]}" for k in key)
        raise InputError(path, dup["line"].to_list()[-1], f"duplicate key ({shown})")
