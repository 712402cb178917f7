"""Content hashes of raw inputs: a touched file with the same bytes is not a change."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from pipelines.domain.errors import InputError

CHUNK = 1 << 20


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def input_files(root: Path, pattern: str = "*") -> list[Path]:
    """Regular files under root matching the glob, sorted; hidden and temporary files skipped.

    An entry matching the glob that cannot be read as a file is an InputError rather than silently
    left out (the report would quietly lose data): a dangling symbolic link, a link loop, a FIFO
    or socket, or a folder named like a file (`x.csv/` when the glob is `*.csv`).
    Symbolic links to folders are not followed (no loops).
    """
    if root.is_file():
        return [root]
    if not root.is_dir():
        return []
    files = []
    for p in root.rglob(pattern):
        if any(part.startswith(".") or part.endswith("~") for part in p.relative_to(root).parts):
            continue
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            if pattern != "*":
                raise InputError(p, None, f"is a directory, expected a file ({pattern})")
        elif p.is_symlink():
            raise InputError(p, None, "is a dangling symbolic link or a symbolic link loop")
        else:
            raise InputError(p, None, "is not a regular file (a FIFO, socket or device)")
    return sorted(files)


def fingerprint(files: Iterable[Path], root: Path) -> str:
    """One hash over the names (relative to root) and contents of files; '' for no files."""
    digest = hashlib.sha256()
    count = 0
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + file_sha256(path).encode() + b"\n")
        count += 1
    return digest.hexdigest() if count else "empty"
