"""Energy and emissions per training run: pure polars.

Energy (kWh per training run), one of two kinds, named in ``energy_basis``:

- ``measured``: the MLPerf power result's energy, scored as the official result summarizer
  scores it (ingest/mlperf/power.py): joules / 3,600,000.
- ``estimate (board power)``: for every result without power logs,
  accelerators x board power (W) x utilization x time to train (minutes) / 60 / 1000.
  Board power is the vendor's maximum (TDP) per accelerator model (the accelerator catalog);
  utilization is stated with the figure and defaults to 1.0, so the estimate is an upper bound of
  the accelerators' own energy. Host CPUs, memory, network and cooling are not in it: no
  sourced per-system figure exists for them (cooling enters the emissions through PUE).

A measured value always wins over an estimate. A result with neither (no board power for its
accelerator, no time to train) keeps a null energy and says why: never zero.

Emissions (kg CO2e per training run), location-based:
    energy (kWh) x PUE of the provider (its region's own figure where published, else its fleet
    figure) x grid carbon intensity of the instance's region (g CO2e/kWh) / 1000.
Location-based means the average emissions of the grid the region draws from, not the
provider's market-based figure after its purchases of renewable energy (Google's carbon-free
energy share is kept beside the intensity for readers, not applied).
"""

from __future__ import annotations

import polars as pl

from pipelines.domain.columns import ESTIMATE, MEASURED
from pipelines.metrics.cost import instance_reference

LOCATION_BASED = "location-based"


def energy_per_run(results: pl.DataFrame, board_power: pl.DataFrame, utilization: float = 1.0) -> pl.DataFrame:
    """Energy of each result's training run: measured where there is one, else the estimate.

    results: accelerator_model (catalog model, null when unknown), accelerators (how many trained),
    time_to_train_minutes, and optionally measured_energy_kwh (null where not measured).
    board_power: ingest/board_power.read_board_power (model, board_power_w ...).
    Adds board_power_w, utilization, estimated_energy_kwh, energy_kwh, energy_basis, energy_note.
    """
    if not 0 < utilization <= 1:
        raise ValueError(f"utilization must be a fraction in (0, 1], not {utilization}")
    if "measured_energy_kwh" not in results.columns:
        results = results.with_columns(pl.lit(None, pl.Float64).alias("measured_energy_kwh"))
    watts = board_power.select(pl.col("model").alias("accelerator_model"), "board_power_w")
    estimate = (pl.col("accelerators") * pl.col("board_power_w") * utilization
                * pl.col("time_to_train_minutes") / 60 / 1000)
    measured = pl.col("measured_energy_kwh").is_not_null()
    return (
        results.join(watts, on="accelerator_model", how="left", validate="m:1", maintain_order="left")
        .with_columns(estimate.alias("estimated_energy_kwh"))
        .with_columns(
            pl.when(~measured & pl.col("estimated_energy_kwh").is_not_null()).then(pl.lit(utilization))
            .otherwise(None).alias("utilization"),
            pl.coalesce("measured_energy_kwh", "estimated_energy_kwh").alias("energy_kwh"),
            pl.when(measured).then(pl.lit(MEASURED))
            .when(pl.col("estimated_energy_kwh").is_not_null()).then(pl.lit(ESTIMATE))
            .otherwise(None).alias("energy_basis"),
            pl.when(measured | pl.col("estimated_energy_kwh").is_not_null()).then(None)
            .when(pl.col("accelerator_model").is_null()).then(pl.lit("no energy: accelerator model unknown"))
            .when(pl.col("time_to_train_minutes").is_null()).then(pl.lit("no energy: no time to train"))
            .when(pl.col("accelerators").is_null()).then(pl.lit("no energy: accelerator count unknown"))
            .otherwise(pl.format("no energy: no board power for {}", pl.col("accelerator_model")))
            .alias("energy_note"),
        )
    )


def _pue_per_region(frame: pl.DataFrame, pue: pl.DataFrame) -> pl.DataFrame:
    """The PUE in force for each (provider, region) of ``frame``: the region's own row, else the
    provider's fleet row (empty region)."""
    regional = pue.filter(pl.col("region").is_not_null()).select(
        "provider", "region", pl.col("pue").alias("regional_pue"), pl.col("source").alias("regional_source"))
    fleet = pue.filter(pl.col("region").is_null()).select(
        "provider", pl.col("pue").alias("fleet_pue"), pl.col("source").alias("fleet_source"))
    return (
        frame.select("provider", "region").unique()
        .join(regional, on=["provider", "region"], how="left", validate="1:1")
        .join(fleet, on="provider", how="left", validate="m:1")
        .select("provider", "region", pl.coalesce("regional_pue", "fleet_pue").alias("pue"),
                pl.coalesce("regional_source", "fleet_source").alias("pue_source"))
    )


