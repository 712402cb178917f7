"""The Dagster code location: everything under pipelines/defs is loaded automatically."""

from pathlib import Path

import dagster as dg

from pipelines import pool_wait
from pipelines.config import Paths
from pipelines.defs.versions import with_versions

pool_wait.install()  # every process that runs the jobs loads these definitions


@dg.definitions
def defs() -> dg.Definitions:
    return atlas_switch(with_versions(dg.load_from_defs_folder(path_within_project=Path(__file__).parent)))


def atlas_switch(definitions: dg.Definitions) -> dg.Definitions:
    """The atlas's assets rebuild on their own only where the atlas is on: without MLPERF_DIR as the definitions
    load, their automation condition is taken off (each load reads it: a process loading twice gets each its own)."""
    if Paths.from_env().mlperf_dir is not None:
        return definitions
    return definitions.permissive_map_resolved_asset_specs(
        func=lambda spec: spec.replace_attributes(automation_condition=None), selection=dg.AssetSelection.groups("atlas"))
