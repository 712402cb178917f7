"""Regenerating the report on its own: a raw-file sensor, a daily schedule and declarative automation.

Who starts what, so that one change is never run twice:

* ``raw_files_sensor`` is the only path from files in RAW_DIR to runs. Every tick it hashes each
  raw input (the same content hash that the observable ``raw_*`` assets report as their data
  version, so touching a file without changing its bytes is not a change) and compares the hashes
  with its cursor. A changed input starts ONE run of the staging assets that read it and everything
  downstream of them (a new price file: ``stg_prices`` and downstream, never ``stg_results``,
  ``stg_systems`` or ``time_to_train``), plus the observation of their raw inputs (so each staging
  materialization records the data version it read) and every asset check that reads an asset of
  the run (blocking checks then stop the report in that run). The run key is derived from the
  content hashes before and after the change and from the warehouse state the run starts from, so
  a second tick, a second daemon or a restarted sensor never starts the same change twice.
  A change that a run already consumed (the daily schedule's run after a price fetch, or any run
  that observed the raw inputs it read) starts nothing: the sensor compares the hash with the
  ``dagster/input_data_version`` that the last successful materialization of each staging asset
  recorded. (A run that does not observe the raw inputs records no such version, and the sensor
  then runs the change once more: redundant, never wrong.) While a run that rebuilds those
  staging assets is queued or running, the sensor waits (the cursor is not advanced); a run
  stuck as STARTED after its process was killed holds the sensor, as it holds Dagster's run
  queue, until it is marked failed in the UI.

  Why this sensor keeps a cursor of its own while `make report` and `make atlas` ask Dagster what is stale
  (pipelines/freshness.py): a tick runs every 30 s for as long as the daemon lives, and on the bundled data
  hashing every raw input takes 0.007 s against 0.70 s to observe them and resolve Dagster's stale status of
  report_job's assets (median of 5 in one process, 2026-12-06); the cursor also turns a
  change into one run the moment it is seen, where the stale status says nothing until a run has read it. The
  hash is the same one: the cursor's value for an input is the data version its observable asset reports.

* ``daily_report_schedule`` rebuilds everything once a day. When the code location defines the
  ``fetched_price_files`` asset (pipelines/defs/prices/fetch.py) it first requests a run of that
  asset alone (the only way it downloads), then the report run; with ``max_concurrent_runs: 1``
  in dagster.yaml the queue starts them in that order, so the report uses the fetched prices, and
  the sensor then sees the new files as already consumed.

* Declarative automation (``REGENERATE`` in pipelines/defs/metadata.py, evaluated by
  ``regenerate_automation``) sits on the marts and report assets only: ``eager()`` plus
  ``all_deps_blocking_checks_passed()``, because ``eager()`` alone would build a mart on top of a
  staging table whose blocking check failed. It carries a change to the report when an upstream
  asset was materialized by a run that did not target the assets below it (a staging asset
  materialized alone in the UI, for instance). It cannot double-run a sensor or schedule run:
  those runs always include everything downstream, and ``any_deps_updated`` ignores parent updates
  made by a run that also targeted the child. Staging assets deliberately carry no automation
  condition: new raw data would otherwise start both an automation run and the sensor's run.
"""

from __future__ import annotations

import json
import warnings

import dagster as dg

from pipelines.defs.mlperf.raw import MLPERF_INPUTS
from pipelines.defs.mlperf.rounds import atlas_ready
from pipelines.defs.metadata import WAREHOUSE_TAG
from pipelines.defs.prices.raw import PRICE_INPUTS
from pipelines.defs.raw import raw_fingerprint
from pipelines.defs.regeneration import FETCH_ASSET, IN_FLIGHT, regeneration, staging_readers
from pipelines.defs.report.raw import REPORT_INPUTS
from pipelines.defs.resources import PipelineSettings
from pipelines.fingerprint import text_sha256

RAW_INPUTS = {**PRICE_INPUTS, **MLPERF_INPUTS, **REPORT_INPUTS}  # every raw input the sensor hashes, by asset name
CURSOR_VERSION = 1
TAG_CHANGED = "pipelines/raw_changed"


# ---- the sensor --------------------------------------------------------------------------------

def _graph(context) -> dg.AssetGraph:
    if context.repository_def is None:
        raise dg.DagsterInvariantViolationError("the sensor needs the code location's definitions")
    return context.repository_def.asset_graph


def raw_state(settings: PipelineSettings) -> dict[str, str]:
    """Content hash of every raw input (file names and bytes; modification times play no part)."""
    return {name: raw_fingerprint(settings, raw_input) for name, raw_input in RAW_INPUTS.items()}


def read_cursor(cursor: str | None) -> dict[str, str] | None:
    if not cursor:
        return None
    try:
        data = json.loads(cursor)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("v") != CURSOR_VERSION:
        return None
    return dict(data.get("hashes", {}))


def write_cursor(state: dict[str, str]) -> str:
    return json.dumps({"v": CURSOR_VERSION, "hashes": state}, sort_keys=True)


def _latest(instance: dg.DagsterInstance, key: dg.AssetKey):
    """The newest materialization record of an asset (EventLogRecord), or None."""
    records = instance.fetch_materializations(key, limit=1).records
    return records[0] if records else None


def _consumed(instance: dg.DagsterInstance, raw_name: str, digest: str, readers: set[dg.AssetKey]) -> bool:
    """True when every reader's newest materialization read this content and its run succeeded."""
    if not readers:
        return True
    for key in readers:
        record = _latest(instance, key)
        if record is None:
            return False
        tags = record.asset_materialization.tags or {}
        if tags.get(f"dagster/input_data_version/{raw_name}") != digest:
            return False
        run = instance.get_run_by_id(record.run_id)
        if run is None or run.status != dg.DagsterRunStatus.SUCCESS:
            return False
    return True


