"""Shared fixtures. Add yours in small, separate blocks."""

from __future__ import annotations

import pytest

from tests.pipeline_runner import make_dirs, pin_price_date, run_pipeline


@pytest.fixture(scope="session")
def bundled_run(tmp_path_factory):
    """The whole pipeline run once on a copy of the bundled raw/ into temporary folders."""
    dirs = make_dirs(tmp_path_factory.mktemp("bundled"))
    result = run_pipeline(dirs)
    assert result.success, "the bundled data must build a report"
    return dirs


@pytest.fixture(scope="session")
def bundled_2025_run(tmp_path_factory):
    """The bundled data at price date 2025-06-01 (report.toml's price_date): AWS's June 2025 P4/P5 cut
    is then what changed since the previous snapshot (Azure's 2025-05-16 table), and the options in
    force are those of that date. The tests of that story and its figures read this run."""
    dirs = make_dirs(tmp_path_factory.mktemp("bundled_2025"))
    pin_price_date(dirs.raw, "2025-06-01")
    result = run_pipeline(dirs)
    assert result.success, "the bundled data at 2025-06-01 must build a report"
    return dirs


@pytest.fixture(scope="session")
def sample_atlas_folder(tmp_path_factory):
    """The atlas of the shared MLPerf sample, built once as `make atlas` builds it (atlas_job through
    the command line: real warehouse, real Dagster instance, real publish); its published folder (atlas/latest). The
    warehouse is at parents[2] / "warehouse" / "pipeline.duckdb"."""
    from tests.test_atlas_e2e import SAMPLE, atlas_env, make_atlas

    if not SAMPLE.is_dir():
        pytest.skip(f"MLPerf sample not found at {SAMPLE}")
    tmp = tmp_path_factory.mktemp("sample_atlas")
    done = make_atlas(atlas_env(tmp, SAMPLE))
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp / "reports" / "atlas" / "latest"
