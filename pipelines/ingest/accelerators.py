"""The accelerator catalog: one model name for the many ways systems JSON spell an accelerator.

Why a catalog: submitters write the same part as "NVIDIA A100-SXM4-80GB (400W)",
"NVIDIA A100-SXM-80GB CTS" or "A100-SXM4-80GB", the TPU generation may only appear in the system
name ("TPU" in tpu-v4-128-TF.json), and some names carry no memory size ("NVIDIA V100", the
memory field saying "32GB"). Pricing a result on a cloud instance is only meaningful for the same
accelerator, so every name is first reduced to one catalog model, and the catalog says which cloud
accelerator (if any) that model is priced as, and under which assumption.

raw/accelerators.csv (rows are tried in file order; the first row whose conditions all hold
wins, so specific rows come first):
    model         the normalized accelerator model shown in the atlas
    vendor
    name_regex    searched in the simplified accelerator_model_name (lower case, "(R)" removed,
                  every run of other characters than a-z 0-9 . as one space)
    system_regex  optional; searched in the simplified system (file) name
    memory_gb     optional; the accelerator_memory_capacity field must state this size (+-10 %)
    cloud_model   optional; the cloud instances' accelerator this model is priced as (empty: none)
    assumption    optional; what pricing it as cloud_model assumes (shown in the atlas)

The cloud instances themselves are the one instance catalog, raw/instances.csv (ingest/tables.py):
each names its cloud_model in `accelerator_model`; their prices are the one price book, raw/prices/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table

_REGISTERED = re.compile(r"\((r|tm)\)", re.I)
_OTHER = re.compile(r"[^a-z0-9.]+")
_MEMORY = re.compile(r"^\s*(?:\d+\s*x\s*)?(\d+(?:\.\d+)?)\s*(gib|gb|g|mib|mb|m|tib|tb|t)?\s*(?:hbm\w*)?\s*$", re.I)


def simplify(text: str | None) -> str:
    """An accelerator's name as every name table's regexes read it: 'Intel(R) Gaudi(R) 2 AI Accelerator' ->
    'intel gaudi 2 ai accelerator', 'H100-80G-SXM5' -> 'h100 80g sxm5'. The one form for the names submitters
    write (accelerators.csv), the public catalogs' names (accelerator_aliases.csv) and GCP's GPU SKUs."""
    if not text:
        return ""
    return _OTHER.sub(" ", _REGISTERED.sub(" ", text).lower()).strip()


def same_memory(stated: float | None, wanted: float | None) -> bool:
    """A name table's memory_gb condition: none, or the stated size within 10 % of it."""
    return wanted is None or (stated is not None and abs(stated - wanted) <= 0.1 * wanted)


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


def read_catalog_table(path: Path) -> pl.DataFrame:
    """raw/accelerators.csv as a frame (extra columns kept, a `line` column added); every regex is checked."""
    frame = read_csv_table(path, [
        Column("model"), Column("vendor"), Column("name_regex"),
        Column("system_regex", required=False), Column("memory_gb", "float", required=False, positive=True),
        Column("cloud_model", required=False), Column("assumption", required=False),
    ])
    for r in frame.iter_rows(named=True):
        _regex(path, r["line"], "name_regex", r["name_regex"])
        _regex(path, r["line"], "system_regex", r["system_regex"])
    return frame


def catalog_rows(frame: pl.DataFrame, path: Path | str = "accelerators.csv") -> list[CatalogRow]:
    """The catalog's rows with compiled patterns, in file order (the order decides the match)."""
    return [
        CatalogRow(
            line=r["line"], model=r["model"], vendor=r["vendor"],
            name_regex=_regex(path, r["line"], "name_regex", r["name_regex"]),  # type: ignore[arg-type]
            system_regex=_regex(path, r["line"], "system_regex", r["system_regex"]),
            memory_gb=r["memory_gb"], cloud_model=r["cloud_model"], assumption=r["assumption"],
        )
        for r in frame.sort("line").iter_rows(named=True)
    ]


def read_catalog(path: Path) -> list[CatalogRow]:
    return catalog_rows(read_catalog_table(path), path)


def normalize(catalog: list[CatalogRow], name: str | None, memory: str | None = None,
              system: str | None = None) -> Accelerator:
    """The catalog model of one accelerator_model_name (with its memory field and system name)."""
    simple_name, simple_system, gb = simplify(name), simplify(system), memory_gb(memory)
    for row in catalog:
        if not row.name_regex.search(simple_name):
            continue
        if row.system_regex is not None and not row.system_regex.search(simple_system):
            continue
        if not same_memory(gb, row.memory_gb):
            continue
        return Accelerator(row.model, row.vendor, row.cloud_model, row.assumption)
    return Accelerator(None, None, None, None)


def model_names(catalog: list[CatalogRow], names: list[str]) -> dict[str, str | None]:
    """The catalog model of each accelerator name as submitted (None where no row matches)."""
    return {name: normalize(catalog, name).model for name in names}


NORMALIZED_COLUMNS = {"accelerator_model": pl.Utf8, "vendor": pl.Utf8, "cloud_model": pl.Utf8, "assumption": pl.Utf8}


def normalized_systems(systems: pl.DataFrame, catalog: list[CatalogRow]) -> pl.DataFrame:
    """Add the catalog's NORMALIZED_COLUMNS (accelerator_model, vendor, cloud_model, assumption) to each systems row."""
    found = [normalize(catalog, r["accelerator_model_name"], r["accelerator_memory_capacity"], r["system"])
             for r in systems.select("accelerator_model_name", "accelerator_memory_capacity", "system").iter_rows(named=True)]
    return systems.with_columns(
        pl.Series("accelerator_model", [a.model for a in found], dtype=pl.Utf8),
        pl.Series("vendor", [a.vendor for a in found], dtype=pl.Utf8),
        pl.Series("cloud_model", [a.cloud_model for a in found], dtype=pl.Utf8),
        pl.Series("assumption", [a.assumption for a in found], dtype=pl.Utf8),
    )
