"""`make report` builds what Dagster reports stale or missing (pipelines/freshness.py) and nothing else: nothing
when nothing changed; again after any change to the data set, the code or the day, after --force, when its report
is no longer the one published, and when a blocking check did not pass.

The real command line, in process, on a small data set the test writes, its warehouse and reports in the folder
above it (where a user met issue 46's bug) and its run history inside it. Outputs inside the data set, the default,
are what tests/test_refused_after_a_good_build.py and tests/test_one_rule.py build with."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pipelines.cli import UP_TO_DATE
from pipelines.config import Paths
from pipelines.defs.automation import RAW_INPUTS
from pipelines.defs.raw import observe
from pipelines.defs.resources import PipelineSettings
from tests.pipeline_runner import cli_in_process, environment
from tests.small_raw import PRICE_DATE, write_small_raw

OUTPUTS = ("REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "PIPELINE_KILL_AT")


def cli_env(raw: Path, epoch: str = "1764374400", **outputs: str) -> dict:
    """The command line's environment for the data set `raw`: its outputs inside it unless `outputs` says where."""
    return {k: v for k, v in os.environ.items() if k not in OUTPUTS} | {
        "RAW_DIR": str(raw), "SOURCE_DATE_EPOCH": epoch, **outputs}


def report(raw: Path, *args: str, epoch: str = "1764374400") -> subprocess.CompletedProcess:
    """`make report` on the data set `raw` with its warehouse and reports in the folder above it, as a user met the
    bug of issue 46 (the outputs' place once hid a changed input: test_no_arrangement_of_the_outputs_hides_a_changed_input)."""
    done = cli_in_process(cli_env(raw, epoch, **above(raw)), "report", *args)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def above(raw: Path) -> dict[str, str]:
    return {"WAREHOUSE": str(raw.parent / "w.duckdb"), "REPORTS_DIR": str(raw.parent / "reports")}


def refused(env: dict, stderr: str | None = None) -> subprocess.CompletedProcess:
    """`make report` over a broken price file (prices/p2.csv with "abc"): exit 2, the file and the value named,
    never "up to date"; `stderr`, the refusal before it when nothing changed since (the same line again)."""
    done = cli_in_process(env, "report")
    assert done.returncode == 2 and UP_TO_DATE not in done.stdout, done.stdout + done.stderr
    assert "p2.csv" in done.stderr and "abc" in done.stderr
    assert stderr is None or done.stderr == stderr
    return done


def runs(raw: Path) -> int:
    """Runs recorded in the data set's Dagster instance (what the UI lists)."""
    import dagster as dg
    from dagster._core.instance.ref import InstanceRef

    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(raw / ".dagster_home"))) as instance:
        return len(instance.get_runs())


def published(reports: Path) -> dict[str, str]:
    folder = (reports / PRICE_DATE).resolve()
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_nothing_changed_builds_nothing_and_any_change_builds_again(tmp_path):
    """The command line (in process), with the warehouse and the reports in the folder above the data set (the
    layout of the bug of issue 46, where a new or a broken price was "up to date"); the run history in the data set,
    its default."""
    raw = write_small_raw(tmp_path / "data")
    reports, warehouse = tmp_path / "reports", tmp_path / "w.duckdb"
    env = cli_env(raw, **above(raw))
    first = report(raw)
    assert UP_TO_DATE not in first.stdout and runs(raw) == 1
    before = published(reports)

    again = report(raw)  # nothing changed: no run, the same report, where it is
    assert UP_TO_DATE in again.stdout and runs(raw) == 1
    assert f"report: {reports / PRICE_DATE / 'report.html'}" in again.stdout
    assert published(reports) == before
    os.utime(raw / "mappings.csv")  # touched, the same bytes: still nothing to do
    assert UP_TO_DATE in report(raw).stdout and runs(raw) == 1

    assert UP_TO_DATE not in report(raw, "--force").stdout and runs(raw) == 2
    # another day (2026-01-01), and a new price in the data set: built again, with it
    prices = raw / "prices" / "p2.csv"
    prices.write_text(prices.read_text().replace("24.0", "22.0"))
    assert UP_TO_DATE not in report(raw, epoch="1767225600").stdout and runs(raw) == 3
    assert UP_TO_DATE not in report(raw).stdout and runs(raw) == 4  # back to the first day: the key says the other
    assert "$22.0000" in (reports / "latest" / "report.html").read_text(encoding="utf-8")
    assert UP_TO_DATE in report(raw).stdout and runs(raw) == 4

    # the report is no longer the one published for its date (another run replaced it, or it was removed)
    shutil.rmtree((reports / "latest").resolve())
    assert UP_TO_DATE not in report(raw).stdout and runs(raw) == 5
    assert (reports / "latest" / "report.pdf").is_file()

    # clean removes the warehouse: Dagster's history says built, the tables are gone, so everything is built
    assert cli_in_process(env, "clean").returncode == 0
    assert not warehouse.exists()
    assert UP_TO_DATE not in report(raw).stdout and runs(raw) == 6 and warehouse.is_file()

    # a broken price file after a good run: refused, the good report kept, and refused again the next time
    html = (reports / "latest" / "report.html").read_text(encoding="utf-8")
    prices.write_text(prices.read_text().replace("22.0", "abc"))
    first_refusal = refused(env)
    assert (reports / "latest" / "report.html").read_text(encoding="utf-8") == html
    refused(env, first_refusal.stderr)


