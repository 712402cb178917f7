"""Crash safety: a run killed with SIGKILL at any stage loses nothing a reader sees.

The real command line (`python -m pipelines.cli report`) runs in a subprocess with the test-only
PIPELINE_KILL_AT fault point (pipelines/faults.py): the process kills itself with SIGKILL at that
point, so no clean-up, `finally` or atexit code runs, as with the OOM killer.

A report is first published from a small data set of the tests' own (tests/small_raw.py, price date
2024-06-01: what a kill leaves does not depend on the data's size, and each run takes seconds). A new
price snapshot (2024-09-01) is then added, and runs are killed one after another at points further and further
into the pipeline: during staging (inside the stg_prices transaction), during the marts (inside
cost_to_train's), half-way through writing the PDF, after the build moved into .store/, after the
dated link switched (latest not yet), and half-way through writing index.html. Each killed run
starts from what the previous one left, so it shows that the state left by a kill does not stop
the next run from getting further. After every kill:
  - index.html, latest and every dated link show a complete report (the old one, or for the
    publish-stage kills the new one, fully written: HTML to its closing tag, a PDF that pypdf
    reads, every data export), never a half-written one;
  - the warehouse opens; a table whose transaction was cut keeps its previous data (killed in
    staging: every mart; killed inside cost_to_train: cost_to_train and cost_changes).
A killed run also leaves its Dagster run STARTED with the duckdb_writer pool slot claimed in
DAGSTER_HOME: the next command line must release it (cli.reap_killed_runs), or it would wait for
that slot forever. So each next run must mark the killed one failed and remove its build folder.
Finally a run with no kill succeeds, publishes 2024-09-01 as latest, lists both dates in
index.html, and removes what the killed runs left (temporary links and files).
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest
from pypdf import PdfReader

from tests.small_raw import PRICE_DATE as OLD, write_small_raw

REPO = Path(__file__).resolve().parents[1]
NEW_SNAPSHOT = (
    "provider,region,instance_type,usd_per_hour,as_of,source\n"
    "aws,us-east-1,big.8x,19.5,2024-09-01,test snapshot for the crash-safety test\n"
)
NEW = "2024-09-01"
# (fault point, stage): stages "before" the marts commit keep the old marts
KILL_POINTS = [
    ("table:stg_prices", "staging"),
    ("table:cost_to_train", "marts"),
    ("write:report.pdf", "report"),
    ("publish:stored", "publish"),
    ("publish:dated", "publish"),
    ("write:index.html", "publish"),
]
EXPORTS = {"cost_to_train", "price_history", "price_changes", "cost_changes", "time_to_train", "input_files"}
MARTS = ["time_to_train", "report_dates", "price_history", "cost_to_train", "price_changes", "cost_changes"]

pytestmark = pytest.mark.slow


def cli(root: Path, kill_at: str | None = None) -> subprocess.CompletedProcess:
    env = os.environ | {
        "RAW_DIR": str(root / "raw"), "REPORTS_DIR": str(root / "reports"),
        "WAREHOUSE": str(root / "warehouse" / "pipeline.duckdb"), "DAGSTER_HOME": str(root / "dagster_home"),
        "SOURCE_DATE_EPOCH": "1764374400",
    }
    env.pop("PIPELINE_KILL_AT", None)
    if kill_at:
        env["PIPELINE_KILL_AT"] = kill_at
    return subprocess.run([sys.executable, "-m", "pipelines.cli", "report"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)


def complete_report(folder: Path) -> str:
    """A fingerprint of a fully written report folder; fails on anything half-written."""
    html = (folder / "report.html").read_bytes()
    assert html.rstrip().endswith(b"</html>"), f"{folder}/report.html is cut off"
    pdf = folder / "report.pdf"
    assert pdf.read_bytes().rstrip().endswith(b"%%EOF"), f"{pdf} is cut off"
    assert len(PdfReader(pdf).pages) > 0
    data = folder / "data"
    assert {p.stem for p in data.glob("*.csv")} >= EXPORTS and {p.stem for p in data.glob("*.parquet")} >= EXPORTS
    for parquet in data.glob("*.parquet"):
        pl.read_parquet(parquet)  # readable to its footer
    assert not [p.name for p in folder.rglob(".*")], f"temporary files inside a published report {folder}"
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def reader_view(reports: Path) -> dict[str, str]:
    """What a reader can open: index.html and every non-hidden name, each checked complete."""
    view = {}
    for entry in sorted(reports.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.name == "index.html":
            text = entry.read_text(encoding="utf-8")
            assert text.rstrip().endswith("</html>"), "index.html is cut off"
            view["index.html"] = hashlib.sha256(text.encode()).hexdigest()
        else:
            assert entry.is_symlink(), f"{entry} is not a published link"
            view[entry.name] = complete_report(entry.resolve())
    return view


def run_status(root: Path) -> dict[str, str]:
    """Run id -> status of every run recorded in the test's DAGSTER_HOME (what the UI lists)."""
    import dagster as dg
    from dagster._core.instance.ref import InstanceRef

    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(root / "dagster_home"))) as instance:
        return {run.run_id: run.status.value for run in instance.get_runs()}


def newest_run(root: Path) -> str:
    import dagster as dg
    from dagster._core.instance.ref import InstanceRef

    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(root / "dagster_home"))) as instance:
        return instance.get_runs(limit=1)[0].run_id


def marts(warehouse: Path) -> dict[str, pl.DataFrame]:
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        return {name: pl.DataFrame(conn.sql(f"select * from {name}")) for name in MARTS}


