"""The checkout's own state, which no test may read or write: the bundled data's outputs and remembered settings.

A developer's `make report` and `make atlas` leave them in the repo (reports/, warehouse/, .dagster_home/ with
pipeline_settings.json). A test that reads them depends on what the developer ran last (a remembered MLPERF_DIR
turned `atlas` without MLPERF_DIR into a whole atlas run: issue 46); one that writes them changes the developer's
reports and run history. So, for the whole session (tests/conftest.py):
- isolate(): the settings a developer may have exported are cleared and the bundled data's home is a temporary
  folder (config.BUNDLED_HOME); every process the tests start inherits both;
- forbid(): this process refuses to open, list, create or remove anything in the checkout's state (an audit hook:
  Python's own file calls; DuckDB's and SQLite's C code is not seen, but finds the state only through the settings);
- snapshot() before and after: the session fails when any process created, changed or removed a file there.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path

from pipelines.config import BUNDLED_HOME, REPO_ROOT, SETTINGS

# The bundled data's outputs in the repo (config.Paths.outputs with no setting: everything beside the warehouse and
# the atlas's rounds are in warehouse/)
CHECKOUT_STATE = (REPO_ROOT / "reports", REPO_ROOT / "warehouse", REPO_ROOT / ".dagster_home")
COMMITTED = (str(REPO_ROOT / "reports" / ".gitkeep"),)  # tracked by git: part of the checkout, not of its state


def isolate(environ: MutableMapping[str, str], home: Path) -> None:
    """Clear every setting of the pipeline (--help lists them) and make `home` the bundled data's home."""
    for setting in SETTINGS:
        environ.pop(setting.name, None)
    environ[BUNDLED_HOME] = str(home)


class CheckoutStateTouched(RuntimeError):
    """Not an OSError: code that treats a missing file as "nothing there" (config.remembered) must not swallow it."""


# Audit events that read or change the file system, and the positions of their path arguments
PATH_EVENTS = {"open": (0,), "os.listdir": (0,), "os.scandir": (0,), "os.mkdir": (0,), "os.remove": (0,),
               "os.rmdir": (0,), "os.rename": (0, 1), "os.symlink": (1,), "shutil.rmtree": (0,)}
_STATE = tuple(str(folder) for folder in CHECKOUT_STATE)
_hooked = False
_guarded = True  # off while snapshot() itself lists the state


def in_checkout_state(path: str | bytes | os.PathLike) -> bool:
    """Whether an absolute path names the checkout's state. A relative one may be relative to a folder descriptor
    (shutil.rmtree walks so), which the audit event does not give: not judged (everything here uses absolute paths)."""
    path = os.path.normpath(os.fsdecode(path))
    return (os.path.isabs(path) and path not in COMMITTED
            and any(path == s or path.startswith(s + os.sep) for s in _STATE))


def _audit(event: str, args: tuple) -> None:
    positions = PATH_EVENTS.get(event)
    if positions is None or not _guarded:
        return
    for i in positions:
        path = args[i] if i < len(args) else None
        if isinstance(path, (str, bytes, os.PathLike)) and in_checkout_state(path):
            raise CheckoutStateTouched(f"{event} {os.fsdecode(path)}: tests may not read or write the checkout's own "
                                       f"state (tests/checkout_state.py); use the session's bundled data home "
                                       f"(config.bundled_home()) or a folder of the test's own")


def forbid() -> None:
    """From now on this process cannot touch the checkout's state through Python's file calls (installed once per
    process: an audit hook cannot be removed)."""
    global _hooked
    if not _hooked:
        sys.addaudithook(_audit)
        _hooked = True


def snapshot(folders: tuple[Path, ...] = CHECKOUT_STATE) -> dict[str, tuple]:
    """Every file, link and folder under `folders` with what a write changes (size, modification time, inode: a
    file replaced by rename is a new inode; a folder's time changes when an entry is added or removed)."""
    global _guarded
    found = {}
    _guarded = False
    try:
        for folder in folders:
            for path in [folder, *folder.rglob("*")] if folder.exists() else []:
                st = path.lstat()
                link = os.readlink(path) if path.is_symlink() else None
                found[str(path)] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, link)
    finally:
        _guarded = True
    return found


def changes(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """What differs between two snapshots, one line a path."""
    return ([f"created: {p}" for p in sorted(after.keys() - before.keys())]
            + [f"removed: {p}" for p in sorted(before.keys() - after.keys())]
            + [f"changed: {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]])
