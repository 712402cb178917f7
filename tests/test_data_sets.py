"""One data set's reports never replace another's: its outputs follow RAW_DIR unless they are set.

README's own example once did it: `RAW_DIR=~/my-data make report` replaced the bundled data's
dated report and retitled index.html, because every data set published into the repo's reports/.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from pipelines.config import BUNDLED_HOME, BUNDLED_RAW, REPO_ROOT, Paths, bundled_home, remember
from tests.checkout_state import CHECKOUT_STATE
from tests.pipeline_runner import cli_in_process, environment
from tests.small_raw import write_small_raw

OUTPUTS = ("RAW_DIR", "REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "MLPERF_DIR", "ATLAS_ROUNDS_DIR")


@pytest.fixture
def no_settings(monkeypatch):
    for name in OUTPUTS:
        monkeypatch.delenv(name, raising=False)


def test_the_bundled_data_keeps_the_repo_layout(no_settings, monkeypatch):
    monkeypatch.delenv(BUNDLED_HOME)  # as for every user: the tests' own home of the bundled data (conftest.py) gone
    monkeypatch.setenv("MLPERF_DIR", "/data/mlperf")  # set, so that the checkout's remembered one is not read
    expected = Paths(BUNDLED_RAW, REPO_ROOT / "reports", REPO_ROOT / "warehouse" / "pipeline.duckdb",
                     REPO_ROOT / ".dagster_home", Path("/data/mlperf"),
                     atlas_rounds_dir=str(REPO_ROOT / "warehouse" / "atlas_rounds"))
    assert Paths.from_env() == expected
    # what the session guards (tests/checkout_state.py) holds every output of the bundled data in the checkout
    assert all(any(out.is_relative_to(state) for state in CHECKOUT_STATE) for out in expected.outputs())
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.setenv("RAW_DIR", "raw")  # the same folder, named relatively
    assert Paths.from_env() == expected


def test_another_data_set_keeps_its_outputs_inside_it(no_settings, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAW_DIR", "my-data")
    data = tmp_path / "my-data"
    assert Paths.from_env() == Paths(data, data / "reports", data / "warehouse" / "pipeline.duckdb", data / ".dagster_home",
                                     atlas_rounds_dir=str(data / "warehouse" / "atlas_rounds"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RAW_DIR", "~/my-data")
    assert Paths.from_env().reports_dir == data / "reports"


def test_settings_that_are_set_win(no_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("RAW_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REPORTS_DIR", str(tmp_path / "published"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    paths = Paths.from_env()
    assert paths.reports_dir == tmp_path / "published" and paths.dagster_home == tmp_path / "home"
    assert paths.warehouse == tmp_path / "data" / "warehouse" / "pipeline.duckdb"  # the one not set follows RAW_DIR


def test_the_data_set_remembers_mlperf_dir_and_the_environment_wins(no_settings, monkeypatch, tmp_path):
    """After `make atlas MLPERF_DIR=...`, the data set's UI and its next `make atlas` find the corpus
    without being told again (the UI said "MLPERF_DIR is not set"); MLPERF_DIR set in the environment wins."""
    monkeypatch.setenv("RAW_DIR", str(tmp_path / "data"))
    home = tmp_path / "data" / ".dagster_home"
    assert Paths.from_env().mlperf_dir is None
    assert remember(home, "MLPERF_DIR", str(tmp_path / "mlperf")) is True
    assert remember(home, "MLPERF_DIR", str(tmp_path / "mlperf")) is False  # unchanged: not written again
    assert Paths.from_env().mlperf_dir == tmp_path / "mlperf"
    assert Paths.from_env().as_env()["MLPERF_DIR"] == str(tmp_path / "mlperf")  # what the UI's processes get
    monkeypatch.setenv("MLPERF_DIR", str(tmp_path / "other"))
    assert Paths.from_env().mlperf_dir == tmp_path / "other"
    monkeypatch.delenv("MLPERF_DIR")
    monkeypatch.setenv("RAW_DIR", str(tmp_path / "another data set"))
    assert Paths.from_env().mlperf_dir is None  # remembered for its own data set only
    (home / "pipeline_settings.json").write_text("not json")
    monkeypatch.setenv("RAW_DIR", str(tmp_path / "data"))
    assert Paths.from_env().mlperf_dir is None  # a damaged file is no setting


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file and link under a folder, by content (links by target)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = "-> " + os.readlink(path)
        elif path.is_file():
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def cli(raw: Path, *command: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in OUTPUTS} | {"RAW_DIR": str(raw), "SOURCE_DATE_EPOCH": "1764374400"}
    done = cli_in_process(env, *command)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_two_data_sets_never_overwrite_each_others_reports(tmp_path):
    ours, theirs = write_small_raw(tmp_path / "ours"), write_small_raw(tmp_path / "theirs")
    config = theirs / "report.toml"
    config.write_text(config.read_text().replace('title = "Small"', 'title = "Their data"'))
    bundled_reports = fingerprint(bundled_home() / "reports")  # the bundled data's (in tests, not the checkout's)

    done = cli(ours, "report")
    assert f"report: {ours / 'reports' / '2024-06-01' / 'report.html'}" in done.stdout
    published = fingerprint(ours)
    for made in ("reports/2024-06-01/report.html", "reports/latest/report.pdf", "reports/index.html",
                 "warehouse/pipeline.duckdb", ".dagster_home/dagster.yaml"):
        assert (ours / made).is_file(), made

    done = cli(theirs, "report")  # same price date, same file names, another data set
    assert f"report: {theirs / 'reports' / '2024-06-01' / 'report.html'}" in done.stdout
    assert fingerprint(ours) == published  # not a byte of the first data set changed
    assert "Small" in (ours / "reports" / "index.html").read_text()
    assert "Their data" in (theirs / "reports" / "index.html").read_text()
    assert "Their data" in (theirs / "reports" / "2024-06-01" / "report.html").read_text()
    assert "Their data" not in (ours / "reports" / "2024-06-01" / "report.html").read_text()
    assert fingerprint(bundled_home() / "reports") == bundled_reports  # nor the bundled data's

    # clean removes one data set's outputs, and only those
    cleaned = cli(theirs, "clean")
    assert f"removed: {theirs / 'warehouse' / 'pipeline.duckdb'}" in cleaned.stdout
    assert not (theirs / "reports" / "2024-06-01").exists() and not (theirs / "warehouse").exists()
    assert (theirs / "report.toml").is_file() and (theirs / ".dagster_home").is_dir()
    assert fingerprint(ours) == published


def test_clean_removes_only_what_publishing_made(tmp_path):
    reports = tmp_path / "reports"
    (reports / ".store" / "2024-06-01.abc").mkdir(parents=True)
    (reports / "2024-06-01").symlink_to(".store/2024-06-01.abc")
    (reports / "latest").symlink_to(".store/2024-06-01.abc")
    (reports / "index.html").write_text("<html>")
    (reports / ".gitkeep").write_text("")
    (reports / "notes.txt").write_text("a user's file")
    with environment({"RAW_DIR": str(tmp_path), "REPORTS_DIR": str(reports), "WAREHOUSE": str(tmp_path / "w" / "p.duckdb")}):
        from pipelines.cli import main

        assert main(["clean"]) == 0
    assert sorted(p.name for p in reports.iterdir()) == [".gitkeep", "notes.txt"]
