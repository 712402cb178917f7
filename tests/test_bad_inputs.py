"""Every bad input in tests/bad_inputs/ fails the run with its one-line error and loses nothing.

Each rejected case lays its files over a copy of the bundled raw/ and runs the steps a bad input can stop,
report_job's staging tables, their blocking checks and its marts, as the functions they are (real DuckDB
file; tests/direct_steps.py: a Dagster run of each would double the cost of the corpus). The first failure
must give the one-line reason the command line prints, matching the case's regex, which names the file and
the line, column or field.

The job itself runs one case per input kind (WHOLE_JOB: prices, instances, accelerators, mappings, results,
throughput, systems, report.toml and MLPerf trees), in process with a real Dagster instance, over a copy of
the bundled report's published reports and warehouse (the shared bundled_run): its reason
(runs.failure_reason) must be the steps' own, the failed step or check in the instance's event log (what
the Dagster UI reads) must show the error, REPORTS_DIR stays byte-identical (index.html, every dated link,
latest, every stored file) and the warehouse opens with every mart unchanged. Accepted cases (BOM, CRLF,
extra columns, blank lines) must instead give the same marts as the bundled data, and all of them at once
build the report's HTML and data through the job, its sources listing the files as read. A few cases also go
through the real command line, which must print exactly one line and exit 2.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl
import pytest

from pipelines.definitions import defs
from pipelines.defs.resources import PipelineSettings
from pipelines.runs import definitions, failure_reason
from tests.direct_steps import first_failure
from tests.pipeline_runner import RunDirs, built_report, copy_run, environment, run_pipeline

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "bad_inputs"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "case.toml").is_file())
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
SOURCE_DATE_EPOCH = "1764374400"  # 2025-11-29: reproducible report bytes


@dataclass
class Dirs:
    root: Path

    @property
    def raw(self) -> Path:
        return self.root / "raw"

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse" / "pipeline.duckdb"

    def run_dirs(self) -> RunDirs:
        """The same folders as tests/pipeline_runner.py names them, with a DAGSTER_HOME of their own."""
        return RunDirs(self.raw, self.reports, self.warehouse, self.root / "dagster_home")

    def settings(self) -> PipelineSettings:
        return PipelineSettings(raw_dir=str(self.raw), reports_dir=str(self.reports), warehouse=str(self.warehouse))


def load_case(name: str) -> dict:
    return tomllib.loads((CORPUS / name / "case.toml").read_text(encoding="utf-8"))


def apply_case(name: str, raw: Path) -> None:
    """Lay the case's files over `raw`, delete its removals and make its special files."""
    case = load_case(name)
    overlay = CORPUS / name / "raw"
    if overlay.is_dir():
        for src in sorted(overlay.rglob("*")):
            if src.is_file():
                dst = raw / src.relative_to(overlay)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
    for rel in case.get("remove", []):
        (raw / rel).unlink()
    for rel, kind in case.get("special", {}).items():
        path = raw / rel
        if path.is_symlink() or path.is_file():
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "dangling_symlink":
            path.symlink_to(f"{path.name}.gone")
        elif kind == "symlink_loop":
            path.symlink_to(path.name)  # points at itself: ELOOP
        elif kind == "directory":
            path.mkdir()
            (path / "README").write_text("a folder where a file was expected\n")
        else:
            raise AssertionError(f"unknown special kind {kind!r} in {name}")


def snapshot(reports: Path) -> dict[str, tuple[str, str]]:
    """Every name a reader can reach under REPORTS_DIR: links with their targets, files with their
    SHA-256. .build (runs in progress) and the publish lock file are not published."""
    out: dict[str, tuple[str, str]] = {}
    for folder, dirs, files in os.walk(reports):
        rel_folder = Path(folder).relative_to(reports)
        if rel_folder.parts[:1] == (".build",):
            continue
        for name in sorted(dirs + files):
            path = Path(folder) / name
            rel = str(rel_folder / name)
            if rel in (".build", ".publish.lock"):
                continue
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_file():
                out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
            else:
                out[rel] = ("dir", "")
    return out


