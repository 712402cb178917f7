"""report_job: everything `make report` builds (staging, marts, report), and nothing else.

The price fetch (group raw, it goes to the network) and any other group stay out of it.
"""

import dagster as dg

REPORT_GROUPS = ("staging", "marts", "report")

report_job = dg.define_asset_job(
    "report_job",
    selection=dg.AssetSelection.groups(*REPORT_GROUPS),
    description="Builds the report from RAW_DIR: staging tables, marts, HTML, PDF and data exports, then publishes.",
)
