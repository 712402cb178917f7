"""End to end: a new price snapshot, one sensor tick, the requested run executed in process.

Real pieces throughout: a data set on disk (the tests' small one, tests/small_raw.py: what the sensor and
automation request does not depend on the data's size), a DuckDB file, a Dagster instance on disk with the
project's dagster.yaml, the real WeasyPrint PDF. The run executes exactly what the sensor asked
for, as the daemon would (same job, same asset and check selection, same run key tag).
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from pipelines.config import INSTANCE_YAML
from tests.pipeline_runner import make_dirs, pipeline_env
from tests.small_raw import PRICE_DATE as FIRST_DATE, write_small_raw

pytestmark = pytest.mark.slow

QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}
# (prices/ holds the GPU clouds' catalogs too, whose offers are instances: a price run rebuilds stg_instances
# and the mappings derived from it)
NOT_IN_A_PRICE_RUN = {"stg_results", "stg_systems", "time_to_train", "stg_throughput", "stg_mlperf_runs",
                      "stg_mlperf_scores", "stg_comparisons"}


def execute(definitions: dg.Definitions, instance: dg.DagsterInstance, request: dg.RunRequest):
    job = definitions.resolve_implicit_global_asset_job_def().get_subset(
        asset_selection=set(request.asset_selection), asset_check_selection=set(request.asset_check_keys or ()),
    )
    tags = {**request.tags, "dagster/run_key": request.run_key}
    return job.execute_in_process(instance=instance, tags=tags, run_config=QUIET, raise_on_error=False)


def tick(definitions, instance, settings, cursor):
    from pipelines.defs.automation import raw_files_sensor

    context = dg.build_sensor_context(instance=instance, cursor=cursor, definitions=definitions,
                                      resources={"settings": settings})
    return raw_files_sensor(context)


def materialized(result) -> set[str]:
    return {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}


def requested_names(definitions, result) -> set[str]:
    return {key.to_user_string() for key in definitions.resolve_all_asset_keys() if result.get_num_requested(key)}


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def world(tmp_path):
    """Each test's own: the small data set, no warehouse, an empty instance on disk with the project's
    dagster.yaml."""
    dirs = make_dirs(tmp_path, raw_source=None)
    write_small_raw(dirs.raw)
    shutil.copy(INSTANCE_YAML, dirs.dagster_home / "dagster.yaml")
    with pipeline_env(dirs), warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        from pipelines.definitions import defs
        from pipelines.defs.resources import PipelineSettings

        with dg.DagsterInstance.get() as instance:
            yield dirs, defs(), instance, PipelineSettings.from_env()


def test_new_price_snapshot_regenerates_only_what_prices_feed(world):
    dirs, definitions, instance, settings = world

    # 1. First tick on an empty instance: one run of everything; it publishes the report of FIRST_DATE.
    first = tick(definitions, instance, settings, None)
    (request,) = first.run_requests
    initial = execute(definitions, instance, request)
    assert initial.success
    assert {"stg_results", "stg_prices", "time_to_train", "published_report"} <= materialized(initial)
    before = tree_bytes(dirs.reports / FIRST_DATE)
    assert "report.html" in before and "report.pdf" in before
    results_record = instance.fetch_materializations(dg.AssetKey("stg_results"), limit=1).records[0]
    automation = dg.evaluate_automation_conditions(defs=definitions, instance=instance)

    # 2. Nothing changed: no run.
    assert not tick(definitions, instance, settings, first.cursor).run_requests

    # 3. A new snapshot: the baseline small.8x from 20.00 to 18.00 USD/h on 2024-09-01.
    (dirs.raw / "prices" / "on_demand_2024-09-01.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        "aws,us-east-1,small.8x,18.00,2024-09-01,list C (test snapshot)\n")
    changed = tick(definitions, instance, settings, first.cursor)
    (request,) = changed.run_requests
    assert tick(definitions, instance, settings, first.cursor).run_requests[0].run_key == request.run_key
    run = execute(definitions, instance, request)
    assert run.success

    # only prices and what they feed were rebuilt
    done = materialized(run)
    assert {"stg_prices", "price_history", "report_dates", "cost_to_train", "report_html", "report_pdf",
            "published_report"} <= done
    assert not done & NOT_IN_A_PRICE_RUN
    assert instance.fetch_materializations(dg.AssetKey("stg_results"), limit=1).records[0].storage_id \
        == results_record.storage_id
    # the staging table recorded the content hash it read (lineage in the UI)
    stg_prices = instance.fetch_materializations(dg.AssetKey("stg_prices"), limit=1).records[0]
    cursor_hash = __import__("json").loads(changed.cursor)["hashes"]["raw_prices"]
    assert stg_prices.asset_materialization.tags["dagster/input_data_version/raw_prices"] == cursor_hash

    # a new dated report; the previous one byte for byte as it was; latest is the new one
    new = dirs.reports / "2024-09-01"
    assert (new / "report.html").is_file() and (new / "report.pdf").is_file()
    assert tree_bytes(dirs.reports / FIRST_DATE) == before
    assert (dirs.reports / "latest").resolve() == new.resolve()
    # every report asset names the file it published (shown in the UI)
    for asset, published in (("report_html", new / "report.html"), ("report_pdf", new / "report.pdf"),
                              ("report_data", new / "data"), ("published_report", new)):
        (event,) = [e for e in run.get_asset_materialization_events() if e.asset_key.to_user_string() == asset]
        meta = event.materialization.metadata
        assert Path(meta["published_as" if asset != "published_report" else "path"].value) == published, asset
        assert published.exists(), asset

    # figures by hand (tests/small_raw.py): the baseline small.8x (System B, ResNet: 90.0 min) at 18.00 USD/h
    # = 90 / 60 * 18 = 27.00 USD; big.8x (System A, 30.0 min at 24.00 USD/h = 12.00 USD) now saves
    # 1 - 12 / 27 = 55.556 % (it saved 1 - 12 / 30 = 60 % against 20.00 USD/h).
    cost = pl.read_csv(new / "data" / "cost_to_train.csv")
    resnet = cost.filter((pl.col("comparison") == "one") & (pl.col("benchmark") == "resnet")
                         & (pl.col("pricing_option") == "on_demand"))
    base = resnet.filter(pl.col("instance_type") == "small.8x").row(0, named=True)
    assert base["usd_per_hour"] == 18.0 and base["price_as_of"] == "2024-09-01"
    assert base["cost_to_train_usd"] == pytest.approx(27.0)
    big = resnet.filter(pl.col("instance_type") == "big.8x").row(0, named=True)
    assert big["cost_to_train_usd"] == pytest.approx(12.0)
    assert big["savings_pct"] == pytest.approx(100 * (1 - 12 / 27))
    assert "$27.00" in (new / "report.html").read_text()

    # 4. The change is consumed: the next tick from the new cursor, and a tick that lost its cursor,
    #    start nothing (the staging materialization already read these bytes).
    assert not tick(definitions, instance, settings, changed.cursor).run_requests
    lost = tick(definitions, instance, settings, None)
    assert not lost.run_requests and "already read them" in lost.skip_reason.skip_message

    # 5. Declarative automation does not run the change a second time: every asset the update
    #    reached was in the run that made it.
    after = dg.evaluate_automation_conditions(defs=definitions, instance=instance, cursor=automation.cursor)
    assert after.total_requested == 0


def test_automation_carries_a_partial_run_and_respects_blocking_checks(world):
    dirs, definitions, instance, settings = world
    (request,) = tick(definitions, instance, settings, None).run_requests  # everything built once, as by the sensor
    assert execute(definitions, instance, request).success
    job = definitions.resolve_implicit_global_asset_job_def()
    checks = {c for c in definitions.resolve_asset_graph().asset_check_keys}
    cursor = dg.evaluate_automation_conditions(defs=definitions, instance=instance).cursor

    # stg_results rebuilt alone (as from the UI): automation takes it to the report
    alone = job.get_subset(asset_selection={dg.AssetKey("raw_results"), dg.AssetKey("stg_results")})
    assert alone.execute_in_process(instance=instance, run_config=QUIET).success
    result = dg.evaluate_automation_conditions(defs=definitions, instance=instance, cursor=cursor)
    requested = requested_names(definitions, result)
    assert {"time_to_train", "cost_to_train", "report_html", "report_pdf", "published_report"} <= requested
    assert not requested & {"stg_prices", "stg_results", "stg_systems", "price_history"}
    cursor = result.cursor

    # stg_prices rebuilt alone with the baseline small.8x's price gone: the coverage check (blocking) fails, so
    # automation must not build report_dates or the report on it (eager() alone would)
    for f in (dirs.raw / "prices").glob("*.csv"):
        f.write_text("\n".join(line for line in f.read_text().splitlines() if ",small.8x," not in line) + "\n")
    bad = job.get_subset(asset_selection={dg.AssetKey("raw_prices"), dg.AssetKey("raw_instances"),
                                          dg.AssetKey("stg_prices")}, asset_check_selection=checks)
    run = bad.execute_in_process(instance=instance, run_config=QUIET, raise_on_error=False)
    failed = [e.event_specific_data.check_name for e in run.all_events
              if e.event_type_value == "ASSET_CHECK_EVALUATION" and not e.event_specific_data.passed]
    assert failed == ["comparisons_are_covered"]
    result = dg.evaluate_automation_conditions(defs=definitions, instance=instance, cursor=cursor)
    requested = requested_names(definitions, result)
    assert not requested & {"report_dates", "cost_to_train", "report_html", "published_report"}