def _in_flight(instance: dg.DagsterInstance, keys: set[dg.AssetKey]) -> str | None:
    """Id of a queued or running run that materializes one of these assets, if any."""
    for record in instance.get_run_records(filters=dg.RunsFilter(statuses=IN_FLIGHT)):
        selection = record.dagster_run.asset_selection
        if selection is None or set(selection) & keys:
            return record.dagster_run.run_id
    return None


def _run_key(instance: dg.DagsterInstance, changes: dict[str, tuple[str | None, str]],
             roots: set[dg.AssetKey]) -> str:
    basis = {}
    for key in sorted(roots, key=str):
        record = _latest(instance, key)
        basis[key.to_user_string()] = record.storage_id if record is not None else None
    payload = json.dumps({"changes": changes, "from": basis}, sort_keys=True)
    return "raw-" + text_sha256(payload)[:24]


def evaluate_raw_files(context: dg.SensorEvaluationContext, settings: PipelineSettings) -> dg.SensorResult:
    """One tick of raw_files_sensor (a plain function, so tests drive it with build_sensor_context)."""
    current = raw_state(settings)
    previous = read_cursor(context.cursor)
    changed = {name: ((previous or {}).get(name), digest) for name, digest in current.items()
               if previous is None or previous.get(name) != digest}
    if not changed:
        return dg.SensorResult(skip_reason="no raw input changed since the last tick")

    graph = _graph(context)
    instance = context.instance
    readers = {name: staging_readers(graph, [name]) for name in changed}
    busy = _in_flight(instance, set().union(*readers.values()))
    if busy:
        return dg.SensorResult(skip_reason=f"raw inputs changed ({', '.join(sorted(changed))}); "
                                           f"waiting for run {busy}, which rebuilds their staging assets")

    pending = {name: change for name, change in changed.items()
               if not _consumed(instance, name, change[1], readers[name])}
    if not pending:
        return dg.SensorResult(
            skip_reason=f"raw inputs changed ({', '.join(sorted(changed))}) but a successful run already read them",
            cursor=write_cursor(current),
        )
    roots = set().union(*(readers[name] for name in pending))
    assets, checks = regeneration(graph, roots, atlas=atlas_ready(instance, settings))
    request = dg.RunRequest(
        run_key=_run_key(instance, pending, roots),
        asset_selection=assets,
        asset_check_keys=checks,
        tags={TAG_CHANGED: ",".join(sorted(pending)), **WAREHOUSE_TAG},
    )
    context.log.info(f"raw inputs changed: {', '.join(sorted(pending))}; rebuilding "
                     f"{', '.join(k.to_user_string() for k in sorted(roots, key=str))} and downstream")
    return dg.SensorResult(run_requests=[request], cursor=write_cursor(current))


# Both entries start runs of any asset, raw inputs included. `include_sources` is beta: its warning, printed on
# stderr by whichever command line first imports this module, would break the one-line error of a failed run.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)
    EVERY_ASSET = dg.AssetSelection.all(include_sources=True)


@dg.sensor(
    name="raw_files_sensor",
    target=EVERY_ASSET,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Hashes every raw input in RAW_DIR (prices/, results/, mlperf/, systems/, throughput/, "
                "instances.csv, accelerators.csv, mappings.csv, report.toml) and starts one run of the assets "
                "downstream of what changed (the atlas too when MLPERF_DIR is set); same bytes, no run.",
)
def raw_files_sensor(context: dg.SensorEvaluationContext, settings: PipelineSettings) -> dg.SensorResult:
    return evaluate_raw_files(context, settings)


# ---- the daily schedule ------------------------------------------------------------------------

def daily_requests(graph, day: str, atlas: bool = False) -> list[dg.RunRequest]:
    """The price fetch alone (when the code location has it), then the whole report (and the atlas
    when it is on and its rounds are scored)."""
    requests = []
    if graph.has(FETCH_ASSET):
        requests.append(dg.RunRequest(run_key=f"fetch-{day}", asset_selection=[FETCH_ASSET],
                                      tags={"pipelines/daily": day}))
    roots = {key for key in graph.get_all_asset_keys()
             if graph.get(key).is_materializable and key != FETCH_ASSET}
    assets, checks = regeneration(graph, roots, atlas=atlas)
    requests.append(dg.RunRequest(run_key=f"report-{day}", asset_selection=assets, asset_check_keys=checks,
                                  tags={"pipelines/daily": day, **WAREHOUSE_TAG}))
    return requests


@dg.schedule(
    name="daily_report_schedule",
    cron_schedule="0 6 * * *",
    execution_timezone="UTC",
    target=EVERY_ASSET,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every day at 06:00 UTC: fetch today's prices (when fetched_price_files exists), then rebuild "
                "the whole report, and the atlas when MLPERF_DIR is set and its rounds are scored.",
)
def daily_report_schedule(context: dg.ScheduleEvaluationContext, settings: PipelineSettings) -> list[dg.RunRequest]:
    return daily_requests(_graph(context), context.scheduled_execution_time.strftime("%Y-%m-%d"),
                          atlas=settings.mlperf is not None and atlas_ready(context.instance, settings))


# ---- declarative automation --------------------------------------------------------------------

regenerate_automation = dg.AutomationConditionSensorDefinition(
    "regenerate_automation",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
    run_tags=WAREHOUSE_TAG,
    description="Evaluates the marts' and report's automation condition (eager, blocking checks respected): "
                "rebuilds them after an upstream asset was materialized by a run that did not include them.",
)
