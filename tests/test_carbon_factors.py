"""The bundled energy and carbon data (raw/carbon/, the catalog's board power) and their readers."""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.accelerators import read_catalog
from pipelines.ingest.tables import read_instances
from pipelines.ingest.board_power import read_board_power
from pipelines.ingest.carbon_factors import read_grid_intensity, read_pue
from pipelines.metrics.energy import emissions_per_run

RAW = Path(__file__).resolve().parents[1] / "raw"
CATALOG = RAW / "accelerators.csv"


def _used_regions() -> pl.DataFrame:
    """Every (provider, region) the report (report.toml, raw/prices) and the atlas price in."""
    config = tomllib.loads((RAW / "report.toml").read_text(encoding="utf-8"))
    pairs = set(config["regions"].items())
    for path in sorted((RAW / "prices").glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as handle:
            pairs |= {(row["provider"], row["region"]) for row in csv.DictReader(handle)}
    return pl.DataFrame(sorted(pairs), schema=["provider", "region"], orient="row")


def test_every_region_the_report_and_atlas_use_has_an_intensity_and_a_pue():
    regions = _used_regions()
    assert {"us-east-1", "us-central1", "eastus", "us-east5"} <= set(regions["region"])
    out = emissions_per_run(regions.with_columns(pl.lit(1.0).alias("energy_kwh")),
                            read_grid_intensity(RAW / "carbon" / "grid_intensity.csv"), read_pue(RAW / "carbon" / "pue.csv"))
    assert out.filter(pl.col("emissions_kg_co2e").is_null()).height == 0, out.filter(pl.col("emissions_note").is_not_null())


def test_bundled_figures_as_their_sources_give_them():
    grid = read_grid_intensity(RAW / "carbon" / "grid_intensity.csv")
    value = {(r["provider"], r["region"]): r for r in grid.to_dicts()}
    # Google region-carbon-info 2024.csv: us-central1,Iowa,0.87,412.72
    assert value[("gcp", "us-central1")]["grid_gco2e_per_kwh"] == 412.72 and value[("gcp", "us-central1")]["cfe"] == 0.87
    # CCF: us-east-1 -> NERC SERC 0.000379069 t/kWh = 379.069 g/kWh; Azure eastus the same region factor
    assert value[("aws", "us-east-1")]["grid_gco2e_per_kwh"] == 379.069
    assert value[("azure", "eastus")]["grid_gco2e_per_kwh"] == 379.069
    pue = {(r["provider"], r["region"]): r["pue"] for r in read_pue(RAW / "carbon" / "pue.csv").to_dicts()}
    assert (pue[("aws", None)], pue[("azure", None)], pue[("gcp", None)]) == (1.135, 1.185, 1.1)


def test_board_power_covers_every_cloud_accelerator_and_leaves_the_catalog_readable():
    board = read_board_power(CATALOG)
    catalog = read_catalog(CATALOG)  # the catalog's own reader still reads the file with the new columns
    assert board.height == len({row.model for row in catalog})
    watts = dict(zip(board["model"], board["board_power_w"]))
    assert (watts["H100-SXM-80GB"], watts["A100-SXM-40GB"], watts["B200-SXM-180GB"], watts["V100-SXM2-16GB"]) == (
        700.0, 400.0, 1000.0, 300.0)
    assert watts["TPU v4"] is None  # Google publishes no board power: no estimate rather than a guess
    # every accelerator of the atlas's cloud GPU instances has a figure (Cloud TPUs have none)
    instances = read_instances(RAW / "instances.csv")
    gpus = set(instances.filter(~pl.col("accelerator_model").str.starts_with("TPU"))["accelerator_model"])
    with_figure = {row.cloud_model for row in catalog if row.cloud_model and watts[row.model] is not None}
    assert gpus <= with_figure, gpus - with_figure

def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


GRID_HEADER = "provider,region,location,grid_gco2e_per_kwh,cfe,data_year,as_of,source\n"
BAD_GRID = {
    "not a provider name": ("Oracle,us-ashburn-1,,400,,,2024-01-01,x\n", "2 column provider", "'Oracle' is not a provider name"),
    "kg instead of g": ("aws,us-east-1,,0.38,,,2024-01-01,x\naws,us-east-2,,380000,,,2024-01-01,x\n",
                        "3 column grid_gco2e_per_kwh", "380000 is outside 0..2000"),
    "zero": ("aws,us-east-1,,0,,,2024-01-01,x\n", "2 column grid_gco2e_per_kwh", "must be greater than zero"),
    "cfe as a percentage": ("gcp,us-central1,Iowa,412.72,87,2024,2025-07-28,x\n", "2 column cfe", "87 is outside 0..1"),
    "no source": ("aws,us-east-1,,380,,,2024-01-01,\n", "2 column source", "is empty"),
    "future date": ("aws,us-east-1,,380,,,2999-01-01,x\n", "2 column as_of", "lies in the future"),
    "duplicate": ("aws,us-east-1,,380,,,2024-01-01,x\naws,us-east-1,,390,,,2024-01-01,y\n", "3",
                  "duplicate key: aws region us-east-1 is listed twice"),
    "text": ("aws,us-east-1,,high,,,2024-01-01,x\n", "2 column grid_gco2e_per_kwh", "'high' is not a number"),
}


PUE_HEADER = "provider,region,pue,as_of,source\n"
BAD_PUE = {
    "below 1": ("aws,,0.9,2024-01-01,x\n", "2 column pue", "0.9 is outside 1..3"),
    "two fleet figures": ("aws,,1.1,2024-01-01,x\naws,,1.2,2024-01-01,y\n", "3",
                          "aws the provider's fleet figure (empty region) is listed twice"),
}
BOARD_HEADER = "model,vendor,name_regex,board_power_w,board_power_source,board_power_as_of\n"
BAD_BOARD = {
    "absurd": ("H100,NVIDIA,h100,70000,datasheet,2026-12-01\n", "2 column board_power_w", "70000 W is absurd"),
    "negative": ("H100,NVIDIA,h100,-700,datasheet,2026-12-01\n", "2 column board_power_w", "must be greater than zero"),
    "no source": ("H100,NVIDIA,h100,700,,2026-12-01\n", "2 column board_power_source", "needs its source and date"),
    "source without figure": ("H100,NVIDIA,h100,,datasheet,\n", "2 column board_power_w", "names a source or date"),
    "conflicting rows": ("TPU,Google,tpu,200,x,2026-12-01\nTPU,Google,^tpu$,250,y,2026-12-01\n",
                         "3 column board_power_w", "model 'TPU' has another board power"),
}


READERS = {"grid": (read_grid_intensity, GRID_HEADER, BAD_GRID), "pue": (read_pue, PUE_HEADER, BAD_PUE),
           "board": (read_board_power, BOARD_HEADER, BAD_BOARD)}


@pytest.mark.parametrize("kind,case", [(kind, case) for kind, (_, _, cases) in READERS.items() for case in sorted(cases)])
def test_a_bad_row_names_the_file_line_column_and_problem(tmp_path, kind, case):
    read, header, cases = READERS[kind]
    rows, where, problem = cases[case]
    path = _write(tmp_path, f"{kind}.csv", header + rows)
    with pytest.raises(InputError) as raised:
        read(path)
    assert str(raised.value).startswith(f"{path}:{where}: ") and problem in str(raised.value)


def test_a_missing_column_is_named(tmp_path):
    with pytest.raises(InputError, match="missing column.*as_of"):
        read_pue(_write(tmp_path, "pue.csv", "provider,region,pue,source\naws,,1.1,x\n"))


def test_a_model_on_two_rows_with_one_figure_reads_once(tmp_path):
    path = _write(tmp_path, "accelerators.csv", BOARD_HEADER + "TPU v3,Google,^tpu v3$,,,\nTPU v3,Google,^tpu$,,,\n"
                  "H100,NVIDIA,h100,700,datasheet,2026-12-01\n")
    board = read_board_power(path)
    assert board["model"].to_list() == ["TPU v3", "H100"] and board["board_power_w"].to_list() == [None, 700.0]
