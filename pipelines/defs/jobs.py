"""report_job and atlas_job: what `make report` and `make atlas` build, and nothing else.

The raw inputs are observed (content hashes), the price fetch (it goes to the network) stays out.
The groups follow the layers: raw, staging, marts, report, atlas.
"""

import dagster as dg

from pipelines.defs.automation import RAW_INPUTS
from pipelines.defs.metadata import WAREHOUSE_TAG
from pipelines.defs.outputs import GROUP as OUTPUTS_GROUP
from pipelines.defs.raw import TODAY

REPORT_GROUPS = ("staging", "marts", "report")

report_job = dg.define_asset_job(
    "report_job",
    # The raw inputs (and the day) are observed too, so the sensor knows which file contents this run read.
    selection=dg.AssetSelection.groups(*REPORT_GROUPS) | dg.AssetSelection.assets(*RAW_INPUTS, TODAY),
    description="Builds the report from RAW_DIR: staging tables, marts, HTML, PDF and data exports, then publishes.",
    tags=WAREHOUSE_TAG,
)

# The atlas, the shared staging it reads (price book, instance and accelerator catalogs, report
# settings) and the raw inputs behind them. Partitioned by round: a run of one round partition
# scores that round; a run that leaves the round assets out re-prices and re-publishes the stored
# rounds without reading a log (pipelines.cli.run_atlas does both, in that order). The outputs (warehouse file,
# published folders) are observed by the sensor and the command line, never in a run: an observation in a run is
# recorded even when nothing changed, and automation would count it as an update (defs/outputs.py).
ATLAS_SELECTION = dg.AssetSelection.groups("atlas").upstream() - dg.AssetSelection.groups(OUTPUTS_GROUP)

atlas_job = dg.define_asset_job(
    "atlas_job",
    selection=ATLAS_SELECTION,
    description="The MLPerf atlas from MLPERF_DIR: scores a round partition (training_results_vX.Y) into Parquet, "
                "then prices every stored round with the shared price book and publishes REPORTS_DIR/atlas/.",
    tags=WAREHOUSE_TAG,
)
