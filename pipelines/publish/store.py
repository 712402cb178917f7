"""Publishing a report so that readers never see a half-written one.

Layout under REPORTS_DIR:
    .build/<run id>/           being written by a run; nobody reads here
    .store/<date>.<run id>/    a finished report, never changed after it is published
    <date>  -> .store/...      a symlink, switched atomically (os.replace) to the new report
    latest  -> .store/...      the report of the newest price date
    index.html                 every published report, written to a temporary file then renamed

Why this is safe against a run killed at any instant (SIGKILL, OOM, power cut):
- every file is written to a temporary name beside its target, fsynced, then renamed
  (write_atomic); a reader never opens a file that is still being written;
- a report is only ever made visible by renaming a finished, fsynced build folder into .store/
  and then switching symlinks; rename(2) over an existing name is atomic, so `<date>` and `latest`
  point at the old complete report or the new complete one, never at a half-written folder;
- the folders holding a renamed name are fsynced too, so after a power cut the rename is not lost
  while the link pointing at it survives;
- one publisher at a time (an flock on .publish.lock, released by the kernel when a killed
  process dies), so a concurrent run's clean-up never removes a report being linked.
A run killed mid-publish can leave `<date>` on the new report and `latest` still on the
previous one (both complete); the next publish moves latest. Leftovers are hidden names only:
.build/<run id> of a failed or killed run (the command line removes its own on failure and a
killed one's when it next starts, see cli.reap_killed_runs; a publish removes builds untouched
for BUILD_MAX_AGE), .store folders no link points at, temporary `.<name>.<pid>.link` symlinks
and `.index.html.<dead pid>.tmp` files: removed by the next successful publish.
The index of published reports is written by publish()'s `then` callback, under the same lock,
so two runs publishing different dates at the same moment both end up listed.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from pipelines.faults import kill_point

DATE_DIR = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TMP_LINK = re.compile(r"^\..+\.\d+\.link$")
TMP_FILE = re.compile(r"^\..+\.(\d+)\.tmp$")
# A build folder untouched this long belongs to a run that died: a run writes its build in seconds.
BUILD_MAX_AGE = 6 * 3600.0


def build_dir(reports: Path, run_id: str) -> Path:
    path = reports / ".build" / run_id
    path.mkdir(parents=True, exist_ok=True)
    return path


def dated_dir(reports: Path, price_date: date) -> Path:
    """Where the report for a price date is published: REPORTS_DIR/<price date>/ (a link)."""
    return reports / price_date.isoformat()


def write_atomic(path: Path, data: bytes | Iterable[bytes]) -> int:
    """Write to a temporary file beside the target, flush it to disk, then rename over the target; the
    number of bytes written. `data` may come in pieces (a page written as it is rendered)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if isinstance(data, (bytes, bytearray, memoryview)):
        view = memoryview(data)  # halves without copies
        data = (view[:len(view) // 2], view[len(view) // 2:])
    written = 0
    try:
        with open(tmp, "wb") as handle:
            for number, piece in enumerate(data):
                if number == 1:
                    handle.flush()
                    kill_point(f"write:{path.name}")  # test-only fault injection, inert unless PIPELINE_KILL_AT is set
                written += handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)  # the pieces failed (a template's error): no half file left
        raise
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    return written


def _fsync_dir(folder: Path) -> None:
    """Make a rename or a new name in `folder` durable (POSIX needs the folder itself fsynced)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    for path in sorted(root.rglob("*")):
        if path.is_file():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())


def _point(link: Path, target: Path) -> None:
    """Make `link` a symlink to `target` atomically (a new link renamed over the old one)."""
    if link.exists() and not link.is_symlink():
        raise RuntimeError(f"{link} is a real folder, not a published link; move it away to publish here")
    tmp = link.with_name(f".{link.name}.{os.getpid()}.link")
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    os.symlink(os.path.relpath(target, link.parent), tmp)
    os.replace(tmp, link)
    _fsync_dir(link.parent)


def prune(folder: Path | None, used: set[str], key: Callable[[Path], str] = lambda path: path.name) -> set[str]:
    """Deletes the files of a cache `folder` whose key (by default the file name) is not in `used`: the
    cache keeps what the last build served, no more. A temporary file that a live process is writing
    (write_atomic's, of a concurrent run) is left to it. Returns the keys deleted."""
    if folder is None or not folder.is_dir():
        return set()
    stale = [path for path in folder.iterdir()
             if path.is_file() and key(path) not in used and not _being_written(path)]
    for path in stale:
        path.unlink(missing_ok=True)
    return {key(path) for path in stale}


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


def publish(reports: Path, built: Path, price_date: date, run_id: str,
            then: Callable[[], object] | None = None) -> Path:
    """Move a finished build into the store and switch the dated link (and latest) to it.

    `then` runs under the publish lock after the links are switched (the index page), so what
    it writes always sees every report published so far.
    """
    with _publish_lock(reports):
        target = _publish(reports, built, price_date, run_id)
        if then is not None:
            then()
        return target


def _publish(reports: Path, built: Path, price_date: date, run_id: str) -> Path:
    _fsync_tree(built)
    store = reports / ".store" / f"{price_date.isoformat()}.{run_id}"
    store.parent.mkdir(parents=True, exist_ok=True)
    os.replace(built, store)
    _fsync_dir(store.parent)
    kill_point("publish:stored")  # test-only fault injection, inert unless PIPELINE_KILL_AT is set
    _point(dated_dir(reports, price_date), store)
    kill_point("publish:dated")
    newest = max(published_dates(reports))
    _point(reports / "latest", (reports / newest).resolve())
    _collect_garbage(reports)
    return dated_dir(reports, price_date)


def _collect_garbage(reports: Path, now: float | None = None) -> None:
    """Remove stored reports no link points at any more, temporary links of killed publishers
    (links are only made under the publish lock, so any left is stale), and build folders of
    runs that died (untouched for BUILD_MAX_AGE; a running run's build is younger)."""
    live = {(reports / name).resolve() for name in published_dates(reports) + ["latest"] if (reports / name).exists()}
    for old in (reports / ".store").iterdir():
        if old.resolve() not in live:
            shutil.rmtree(old, ignore_errors=True)
    for entry in reports.iterdir():
        if TMP_LINK.match(entry.name) and entry.is_symlink():
            entry.unlink(missing_ok=True)
        elif (match := TMP_FILE.match(entry.name)) and not _alive(int(match.group(1))):
            entry.unlink(missing_ok=True)  # index.html.<pid>.tmp of a writer that was killed
    builds = reports / ".build"
    if builds.is_dir():
        now = time.time() if now is None else now
        for old in builds.iterdir():
            try:
                age = now - max(p.stat().st_mtime for p in [old, *old.rglob("*")])
            except OSError:
                continue  # removed meanwhile
            if age > BUILD_MAX_AGE:
                shutil.rmtree(old, ignore_errors=True)


def _being_written(path: Path) -> bool:
    match = TMP_FILE.match(path.name)
    return bool(match) and _alive(int(match.group(1)))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_build(built: Path) -> None:
    shutil.rmtree(built, ignore_errors=True)
