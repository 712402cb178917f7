"""The Dagster code location: everything under pipelines/defs is loaded automatically."""

from pathlib import Path

import dagster as dg

from pipelines import pool_wait
from pipelines.defs.versions import with_versions

pool_wait.install()  # every process that runs the jobs loads these definitions


@dg.definitions
def defs() -> dg.Definitions:
    return with_versions(dg.load_from_defs_folder(path_within_project=Path(__file__).parent))
