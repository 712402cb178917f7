"""Readers for the carbon factors: grid carbon intensity per cloud region, and data-centre PUE.

raw/carbon/grid_intensity.csv, one row per provider and region (location-based: the average
emissions of the local grid, not the provider's purchases of clean energy):
    provider, region         a provider name (aws, gcp, azure, oci ...) and its region code (us-east-1, eastus ...)
    location                 optional, for readers
    grid_gco2e_per_kwh       grams CO2-equivalent per kWh drawn from the grid
    cfe                      optional: Google's carbon-free energy share (0..1), shown, not applied
    data_year                optional: the year the intensity describes
    as_of, source            when the figure was published, and where

raw/carbon/pue.csv, one row per provider and region; an empty region is the provider's fleet
figure, used for every region without its own row:
    provider, region, pue (total facility energy / IT energy, >= 1), as_of, source
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table
from pipelines.ingest.names import provider_problem

# The dirtiest grids (lignite, oil) emit about 1.1-1.3 kg CO2e/kWh; more is a unit mistake (kg, t).
MAX_GRAMS_PER_KWH = 2_000.0
MAX_PUE = 3.0


def _in_range(path: Path, line: int, column: str, value: float | None, low: float, high: float, why: str) -> None:
    if value is not None and not low <= value <= high:
        raise InputError(path, f"{line} column {column}", f"{value:g} is outside {low:g}..{high:g} ({why})")


def _provider(path: Path, record: dict, line: int) -> None:
    problem = provider_problem(record["provider"])
    if problem:
        raise InputError(path, f"{line} column provider", problem)


def _unique(frame: pl.DataFrame, path: Path) -> pl.DataFrame:
    dup = frame.filter(pl.struct("provider", "region").is_duplicated())
    if dup.height:
        row = dup.row(-1, named=True)
        where = f"region {row['region']}" if row["region"] else "the provider's fleet figure (empty region)"
        raise InputError(path, row["line"], f"duplicate key: {row['provider']} {where} is listed twice")
    return frame


def read_grid_intensity(path: Path) -> pl.DataFrame:
    def check(record: dict, line: int) -> None:
        _provider(path, record, line)
        _in_range(path, line, "grid_gco2e_per_kwh", record["grid_gco2e_per_kwh"], 0.0, MAX_GRAMS_PER_KWH,
                  "grams CO2e per kWh")
        _in_range(path, line, "cfe", record["cfe"], 0.0, 1.0, "a fraction")
        _in_range(path, line, "data_year", record["data_year"], 1990, 2100, "a year")
    frame = read_csv_table(path, [
        Column("provider"), Column("region"), Column("location", required=False),
        Column("grid_gco2e_per_kwh", "float", positive=True), Column("cfe", "float", required=False),
        Column("data_year", "int", required=False), Column("as_of", "date"), Column("source"),
    ], check)
    return _unique(frame, path)


def read_pue(path: Path) -> pl.DataFrame:
    def check(record: dict, line: int) -> None:
        _provider(path, record, line)
        _in_range(path, line, "pue", record["pue"], 1.0, MAX_PUE, "total facility energy / IT energy")
    frame = read_csv_table(path, [
        Column("provider"), Column("region", required=False), Column("pue", "float"),
        Column("as_of", "date"), Column("source"),
    ], check)
    return _unique(frame, path)
