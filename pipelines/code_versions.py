"""The code version of a module: one hash (pipelines/fingerprint.py) over the project's source files that importing
it runs, directly or not (read from their import statements, also those inside functions), the SQL and templates
those modules read (a module that names config.SQL_DIR or TEMPLATES_DIR brings the whole folder), the Python version
and every installed package's version.

One rule for everything kept under a code version: the assets' code versions (defs/versions.py, which Dagster
compares to decide what is stale) and the keys of the drawn charts and printed PDFs kept beside the warehouse
(publish/chart_cache.py, publish/pdf_parts.py). Imports nothing of the project but its settings and the hashing.

What the rule reads off the source files (which modules a file imports; defs/versions.py: which functions read the
day) is kept between processes (``remembered``), under a key over every source file's bytes: deriving it parses
some 150 files, 1.1 s of every process that loads the definitions (each command, the UI's code server, the daemon).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from pipelines import config
from pipelines.fingerprint import file_sha256, installed_packages, named_sha256, walk

PACKAGE = "pipelines"
REPO_ROOT = config.REPO_ROOT
# Files a module reads when it runs, by the name of the folder it reads them through (config.SQL_DIR, not a bare
# SQL_DIR: this module, which the caches import, does not read the folders itself)
READ_FOLDERS = {"SQL_DIR": config.SQL_DIR, "TEMPLATES_DIR": config.TEMPLATES_DIR}


@cache
def parsed(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once per process (defs/versions.py reads the same trees)."""
    return ast.parse(path.read_bytes(), filename=str(path))


@cache
def module_path(name: str) -> Path | None:
    """The project's source file of a module name, or None for a module outside the project (or a name that
    is a function or class imported from a module)."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    base = REPO_ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def _digest(path: Path) -> str:
    return file_sha256(path)


@cache
def _read(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """The module names a source file imports (with each `from m import n`, m.n too: n may be a module) and the
    folders of READ_FOLDERS it names."""
    imported, folders = remembered(f"{_digest(path)} imports", lambda: _imports(path))
    return frozenset(imported), frozenset(folders)


def _imports(path: Path) -> tuple[list[str], list[str]]:
    tree = parsed(path)
    imported, folders = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
            folders |= {alias.name for alias in node.names if alias.name in READ_FOLDERS}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in READ_FOLDERS:
            folders.add(node.id)
    return sorted(imported), sorted(folders)


@cache
def sources_of(module: str) -> tuple[Path, ...]:
    """Every project source file that importing `module` runs (its packages' __init__ files too), and every file
    of the folders they read, sorted."""
    seen: set[Path] = set()
    folders: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for end in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__ first
            path = module_path(".".join(parts[:end]))
            if path is None or path in seen:
                continue
            seen.add(path)
            imported, named = _read(path)
            folders |= named
            todo += sorted(imported)
    read = {path for name in folders for path in _folder_files(name)}
    return tuple(sorted(seen | read))


@cache
def _folder_files(name: str) -> tuple[Path, ...]:
    return tuple(path for path in walk(READ_FOLDERS[name]) if path.is_file())


@cache
def code_version_of(module: str) -> str:
    """The code version of a module (see the module's docstring): of the assets it defines, of the charts it draws."""
    return named_sha256([*((str(path.relative_to(REPO_ROOT)), _digest(path)) for path in sources_of(module)),
                         ("python", sys.version), ("packages", _packages())])


@cache
def _packages() -> str:
    return installed_packages()  # 0.09 s each time: once per process


# ---- what is read off the source files, kept between processes --------------------------------------------------
# In Python's bytecode cache folder, beside this module's compiled code: derived from the sources as bytecode is,
# written only where Python writes bytecode, and never part of the checkout. A fact of one file is kept under the
# file's SHA-256; a fact of several (a function reaching the day through other modules) under one hash of them all.
FACTS_FILE = Path(importlib.util.cache_from_source(__file__)).with_name("source_facts.json")
_derived_here: list[str] = []  # names of facts derived in this process, not yet kept


@cache
def _source_files() -> tuple[Path, ...]:
    return tuple(walk(REPO_ROOT / PACKAGE, "*.py"))


@cache
def sources_key() -> str:
    """One hash over every project source file (by path and bytes): the key of a fact read off several."""
    return named_sha256((str(path.relative_to(REPO_ROOT)), _digest(path)) for path in _source_files())


@cache
def _facts() -> dict[str, Any]:
    """The facts kept by earlier processes (none when the file is missing or unreadable)."""
    try:
        kept = json.loads(FACTS_FILE.read_bytes())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def remembered(key: str, derive: Callable[[], Any]) -> Any:
    """The fact kept under `key` (a content hash and what the fact is; JSON: lists, not sets), else `derive()`,
    kept by the next keep_facts()."""
    facts = _facts()
    if key not in facts:
        facts[key] = derive()
        _derived_here.append(key)
    return facts[key]


def keep_facts() -> None:
    """Keep the facts of today's sources for the next processes (those of files and versions gone are dropped;
    the file is replaced whole: processes run side by side). Nothing where Python writes no bytecode or cannot
    write there."""
    if not _derived_here or sys.dont_write_bytecode:
        return
    current = {_digest(path) for path in _source_files()} | {sources_key()}
    kept = {key: fact for key, fact in _facts().items() if key.split(" ")[0] in current}
    temporary = FACTS_FILE.with_name(f".{FACTS_FILE.name}.{os.getpid()}.tmp")
    try:
        FACTS_FILE.parent.mkdir(exist_ok=True)
        temporary.write_text(json.dumps(kept, sort_keys=True))
        os.replace(temporary, FACTS_FILE)
        _derived_here.clear()
    except OSError:
        temporary.unlink(missing_ok=True)
