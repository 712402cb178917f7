"""The one command line: `python -m pipelines.cli` and its commands.

--help must be enough to use it: every command, every option and every setting with its default.
The commands run for real (the report and the atlas in tests/test_data_sets.py,
tests/test_bad_inputs.py and tests/test_atlas_e2e.py, the UI in tests/test_ui_smoke.py); here the
price fetch against a local server and the errors a newcomer meets first.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.cli import parser
from pipelines.config import SETTINGS, today
from tests.pipeline_runner import REPO
from pipelines.ingest.price_fetch import spot_history_message
from tests.test_prices_fetch import KEY, closed_port, server  # noqa: F401 (fixtures)

COMMANDS = [["report"], ["atlas"], ["prices", "fetch"], ["ui"], ["clean"]]


def run(*args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env or dict(os.environ), capture_output=True,
                          text=True, timeout=timeout)


def subparser(path: list[str]) -> argparse.ArgumentParser:
    found = parser()
    for name in path:
        (choices,) = [a.choices for a in found._actions if isinstance(a, argparse._SubParsersAction)]
        found = choices[name]
    return found


def flat(text: str) -> str:
    return " ".join(text.split())


def test_top_help_lists_every_command_and_every_setting_with_its_default():
    done = run("-m", "pipelines.cli", "--help")
    assert done.returncode == 0 and not done.stderr
    text = done.stdout
    for command in ("report", "atlas", "prices", "ui", "clean"):
        assert re.search(rf"^    {command}\s+\S", text, re.M), command
    assert "prices fetch" in text
    for setting in SETTINGS:
        assert re.search(rf"^  {setting.name}\s", text, re.M), setting.name
        assert flat(f"default: {setting.default}") in flat(text), setting.name


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_each_command_help_lists_its_options_and_settings(path):
    done = run("-m", "pipelines.cli", *path, "--help")
    assert done.returncode == 0 and not done.stderr
    text = flat(done.stdout)
    for action in subparser(path)._actions:
        for option in action.option_strings:
            assert option in text, option
        if action.help and action.help != argparse.SUPPRESS:
            assert flat(action.help) in text
    assert "settings (environment variables):" in text
    named = [s for s in SETTINGS if re.search(rf"(^|\n)  {s.name}\s", done.stdout)]
    assert named, "no setting listed"
    for setting in named:
        assert flat(f"default: {setting.default}") in text and flat(setting.meaning) in text


def test_help_names_where_things_go_now_and_keeps_secrets_out(tmp_path):
    env = {**os.environ, "RAW_DIR": str(tmp_path / "my-data"), "GCP_API_KEY": "a-secret-value"}
    for name in ("REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME"):
        env.pop(name, None)
    text = run("-m", "pipelines.cli", "--help", env=env).stdout
    assert f"now: {tmp_path / 'my-data' / 'reports'}" in text
    assert f"now: {tmp_path / 'my-data' / '.dagster_home'}" in text
    assert "a-secret-value" not in text and re.search(r"GCP_API_KEY(.|\n)*?now: set", text)


def test_a_misspelled_command_names_the_one_meant():
    done = run("-m", "pipelines.cli", "reprot")
    assert done.returncode == 2 and "invalid choice: 'reprot'" in done.stderr
    assert done.stderr.rstrip().endswith("; did you mean 'report'?")
    done = run("-m", "pipelines.cli", "prices", "fetchh")
    assert done.returncode == 2 and done.stderr.rstrip().endswith("; did you mean 'fetch'?")
    done = run("-m", "pipelines.cli", "xyzzy")
    assert done.returncode == 2 and "did you mean" not in done.stderr  # no near miss, no guess


def test_help_is_quick_and_needs_no_dagster():
    done = run("-c", "import sys; from pipelines.cli import parser; parser().format_help(); "
                     "print(sorted(m for m in ('dagster', 'polars', 'duckdb') if m in sys.modules))")
    assert done.stdout.strip() == "[]", done.stderr


def test_the_atlas_command_is_whole():
    cli = run("-m", "pipelines.cli", "atlas", "--help").stdout
    # the description says everything it starts to say (it was cut after its first line)
    assert flat("with REPORTS_DIR/atlas/latest pointing at the newest.") in flat(cli)


def test_a_command_is_required_and_wrong_ones_are_named():
    done = run("-m", "pipelines.cli")
    assert done.returncode == 2 and "COMMAND" in done.stderr
    done = run("-m", "pipelines.cli", "reprot")
    assert done.returncode == 2 and "invalid choice: 'reprot'" in done.stderr


def test_atlas_without_mlperf_dir_says_how_to_give_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "MLPERF_DIR"}
    done = run("-m", "pipelines.cli", "atlas", env=env)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: MLPERF_DIR is not set")
    assert "--mlperf-dir <folder>" in done.stderr and "MLPERF_DIR=<folder>" in done.stderr


def fetch_env(tmp_path: Path, **extra: str) -> dict:
    """The big three only (the catalogs' fetch has its own tests: tests/test_prices_fetch_catalogs.py)."""
    env = {**os.environ, "RAW_DIR": str(tmp_path / "raw"), "DAGSTER_HOME": str(tmp_path / "home"),
           "PRICE_SOURCES": "aws,azure,gcp", **extra}
    env.pop("GCP_API_KEY", None)
    return env | extra


@pytest.mark.slow
def test_prices_fetch_saves_todays_snapshots_and_records_the_run(tmp_path, server):  # noqa: F811
    urls = ["--aws-url", server.aws, "--azure-url", server.azure, "--gcp-url", server.gcp,
            "--aws-spot-advisor-url", server.aws_spot_advisor]
    done = run("-m", "pipelines.cli", "prices", "fetch", *urls, env=fetch_env(tmp_path, GCP_API_KEY=KEY))
    assert done.returncode == 0, done.stderr
    day = today().isoformat()
    folder = tmp_path / "raw" / "prices"
    names = [f"aws-us-east-1-{day}.csv", f"aws-savings-plans-us-east-1-{day}.csv", f"aws-spot-advisor-{day}.json",
             f"azure-eastus-{day}.json", f"gcp-us-central1-{day}.json"]  # source by source
    skipped = f"skipped: {spot_history_message('us-east-1')}"  # spot history needs AWS credentials
    assert done.stdout.splitlines() == [f"saved:   {folder / name}" for name in names] + [skipped]
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)

    # again: nothing overwritten (GCP's file is there, so the missing key does not matter)
    done = run("-m", "pipelines.cli", "prices", "fetch", *urls, env=fetch_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"kept:    {folder / name} (already there; a snapshot is never overwritten)" for name in names] + [skipped]

    # both runs are in the data set's instance, as fetch_prices_job runs
    import dagster as dg

    os.environ["DAGSTER_HOME"], saved = str(tmp_path / "home"), os.environ.get("DAGSTER_HOME")
    try:
        with dg.DagsterInstance.get() as instance:
            runs = instance.get_runs()
    finally:
        os.environ.pop("DAGSTER_HOME") if saved is None else os.environ.update(DAGSTER_HOME=saved)
    assert [(r.job_name, r.status) for r in runs] == [("fetch_prices_job", dg.DagsterRunStatus.SUCCESS)] * 2


