"""The one listing of raw input files (hashed by pipelines/fingerprint.py)."""

from __future__ import annotations

from pathlib import Path

from pipelines.domain.errors import InputError
from pipelines.fingerprint import walk


def _hidden(parts: tuple[str, ...]) -> bool:
    return any(part.startswith(".") or part.endswith("~") for part in parts)


def input_files(root: Path, pattern: str = "*") -> list[Path]:
    """Regular files under root matching the glob, sorted; hidden and temporary files skipped.

    An entry matching the glob that cannot be read as a file is an InputError rather than silently
    left out (the report would quietly lose data): a dangling symbolic link, a link loop, a FIFO
    or socket, or a folder named like a file (`x.csv/` when the glob is `*.csv`).
    Symbolic links to folders are not followed (no loops).
    """
    files = []
    for p in walk(root, pattern, skip=_hidden):
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            if pattern != "*":
                raise InputError(p, None, f"is a directory, expected a file ({pattern})")
        elif p.is_symlink():
            raise InputError(p, None, "is a dangling symbolic link or a symbolic link loop")
        else:
            raise InputError(p, None, "is not a regular file (a FIFO, socket or device)")
    return files
