"""raw_files_sensor observes, regenerate_automation decides: what a change of the raw inputs makes Dagster build.

The small data set (tests/small_raw.py) is built once per session through the daemon's own path
(tests/automation_runner.py: tick, evaluate, run, until automation asks for nothing); each test gets a copy of that
world (data set, warehouse, Dagster instance), changes something, ticks and evaluates. No run is executed after a
change here (test_automation_e2e.py does that): the assertions are on what Dagster requests.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from datetime import datetime
from pathlib import Path

import dagster as dg
import pytest

from tests.automation_runner import QUIET, evaluate, requested, small_world, tick

pytestmark = pytest.mark.slow

MLPERF_AND_RESULTS = {"stg_results", "stg_systems", "time_to_train", "stg_throughput", "stg_mlperf_runs",
                      "stg_mlperf_scores", "stg_comparisons"}
# prices/ holds the public catalogs too, whose offers are instances: a price change re-reads them and rebuilds
# the instance catalog and the mappings derived from it, with the market's price index and the input list
PRICE_STAGING = {"stg_prices", "stg_catalog_offers", "stg_instances", "stg_mappings", "catalog_unknown_accelerators",
                 "price_index", "input_files"}
CHECKS = {"stg_prices:prices_are_valid_usd", "stg_prices:one_price_per_instance_and_date",
          "stg_comparisons:comparisons_are_covered"}
# what reads the staging a price change rebuilds, built once its checks passed
PRICE_MARTS = {"price_history", "report_dates", "cost_to_train", "cheapest_offers", "cheapest_options", "price_changes",
               "cost_changes", "priced_offers", "model_estimates", "model_picks", "model_not_priced", "report_html",
               "report_pdf", "report_data", "published_report"}


def after_change(automated) -> set[str]:
    """Tick, then evaluate automation: what Dagster requests."""
    _, definitions, instance, settings, cursor = automated
    tick(definitions, instance, settings)
    return requested(evaluate(definitions, instance, cursor))


def test_the_first_build_waits_for_the_coverage_check(tmp_path):
    """On an empty instance: the first tick observes every input; automation requests every staging asset and the
    checks, and what reads stg_comparisons only once its blocking coverage check passed (the next tick: Dagster
    evaluates that check, which reads most of the staging, after the marts)."""
    with small_world(tmp_path) as (_, definitions, instance, settings):
        before = evaluate(definitions, instance)
        assert not before.total_requested  # nothing observed yet: every input is missing
        observed = tick(definitions, instance, settings).skip_reason.skip_message
        assert "raw_prices" in observed and "today" in observed
        first = requested(evaluate(definitions, instance, before.cursor))
    graph = definitions.resolve_asset_graph()
    staging = {k.to_user_string() for k in graph.get_all_asset_keys() if graph.get(k).group_name == "staging"}
    assert staging <= first and CHECKS <= first
    assert not first & {"report_dates", "cost_to_train", "report_html", "report_pdf", "published_report"}


def test_no_change_records_nothing_and_requests_nothing(automated):
    _, definitions, instance, settings, cursor = automated
    result = tick(definitions, instance, settings)
    assert not result.run_requests
    assert "no raw input changed" in result.skip_reason.skip_message
    assert not evaluate(definitions, instance, cursor).total_requested


def test_the_observed_version_is_the_content_hash(automated):
    dirs, _, instance, _, _ = automated
    record = instance.get_latest_data_version_record(dg.AssetKey("raw_throughput"), is_source=True)
    version = record.asset_observation.data_version
    # by hand: the fingerprint of a folder is sha256 over "<name>\0<sha256 of bytes>\n" per file, by name
    lines = b"".join(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n"
                     for path in sorted((dirs.raw / "throughput").iterdir()))
    assert version == hashlib.sha256(lines).hexdigest()[: len(version)]


def test_a_changed_price_requests_the_price_staging_and_its_checks_only(automated):
    dirs, definitions, instance, settings, cursor = automated
    path = dirs.raw / "prices" / "p2.csv"
    path.write_text(path.read_text().replace("aws,us-east-1,big.8x,", "aws,us-east-1,big.8x,1", 1))
    assert "raw_prices" in tick(definitions, instance, settings).skip_reason.skip_message
    first = evaluate(definitions, instance, cursor)
    assert requested(first) == PRICE_STAGING | CHECKS | PRICE_MARTS
    assert not requested(first) & MLPERF_AND_RESULTS
    # what the benchmark times as the daemon's price run (bench/pipeline_bench.py) is this request
    from pipelines.defs.regeneration import regeneration, staging_readers

    graph = definitions.resolve_asset_graph()
    assets, checks = regeneration(graph, staging_readers(graph, ["raw_prices"]))
    assert requested(first) == {k.to_user_string() for k in assets if graph.get(k).is_materializable} \
        | {c.to_user_string() for c in checks}
    # the same change evaluated again from the new cursor is not requested twice
    assert not evaluate(definitions, instance, first.cursor).total_requested


def test_a_change_right_after_a_run_still_rebuilds_everything_it_feeds(automated):
    """A run ends (here the report's, as a run the daemon started before, or `make report`) and a price file
    changes before automation's next evaluation: that evaluation sees the report's documents updated and their
    inputs about to be rebuilt at once. The documents go in the same run as the HTML they are laid out from (the
    PDF and the publishing step read the run's own build folder): Dagster's since_last_handled() counts their own
    update as handling the rebuild requested in the same tick, the daemon then left them out (seen in CI), and a
    second run failed on a missing report.html."""
    dirs, definitions, instance, settings, cursor = automated
    report = ["report_html", "report_pdf", "report_data", "published_report"]
    job = definitions.resolve_implicit_global_asset_job_def().get_subset(
        asset_selection={dg.AssetKey(name) for name in report})
    assert job.execute_in_process(instance=instance, run_config=QUIET, raise_on_error=False).success
    (dirs.raw / "prices" / "on_demand_2024-09-01.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        "aws,us-east-1,small.8x,18.00,2024-09-01,test snapshot\n")
    assert after_change(automated) == PRICE_STAGING | CHECKS | PRICE_MARTS


def test_a_touched_file_with_the_same_bytes_is_no_change(automated):
    dirs, definitions, instance, settings, cursor = automated
    later = time.time() + 3600
    for path in (dirs.raw / "prices").iterdir():
        os.utime(path, (later, later))
    (dirs.raw / "report.toml").write_bytes((dirs.raw / "report.toml").read_bytes())
    assert "no raw input changed" in tick(definitions, instance, settings).skip_reason.skip_message
    assert not evaluate(definitions, instance, cursor).total_requested


def test_a_new_price_file_is_a_change(automated):
    dirs = automated[0]
    (dirs.raw / "prices" / "on_demand_2024-09-01.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        "aws,us-east-1,small.8x,18.00,2024-09-01,test snapshot\n")
    assert after_change(automated) == PRICE_STAGING | CHECKS | PRICE_MARTS


def test_a_deleted_price_file_is_a_change(automated):
    dirs = automated[0]
    (dirs.raw / "prices" / "p1.csv").unlink()
    assert after_change(automated) == PRICE_STAGING | CHECKS | PRICE_MARTS


def test_a_new_catalog_folder_is_a_price_change(automated):
    dirs = automated[0]
    folder = dirs.raw / "prices" / "skypilot_2024-05-01" / "lambda"
    folder.mkdir(parents=True)
    shutil.copy(Path(__file__).resolve().parents[1] / "raw" / "prices" / "skypilot_2026-12-04" / "lambda" / "vms.csv",
                folder / "vms.csv")
    assert {"stg_catalog_offers", "stg_instances", "stg_prices"} <= after_change(automated)


def test_a_change_in_results_rebuilds_results_not_prices(automated):
    dirs = automated[0]
    path = dirs.raw / "results" / "summary.csv"
    path.write_bytes(path.read_bytes() + b"\n")
    got = after_change(automated)
    assert "stg_results" in got and "stg_comparisons:comparisons_are_covered" in got
    assert not got & {"stg_prices", "stg_systems", "stg_instances", "stg_mappings", "price_history"}


def test_two_folders_changed_give_one_request(automated):
    dirs = automated[0]
    (dirs.raw / "prices" / "p1.csv").unlink()
    (dirs.raw / "systems" / "sysB.json").write_text((dirs.raw / "systems" / "sysB.json").read_text() + "\n")
    got = after_change(automated)
    assert {"stg_prices", "stg_systems"} <= got


def test_a_new_day_rebuilds_what_reads_the_day(automated, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(datetime(2030, 1, 2).timestamp())))
    got = after_change(automated)
    graph = automated[1].resolve_asset_graph()
    staging = {k.to_user_string() for k in graph.get(dg.AssetKey("today")).child_keys
               if graph.get(k).group_name == "staging"}
    assert len(staging) > 10 and staging <= got


def test_a_new_code_version_rebuilds_that_asset(automated):
    _, definitions, instance, settings, cursor = automated
    tick(definitions, instance, settings)
    assert not evaluate(definitions, instance, cursor).total_requested
    edited = definitions.permissive_map_resolved_asset_specs(
        func=lambda spec: spec.replace_attributes(code_version="edited"), selection=dg.AssetSelection.assets("stg_pue"))
    got = requested(evaluate(edited, instance, cursor))
    assert "stg_pue" in got and "stg_prices" not in got


def test_the_daily_schedule_only_fetches(automated):
    """The fetch alone, at 06:00 UTC: the sensor then observes the new files and automation builds."""
    from pipelines.defs.automation import daily_report_schedule

    definitions = automated[1]
    assert daily_report_schedule.cron_schedule == "0 6 * * *"
    job = definitions.get_repository_def().get_job(daily_report_schedule.job_name)
    assert {k.to_user_string() for k in job.asset_layer.selected_asset_keys} == {"fetched_price_files"}


def test_sensors_and_schedule_start_running():
    from pipelines.defs import automation

    assert automation.raw_files_sensor.default_status == dg.DefaultSensorStatus.RUNNING
    assert automation.regenerate_automation.default_status == dg.DefaultSensorStatus.RUNNING
    assert automation.daily_report_schedule.default_status == dg.DefaultScheduleStatus.RUNNING
