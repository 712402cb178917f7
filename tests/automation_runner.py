"""The daemon's path, step by step in one process: raw_files_sensor's tick (it observes the raw inputs),
regenerate_automation's evaluation (what Dagster reports stale or missing), and the run it requests executed as the
daemon would (the same asset and check selection, the same tags)."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.metadata import WAREHOUSE_TAG

QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


def tick(definitions: dg.Definitions, instance: dg.DagsterInstance, settings) -> dg.SensorResult:
    from pipelines.defs.automation import raw_files_sensor

    context = dg.build_sensor_context(instance=instance, definitions=definitions, resources={"settings": settings})
    return raw_files_sensor(context)


def evaluate(definitions: dg.Definitions, instance: dg.DagsterInstance, cursor=None):
    """One evaluation of every automation condition, from the previous evaluation's cursor."""
    return dg.evaluate_automation_conditions(defs=definitions, instance=instance, cursor=cursor)


def requested(result) -> set[str]:
    """The assets and checks ("asset:check") an evaluation requested."""
    return {r.key.to_user_string() for r in result.results if r.true_subset.size}


def execute(definitions: dg.Definitions, instance: dg.DagsterInstance, result):
    """The run the daemon starts for an evaluation's requests (unpartitioned assets: one run)."""
    keys = {r.key for r in result.results if r.true_subset.size}
    assets = {k for k in keys if isinstance(k, dg.AssetKey)}
    checks = {k for k in keys if isinstance(k, dg.AssetCheckKey)}
    job = definitions.resolve_implicit_global_asset_job_def().get_subset(asset_selection=assets,
                                                                          asset_check_selection=checks)
    tags = {**WAREHOUSE_TAG, "dagster/sensor_name": "regenerate_automation"}
    return job.execute_in_process(instance=instance, tags=tags, run_config=QUIET, raise_on_error=False)


def settle(definitions: dg.Definitions, instance: dg.DagsterInstance, settings, cursor=None, limit: int = 4):
    """Observe, then run what automation requests until it requests nothing; (cursor, the runs' results)."""
    tick(definitions, instance, settings)
    runs = []
    for _ in range(limit):
        result = evaluate(definitions, instance, cursor)
        cursor = result.cursor
        if not result.total_requested:
            return cursor, runs
        runs.append(execute(definitions, instance, result))
    raise AssertionError(f"automation still requests after {limit} runs: {sorted(requested(result))}")
