"""The daemon's path, step by step in one process: raw_files_sensor's tick (it observes the raw inputs),
regenerate_automation's evaluation (what Dagster reports stale or missing), and the run it requests executed as the
daemon would (the same asset and check selection, the same tags)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from dagster._serdes import deserialize_value, serialize_value

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


@contextmanager
def opened(dirs):
    """The project's definitions, the Dagster instance and the settings of a data set's places (its environment set
    while open)."""
    import warnings

    from tests.pipeline_runner import pipeline_env

    with pipeline_env(dirs), warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        from pipelines.definitions import defs
        from pipelines.defs.resources import PipelineSettings

        with dg.DagsterInstance.get() as instance:
            yield defs(), instance, PipelineSettings.from_env()


@contextmanager
def small_world(folder: Path):
    """The small data set (tests/small_raw.py) in `folder`, no warehouse, an empty instance on disk with the
    project's dagster.yaml: (dirs, definitions, instance, settings)."""
    import shutil

    from pipelines.config import INSTANCE_YAML
    from tests.pipeline_runner import make_dirs
    from tests.small_raw import write_small_raw

    dirs = make_dirs(folder, raw_source=None)
    write_small_raw(dirs.raw)
    shutil.copy(INSTANCE_YAML, dirs.dagster_home / "dagster.yaml")
    with opened(dirs) as (definitions, instance, settings):
        yield dirs, definitions, instance, settings


def built_by_automation(folder: Path) -> None:
    """The small data set in `folder`, built by the daemon's path; the automation cursor it ended with in
    folder/automation_cursor (read it with `saved_cursor`)."""
    with small_world(folder) as (_, definitions, instance, settings):
        cursor, runs = settle(definitions, instance, settings)
    assert runs and all(run.success for run in runs), "the small data set must build through automation"
    (folder / "automation_cursor").write_text(serialize_value(cursor))


def saved_cursor(folder: Path):
    return deserialize_value((folder / "automation_cursor").read_text())


@contextmanager
def automated_copy(tmp_path_factory, target: Path):
    """A copy, in `target`, of the small data set built by automation once per session (`built_by_automation`,
    shared by the xdist workers, read-only): (dirs, definitions, instance, settings, the automation cursor)."""
    from tests.pipeline_runner import make_dirs
    from tests.shared_builds import built_once, copy_tree, unchanged

    built = built_once(tmp_path_factory, "small_automated", built_by_automation)
    try:
        copy_tree(built, target)
        dirs = make_dirs(target, raw_source=None)
        with opened(dirs) as (definitions, instance, settings):
            yield dirs, definitions, instance, settings, saved_cursor(built)
    finally:
        unchanged(tmp_path_factory, "small_automated")
