"""Content hashes of raw inputs: a touched file with the same bytes is not a change."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

CHUNK = 1 << 20


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def input_files(root: Path, pattern: str = "*") -> list[Path]:
    """Regular files under root matching the glob, sorted; hidden and temporary files skipped."""
    if root.is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(
        p for p in root.rglob(pattern)
        if p.is_file() and not any(part.startswith(".") or part.endswith("~") for part in p.relative_to(root).parts)
    )


def fingerprint(files: Iterable[Path], root: Path) -> str:
    """One hash over the names (relative to root) and contents of files; '' for no files."""
    digest = hashlib.sha256()
    count = 0
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + file_sha256(path).encode() + b"\n")
        count += 1
    return digest.hexdigest() if count else "empty"
