"""The rounds of an MLPerf corpus folder (MLPERF_DIR) and a cheap fingerprint of each.

A round is one training_results_vX.Y folder; its partition key is "vX.Y". The atlas scores a
round again only when its fingerprint changed, and the fingerprint must not cost a read of the
5 GB of logs:

* a round folder that is a git clone (it holds .git, as the README's `git clone` leaves it)
  with no local change under results/ or systems/: the git tree ids of every submitter's
  results/ and systems/ folders at HEAD. They name the content exactly, and a fresh clone of the
  same commit (new modification times) is no change;
* otherwise: the path, size and modification time (ns) of every file under <submitter>/results/
  and <submitter>/systems/, the only files scoring reads (benchmark code and READMEs are not).
  26,173 files of the whole 11-round corpus take 0.4 s to stat on the 2-core machine.

Pure: paths in, strings out; git runs as a subprocess only when the folder is a clone.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pipelines.domain.errors import InputError
from pipelines.fingerprint import named_sha256, stat_text, text_sha256
from pipelines.ingest.mlperf.corpus import round_dirs
from pipelines.domain.rounds import partition_key

SCORED_PARTS = ("results", "systems")  # what scoring reads in each submitter folder


def corpus_rounds(mlperf_dir: Path) -> dict[str, Path]:
    """Partition key -> round folder, for every training_results_vX.Y folder of mlperf_dir."""
    return {partition_key(path.name): path for path, _ in round_dirs(mlperf_dir)}


def _submitters(round_dir: Path) -> list[str]:
    return sorted(entry.name for entry in os.scandir(round_dir)
                  if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."))


def _git(round_dir: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(round_dir), *args], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def git_fingerprint(round_dir: Path) -> str | None:
    """'git:<sha256 of the results/ and systems/ tree ids>' for a clean clone, else None."""
    if not (round_dir / ".git").exists():
        return None
    paths = [f"{s}/{part}" for s in _submitters(round_dir) for part in SCORED_PARTS]
    status = _git(round_dir, "status", "--porcelain", "--untracked-files=all", "--", *paths)
    if status is None or status.strip():
        return None  # not a usable clone, or changed locally: the files themselves tell
    trees = _git(round_dir, "ls-tree", "HEAD", "--", *paths)
    if trees is None:
        return None
    return "git:" + text_sha256(trees)


def _scored_files(round_dir: Path):
    """Every file scoring can read, folder by folder (os.walk's order, not fingerprint.walk's sorted paths: every
    stored round's data version depends on this order, and os.walk is what keeps 26,173 stats at 0.4 s)."""
    for submitter in _submitters(round_dir):
        for part in SCORED_PARTS:
            for folder, dirs, files in os.walk(round_dir / submitter / part):
                dirs.sort()
                yield from (os.path.join(folder, name) for name in sorted(files))


def stat_fingerprint(round_dir: Path) -> str:
    """'stat:<sha256 of path, size and mtime of every file scoring can read>' (a dangling link: scoring reports
    it; its name still counts)."""
    start = len(os.fspath(round_dir)) + 1  # every walked path begins with round_dir: cheaper than os.path.relpath
    return "stat:" + named_sha256((path[start:], stat_text(path)) for path in _scored_files(round_dir))


def round_fingerprint(round_dir: Path) -> str:
    """What scoring a round depends on, in one string; equal strings mean nothing to rescore."""
    if not round_dir.is_dir():
        raise InputError(round_dir, None, "MLPerf round folder not found")
    return git_fingerprint(round_dir) or stat_fingerprint(round_dir)
