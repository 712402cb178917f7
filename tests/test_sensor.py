"""raw_files_sensor driven tick by tick with dg.build_sensor_context and a cursor.

No run is executed here (test_automation_e2e.py does that): a fresh instance has no
materializations, so every real change must request a run, and the request must cover exactly
the assets downstream of what changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from datetime import datetime

import dagster as dg
import pytest

from tests.pipeline_runner import make_dirs, pipeline_env

MLPERF_AND_RESULTS = {"stg_results", "stg_systems", "time_to_train", "stg_throughput", "stg_mlperf_runs",
                      "stg_mlperf_scores", "stg_comparisons"}
# prices/ holds the public catalogs too, whose offers are instances: a price run re-reads them and rebuilds
# the instance catalog and the mappings derived from it
PRICE_RUN = {"stg_prices", "price_history", "report_dates", "cost_to_train", "cheapest_offers", "cheapest_options", "price_changes",
             "cost_changes", "input_files", "report_html", "report_pdf", "report_data", "published_report",
             "stg_catalog_offers", "stg_instances", "stg_mappings", "catalog_unknown_accelerators",
             # the market's price index, and a described model's prices on every offer
             "price_index", "priced_offers", "model_estimates", "model_not_priced"}


@pytest.fixture
def env(tmp_path):
    dirs = make_dirs(tmp_path)
    with pipeline_env(dirs), warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        from pipelines.definitions import defs
        from pipelines.defs.resources import PipelineSettings

        with dg.DagsterInstance.ephemeral() as instance:
            yield dirs, defs(), instance, PipelineSettings.from_env()


def tick(env, cursor):
    from pipelines.defs.automation import raw_files_sensor

    _, definitions, instance, settings = env
    context = dg.build_sensor_context(instance=instance, cursor=cursor, definitions=definitions,
                                      resources={"settings": settings})
    return raw_files_sensor(context)


def names(request: dg.RunRequest) -> set[str]:
    return {key.to_user_string() for key in request.asset_selection}


def settle(env) -> str:
    """The cursor after a first tick (which, on an empty instance, asks for everything)."""
    result = tick(env, None)
    assert len(result.run_requests) == 1
    assert result.cursor
    return result.cursor


def test_first_tick_on_an_empty_instance_builds_everything(env):
    result = tick(env, None)
    (request,) = result.run_requests
    _, definitions, _, _ = env
    graph = definitions.resolve_asset_graph()
    atlas = {k.to_user_string() for k in graph.get_all_asset_keys() if graph.get(k).group_name == "atlas"}
    executable = {k.to_user_string() for k in definitions.resolve_all_asset_keys()} - {"fetched_price_files"}
    # every staging, mart and report asset, and every raw observation; the atlas is off without MLPERF_DIR
    assert names(request) == executable - atlas - {"mlperf_corpus"}
    assert {c.name for c in request.asset_check_keys} == {
        "prices_are_valid_usd", "one_price_per_instance_and_date", "comparisons_are_covered"}


def test_no_change_requests_nothing_and_keeps_the_cursor(env):
    cursor = settle(env)
    result = tick(env, cursor)
    assert not result.run_requests
    assert result.cursor is None  # unchanged
    assert "no raw input changed" in result.skip_reason.skip_message


def test_cursor_holds_the_content_hash_of_each_raw_input(env):
    dirs = env[0]
    cursor = json.loads(settle(env))["hashes"]
    # by hand: the fingerprint of a folder is sha256 over "<name>\0<sha256 of bytes>\n" per file, by name
    lines = b"".join(name.encode() + b"\0" + hashlib.sha256((dirs.raw / "throughput" / name).read_bytes()).hexdigest().encode()
                     + b"\n" for name in ("example_workload.csv", "mlperf_logged_throughput.csv"))
    assert cursor["raw_throughput"] == hashlib.sha256(lines).hexdigest()[: len(cursor["raw_throughput"])]
    assert set(cursor) >= {"raw_prices", "raw_results", "raw_systems", "raw_mlperf", "raw_report_config"}


def test_changed_price_file_requests_prices_and_downstream_only(env):
    dirs = env[0]
    cursor = settle(env)
    path = dirs.raw / "prices" / "on_demand_2025-06-01.csv"
    path.write_text(path.read_text().replace("21.957642", "20.5"))
    result = tick(env, cursor)
    (request,) = result.run_requests
    # with the raw observations it reads: the catalog offers read the alias table beside accelerators.csv,
    # and the instance catalog and the mappings derived from it are rebuilt with them
    # (and the day, which the staging readers check dates against)
    assert names(request) == PRICE_RUN | {"raw_prices", "raw_accelerator_aliases", "raw_instances", "raw_mappings",
                                          "today"}
    assert not names(request) & MLPERF_AND_RESULTS
    # the coverage check reads stg_prices, so it runs (and blocks) in a price run
    assert {c.name for c in request.asset_check_keys} == {
        "prices_are_valid_usd", "one_price_per_instance_and_date", "comparisons_are_covered"}
    assert request.tags["pipelines/raw_changed"] == "raw_prices"
    # the same change seen again from the same cursor has the same run key: Dagster runs it once
    again = tick(env, cursor)
    assert again.run_requests[0].run_key == request.run_key
    # and from the new cursor it is no change at all
    assert not tick(env, result.cursor).run_requests


def test_touched_file_with_same_content_is_not_a_change(env):
    dirs = env[0]
    cursor = settle(env)
    later = time.time() + 3600
    for path in (dirs.raw / "prices").iterdir():
        os.utime(path, (later, later))
    (dirs.raw / "report.toml").write_bytes((dirs.raw / "report.toml").read_bytes())  # rewritten, same bytes
    result = tick(env, cursor)
    assert not result.run_requests
    assert result.cursor is None


def test_new_price_file_requests_a_run_with_a_key_from_the_hashes(env):
    dirs = env[0]
    cursor = settle(env)
    new = dirs.raw / "prices" / "on_demand_2026-01-01.csv"
    new.write_text("provider,region,instance_type,usd_per_hour,as_of,source\n"
                   "aws,us-east-1,p3.16xlarge,20.00,2026-01-01,test snapshot\n")
    (request,) = tick(env, cursor).run_requests
    assert "stg_prices" in names(request) and not names(request) & MLPERF_AND_RESULTS
    # other bytes, other key
    new.write_text(new.read_text().replace("20.00", "19.00"))
    (other,) = tick(env, cursor).run_requests
    assert other.run_key != request.run_key


def test_a_new_catalog_folder_requests_the_catalog_offers_and_the_report(env):
    dirs = env[0]
    cursor = settle(env)
    new = dirs.raw / "prices" / "skypilot_2026-12-05" / "lambda" / "vms.csv"
    new.parent.mkdir(parents=True)
    new.write_bytes((dirs.raw / "prices" / "skypilot_2026-12-04" / "lambda" / "vms.csv").read_bytes())
    (request,) = tick(env, cursor).run_requests
    assert {"stg_catalog_offers", "stg_instances", "stg_prices", "published_report"} <= names(request)
    assert request.tags["pipelines/raw_changed"] == "raw_prices"
    # a changed row of a catalog already there is a change too
    cursor = tick(env, cursor).cursor
    old = dirs.raw / "prices" / "skypilot_2026-12-04" / "nebius" / "vms.csv"
    old.write_text(old.read_text().replace("23.60", "22.90"))
    (changed,) = tick(env, cursor).run_requests
    assert "stg_catalog_offers" in names(changed)


def test_deleted_file_is_a_change(env):
    dirs = env[0]
    cursor = settle(env)
    (dirs.raw / "prices" / "on_demand_2024-01-01.csv").unlink()
    (request,) = tick(env, cursor).run_requests
    assert "stg_prices" in names(request) and not names(request) & MLPERF_AND_RESULTS


def test_change_in_results_rebuilds_results_not_prices(env):
    dirs = env[0]
    cursor = settle(env)
    path = dirs.raw / "results" / "mlperf_training_v1.0_summary.csv"
    path.write_bytes(path.read_bytes() + b"\n")
    (request,) = tick(env, cursor).run_requests
    got = names(request)
    assert {"stg_results", "time_to_train", "cost_to_train", "published_report"} <= got
    assert not got & {"stg_prices", "stg_systems", "stg_instances", "stg_mappings", "price_history"}
    assert request.tags["pipelines/raw_changed"] == "raw_results"


def test_two_folders_changed_give_one_run(env):
    dirs = env[0]
    cursor = settle(env)
    (dirs.raw / "prices" / "on_demand_2024-01-01.csv").unlink()
    (dirs.raw / "systems" / "gpu-v100-8-TF2.0.json").unlink()
    result = tick(env, cursor)
    (request,) = result.run_requests
    assert {"stg_prices", "stg_systems"} <= names(request)
    assert request.tags["pipelines/raw_changed"] == "raw_prices,raw_systems"


def test_unreadable_cursor_starts_over(env):
    result = tick(env, "not json")
    assert len(result.run_requests) == 1
    assert json.loads(result.cursor)["v"] == 1


def test_daily_schedule_fetches_first_then_builds_everything(env):
    from pipelines.defs.automation import daily_report_schedule

    _, definitions, instance, settings = env
    context = dg.build_schedule_context(instance=instance, repository_def=definitions.get_repository_def(),
                                        scheduled_execution_time=datetime(2026, 1, 2, 6), resources={"settings": settings})
    requests = list(daily_report_schedule(context))
    assert [r.run_key for r in requests] == ["fetch-2026-01-02", "report-2026-01-02"]
    assert names(requests[0]) == {"fetched_price_files"}
    assert {"stg_prices", "stg_results", "published_report"} <= names(requests[1])
    assert "fetched_price_files" not in names(requests[1])


def test_sensors_and_schedule_start_running():
    from pipelines.defs import automation

    assert automation.raw_files_sensor.default_status == dg.DefaultSensorStatus.RUNNING
    assert automation.regenerate_automation.default_status == dg.DefaultSensorStatus.RUNNING
    assert automation.daily_report_schedule.default_status == dg.DefaultScheduleStatus.RUNNING
