"""Shared fixtures. Add yours in small, separate blocks."""

from __future__ import annotations

import pytest

from tests.pipeline_runner import make_dirs, run_pipeline


@pytest.fixture(scope="session")
def bundled_run(tmp_path_factory):
    """The whole pipeline run once on a copy of the bundled raw/ into temporary folders."""
    dirs = make_dirs(tmp_path_factory.mktemp("bundled"))
    result = run_pipeline(dirs)
    assert result.success, "the bundled data must build a report"
    return dirs


@pytest.fixture(scope="session")
def sample_atlas_folder(tmp_path_factory):
    """The atlas of the shared MLPerf sample, built once (real warehouse, real publish); its published folder."""
    from datetime import date

    from pipelines.atlas.build import build
    from tests.atlas_fixtures import atlas_raw
    from tests.test_atlas_e2e import SAMPLE

    if not SAMPLE.is_dir():
        pytest.skip(f"MLPerf sample not found at {SAMPLE}")
    tmp = tmp_path_factory.mktemp("sample_atlas")
    return build(SAMPLE, atlas_raw(tmp), tmp / "reports", tmp / "warehouse.duckdb", workers=1,
                 generated_on=date(2025, 12, 1))
