"""The atlas on its own: mlperf_rounds_sensor watches MLPERF_DIR, declarative automation publishes.

* ``mlperf_rounds_sensor`` (every 60 s) lists the training_results_vX.Y folders of MLPERF_DIR:
  a new folder becomes a partition of ``mlperf_rounds`` (a removed one is deleted), each folder's fingerprint
  (git tree ids, or sizes and modification times: no log is read) is recorded as the data version of its
  ``mlperf_corpus`` partition, and every round Dagster reports stale or missing (rounds.rounds_to_score) gets ONE
  run of the round assets for that partition. The run key carries the fingerprint, so one change runs once; a round
  whose run is queued or running is left alone until it ends. `make atlas` takes the same steps in process by
  calling ``round_changes`` and ``RoundChanges`` below (pipelines/cli.run_atlas repeats none of it).
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

from dataclasses import dataclass

import dagster as dg

from pipelines.defs.mlperf.rounds import MLPERF_ROUNDS, NOT_SET, ROUND_KEYS, rounds_to_score
from pipelines.defs.metadata import WAREHOUSE_TAG
from pipelines.defs.regeneration import IN_FLIGHT, regeneration
from pipelines.defs.resources import PipelineSettings
from pipelines.domain.errors import InputError, bad_input

TAG_ROUND = "pipelines/mlperf_round"


@dataclass(frozen=True)
class RoundChanges:
    """The rounds of MLPERF_DIR against the instance: what the sensor requests each tick, and what `make atlas`
    does in process (pipelines/cli.run_atlas calls these, it repeats none of it)."""

    prints: dict[str, str]  # every round folder's fingerprint, by round ("v1.0")
    stale: list[str]  # the rounds to score (rounds.rounds_to_score: stale or missing to Dagster, or not stored)
    added: list[str]  # round folders that are no partition yet
    removed: list[str]  # partitions whose folder is gone

    def partition_requests(self) -> list:
        """The dynamic partition requests that make the partitions the round folders."""
        return ([MLPERF_ROUNDS.build_add_request(self.added)] if self.added else []) + \
               ([MLPERF_ROUNDS.build_delete_request(self.removed)] if self.removed else [])

    def round_runs(self, busy: set[str] = frozenset()) -> list[dg.RunRequest]:
        """One run of the round assets per round to score, but those with a run queued or running (`busy`)."""
        return [dg.RunRequest(run_key=f"round-{key}-{self.prints[key]}", partition_key=key, asset_selection=ROUND_KEYS,
                              tags={TAG_ROUND: key})
                for key in self.stale if key not in busy]


def round_changes(instance: dg.DagsterInstance, settings: PipelineSettings) -> RoundChanges:
    """Each round folder observed as its corpus partition, and what changed (InputError for a bad corpus)."""
    prints, stale = rounds_to_score(instance, settings)
    known = set(instance.get_dynamic_partitions(MLPERF_ROUNDS.name))
    return RoundChanges(prints, stale, sorted(set(prints) - known), sorted(known - set(prints)))


def record_partitions(instance: dg.DagsterInstance, requests: list) -> None:
    """Apply dynamic partition requests to the instance, as the daemon applies a sensor's (`make atlas` has none)."""
    for request in requests:
        if isinstance(request, dg.AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)


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
        changes = round_changes(instance, settings)
    except InputError as error:
        return dg.SensorResult(skip_reason=bad_input(error))
    partition_requests = changes.partition_requests()
    runs = changes.round_runs(_running_rounds(instance))
    if changes.removed and not changes.stale:  # nothing is materialized when a round goes: publish without it
        graph = context.repository_def.asset_graph
        roots = {key for key in graph.get_all_asset_keys()
                 if graph.get(key).group_name == "atlas" and graph.get(key).partitions_def is None}
        assets, checks = regeneration(graph, roots, atlas=True)
        runs.append(dg.RunRequest(run_key="rounds-" + ",".join(sorted(changes.prints)), asset_selection=assets,
                                  asset_check_keys=checks, tags=WAREHOUSE_TAG))
    if not runs and not partition_requests:
        return dg.SensorResult(skip_reason=f"{len(changes.prints)} round(s) in {settings.mlperf}, all scored as they are")
    context.log.info(f"rounds added: {changes.added or 'none'}; removed: {changes.removed or 'none'}; "
                     f"to score: {changes.stale or 'none'}")
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