@pytest.mark.slow
def test_prices_fetch_offline_ends_with_one_line(tmp_path, closed_port):  # noqa: F811
    done = run("-m", "pipelines.cli", "prices", "fetch", "--aws-url", closed_port, "--azure-url", closed_port,
               "--gcp-url", closed_port, "--timeout", "5", env=fetch_env(tmp_path))
    assert done.returncode == 1 and not done.stdout
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("error: fetching today's price lists failed: ") and "aws us-east-1" in done.stderr
    assert not list((tmp_path / "raw" / "prices").iterdir())


def test_readme_names_every_command_and_setting():
    readme = (REPO / "README.md").read_text()
    for path in COMMANDS:
        assert f"python -m pipelines.cli {' '.join(path)}" in readme, path
    for setting in SETTINGS:
        assert f"`{setting.name}`" in readme, setting.name
    assert "make clean-venv" in readme and "GCP_API_KEY" in readme and "fetch_prices_job" in readme


def _readme_block(readme: str, heading: str) -> str:
    part = readme[readme.index(heading):]
    start = part.index("```sh\n") + 6
    return part[start:part.index("\n```", start)].replace("make report", "make --no-print-directory -o venv report")


@pytest.mark.slow
def test_the_readme_walkthrough_for_your_own_data_then_your_own_workload_works(tmp_path):
    """README's "Your own data" block, run as written (HOME is a temporary folder; `make -o venv`: the environment
    is ready), gives the report and the figures README states; its "Your own workload" block, run after it as it
    says, too (worked by hand there: 115,305,030 / 18,740 samples/s = 102.5 min at 21.957642 USD/h)."""
    import polars as pl

    readme = (REPO / "README.md").read_text()
    env = {k: v for k, v in os.environ.items() if k not in ("RAW_DIR", "REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME")}

    def run(heading: str) -> subprocess.CompletedProcess:
        block = _readme_block(readme, heading)
        assert block.rstrip().endswith("RAW_DIR=~/my-data make --no-print-directory -o venv report")
        done = subprocess.run(["bash", "-euc", block], cwd=REPO, env=env | {"HOME": str(tmp_path)},
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    done = run("## 3. Your data")
    published = tmp_path / "my-data" / "reports" / "2025-06-01"
    assert f"report: {published / 'report.html'}" in done.stdout
    rows = {r["instance_type"]: r for r in pl.read_csv(published / "data" / "cost_to_train.csv").iter_rows(named=True)}
    # README: p4d $10.53 (21.957642 USD/h x 28.8 min), 63.8% less than p3.16xlarge's $29.08
    assert round(rows["p4d.24xlarge"]["cost_to_train_usd"], 2) == 10.53
    assert round(rows["p4d.24xlarge"]["time_to_train_minutes"], 1) == 28.8
    assert round(rows["p3.16xlarge"]["cost_to_train_usd"], 2) == 29.08
    assert round(rows["p4d.24xlarge"]["savings_pct"], 1) == 63.8
    own_data = readme[readme.index("## 3. Your data"):]
    for claim in ("$10.53", "21.957642 USD/h x 28.8 min", "63.8% less", "$29.08"):
        assert claim in own_data, claim

    run("### Your own workload")
    cost = pl.read_csv(published / "data" / "cost_to_train.csv")
    rows = {r["instance_type"]: r for r in cost.filter((pl.col("comparison") == "ourmodel")
                                                       & (pl.col("pricing_option") == "on_demand")).iter_rows(named=True)}
    p4d = rows["p4d.24xlarge"]
    assert round(p4d["time_to_train_minutes"], 1) == 102.5
    assert round(p4d["cost_to_train_usd"], 2) == 37.53
    assert round(p4d["samples_per_dollar"] / 1e6, 2) == 3.07
    assert round(p4d["relative_value"], 2) == 2.54
    assert round(p4d["monthly_cost_usd"], 2) == 150.11
    own = readme[readme.index("### Your own workload"):]
    for claim in ("102.5 min", "$37.53", "3.07 M samples per dollar", "2.54x the value", "$150.11 a month"):
        assert claim in own, claim
