"""report_job: everything `make report` builds (staging, marts, report), and nothing else.

The raw inputs are observed (content hashes), the price fetch (it goes to the network) stays out.
"""

import dagster as dg

from pipelines.defs.raw import RAW_INPUTS

REPORT_GROUPS = ("staging", "marts", "report")

report_job = dg.define_asset_job(
    "report_job",
    # The raw inputs are observed too, so the sensor knows which file contents this run read.
    selection=dg.AssetSelection.groups(*REPORT_GROUPS) | dg.AssetSelection.assets(*RAW_INPUTS),
    description="Builds the report from RAW_DIR: staging tables, marts, HTML, PDF and data exports, then publishes.",
)