def emissions_per_run(frame: pl.DataFrame, intensity: pl.DataFrame, pue: pl.DataFrame) -> pl.DataFrame:
    """Location-based kg CO2e of each training run on each instance.

    frame: provider, region (the instance's), energy_kwh (null where unknown).
    intensity: ingest/carbon_factors.read_grid_intensity; pue: read_pue.
    Adds pue, pue_source, grid_gco2e_per_kwh, grid_as_of, grid_source, emissions_kg_co2e,
    emissions_basis, emissions_note.
    """
    grid = intensity.select("provider", "region", "grid_gco2e_per_kwh",
                            pl.col("as_of").alias("grid_as_of"), pl.col("source").alias("grid_source"))
    kg = pl.col("energy_kwh") * pl.col("pue") * pl.col("grid_gco2e_per_kwh") / 1000
    place = pl.format("{}/{}", pl.col("provider"), pl.col("region"))
    return (
        frame.join(_pue_per_region(frame, pue), on=["provider", "region"], how="left", nulls_equal=True,
                   validate="m:1", maintain_order="left")
        .join(grid, on=["provider", "region"], how="left", validate="m:1", maintain_order="left")
        .with_columns(kg.alias("emissions_kg_co2e"))
        .with_columns(
            pl.when(pl.col("emissions_kg_co2e").is_not_null()).then(pl.lit(LOCATION_BASED))
            .otherwise(None).alias("emissions_basis"),
            pl.when(pl.col("emissions_kg_co2e").is_not_null()).then(None)
            .when(pl.col("energy_kwh").is_null()).then(pl.lit("no emissions: no energy"))
            .when(pl.col("grid_gco2e_per_kwh").is_null()).then(pl.format("no emissions: no grid intensity for {}", place))
            .otherwise(pl.format("no emissions: no PUE for {}", place))
            .alias("emissions_note"),
        )
    )


def energy_and_emissions(rows: pl.DataFrame, board_power: pl.DataFrame, intensity: pl.DataFrame,
                         pue: pl.DataFrame, utilization: float = 1.0) -> pl.DataFrame:
    """Energy per training run (measured, else estimated) and its emissions in each row's region.

    rows: accelerator_model, accelerators, time_to_train_minutes, measured_energy_kwh, provider,
    region: a priced row (the report's cost_to_train, the atlas's pairs).
    """
    return emissions_per_run(energy_per_run(rows, board_power, utilization), intensity, pue)


def report_energy(cost: pl.DataFrame, systems: pl.DataFrame, scores: pl.DataFrame, board_power: pl.DataFrame,
                  intensity: pl.DataFrame, pue: pl.DataFrame, utilization: float = 1.0,
                  instances: pl.DataFrame | None = None) -> pl.DataFrame:
    """The report's cost_to_train rows with the energy and emissions of their training run.

    The run is that of the measured system mapped to the instance (its round, system and
    benchmark): its measured energy from the MLPerf tree's power logs (scores: stg_mlperf_scores),
    else the estimate from its accelerators and their board power (systems: stg_systems with the
    catalog's accelerator_model). Throughput measured on a compared instance itself names the
    instance as its system ("aws/p4d.24xlarge", a team's own workload): that run's accelerators are
    the instance's (instances: stg_instances' accelerator_count and accelerator_model), so it gets
    the same board-power estimate as any other run on those accelerators. The emissions are those
    of the instance's region.
    """
    facts = systems.select("system", pl.col("accelerators_total").alias("accelerators"), "accelerator_model")
    if instances is not None:
        own = instances.select(instance_reference(pl.col("provider"), pl.col("instance_type")).alias("system"),
                               pl.col("accelerator_count").cast(pl.Int64).alias("accelerators"), "accelerator_model")
        facts = pl.concat([facts, own.join(facts, on="system", how="anti")], how="vertical_relaxed")
    facts = facts.unique("system", keep="first", maintain_order=True)
    measured = (scores.filter(pl.col("energy_kwh").is_not_null())
                .select("round", "system", "benchmark", pl.col("energy_kwh").alias("measured_energy_kwh"))
                .unique(["round", "system", "benchmark"], keep="first", maintain_order=True))
    rows = (cost.join(facts, on="system", how="left", maintain_order="left")
            .join(measured, on=["round", "system", "benchmark"], how="left", maintain_order="left"))
    return energy_and_emissions(rows, board_power, intensity, pue, utilization)

