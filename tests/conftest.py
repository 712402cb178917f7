"""Shared fixtures. Add yours in small, separate blocks.

The builds many tests read (the bundled report at two price dates, the atlas of the MLPerf sample) are
made once per session for both pytest-xdist workers and shared read-only (tests/shared_builds.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipelines.config import TODAY_PIN, today
from tests import checkout_state
from tests.atlas_runner import SAMPLE, atlas_env, make_atlas, sample_required
from tests.pipeline_runner import built_report, make_dirs, pin_price_date, run_pipeline
from tests.shared_builds import built_once, unchanged


def pytest_configure(config):
    reason = sample_required()
    if reason:
        raise pytest.UsageError(reason)
    isolate_from_the_checkout(config)
    pin_the_day(config)


# No test reads or writes the checkout's own state: its remembered settings, warehouse, reports and run history
# (tests/checkout_state.py). The controller decides for the session; pytest-xdist's workers, and every process a
# test starts (the command line, make), inherit its environment.
_checkout: dict = {}


def isolate_from_the_checkout(config) -> None:
    if not hasattr(config, "workerinput"):
        _checkout["before"] = checkout_state.snapshot()
        _checkout["home"] = tempfile.mkdtemp(prefix="pytest-bundled-home-")
        checkout_state.isolate(os.environ, Path(_checkout["home"]))
    checkout_state.forbid()


# One calendar day for the whole session (config.TODAY_PIN), decided by the controller and inherited like the
# settings above: the shared builds are made in the session's first minutes, and a test that checks them after
# 00:00 UTC would otherwise see a new day, an input, and find them stale.
def pin_the_day(config) -> None:
    if not hasattr(config, "workerinput"):
        os.environ.setdefault(TODAY_PIN, today().isoformat())


def pytest_sessionfinish(session):
    """Fail the session when any process created, changed or removed a file of the checkout's state."""
    if "before" not in _checkout:
        return
    found = checkout_state.changes(_checkout["before"], checkout_state.snapshot())
    if found:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.line("")
        reporter.write_sep("!", "the tests changed the checkout's own state (tests/checkout_state.py)", red=True)
        for line in found[:20]:
            reporter.write_line(line)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config):
    if "home" in _checkout:
        shutil.rmtree(_checkout.pop("home"), ignore_errors=True)


# The session builds, in the order the tests that read them run first
SHARED_BUILDS = ("bundled_run", "bundled_2025_run", "sample_atlas_run")
# Builds made from one of them (the bundled report rebuilt in a fresh process: a minute of CPU), whose readers run first
# in their build's group: at the end of the slice another worker steals them and this one waits for its build
DERIVED_BUILDS = ("rebuilt",)


def pytest_collection_modifyitems(config, items):
    """Order the tests so that no worker waits and none is left with a long test at the end.

    pytest-xdist's worksteal hands each of its N workers a contiguous slice of this list to start with
    (the first len // N items, then a share of the rest), and an idle worker later steals the back half
    of the longest queue. So the first slice starts with the tests that read a shared build, grouped by
    build (its worker builds them one after another, each build's readers right after it), and every
    other slice starts with its share of the independent tests marked slow (servers, subprocesses,
    whole-pipeline runs: started first, they do not end the session late), then the quick ones.
    """
    def build(item) -> int:
        used = [i for i, name in enumerate(SHARED_BUILDS) if name in getattr(item, "fixturenames", ())]
        return min(used) if used else len(SHARED_BUILDS)

    def derived(item) -> bool:
        return any(name in getattr(item, "fixturenames", ()) for name in DERIVED_BUILDS)

    shared = sorted((i for i in items if build(i) < len(SHARED_BUILDS)),
                    key=lambda i: (build(i), not derived(i)))  # stable: file order
    slow = [i for i in items if build(i) == len(SHARED_BUILDS) and i.get_closest_marker("slow")]
    quick = [i for i in items if build(i) == len(SHARED_BUILDS) and not i.get_closest_marker("slow")]
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    if workers < 2:
        items[:] = shared + slow + quick
        return
    slices: list[list] = [shared] + [slow[k::workers - 1] for k in range(workers - 1)]
    left, total = len(items), len(items)
    for k, part in enumerate(slices):  # fill each slice to the size worksteal will give it
        size = left // (workers - k)
        while len(part) < size and quick:
            part.append(quick.pop(0))
        left -= len(part)
    slices[-1].extend(quick)
    items[:] = [item for part in slices for item in part]
    assert len(items) == total


