"""One rule for what runs: `make report` (pipelines/freshness.plan: observe, then Dagster's stale status) and the
daemon (raw_files_sensor's tick, then regenerate_automation's evaluation: tests/automation_runner.py) see the same
changes and rebuild the same assets, including after a change Dagster could not see before: the warehouse file or
the published folder gone (defs/outputs.py: observed like the raw inputs, their generation goes up when one is lost).
And an error put right is cleared by the next run: no asset stays failed (red in the UI) once a run succeeded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import pytest

from pipelines.cli import UP_TO_DATE
from tests.automation_runner import evaluate, requested, tick
from tests.pipeline_runner import environment
from tests.test_refused_after_a_good_build import _env, good_build  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slow


def make_report_plan(definitions, instance, settings):
    """What `make report` would build now and why (pipelines/cli.run_report's plan, without the run)."""
    from pipelines.freshness import plan

    graph = definitions.resolve_asset_graph()
    keys = sorted(definitions.resolve_job_def("report_job").asset_layer.executable_asset_keys, key=str)
    return plan(instance, graph, settings, keys)


def built(plan) -> set[str]:
    return {key.to_user_string() for key in plan.build}


def daemon_requests(definitions, instance, settings, cursor) -> set[str]:
    """What the daemon would build now: the sensor's tick, then automation's evaluation (its assets, not checks)."""
    tick(definitions, instance, settings)
    return {name for name in requested(evaluate(definitions, instance, cursor)) if ":" not in name}


def lose_warehouse(dirs) -> None:
    dirs.warehouse.unlink()


def lose_published_folder(dirs) -> None:
    shutil.rmtree((dirs.reports / "latest").resolve())


@pytest.mark.parametrize("lose", [lose_warehouse, lose_published_folder], ids=["warehouse", "published folder"])
def test_a_lost_output_makes_the_same_assets_stale_for_make_report_and_the_daemon(automated, lose):
    dirs, definitions, instance, settings, cursor = automated  # built by the daemon's path
    assert daemon_requests(definitions, instance, settings, cursor) == set()
    assert built(make_report_plan(definitions, instance, settings)) == set()  # the daemon's build: up to date for both
    lose(dirs)
    plan = make_report_plan(definitions, instance, settings)  # observes first, as `make report` does
    cli = built(plan)
    daemon = daemon_requests(definitions, instance, settings, cursor)  # the same observations, automation's rule
    assert daemon == cli
    graph = definitions.resolve_asset_graph()
    report = {key.to_user_string() for key in definitions.resolve_job_def("report_job").asset_layer.executable_asset_keys
              if graph.get(key).is_materializable}
    documents = {"report_html", "report_pdf", "report_data", "published_report"}
    assert cli == (report if lose is lose_warehouse else documents)
    assert plan.why == (f"the warehouse {dirs.warehouse} is missing" if lose is lose_warehouse
                        else "the published folder is gone or was replaced")
    # Dagster says why, as the UI shows it: a new data version of the lost output
    from pipelines.dagster_internals import stale_causes

    name, asset = ("warehouse", "stg_prices") if lose is lose_warehouse else ("published_report_folder", "report_html")
    assert ("has a new dependency data version", name) in stale_causes(instance, graph, dg.AssetKey(asset))


def currently_failed(raw: Path) -> set[str]:
    """The assets the UI shows as failed, as its GraphQL answers them (dagster_graphql's materialization status):
    the latest run that planned the asset (its asset record's last_run_id) failed and did not materialize it."""
    from pipelines.config import Paths

    with environment(_env(raw)):
        home = Paths.from_env().dagster_home
    with environment({"DAGSTER_HOME": str(home)}), dg.DagsterInstance.get() as instance:
        failed = set()
        for record in instance.get_asset_records():
            entry = record.asset_entry
            if entry.last_run_id is None or (entry.last_materialization is not None
                                             and entry.last_materialization.run_id == entry.last_run_id):
                continue
            run = instance.get_run_record_by_id(entry.last_run_id)
            if run.dagster_run.is_failure and (entry.last_materialization is None
                                               or entry.last_materialization.timestamp <= run.end_time):
                failed.add(entry.asset_key.to_user_string())
        return failed


def test_an_error_put_right_leaves_no_asset_failed(good_build, capsys):  # noqa: F811
    """report.toml broken after a good build: refused, and its readers shown failed. Put back as it was (the data
    version of their last good build, so Dagster calls them fresh): the next `make report` builds them again, and no
    asset is shown failed; the one after is up to date."""
    from pipelines.cli import main

    toml = good_build / "report.toml"
    good = toml.read_text(encoding="utf-8")
    toml.write_text(good.replace('title = "Small"', 'title = "Small'), encoding="utf-8")
    with environment(_env(good_build)):
        assert main(["report"]) == 2
    assert "stg_report_settings" in currently_failed(good_build)
    capsys.readouterr()

    toml.write_text(good, encoding="utf-8")
    with environment(_env(good_build)):
        assert main(["report"]) == 0
    out = capsys.readouterr().out
    assert UP_TO_DATE not in out and "failed on its latest run: " in out, out
    assert currently_failed(good_build) == set()
    with environment(_env(good_build)):
        assert main(["report"]) == 0
    assert UP_TO_DATE in capsys.readouterr().out
