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