def _bundled(tmp_path_factory, name: str, price_date: str | None = None, pdf: bool = True):
    def build(folder: Path) -> None:
        dirs = make_dirs(folder)
        if price_date:
            pin_price_date(dirs.raw, price_date)
        result = run_pipeline(dirs, pdf=pdf)
        assert result.success, f"the bundled data{' at ' + price_date if price_date else ''} must build a report"
        if not pdf:  # the report stays in the run's build folder: say which
            (folder / "built").write_text(str(built_report(dirs, result).relative_to(folder)))

    folder = built_once(tmp_path_factory, name, build)
    yield make_dirs(folder, raw_source=None)
    unchanged(tmp_path_factory, name)


@pytest.fixture(scope="session")
def bundled_run(tmp_path_factory):
    """The whole pipeline run once on a copy of the bundled raw/ into temporary folders (read-only: copy it
    to change it)."""
    yield from _bundled(tmp_path_factory, "bundled")


@pytest.fixture(scope="session")
def bundled_pdf_texts(tmp_path_factory, bundled_run) -> list[str]:
    """pypdf's text of each page of the bundled report's PDF, extracted once per session (10 s each time;
    the answer page, PDF, pricing and end-to-end tests all read it)."""
    import json

    from pypdf import PdfReader

    def extract(folder: Path) -> None:
        folder.mkdir()
        pages = PdfReader(bundled_run.reports / "latest" / "report.pdf").pages
        (folder / "pages.json").write_text(json.dumps([page.extract_text() for page in pages]))

    folder = built_once(tmp_path_factory, "bundled_pdf_texts", extract)
    return json.loads((folder / "pages.json").read_text())


@pytest.fixture(scope="session")
def bundled_2025_run(tmp_path_factory):
    """The bundled data at price date 2025-06-01 (report.toml's price_date): AWS's June 2025 P4/P5 cut
    is then what changed since the previous snapshot (Azure's 2025-05-16 table), and the options in
    force are those of that date. The tests of that story and its figures read this run's warehouse and
    its report's HTML and data (bundled_2025_report), not printed: the PDF is the bundled_run's to test."""
    yield from _bundled(tmp_path_factory, "bundled_2025", "2025-06-01", pdf=False)


@pytest.fixture(scope="session")
def bundled_2025_report(bundled_2025_run) -> Path:
    """The folder of bundled_2025_run's report (report.html, data/), as its run built it."""
    root = bundled_2025_run.raw.parent
    return root / (root / "built").read_text()


@dataclass(frozen=True)
class AtlasRun:
    """The atlas of the shared MLPerf sample as `make atlas` built it: its folders (atlas_env), what it printed."""

    root: Path
    env: dict
    stdout: str

    @property
    def published(self) -> Path:
        return self.root / "reports" / "atlas" / "latest"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse" / "pipeline.duckdb"


@pytest.fixture(scope="session")
def sample_atlas_run(tmp_path_factory) -> AtlasRun:
    """The atlas of the shared MLPerf sample, built once as `make atlas` builds it (atlas_job through the command
    line: real warehouse, real Dagster instance, real publish). Read-only: copy root to run it again."""
    if not SAMPLE.is_dir():
        pytest.skip(f"MLPerf sample not found at {SAMPLE}")

    def build(folder: Path) -> None:
        done = make_atlas(atlas_env(folder, SAMPLE))
        assert done.returncode == 0, done.stderr[-3000:]
        (folder.parent / "sample_atlas.stdout").write_text(done.stdout)

    root = built_once(tmp_path_factory, "sample_atlas", build)
    yield AtlasRun(root, atlas_env(root, SAMPLE), (root.parent / "sample_atlas.stdout").read_text())
    unchanged(tmp_path_factory, "sample_atlas")


@pytest.fixture(scope="session")
def sample_atlas_folder(sample_atlas_run) -> Path:
    """The published folder (atlas/latest) of the shared sample's atlas."""
    return sample_atlas_run.published


@pytest.fixture
def automated(tmp_path_factory, tmp_path):
    """A copy of the small data set built by the daemon's path once per session (tests/automation_runner.py):
    (dirs, definitions, instance, settings, the automation cursor it ended with)."""
    from tests.automation_runner import automated_copy

    with automated_copy(tmp_path_factory, tmp_path / "w") as world:
        yield world


@pytest.fixture(autouse=True)
def environment_restored():
    """The environment as it was before each test, after it: a command line run in process (pipelines.cli.main:
    runs.prepare_instance) sets the data set's paths (REPORTS_DIR, WAREHOUSE, ATLAS_ROUNDS_DIR, ...) in os.environ,
    and a later test of the same worker, or a command line it starts with os.environ, would inherit them (make atlas
    then stored its rounds in another test's folder)."""
    saved = dict(os.environ)
    yield
    if dict(os.environ) != saved:
        os.environ.clear()
        os.environ.update(saved)
