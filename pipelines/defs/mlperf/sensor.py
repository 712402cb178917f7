"""The atlas on its own: mlperf_rounds_sensor watches MLPERF_DIR, declarative automation publishes.

* ``mlperf_rounds_sensor`` (every 60 s) lists the training_results_vX.Y folders of MLPERF_DIR:
  a new folder becomes a partition of ``mlperf_rounds`` (a removed one is deleted), each folder's fingerprint
  (git tree ids, or sizes and modification times: no log is read) is recorded as the data version of its
  ``mlperf_corpus`` partition, and every round Dagster reports stale or missing (rounds.rounds_to_score, the
  same rule `make atlas` uses) gets ONE run of the round assets for that partition. The run key carries the
  fingerprint, so one change runs once; a round whose run is queued or running is left alone until it ends.
  Without MLPERF_DIR the sensor only says so.
* Why this sensor, not an automation condition, starts the round runs: the daemon and `make atlas` score by one
  rule, Dagster's stale status (what the UI shows as Stale, with its cause) plus the stored file, which Dagster
  cannot see (a round whose Parquet file is gone is materialized to Dagster and must be scored again all the
  same); automation conditions decide by what changed between two of their evaluations, a second rule beside
  it. And round runs write Parquet only, so unlike automation's runs they carry no warehouse tag (many may run
  at once on Kubernetes, README).
* The atlas marts and publish assets carry REGENERATE (defs/metadata.py; when MLPERF_DIR is set
  at load): once every round partition is stored and none is in progress, a round that was
  scored again rebuilds and republishes the atlas once (eager waits for missing and in-progress
  partitions), and a removed round does too (the sensor requests that run itself: nothing was
  materialized).
* A change of the price book or the catalogs is observed by raw_files_sensor (defs/automation.py), and
  automation rebuilds the atlas marts and publish with the report's: the atlas is re-priced from the stored
  rounds, without reading a log.
"""

import dagster as dg

from pipelines.defs.mlperf.rounds import MLPERF_ROUNDS, NOT_SET, ROUND_KEYS, rounds_to_score
from pipelines.defs.metadata import WAREHOUSE_TAG
from pipelines.defs.regeneration import IN_FLIGHT, regeneration
from pipelines.defs.resources import PipelineSettings
from pipelines.domain.errors import InputError, bad_input

TAG_ROUND = "pipelines/mlperf_round"


def _running_rounds(instance: dg.DagsterInstance) -> set[str]:
    """Round partitions with a queued or running run of the round assets."""
    busy = set()
    for record in instance.get_run_records(filters=dg.RunsFilter(statuses=IN_FLIGHT)):
        run = record.dagster_run
        if run.tags.get("dagster/partition") and (run.asset_selection is None or set(run.asset_selection) & set(ROUND_KEYS)):
            busy.add(run.tags["dagster/partition"])
    return busy


def evaluate_rounds(context: dg.SensorEvaluationContext, settings: PipelineSettings) -> dg.SensorResult:
    """One tick of mlperf_rounds_sensor (a plain function, so tests drive it with build_sensor_context)."""
    if settings.mlperf is None:
        return dg.SensorResult(skip_reason=NOT_SET)
    instance = context.instance
    try:
        prints, stale = rounds_to_score(instance, settings)
    except InputError as error:
        return dg.SensorResult(skip_reason=bad_input(error))
    known = set(instance.get_dynamic_partitions(MLPERF_ROUNDS.name))
    added, removed = sorted(set(prints) - known), sorted(known - set(prints))
    partition_requests = []
    if added:
        partition_requests.append(MLPERF_ROUNDS.build_add_request(added))
    if removed:
        partition_requests.append(MLPERF_ROUNDS.build_delete_request(removed))
    busy = _running_rounds(instance)
    runs = [dg.RunRequest(run_key=f"round-{key}-{prints[key]}", partition_key=key, asset_selection=ROUND_KEYS,
                          tags={TAG_ROUND: key})
            for key in stale if key not in busy]
    if removed and not stale:  # nothing is materialized when a round goes: publish without it
        graph = context.repository_def.asset_graph
        roots = {key for key in graph.get_all_asset_keys()
                 if graph.get(key).group_name == "atlas" and graph.get(key).partitions_def is None}
        assets, checks = regeneration(graph, roots, atlas=True)
        runs.append(dg.RunRequest(run_key="rounds-" + ",".join(sorted(prints)), asset_selection=assets,
                                  asset_check_keys=checks, tags=WAREHOUSE_TAG))
    if not runs and not partition_requests:
        return dg.SensorResult(skip_reason=f"{len(prints)} round(s) in {settings.mlperf}, all scored as they are")
    context.log.info(f"rounds added: {added or 'none'}; removed: {removed or 'none'}; to score: {stale or 'none'}")
    return dg.SensorResult(run_requests=runs, dynamic_partitions_requests=partition_requests)


@dg.sensor(
    name="mlperf_rounds_sensor",
    target=dg.AssetSelection.groups("atlas"),
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches MLPERF_DIR: each new training_results_vX.Y folder becomes a round partition, and a round "
                "whose files changed (git tree ids, or sizes and mtimes; no log read) is scored again in one run.",
)
def mlperf_rounds_sensor(context: dg.SensorEvaluationContext, settings: PipelineSettings) -> dg.SensorResult:
    return evaluate_rounds(context, settings)
