"""The Dagster code location: everything under pipelines/defs is loaded automatically."""

from pathlib import Path

import dagster as dg

from pipelines import pool_wait
from pipelines.config import Paths
from pipelines.defs.metadata import REGENERATE
from pipelines.defs.regeneration import ATLAS_GROUP, FETCH_ASSET
from pipelines.defs.versions import map_specs, with_versions

pool_wait.install()  # every process that runs the jobs loads these definitions


@dg.definitions
def defs() -> dg.Definitions:
    return with_automation(with_versions(dg.load_from_defs_folder(path_within_project=Path(__file__).parent)))


def with_automation(definitions: dg.Definitions) -> dg.Definitions:
    """Every asset below the raw inputs rebuilds on its own (REGENERATE, defs/metadata.py; the checks carry
    RECHECK where they are declared), but the price fetch (the daily schedule's), the round partitions
    (mlperf_rounds_sensor's: defs/mlperf/sensor.py says why) and, without MLPERF_DIR as the definitions load, the
    atlas's assets (each load reads it: a process loading twice gets each its own)."""
    atlas_on = Paths.from_env().mlperf_dir is not None

    def condition(spec: dg.AssetSpec) -> dg.AssetSpec:
        off = (spec.key == FETCH_ASSET or spec.partitions_def is not None
               or (spec.group_name == ATLAS_GROUP and not atlas_on))
        return spec.replace_attributes(automation_condition=None if off else REGENERATE)

    return map_specs(definitions, condition)
