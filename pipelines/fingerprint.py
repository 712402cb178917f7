"""Content hashes: the project's one scheme for hashing bytes, files, folders and code.

- The hash is SHA-256, written as hex.
- A group of things (the files of a folder, a round's stats, a code version's parts) is one hash over
  "<name>\\0<value>\\n" lines (named_sha256): for files, the name relative to their folder and the file's
  SHA-256 (files_sha256), or, where reading would cost too much, its size and modification time (stat_text).
- A folder is walked one way (walk): every entry under it, sorted by path, names relative to it.
- A code version is the group hash of the source files (by file name) and of installed package versions
  (code_version): any edit to them, or a new package version, changes it.

Where a stored value depends on a hash (Dagster data versions, the report's SHA-256 of input trees), the
scheme above gives the same bytes as before it had one home. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import site
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path

running_sha256 = hashlib.sha256  # a hash fed piece by piece (page_breaks: one digest per table prefix)


def text_sha256(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def file_sha256(path: Path) -> str:
    """The file's bytes, read in pieces (a provider's price list can be hundreds of MB)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def stat_text(path: str | os.PathLike) -> str:
    """A file without reading it: "<size>\\0<modification time, ns>" (of the link itself when it dangles)."""
    try:
        st = os.stat(path)
    except OSError:
        st = os.lstat(path)
    return f"{st.st_size}\0{st.st_mtime_ns}"


def named_sha256(named: Iterable[tuple[str, str]]) -> str:
    """One hash over "<name>\\0<value>\\n" for each pair, in the order given."""
    digest = hashlib.sha256()
    for name, value in named:
        digest.update(f"{name}\0{value}\n".encode())
    return digest.hexdigest()


def file_lines(files: Iterable[Path], root: Path, prefix: str = "") -> list[tuple[str, str]]:
    """(prefix + name relative to root, SHA-256 of the bytes) for each file: the lines a group of files is hashed by."""
    return [(f"{prefix}{path.relative_to(root)}", file_sha256(path)) for path in files]


def group_sha256(named: list[tuple[str, str]]) -> str:
    """named_sha256 of the lines; "empty" for none (a data version Dagster has stored for an empty input)."""
    return named_sha256(named) if named else "empty"


def files_sha256(files: Iterable[Path], root: Path) -> str:
    """One hash over the names (relative to root) and contents of files; "empty" for no files."""
    return group_sha256(file_lines(files, root))


def walk(root: Path, pattern: str = "*", skip: Callable[[tuple[str, ...]], bool] = lambda parts: False) -> list[Path]:
    """Every entry under root matching the glob (files, folders, links, FIFOs: the caller decides), sorted,
    but those whose path parts relative to root `skip` names; [root] for a file, [] when it is missing.
    Symbolic links to folders are not followed (no loops)."""
    if root.is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob(pattern) if not skip(p.relative_to(root).parts))


def installed_packages() -> str:
    """Every distribution installed in the environment's site-packages and its version, one a line: a new package
    version can change an output. Only site-packages: Python's module path also holds the working folder, whose
    metadata folders (a checkout's *.egg-info) would make the answer depend on where a command started."""
    return "\n".join(sorted({f"{d.metadata['Name']}=={d.version}"
                              for d in metadata.distributions(path=site.getsitepackages())}))


def code_version(sources: Iterable[Path], packages: Iterable[str] = ()) -> str:
    """What changes a cache key when code changes: the source files' bytes (by file name) and the installed
    versions of packages."""
    return named_sha256([*((path.name, file_sha256(path)) for path in sources),
                         *((name, metadata.version(name)) for name in packages)])
