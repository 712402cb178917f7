"""`make report` when nothing changed builds nothing (pipelines/up_to_date.py), and builds again after any change
to the data set, the code or the day, after --force, and when its report is no longer the one published.

The real command line in a subprocess, on a small data set the test writes (its outputs inside it, as for any
data set but the bundled one)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.config import Paths
from pipelines import up_to_date
from pipelines.up_to_date import inputs_key
from tests.pipeline_runner import REPO, environment
from tests.small_raw import PRICE_DATE, write_small_raw

UP_TO_DATE = "up to date: the data set, the code and the day are those of the last make report"
OUTPUTS = ("REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "PIPELINE_KILL_AT")


def report(raw: Path, *args: str, epoch: str = "1764374400") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in OUTPUTS} | {"RAW_DIR": str(raw), "SOURCE_DATE_EPOCH": epoch}
    done = subprocess.run([sys.executable, "-m", "pipelines.cli", "report", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def runs(raw: Path) -> int:
    """Runs recorded in the data set's Dagster instance (what the UI lists)."""
    import dagster as dg
    from dagster._core.instance.ref import InstanceRef

    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(raw / ".dagster_home"))) as instance:
        return len(instance.get_runs())


def published(raw: Path) -> dict[str, str]:
    folder = (raw / "reports" / PRICE_DATE).resolve()
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_nothing_changed_builds_nothing_and_any_change_builds_again(tmp_path):
    raw = write_small_raw(tmp_path / "data")
    first = report(raw)
    assert UP_TO_DATE not in first.stdout and runs(raw) == 1
    before = published(raw)

    again = report(raw)  # nothing changed: no run, the same report, where it is
    assert UP_TO_DATE in again.stdout and runs(raw) == 1
    assert f"report: {raw / 'reports' / PRICE_DATE / 'report.html'}" in again.stdout
    assert published(raw) == before
    os.utime(raw / "mappings.csv")  # touched, the same bytes: still nothing to do
    assert UP_TO_DATE in report(raw).stdout and runs(raw) == 1

    assert UP_TO_DATE not in report(raw, "--force").stdout and runs(raw) == 2
    # another day (2026-01-01), and a new price in the data set: built again, with it
    prices = raw / "prices" / "p2.csv"
    prices.write_text(prices.read_text().replace("24.0", "22.0"))
    assert UP_TO_DATE not in report(raw, epoch="1767225600").stdout and runs(raw) == 3
    assert UP_TO_DATE not in report(raw).stdout and runs(raw) == 4  # back to the first day: the key says the other
    assert "$22.0000" in (raw / "reports" / "latest" / "report.html").read_text(encoding="utf-8")
    assert UP_TO_DATE in report(raw).stdout and runs(raw) == 4

    # the report is no longer the one published for its date (another run replaced it, or it was removed)
    shutil.rmtree((raw / "reports" / "latest").resolve())
    assert UP_TO_DATE not in report(raw).stdout and runs(raw) == 5
    assert (raw / "reports" / "latest" / "report.pdf").is_file()

    # clean removes the key with the warehouse, so the next report builds (the key is what decides: above)
    [stamp] = (raw / "warehouse").glob("*_report.json")  # up_to_date.stamp_path: beside the warehouse
    subprocess.run([sys.executable, "-m", "pipelines.cli", "clean"], cwd=REPO, check=True, capture_output=True,
                   env={k: v for k, v in os.environ.items() if k not in OUTPUTS} | {"RAW_DIR": str(raw)})
    assert not (raw / "warehouse").exists() and not stamp.exists()


def test_the_key_covers_inputs_and_code_but_not_outputs(tmp_path, monkeypatch):
    raw = write_small_raw(tmp_path / "data")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    with environment({"RAW_DIR": str(raw)}):
        for name in OUTPUTS[:3]:
            monkeypatch.delenv(name, raising=False)
        paths = Paths.from_env()
        key = inputs_key(paths)
        (raw / "reports").mkdir()
        (raw / "reports" / "index.html").write_text("an output inside the data set")
        (raw / "warehouse").mkdir()
        (raw / "warehouse" / "pipeline_pdf").mkdir()
        assert inputs_key(paths) == key
        (raw / "throughput" / "t.csv").write_text((raw / "throughput" / "t.csv").read_text() + "\n")
        assert inputs_key(paths) != key
        changed = inputs_key(paths)
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764460800")  # the next day
        assert inputs_key(paths) != changed
        # the project's code: a template edited changes the key (here a stand-in for the repo's folders)
        (tmp_path / "repo" / "templates").mkdir(parents=True)
        (tmp_path / "repo" / "templates" / "report.html.j2").write_text("<p>{{ doc }}</p>")
        monkeypatch.setattr(up_to_date, "REPO_ROOT", tmp_path / "repo")
        monkeypatch.setattr(up_to_date, "CODE", ("templates",))
        day = inputs_key(paths)
        (tmp_path / "repo" / "templates" / "report.html.j2").write_text("<p>{{ doc.title }}</p>")
        assert inputs_key(paths) != day
