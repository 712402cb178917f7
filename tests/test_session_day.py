"""One calendar day for a whole test session (config.TODAY_PIN, set in conftest.py).

The day is one of a build's inputs (defs/raw.day_version): a session that crossed 00:00 UTC saw the shared build,
made before midnight, as stale after it, and an automation test that expected "no raw input changed" failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime, timezone

from pipelines.config import REPO_ROOT, TODAY_PIN, today
from pipelines.defs.raw import day_version


def test_today_is_the_pinned_day_when_set_and_else_the_utc_calendar(monkeypatch):
    monkeypatch.setenv(TODAY_PIN, "2026-02-28")
    assert today() == date(2026, 2, 28)
    monkeypatch.delenv(TODAY_PIN)
    before = datetime.now(timezone.utc).date()
    assert today() in {before, datetime.now(timezone.utc).date()}  # either side of a midnight passing now


def test_the_session_and_every_process_it_starts_see_one_day():
    pinned = os.environ[TODAY_PIN]
    assert today().isoformat() == pinned
    assert f"today {pinned}," in day_version()
    done = subprocess.run([sys.executable, "-c", "from pipelines.config import today; print(today())"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == pinned
