"""Regenerating the report on its own: a raw-file sensor that observes, declarative automation that builds,
and a daily price fetch.

Who starts what, so that Dagster's stale status is the only judge and one change is one run:

* ``raw_files_sensor`` observes (every 15 s): it computes each raw input's data version (the content hash its
  observable ``raw_*`` asset reports, so touching a file without changing its bytes is no change), the day's
  (``today``) and the outputs' (the warehouse file and the published folders, whose version goes up when one is
  found gone: defs/outputs.py), and records an observation (no run) of each one whose version differs from the last
  recorded (``observe_inputs``, the same step `make report` takes first: one rule for both). It starts no run and
  keeps no cursor: the instance's observations are the state, and the UI shows them.
* ``regenerate_automation`` builds (every 15 s): every asset below the raw inputs carries ``REGENERATE``
  (pipelines/defs/metadata.py): rebuilt when an input's data version or its own code version changed, or when it
  is missing, never on top of a failed blocking check, and never while it or an input is being built. What one
  tick requests goes in one run (a new price file: ``stg_prices`` and what reads it, never ``stg_results``);
  the checks carry ``RECHECK`` and run in that run, so a failed blocking check stops what reads its asset. The
  automation's cursor makes each new version count once: a second tick never runs the same change again, and a
  run that already built an asset and what reads it (`make report`'s) leaves automation nothing to do.
  What reads stg_comparisons follows in a second run, once its coverage check passed, when that check's last
  result is not a pass: on the first build and after the check failed (Dagster evaluates the check, which reads
  most of the staging, after the marts, so it cannot count it as requested in the same tick).
  What an input rebuilt in a tick feeds is requested in that tick even when it was itself updated since the last
  tick (a run that ended just before): the report's PDF and publishing step read the HTML of their own run.
* ``daily_report_schedule`` (06:00 UTC) fetches today's prices (``fetched_price_files``, the only way it
  downloads); the sensor then observes the new files and automation builds what reads them. A new day is the
  ``today`` observation: what reads the day is rebuilt once.

The atlas's round partitions are scored by mlperf_rounds_sensor (defs/mlperf/sensor.py says why a sensor).
"""

from __future__ import annotations

import dagster as dg

from pipelines.defs.mlperf.raw import MLPERF_INPUTS
from pipelines.defs.metadata import WAREHOUSE_TAG
from pipelines.defs.outputs import OUTPUTS, observe_output
from pipelines.defs.prices.raw import PRICE_INPUTS
from pipelines.defs.raw import TODAY, day_version, observe
from pipelines.defs.regeneration import FETCH_ASSET, record_observation
from pipelines.defs.report.raw import REPORT_INPUTS
from pipelines.defs.resources import PipelineSettings

RAW_INPUTS = {**PRICE_INPUTS, **MLPERF_INPUTS, **REPORT_INPUTS}  # every raw input observed, by asset name


# ---- the sensor --------------------------------------------------------------------------------

def observe_inputs(instance: dg.DagsterInstance, settings: PipelineSettings, keys: set[dg.AssetKey]) -> list[str]:
    """Record a new observation (no run) of each raw input among `keys`, of the day and of the outputs (the warehouse
    file, the published folders: defs/outputs.py), whose data version changed since the last one recorded; their
    names. What raw_files_sensor does every tick and `make report` first, so both see the same changes."""
    changed = []
    for key in sorted(keys, key=str):
        name = key.to_user_string()
        if name == TODAY:
            version, metadata = day_version(), {}
        elif name in RAW_INPUTS:
            version, metadata = observe(settings, RAW_INPUTS[name])
        elif name in OUTPUTS:
            version, metadata = observe_output(instance, settings, name)
        else:
            continue
        if record_observation(instance, key, version, metadata):
            changed.append(name)
    return changed


def evaluate_raw_files(context: dg.SensorEvaluationContext, settings: PipelineSettings) -> dg.SensorResult:
    """One tick of raw_files_sensor (a plain function, so tests drive it with build_sensor_context)."""
    keys = {dg.AssetKey(name) for name in [*RAW_INPUTS, TODAY, *OUTPUTS]}
    changed = observe_inputs(context.instance, settings, keys)
    if not changed:
        return dg.SensorResult(skip_reason="no raw input changed since its last observation")
    said = f"observed new data versions of {', '.join(changed)}: regenerate_automation rebuilds what reads them"
    context.log.info(said)
    return dg.SensorResult(skip_reason=said)


@dg.sensor(
    name="raw_files_sensor",
    minimum_interval_seconds=15,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Observes every raw input in RAW_DIR (prices/, results/, mlperf/, systems/, throughput/, "
                "instances.csv, accelerators.csv, mappings.csv, report.toml), the day and the outputs (the warehouse "
                "file, the published folders): a new content hash (or a lost output's new generation) is recorded "
                "as the source asset's new data version (no run); regenerate_automation then builds what reads it. "
                "Same bytes, nothing recorded.",
)
def raw_files_sensor(context: dg.SensorEvaluationContext, settings: PipelineSettings) -> dg.SensorResult:
    return evaluate_raw_files(context, settings)


# ---- the daily fetch ---------------------------------------------------------------------------

daily_report_schedule = dg.ScheduleDefinition(
    name="daily_report_schedule",
    cron_schedule="0 6 * * *",
    execution_timezone="UTC",
    target=dg.AssetSelection.assets(FETCH_ASSET),
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every day at 06:00 UTC: fetch today's prices (fetched_price_files); raw_files_sensor then "
                "observes the new files and regenerate_automation rebuilds the report (and the atlas where it is on).",
)


# ---- declarative automation --------------------------------------------------------------------

regenerate_automation = dg.AutomationConditionSensorDefinition(
    "regenerate_automation",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=15,
    run_tags=WAREHOUSE_TAG,
    description="Builds what Dagster reports stale or missing below the raw inputs (REGENERATE: a new data version "
                "upstream, a new code version, a missing asset; never on a failed blocking check), one run per "
                "change, the checks in it.",
)