def test_killed_runs_leave_a_complete_report_and_the_next_run_succeeds(tmp_path):
    root = tmp_path
    write_small_raw(root / "raw")
    first = cli(root)
    assert first.returncode == 0, first.stderr
    reports = root / "reports"
    old_view = reader_view(reports)
    assert set(old_view) == {"index.html", "latest", OLD}
    old_marts = marts(root / "warehouse" / "pipeline.duckdb")

    (root / "raw" / "prices" / f"on_demand_{NEW}.csv").write_text(NEW_SNAPSHOT)
    new_report: str | None = None
    killed: list[str] = []
    for point, stage in KILL_POINTS:
        proc = cli(root, kill_at=point)
        assert proc.returncode == -signal.SIGKILL, f"{point}: exit {proc.returncode}, {proc.stderr[-2000:]}"
        runs = run_status(root)
        if killed:  # this run started by releasing the one killed before it
            assert runs[killed[-1]] == "FAILURE", (point, runs)
            assert not (reports / ".build" / killed[-1]).exists(), point
        killed.append(newest_run(root))
        assert runs.get(killed[-1], "STARTED") == "STARTED"
        if point == "write:report.pdf":
            assert (reports / ".build" / killed[-1] / "report.html").exists()
            assert not (reports / ".build" / killed[-1] / "report.pdf").exists()  # only its .tmp, half-written

        view = reader_view(reports)  # every reachable report is complete
        assert view["latest"] == old_view["latest"] or point == "write:index.html", point
        if stage != "publish" or point == "publish:stored":
            assert view == old_view, f"{point}: a reader sees a change"
        else:
            new_report = new_report or view[NEW]
            assert view[NEW] == new_report, point
            assert view[OLD] == old_view[OLD], point

        now = marts(root / "warehouse" / "pipeline.duckdb")  # the warehouse opens
        if stage == "staging":
            for name in MARTS:
                assert now[name].equals(old_marts[name]), f"{point}: mart {name} changed"
        elif stage == "marts":
            # killed inside cost_to_train's transaction: it and what follows it keep the old data
            # (marts committed before it, such as report_dates, already hold the new snapshot)
            for name in ("cost_to_train", "cost_changes"):
                assert now[name].equals(old_marts[name]), f"{point}: mart {name} changed"
            assert now["report_dates"]["price_date"].to_list()[0].isoformat() == NEW

    assert new_report is not None
    assert [p for p in reports.iterdir() if re.match(r"^\.index\.html\.\d+\.tmp$", p.name)], \
        "the run killed while writing index.html leaves its temporary file"

    last = cli(root)
    assert last.returncode == 0, last.stderr
    runs = run_status(root)
    assert [runs[r] for r in killed] == ["FAILURE"] * len(KILL_POINTS) and list(runs.values()).count("SUCCESS") == 2
    view = reader_view(reports)
    assert set(view) == {"index.html", "latest", OLD, NEW}
    assert view["latest"] == view[NEW] and view[OLD] == old_view[OLD]
    index = (reports / "index.html").read_text(encoding="utf-8")
    assert NEW in index and OLD in index
    hidden = sorted(p.name for p in reports.iterdir() if p.name.startswith("."))
    assert hidden == [".build", ".publish.lock", ".store"], hidden
    assert not any((reports / ".build").iterdir())
    live = {(reports / name).resolve() for name in (OLD, NEW)}
    assert set((reports / ".store").iterdir()) == live
    after = marts(root / "warehouse" / "pipeline.duckdb")
    assert after["report_dates"]["price_date"].to_list()[0].isoformat() == NEW
    big = after["price_changes"].filter(pl.col("instance_type") == "big.8x").row(0, named=True)
    assert (big["previous_usd_per_hour"], big["current_usd_per_hour"]) == (24.0, 19.5)
    assert big["change_pct"] == pytest.approx(-18.75, rel=1e-9)  # 19.5 / 24 - 1


def test_publish_collects_only_stale_builds_and_temporary_links(tmp_path):
    """The garbage a killed run leaves where no command line reaps it (a run from the UI): a
    build untouched for BUILD_MAX_AGE, a temporary link, an index.html.<dead pid>.tmp. A young
    build (a run in progress) and a live writer's temporary file are kept."""
    from datetime import date

    from pipelines.publish.store import BUILD_MAX_AGE, build_dir, publish, write_atomic

    reports = tmp_path / "reports"
    stale, young = build_dir(reports, "stale-run"), build_dir(reports, "young-run")
    (stale / "report.html").write_text("<html>")
    (young / "report.html").write_text("<html>")
    aged = time.time() - BUILD_MAX_AGE - 60
    for path in (stale / "report.html", stale):
        os.utime(path, (aged, aged))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (reports / f".index.html.{int(dead.stdout)}.tmp").write_text("<html><bo")
    (reports / f".index.html.{os.getpid()}.tmp").write_text("being written by a live process")
    os.symlink(".store/gone", reports / ".latest.999999.link")

    built = build_dir(reports, "this-run")
    write_atomic(built / "report.html", b"<html></html>")
    publish(reports, built, date(2025, 6, 1), "this-run")

    assert sorted(p.name for p in (reports / ".build").iterdir()) == ["young-run"]
    assert not (reports / f".index.html.{int(dead.stdout)}.tmp").exists()
    assert (reports / f".index.html.{os.getpid()}.tmp").exists()
    assert not (reports / ".latest.999999.link").is_symlink()
    assert (reports / "latest" / "report.html").read_bytes() == b"<html></html>"
    assert os.readlink(reports / "latest") == os.readlink(reports / "2025-06-01") == ".store/2025-06-01.this-run"
