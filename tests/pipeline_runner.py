"""Run the real pipeline (every asset, in process, real DuckDB file) on a raw folder, for tests.

The paths come from environment variables, as in production; they are set for the run and
restored afterwards so tests do not leak settings into each other.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import warnings
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

REPO = Path(__file__).resolve().parents[1]
BUNDLED_RAW = REPO / "raw"


@dataclass
class RunDirs:
    raw: Path
    reports: Path
    warehouse: Path
    dagster_home: Path


# The bundled report's price date: the newest on-demand snapshot of a compared instance, the GPU clouds'
# catalogs of prices/skypilot_2026-12-07/ (the current-generation comparison takes the whole market); the
# atlas prices at the same date.
BUNDLED_PRICE_DATE = "2026-12-07"
# Without the catalogs, the newest snapshot of the big three's files (raw/prices/refreshed_2026.csv, GCP's
# pricing.yml of 2026-08-20): the date tests that add a later snapshot of their own start from
# (without_catalogs), since no snapshot may be dated after today.
PROVIDER_FILES_PRICE_DATE = "2026-08-20"
# A price date after every snapshot of the big three's files, for tests that add a snapshot of their own
NEXT_PRICE_DATE = "2026-09-01"


# Compared instances first sold after 2025-06-01 (OCI's B300 and MI355X shapes), which only the 2026-12 catalogs
# price: a report dated before, or made without the catalogs, compares what was sold then
SOLD_SINCE = {"oci/BM.GPU.B300.8": "2026-12-04", "oci/BM.GPU.MI355X.8": "2026-12-04"}


def _without_instances(text: str, instances) -> str:
    """report.toml's text with these compared instances taken out of its instance lists."""
    for instance in instances:
        text = text.replace(f' "{instance}",', "").replace(f', "{instance}"', "")
    return text


def without_catalogs(raw: Path) -> None:
    """Remove the GPU clouds' catalog snapshots (prices/skypilot_*) from a raw/ copy, and the compared instances
    only they price (from report.toml and mappings.csv): its report is then dated by the big three's files (PROVIDER_FILES_PRICE_DATE), and a test
    can add a later snapshot."""
    for folder in sorted((raw / "prices").glob("skypilot_*")):
        shutil.rmtree(folder)
    config = raw / "report.toml"
    config.write_text(_without_instances(config.read_text(encoding="utf-8"), SOLD_SINCE), encoding="utf-8")
    mappings = raw / "mappings.csv"
    catalog_only = tuple(instance.replace("/", ",") + "," for instance in SOLD_SINCE)
    kept = [line for line in mappings.read_text(encoding="utf-8").splitlines(keepends=True)
            if not line.startswith(catalog_only)]
    mappings.write_text("".join(kept), encoding="utf-8")


def pin_price_date(raw: Path, price_date: str) -> None:
    """Set report.toml's price_date in a raw/ copy (the bundled file leaves it unset), without the compared
    instances not yet sold on that date (SOLD_SINCE)."""
    config = raw / "report.toml"
    text = config.read_text(encoding="utf-8")
    text = _without_instances(text, [instance for instance, since in SOLD_SINCE.items() if price_date < since])
    first_table = text.index("\n[")
    config.write_text(text[:first_table] + f'\nprice_date = "{price_date}"' + text[first_table:], encoding="utf-8")


def make_dirs(root: Path, raw_source: Path | None = BUNDLED_RAW) -> RunDirs:
    dirs = RunDirs(root / "raw", root / "reports", root / "warehouse" / "pipeline.duckdb", root / "dagster_home")
    if raw_source is not None:
        shutil.copytree(raw_source, dirs.raw)
    dirs.dagster_home.mkdir(parents=True, exist_ok=True)
    return dirs