# Where an output setting can point, relative to the data set /t/data: inside it, in it directly (the warehouse
# file only), in the folder above it, or beside it. Every output is then a sibling, a child or a parent of an input.
PLACES = {
    "inside": lambda top, name: top / "data" / name,
    "above": lambda top, name: top / name,
    "beside": lambda top, name: top / "elsewhere" / name,
}
WAREHOUSE_PLACES = {**{k: (lambda f: lambda top: f(top, "wh") / "w.duckdb")(f) for k, f in PLACES.items()},
                    "in the data set": lambda top: top / "data" / "w.duckdb",
                    "above, as a file": lambda top: top / "w.duckdb"}
ARRANGEMENTS = [(w, r, d) for w in WAREHOUSE_PLACES for r in PLACES for d in PLACES]


def _write_outputs(paths: Paths, round_: int) -> None:
    """What a build writes in each output place (a new version each round)."""
    for folder in (paths.reports_dir / "2024-06-01", paths.dagster_home, Path(paths.atlas_rounds_dir) / "a"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "out.txt").write_text(f"build {round_}")
    paths.warehouse.parent.mkdir(parents=True, exist_ok=True)
    for path in paths.beside_warehouse:
        if path.suffix in {".duckdb", ".wal", ".json"}:
            path.write_text(f"build {round_}")
        else:
            (path / "doc").mkdir(parents=True, exist_ok=True)
            (path / "doc" / "cached").write_text(f"build {round_}")


def _observed(settings: PipelineSettings) -> dict[str, str]:
    """Every raw input's data version, as the observable source assets and `make report` observe it."""
    return {name: observe(settings, raw_input)[0] for name, raw_input in RAW_INPUTS.items()}


def test_no_arrangement_of_the_outputs_hides_a_changed_input(tmp_path):
    """The bug of issue 46: a warehouse in the folder above the data set left the whole data set out of the key,
    so a new price (or a broken one) was 'up to date'. For every arrangement: what the pipeline writes changes no
    raw input's data version, a changed price and a broken price file each change raw_prices'."""
    hidden = []
    for number, (warehouse, reports, home) in enumerate(ARRANGEMENTS):
        top = tmp_path / str(number)
        raw = write_small_raw(top / "data")
        with environment({"RAW_DIR": str(raw), "WAREHOUSE": str(WAREHOUSE_PLACES[warehouse](top)),
                          "REPORTS_DIR": str(PLACES[reports](top, "reports")),
                          "DAGSTER_HOME": str(PLACES[home](top, ".dagster_home"))}):
            paths, settings = Paths.from_env(), PipelineSettings.from_env()
            _write_outputs(paths, 1)
            before = _observed(settings)
            _write_outputs(paths, 2)
            prices = raw / "prices" / "p2.csv"
            good = prices.read_text()
            seen = {"outputs written": _observed(settings) == before}
            prices.write_text(good.replace("24.0", "22.0"))
            seen["a new price"] = _observed(settings)["raw_prices"] != before["raw_prices"]
            prices.write_text(good.replace("24.0", "abc"))
            seen["a broken price file"] = _observed(settings)["raw_prices"] != before["raw_prices"]
            prices.write_text(good)
            seen["the price back"] = _observed(settings) == before
        hidden += [f"warehouse {warehouse}, reports {reports}, DAGSTER_HOME {home}: {what}"
                   for what, right in seen.items() if not right]
    assert not hidden, "\n".join(hidden)