def tables(warehouse: Path) -> dict[str, pl.DataFrame]:
    """Every table in the warehouse (opened read-only, as a reader would)."""
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        names = [row[0] for row in conn.sql("select table_name from duckdb_tables() order by 1").fetchall()]
        return {name: pl.DataFrame(conn.sql(f"select * from {name}")) for name in names}


def marts(all_tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    return {name: frame for name, frame in all_tables.items() if not name.startswith("stg_")}


@contextmanager
def pipeline_env(dirs: Dirs):
    """RAW_DIR, REPORTS_DIR and WAREHOUSE pointed at `dirs` (as production reads them), then restored."""
    with environment({"RAW_DIR": str(dirs.raw), "REPORTS_DIR": str(dirs.reports), "WAREHOUSE": str(dirs.warehouse),
                      "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}):
        yield


def report_job(dirs: Dirs) -> dg.JobDefinition:
    """The project's report_job (what the command line runs), loaded with the settings of `dirs`."""
    with pipeline_env(dirs), warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        return defs().resolve_job_def("report_job")


def run(dirs: Dirs, instance: dg.DagsterInstance):
    """The whole report_job over `dirs`, in process, as the command line runs it."""
    job = report_job(dirs)
    with pipeline_env(dirs), warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        return job.execute_in_process(run_config=QUIET, instance=instance, raise_on_error=False)


@pytest.fixture(scope="module")
def instance():
    """A Dagster instance with in-memory storage (the command-line cases use a DAGSTER_HOME)."""
    with dg.DagsterInstance.ephemeral() as inst:
        yield inst


@pytest.fixture(scope="module")
def context(instance) -> dg.AssetExecutionContext:
    """The context the steps called directly are given (none of them reads it)."""
    return dg.build_asset_context(instance=instance)


def run_case(name: str, root: Path, context: dg.AssetExecutionContext) -> tuple[Dirs, str | None]:
    """The case's files over a fresh copy of the bundled raw/ in `root` (no reports, no warehouse yet), and the
    staging, checks and marts run over it: the first failure's one-line reason, None if there was none."""
    shutil.rmtree(root, ignore_errors=True)
    dirs = fresh(root)
    apply_case(name, dirs.raw)
    return dirs, first_failure(dirs.settings(), context)


@pytest.fixture(scope="module")
def baseline(bundled_run):
    """The good pipeline's published report and warehouse (the shared bundled_run), to compare every case with."""
    dirs = Dirs(bundled_run.raw.parent)
    assert (dirs.reports / "latest" / "report.pdf").is_file()
    return dirs, snapshot(dirs.reports), tables(dirs.warehouse)


def copy_of(baseline_dirs: Dirs, root: Path) -> Dirs:
    """The baseline's raw/, published reports and warehouse (with its chart and PDF caches), to change."""
    copy_run(baseline_dirs.run_dirs(), root)
    return Dirs(root)


def fresh(root: Path) -> Dirs:
    """A copy of the bundled raw/ with an empty reports folder and no warehouse yet."""
    dirs = Dirs(root)
    shutil.copytree(REPO / "raw", dirs.raw)
    return dirs


def test_corpus_is_large_and_covers_every_input_kind():
    kinds = {name.split("_")[0] for name in CASES}
    assert {"prices", "instances", "mappings", "results", "throughput", "systems", "toml", "mlperf"} <= kinds
    rejected = [n for n in CASES if not load_case(n).get("accepted")]
    assert len(rejected) >= 40, len(rejected)
    for name in CASES:
        case = load_case(name)
        assert case.get("accepted") or re.compile(case["error"]), name


def _step_errors(instance: dg.DagsterInstance, run_id: str) -> list[str]:
    """Error text of each failed step and failed check, as recorded for the Dagster UI."""
    shown = []
    for record in instance.all_logs(run_id):
        event = record.dagster_event
        if event is None:
            continue
        if event.event_type == dg.DagsterEventType.STEP_FAILURE:
            error = event.step_failure_data.error
            while error is not None:
                shown.append(f"{event.step_key}: {error.cls_name}: {error.message}")
                error = error.cause
        elif event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            data = event.event_specific_data
            if not data.passed:
                shown.append(f"{data.check_name}: {data.description}")
    return shown


REJECTED = [n for n in CASES if not load_case(n).get("accepted")]
ACCEPTED = [n for n in CASES if load_case(n).get("accepted")]
# One case per input kind through the whole job over a copy of the published report (test_a_failed_run_loses_
# nothing); the first three are checks that fail after their staging tables were written.
WHOLE_JOB = ["prices_negative", "toml_instance_not_in_instances", "mlperf_log_cut_mid_line", "instances_zero",
             "accelerators_bad_regex", "mappings_duplicate_key", "results_non_numeric", "throughput_negative",
             "systems_invalid_json"]


@functools.cache
def internal_names() -> frozenset[str]:
    """The names of the definitions' assets and checks (the same whatever data set they are loaded for)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        graph = definitions().resolve_asset_graph()
    return frozenset({key.to_user_string() for key in graph.get_all_asset_keys()} | {key.name for key in graph.asset_check_keys})


def _says_its_error(name: str, reason: str | None) -> None:
    """`reason` is the one line a user reads for the case: bad input, and the case's file and place."""
    case = load_case(name)
    assert reason is not None, f"{name}: bad input went through"
    assert "\n" not in reason
    assert reason.startswith("bad input: "), reason
    # a user reads this line: no asset's or check's name in it (they are the pipeline's, not the user's)
    assert not [name for name in internal_names() if re.search(rf"\b{re.escape(name)}\b", reason)], reason
    assert re.search(case["error"], reason), f"{name}: {reason!r} does not match {case['error']!r}"


def _shows_in_the_event_log(name: str, run_id: str, instance: dg.DagsterInstance) -> None:
    """The Dagster UI shows the case's error on the run's failed step or check."""
    error = load_case(name)["error"]
    assert any(re.search(error, " ".join(text.split())) for text in _step_errors(instance, run_id)), name


@pytest.fixture
def case_root(tmp_path_factory) -> Path:
    """One folder per worker that every case empties and fills again (a case leaves nothing to keep)."""
    return tmp_path_factory.getbasetemp() / "case"


@pytest.mark.parametrize("name", REJECTED)
def test_bad_input_fails_with_its_error(name, case_root, context):
    dirs, reason = run_case(name, case_root, context)
    _says_its_error(name, reason)
    case = load_case(name)
    if "runs_reason" in case:
        reasons = tables(dirs.warehouse)["stg_mlperf_runs"]["reason"].drop_nulls().to_list()
        assert reasons and all(re.search(case["runs_reason"], r) for r in reasons), reasons


def test_whole_job_cases_cover_every_input_kind():
    assert {name.split("_")[0] for name in WHOLE_JOB} == {name.split("_")[0] for name in CASES}
    assert set(WHOLE_JOB) <= set(REJECTED)


@pytest.mark.parametrize("name", WHOLE_JOB)
def test_a_failed_run_loses_nothing(name, baseline, instance, context, tmp_path):
    good, published, good_tables = baseline
    dirs = copy_of(good, tmp_path)
    apply_case(name, dirs.raw)

    result = run(dirs, instance)

    assert not result.success, f"{name}: the run succeeded on bad input"
    reason = failure_reason(result)
    _says_its_error(name, reason)
    steps, said = run_case(name, tmp_path / "steps", context)  # the job says what its steps say, of its own files
    assert reason.replace(str(dirs.root), "<root>") == said.replace(str(steps.root), "<root>")
    _shows_in_the_event_log(name, result.run_id, instance)
    assert snapshot(dirs.reports) == published, f"{name}: the published report changed"
    after = tables(dirs.warehouse)  # opens: not corrupted
    for table, frame in marts(good_tables).items():
        assert after[table].equals(frame), f"{name}: mart {table} changed"


# input_files holds each file's SHA-256 and size, which an accepted re-encoding changes
_SAME_NUMBERS = ["time_to_train", "report_dates", "price_history", "cost_to_train", "price_changes", "cost_changes"]


@pytest.mark.parametrize("name", ACCEPTED)
def test_accepted_input_gives_the_same_numbers(name, baseline, case_root, context):
    """BOM, CRLF, an extra column, blank lines: read, with the same marts as the bundled data."""
    _, _, good_tables = baseline
    dirs, reason = run_case(name, case_root, context)
    assert reason is None, f"{name}: {reason}"
    after = tables(dirs.warehouse)
    for table in _SAME_NUMBERS:
        assert after[table].equals(good_tables[table]), f"{name}: mart {table} differs"


def test_all_accepted_inputs_at_once_build_the_report(baseline, tmp_path):
    """Every accepted variation together, through the whole job but the PDF (its one input is the HTML, which
    every other test of the PDF prints): the report's HTML and data are built, and list the files as read."""
    good, _, _ = baseline
    dirs = copy_of(good, tmp_path)
    changed = set()
    for name in ACCEPTED:
        apply_case(name, dirs.raw)
        changed |= {str(p.relative_to(CORPUS / name / "raw")) for p in (CORPUS / name / "raw").rglob("*") if p.is_file()}
    result = run_pipeline(dirs.run_dirs(), pdf=False)
    assert result.success, failure_reason(result)
    built = built_report(dirs.run_dirs(), result)
    assert (built / "report.html").read_text(encoding="utf-8").rstrip().endswith("</html>")
    listed = {row["file"]: row["sha256"] for row in pl.read_csv(built / "data" / "input_files.csv").iter_rows(named=True)}
    assert changed and changed <= set(listed)
    for rel in changed:  # the sources name the bytes the run read: the re-encoded files
        assert listed[rel] == hashlib.sha256((dirs.raw / rel).read_bytes()).hexdigest(), rel


# Through a real process (its exit status, nothing else on stderr at import or exit): a failed blocking check and a
# FIFO in place of a file. Every input file's refusal by the command line's main() after a good build:
# tests/test_refused_after_a_good_build.py
CLI_CASES = ["mappings_instance_without_mapping", "instances_fifo"]


@pytest.mark.parametrize("name", CLI_CASES)
def test_command_line_prints_one_line_and_exits_non_zero(name, baseline, tmp_path):
    good, published, good_tables = baseline
    case = load_case(name)
    dirs = copy_of(good, tmp_path)
    apply_case(name, dirs.raw)
    env = os.environ | {
        "RAW_DIR": str(dirs.raw), "REPORTS_DIR": str(dirs.reports), "WAREHOUSE": str(dirs.warehouse),
        "DAGSTER_HOME": str(tmp_path / "dagster_home"), "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
    }
    env.pop("PIPELINE_KILL_AT", None)
    proc = subprocess.run([sys.executable, "-m", "pipelines.cli", "report"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.endswith("\n"), proc.stderr[:3000]
    assert proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr
    assert re.search(case["error"], proc.stderr), proc.stderr
    assert snapshot(dirs.reports) == published
    assert not (dirs.reports / ".build").is_dir() or not any((dirs.reports / ".build").iterdir())
    # the run is recorded in DAGSTER_HOME with the error on its failed step, as the UI shows it
    from dagster._core.instance.ref import InstanceRef

    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(env["DAGSTER_HOME"])) as home:
        runs = home.get_runs()
        assert len(runs) == 1 and runs[0].status == dg.DagsterRunStatus.FAILURE
        _shows_in_the_event_log(name, runs[0].run_id, home)
    after = tables(dirs.warehouse)
    for table, frame in marts(good_tables).items():
        assert after[table].equals(frame), table