def copy_run(source: RunDirs, root: Path, reports: bool = True, warehouse: bool = True) -> RunDirs:
    """A copy of a run's folders to change, for a test that goes on from a shared build: raw/, the chart and PDF
    caches beside the warehouse (an unchanged report is then served from them instead of drawn and laid out
    again), with `warehouse` the DuckDB file and with `reports` the published reports. Dagster's run history
    starts empty."""
    dirs = make_dirs(root, source.raw)
    if reports and source.reports.exists():
        shutil.copytree(source.reports, dirs.reports, symlinks=True)
    dirs.warehouse.parent.mkdir(parents=True, exist_ok=True)
    for path in source.warehouse.parent.iterdir():
        if path.is_dir():  # <warehouse name>_charts/, <warehouse name>_pdf/
            shutil.copytree(path, dirs.warehouse.parent / path.name)
        elif warehouse and path == source.warehouse:
            shutil.copyfile(path, dirs.warehouse)
    return dirs


@contextmanager
def pipeline_env(dirs: RunDirs, **extra: str):
    with environment({
        "RAW_DIR": str(dirs.raw), "REPORTS_DIR": str(dirs.reports), "WAREHOUSE": str(dirs.warehouse),
        "DAGSTER_HOME": str(dirs.dagster_home), "SOURCE_DATE_EPOCH": "1764374400",
        # the default, set: a command line run in process before (runs.prepare_instance) may have left another
        "ATLAS_ROUNDS_DIR": str(dirs.warehouse.parent / "atlas_rounds"), **extra,
    }):
        yield


@contextmanager
def environment(values: dict[str, str]):
    """Set environment variables for the block, then restore what was there before."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def cli_in_process(env: dict, *args: str) -> subprocess.CompletedProcess:
    """`python -m pipelines.cli *args` with exactly the environment `env`, run by the command line's main() in this
    process: its exit status and what it prints, as a subprocess's, without a new interpreter importing everything
    again (about 3 s of CPU a run). A test of what only a process shows (its exit by a signal, a kill, two at once)
    runs a process of its own."""
    from pipelines.cli import main

    out, err = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, env, clear=True), redirect_stdout(out), redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(["pipelines.cli", *args], status, out.getvalue(), err.getvalue())


# What a test that reads the marts, the HTML or the data files does without: the PDF, laid out by WeasyPrint
# (most of a report's build), and the publish step that needs it. The HTML and data/ stay in the run's build
# folder (built_report). tests/test_report_pdf.py and the end-to-end tests print and publish.
NOT_PRINTED = ("report_pdf", "published_report")


def run_pipeline(dirs: RunDirs, selection: list[str] | None = None, pdf: bool = True, **extra: str):
    """Materialize every asset (or `selection`; with pdf=False every asset but NOT_PRINTED) with the project's
    definitions; returns the result."""
    import dagster as dg

    from pipelines.definitions import defs

    with pipeline_env(dirs, **extra), warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        definitions = defs()
        job = definitions.resolve_job_def("report_job")
        if not pdf and selection is None:
            selection = [key.to_user_string() for key in job.asset_layer.executable_asset_keys
                         if key.to_user_string() not in NOT_PRINTED]
        keys = [dg.AssetKey(name) for name in selection] if selection else None
        with dg.DagsterInstance.ephemeral() as instance:
            return job.execute_in_process(
                instance=instance, raise_on_error=False, asset_selection=keys,
                run_config={"loggers": {"console": {"config": {"log_level": "ERROR"}}}},
            )


def published_layout(dirs: RunDirs) -> dict:
    """What the layout of the run's report PDF found, as the PDF cache beside the warehouse keeps it: its pages,
    the rows it started on new pages for their footnotes ("breaks") and the tables past the right margin."""
    import json

    (facts,) = (dirs.warehouse.parent / f"{dirs.warehouse.stem}_pdf" / "report").glob("*.json")
    return json.loads(facts.read_text(encoding="utf-8"))


def published_hints(dirs: RunDirs) -> dict:
    """What the layout of the run's report PDF found, as pdf.lay_out takes it: the rows it started on new pages
    ("breaks") and the pages its links show ("page_numbers"). A layout of the same HTML given them needs one
    pass, not the two of the bundled report's first layout."""
    layout = published_layout(dirs)
    return {"breaks": layout["breaks"], "page_numbers": layout["page_numbers"]}


def built_report(dirs: RunDirs, result) -> Path:
    """The run's build folder (report.html, data/): where a run without the PDF leaves the report."""
    return dirs.reports / ".build" / result.run_id
