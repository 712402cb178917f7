"""`make atlas` for the tests: the command line's `atlas` on temporary folders, and the shared MLPerf sample
(../shared/mlperf-sample: real v0.7, v1.0 and v1.1 logs, never copied into the repo)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pipeline_runner import cli_in_process, without_catalogs

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO.parent / "shared" / "mlperf-sample"
needs_sample = pytest.mark.skipif(not SAMPLE.is_dir(), reason=f"MLPerf sample not found at {SAMPLE}")
SOURCE_DATE_EPOCH = "1764374400"  # 2025-11-29


def sample_required() -> str | None:
    """Why the run must stop: under CI=true the tests that read the sample fail instead of skipping
    (a CI run without ../shared would otherwise pass with them all skipped)."""
    if os.environ.get("CI", "").lower() == "true" and not SAMPLE.is_dir():
        return f"CI=true and the MLPerf sample is missing at {SAMPLE}: the tests that read it cannot run"
    return None


def atlas_env(tmp: Path, mlperf: Path, raw: Path | None = None) -> dict:
    """RAW_DIR (a copy of the bundled raw/: the one catalog and price book), REPORTS_DIR, WAREHOUSE,
    DAGSTER_HOME and MLPERF_DIR under tmp."""
    if raw is None:
        raw = tmp / "raw"
        if not raw.exists():
            shutil.copytree(REPO / "raw", raw)
            # the GPU clouds' catalogs price the sample's A100 80 GB and V100 too since 2026-12-06: without them
            # the atlas is dated by the big three's files, as the tests' figures by hand are
            without_catalogs(raw)
    return {**os.environ, "RAW_DIR": str(raw), "REPORTS_DIR": str(tmp / "reports"),
            "WAREHOUSE": str(tmp / "warehouse" / "pipeline.duckdb"), "DAGSTER_HOME": str(tmp / "dagster"),
            "MLPERF_DIR": str(mlperf), "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}


def moved_env(env: dict, old: Path, new: Path) -> dict:
    """`env` (atlas_env) for a copy of its folder `old` at `new`; MLPERF_DIR stays where it was."""
    return {**env, **{k: env[k].replace(str(old), str(new), 1)
                      for k in ("RAW_DIR", "REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME") if env[k].startswith(str(old))}}


def make_atlas(env: dict) -> subprocess.CompletedProcess:
    """`python -m pipelines.cli atlas` with the environment `env`, in this process (pipeline_runner.cli_in_process).
    make_atlas_process runs it in a process of its own."""
    return cli_in_process(env, "atlas")


def make_atlas_process(env: dict) -> subprocess.CompletedProcess:
    """`python -m pipelines.cli atlas` in a subprocess: what a process's exit status and stderr say."""
    return subprocess.run([sys.executable, "-m", "pipelines.cli", "atlas"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)
