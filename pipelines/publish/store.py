"""Publishing a report so that readers never see a half-written one.

Layout under REPORTS_DIR:
    .build/<run id>/           being written by a run; nobody reads here
    .store/<date>.<run id>/    a finished report, never changed after it is published
    <date>  -> .store/...      a symlink, switched atomically (os.replace) to the new report
    latest  -> .store/...      the report of the newest price date
    index.html                 every published report, written to a temporary file then renamed

A run killed at any point leaves either the previous symlink or the new one, both complete;
leftovers in .build and unreferenced .store folders are removed by the next successful publish.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from contextlib import contextmanager
from datetime import date
from pathlib import Path

DATE_DIR = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def build_dir(reports: Path, run_id: str) -> Path:
    path = reports / ".build" / run_id
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside the target, flush it to disk, then rename over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _fsync_tree(root: Path) -> None:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())


def _point(link: Path, target: Path) -> None:
    """Make `link` a symlink to `target` atomically (a new link renamed over the old one)."""
    tmp = link.with_name(f".{link.name}.{os.getpid()}.link")
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    os.symlink(os.path.relpath(target, link.parent), tmp)
    if link.exists() and not link.is_symlink():
        raise RuntimeError(f"{link} is a real folder, not a published link; move it away to publish here")
    os.replace(tmp, link)


def published_dates(reports: Path) -> list[str]:
    return sorted(p.name for p in reports.iterdir() if DATE_DIR.match(p.name) and p.is_symlink()) if reports.is_dir() else []


@contextmanager
def _publish_lock(reports: Path):
    """One publisher at a time, so a concurrent run's clean-up never removes a report being linked."""
    reports.mkdir(parents=True, exist_ok=True)
    with open(reports / ".publish.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def publish(reports: Path, built: Path, price_date: date, run_id: str) -> Path:
    """Move a finished build into the store and switch the dated link (and latest) to it."""
    with _publish_lock(reports):
        return _publish(reports, built, price_date, run_id)


def _publish(reports: Path, built: Path, price_date: date, run_id: str) -> Path:
    _fsync_tree(built)
    store = reports / ".store" / f"{price_date.isoformat()}.{run_id}"
    store.parent.mkdir(parents=True, exist_ok=True)
    os.replace(built, store)
    _point(reports / price_date.isoformat(), store)
    newest = max(published_dates(reports))
    _point(reports / "latest", (reports / newest).resolve())
    _collect_garbage(reports)
    return reports / price_date.isoformat()


def _collect_garbage(reports: Path) -> None:
    """Remove stored reports no link points at any more, and builds of runs that ended."""
    live = {(reports / name).resolve() for name in published_dates(reports) + ["latest"] if (reports / name).exists()}
    for old in (reports / ".store").iterdir():
        if old.resolve() not in live:
            shutil.rmtree(old, ignore_errors=True)


def remove_build(built: Path) -> None:
    shutil.rmtree(built, ignore_errors=True)
