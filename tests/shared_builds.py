"""Builds that many tests read, made once per test session, whatever the number of pytest-xdist workers.

The first worker to ask for a build makes it under a file lock; the others wait for it and share it. The
build is read-only from then on: each one's files are fingerprinted when it is made and checked again when
the worker's session ends, so a test that writes into a shared build fails the suite instead of
changing what other tests read (copy what you need to change: `copy_tree`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock


def session_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test session's temporary folder, shared by its xdist workers (each worker has its own below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """`build(folder)` once per session: the folder, made by this worker or by another one. A build that failed
    in one worker fails the tests that need it in every worker, with its message, without being tried again."""
    root = session_folder(tmp_path_factory)
    folder, done, failed = root / name, root / f"{name}.built", root / f"{name}.failed"
    with FileLock(str(root / f"{name}.lock")):
        if failed.exists():
            pytest.fail(f"the shared build {name!r} failed in another worker: {failed.read_text()}")
        if not done.exists():
            try:
                build(folder)
            except BaseException as error:
                failed.write_text(f"{type(error).__name__}: {error}"[:4000])
                raise
            done.write_text(fingerprint(folder))
    return folder


def unchanged(tmp_path_factory: pytest.TempPathFactory, name: str) -> None:
    """Fails when a shared build's files differ from what they were when it was made."""
    root = session_folder(tmp_path_factory)
    with FileLock(str(root / f"{name}.lock")):
        done = root / f"{name}.built"
        if done.exists():
            assert fingerprint(root / name) == done.read_text(), \
                f"a test wrote into the shared build {name!r} ({root / name}): copy it first (tests/shared_builds.py)"


# Dagster's run history: opening an instance to read it may migrate or index its SQLite files
UNWATCHED = ("dagster_home", "dagster")


def fingerprint(folder: Path) -> str:
    """Every file and link under `folder` but Dagster's run history, by path and content (links by target)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if relative.split("/")[0] in UNWATCHED:
            continue
        if path.is_symlink():
            digest.update(f"{relative} -> {os.readlink(path)}\n".encode())
        elif path.is_file():
            digest.update(f"{relative} {hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return digest.hexdigest()


def copy_tree(source: Path, target: Path) -> Path:
    """A copy of a shared folder to change, links kept as links."""
    shutil.copytree(source, target, symlinks=True)
    return target
