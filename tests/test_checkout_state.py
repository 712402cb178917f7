"""No test reads or writes the checkout's own state (tests/checkout_state.py, set up in conftest.py).

Issue 46: after `make atlas MLPERF_DIR=...` in a checkout, `make test` there failed: the command line a test
started for the bundled data found the remembered MLPERF_DIR in the checkout's .dagster_home and ran a whole atlas.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.config import BUNDLED_HOME, REPO_ROOT, SETTINGS, remembered
from tests.checkout_state import CheckoutStateTouched, changes, in_checkout_state, isolate, snapshot

PATH_SETTINGS = ("RAW_DIR", "REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "MLPERF_DIR", "ATLAS_ROUNDS_DIR")

# What a process started by a test finds for the bundled data: its outputs and where it remembers settings
WHERE = ("from pipelines.config import REMEMBERED, Paths; p = Paths.from_env(); "
         "print(*p.outputs(), p.dagster_home / REMEMBERED, sep='\\n')")


def test_a_process_a_test_starts_keeps_the_bundled_data_out_of_the_checkout():
    env = {k: v for k, v in os.environ.items() if k not in PATH_SETTINGS}  # as tests start the command line
    done = subprocess.run([sys.executable, "-c", WHERE], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    found = done.stdout.splitlines()
    assert len(found) >= 4 and all(Path(p).is_absolute() for p in found), done.stdout
    assert [p for p in found if Path(p).is_relative_to(REPO_ROOT)] == []


def test_this_process_can_neither_read_nor_list_the_checkouts_state():
    with pytest.raises(CheckoutStateTouched, match="pipeline_settings.json"):
        remembered(REPO_ROOT / ".dagster_home")  # what the command line read (an OSError would read as "none")
    with pytest.raises(CheckoutStateTouched):
        (REPO_ROOT / "warehouse" / "pipeline.duckdb").open("rb")
    with pytest.raises(CheckoutStateTouched):
        list((REPO_ROOT / "reports").iterdir())
    assert (REPO_ROOT / "reports" / ".gitkeep").read_bytes() == b""  # committed, not state: readable
    assert not in_checkout_state(REPO_ROOT / "raw" / "report.toml") and not in_checkout_state(REPO_ROOT / "reports2")
    assert not in_checkout_state(".dagster_home")  # relative: perhaps to a folder descriptor (shutil.rmtree)


def test_isolate_clears_every_setting_and_moves_the_bundled_home(tmp_path):
    environ = {s.name: "/somewhere" for s in SETTINGS} | {"PATH": "/bin", "ATLAS_CORPUS": "/corpus"}
    isolate(environ, tmp_path)
    assert environ == {"PATH": "/bin", "ATLAS_CORPUS": "/corpus", BUNDLED_HOME: str(tmp_path)}
    assert os.environ.get(BUNDLED_HOME) and not Path(os.environ[BUNDLED_HOME]).is_relative_to(REPO_ROOT)


def test_the_session_guard_sees_a_file_created_changed_replaced_or_removed(tmp_path):
    state = tmp_path / "state"
    (state / "sub").mkdir(parents=True)
    (state / "sub" / "kept.json").write_text("{}")
    watched = (state, tmp_path / "not made")
    before = snapshot(watched)
    assert changes(before, snapshot(watched)) == []

    (state / "new").write_text("x")
    assert f"created: {state / 'new'}" in changes(before, snapshot(watched))
    (state / "new").unlink()
    kept = state / "sub" / "kept.json"
    kept.write_text("[]")  # same size
    os.utime(kept, ns=(1, 1))
    assert f"changed: {kept}" in changes(before, snapshot(watched))

    before = snapshot(watched)
    (state / "tmp").write_text("{}")
    os.replace(state / "tmp", kept)  # as remember() writes
    assert f"changed: {kept}" in changes(before, snapshot(watched))
    before = snapshot(watched)
    kept.unlink()
    assert f"removed: {kept}" in changes(before, snapshot(watched))
    (tmp_path / "not made").mkdir()
    assert f"created: {tmp_path / 'not made'}" in changes(before, snapshot(watched))
