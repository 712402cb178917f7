"""End to end: a new price snapshot, one sensor tick (it observes), automation's evaluation, the run it requests
executed in process as the daemon would (tests/automation_runner.py).

Real pieces throughout: a data set on disk (the tests' small one, tests/small_raw.py: what automation requests
does not depend on the data's size), a DuckDB file, a Dagster instance on disk with the project's dagster.yaml, the
real WeasyPrint PDF.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from tests.automation_runner import QUIET, evaluate, execute, requested, settle, small_world, tick
from tests.small_raw import PRICE_DATE as FIRST_DATE, write_small_raw

pytestmark = pytest.mark.slow

# (prices/ holds the GPU clouds' catalogs too, whose offers are instances: a price run rebuilds stg_instances
# and the mappings derived from it)
NOT_IN_A_PRICE_RUN = {"stg_results", "stg_systems", "time_to_train", "stg_throughput", "stg_mlperf_runs",
                      "stg_mlperf_scores", "stg_comparisons"}


def materialized(result) -> set[str]:
    return {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def world(tmp_path):
    """Each test's own: the small data set, no warehouse, an empty instance on disk with the project's
    dagster.yaml."""
    with small_world(tmp_path) as world:
        yield world


def test_new_price_snapshot_regenerates_only_what_prices_feed(world):
    dirs, definitions, instance, settings = world

    # 1. An empty instance: the first tick observes every input, automation builds everything (the marts behind the
    #    coverage check once it passed, in a second run); it publishes the report of FIRST_DATE.
    cursor, runs = settle(definitions, instance, settings)
    assert len(runs) == 2 and all(run.success for run in runs)
    assert {"stg_results", "stg_prices", "time_to_train"} <= materialized(runs[0])
    assert {"report_dates", "cost_to_train", "published_report"} <= materialized(runs[1])
    before = tree_bytes(dirs.reports / FIRST_DATE)
    assert "report.html" in before and "report.pdf" in before
    results_record = instance.fetch_materializations(dg.AssetKey("stg_results"), limit=1).records[0]

    # 2. Nothing changed: nothing observed, nothing requested.
    assert "no raw input changed" in tick(definitions, instance, settings).skip_reason.skip_message
    assert not evaluate(definitions, instance, cursor).total_requested

    # 3. A new snapshot: the baseline small.8x from 20.00 to 18.00 USD/h on 2024-09-01: one run.
    (dirs.raw / "prices" / "on_demand_2024-09-01.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        "aws,us-east-1,small.8x,18.00,2024-09-01,list C (test snapshot)\n")
    assert "raw_prices" in tick(definitions, instance, settings).skip_reason.skip_message
    result = evaluate(definitions, instance, cursor)
    run = execute(definitions, instance, result)
    assert run.success

    # only prices and what they feed were rebuilt
    done = materialized(run)
    assert {"stg_prices", "price_history", "report_dates", "cost_to_train", "report_html", "report_pdf",
            "published_report"} <= done
    assert not done & NOT_IN_A_PRICE_RUN
    assert instance.fetch_materializations(dg.AssetKey("stg_results"), limit=1).records[0].storage_id \
        == results_record.storage_id
    # the staging table recorded the data version it read: the one observed (lineage in the UI)
    stg_prices = instance.fetch_materializations(dg.AssetKey("stg_prices"), limit=1).records[0]
    observed = instance.get_latest_data_version_record(dg.AssetKey("raw_prices"), is_source=True)
    assert stg_prices.asset_materialization.tags["dagster/input_data_version/raw_prices"] \
        == observed.asset_observation.data_version

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

    # 4. The change is consumed: the next tick observes nothing new, and automation does not run it again
    #    (every asset the update reached was in the run that made it).
    assert "no raw input changed" in tick(definitions, instance, settings).skip_reason.skip_message
    assert not evaluate(definitions, instance, result.cursor).total_requested


def test_automation_carries_a_partial_run_and_respects_blocking_checks(automated):
    dirs, definitions, instance, settings, cursor = automated  # everything built, as by the daemon
    job = definitions.resolve_implicit_global_asset_job_def()
    checks = {c for c in definitions.resolve_asset_graph().asset_check_keys}

    # stg_results rebuilt alone (as from the UI): automation takes it to the report
    alone = job.get_subset(asset_selection={dg.AssetKey("raw_results"), dg.AssetKey("stg_results")})
    assert alone.execute_in_process(instance=instance, run_config=QUIET).success
    result = evaluate(definitions, instance, cursor)
    got = requested(result)
    assert {"time_to_train", "cost_to_train", "report_html", "report_pdf", "published_report"} <= got
    assert not got & {"stg_prices", "stg_results", "stg_systems", "price_history"}
    cursor = result.cursor

    # stg_prices rebuilt alone with the baseline small.8x's price gone: the coverage check (blocking) fails, so
    # nothing builds report_dates or the report on it (eager() alone would)
    for f in (dirs.raw / "prices").glob("*.csv"):
        f.write_text("\n".join(line for line in f.read_text().splitlines() if ",small.8x," not in line) + "\n")
    bad = job.get_subset(asset_selection={dg.AssetKey("raw_prices"), dg.AssetKey("raw_instances"),
                                          dg.AssetKey("stg_prices")}, asset_check_selection=checks)
    run = bad.execute_in_process(instance=instance, run_config=QUIET, raise_on_error=False)
    failed = [e.event_specific_data.check_name for e in run.all_events
              if e.event_type_value == "ASSET_CHECK_EVALUATION" and not e.event_specific_data.passed]
    assert failed == ["comparisons_are_covered"]
    result = evaluate(definitions, instance, cursor)
    # what reads the new stg_prices is rebuilt with the coverage check in one run; the check fails there again and
    # stops the run before what reads stg_comparisons
    run = execute(definitions, instance, result)
    assert not run.success and "stg_comparisons:comparisons_are_covered" in requested(result)
    assert not materialized(run) & {"report_dates", "cost_to_train", "report_html", "published_report"}
    result = evaluate(definitions, instance, result.cursor)
    assert not result.total_requested  # no retry of the same failure

    # the price put back: the sensor observes it, and automation builds the price staging, its checks and the report
    # in one run (the coverage check's last result failed, so what reads stg_comparisons waits for it to pass)
    for f in (dirs.raw / "prices").glob("*.csv"):
        f.unlink()
    write_small_raw(dirs.raw / "fresh")
    for f in (dirs.raw / "fresh" / "prices").glob("*.csv"):
        f.rename(dirs.raw / "prices" / f.name)
    shutil.rmtree(dirs.raw / "fresh")
    cursor, runs = settle(definitions, instance, settings, result.cursor)
    assert runs and all(run.success for run in runs)
    assert "published_report" in set().union(*(materialized(run) for run in runs))


def test_a_mapping_to_an_unknown_system_runs_the_check_that_reads_it_and_stops_the_report(automated):
    """mappings.csv is read by stg_mappings and, through its additional dependencies only, by stg_comparisons'
    blocking coverage check. The daemon's path requests that check with what the new mappings feed; it fails in
    that run and stops what reads stg_comparisons, so the report is not rebuilt on the bad mapping (the command
    line's path: tests/test_refused_after_a_good_build.py)."""
    dirs, definitions, instance, settings, cursor = automated
    path = dirs.raw / "mappings.csv"
    path.write_text(path.read_text().replace("aws,big.8x,resnet,sysA", "aws,big.8x,resnet,no_such_system"))
    assert "raw_mappings" in tick(definitions, instance, settings).skip_reason.skip_message
    result = evaluate(definitions, instance, cursor)
    got = requested(result)
    assert {"stg_mappings", "stg_comparisons:comparisons_are_covered"} <= got and "stg_comparisons" not in got
    run = execute(definitions, instance, result)
    failed = [e.event_specific_data for e in run.all_events
              if e.event_type_value == "ASSET_CHECK_EVALUATION" and not e.event_specific_data.passed]
    assert [f.check_name for f in failed] == ["comparisons_are_covered"]
    assert "mappings.csv:2 column system: unknown system 'no_such_system'" in failed[0].description
    assert not run.success and not materialized(run) & {"cost_to_train", "report_html", "published_report"}
    assert not evaluate(definitions, instance, result.cursor).total_requested  # no retry of the same failure
