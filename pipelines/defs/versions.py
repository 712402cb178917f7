"""What an asset's output depends on besides its inputs' data versions, declared to Dagster: its code version
and, for the assets that read dates, the day.

An asset's code version is one hash (pipelines/fingerprint.py) over the project's source files its function's
module imports, directly or not (read from their import statements), the SQL and templates those modules read
(any module that names config.SQL_DIR or TEMPLATES_DIR brings the whole folder), the Python version and every
installed package's version. Dagster then reports an asset stale when its code changed since it was built,
and gives an asset built again from the same inputs with the same code the same data version, so what reads
it is not rebuilt (without a code version every materialization is a new version).

Coarse where being fine would risk a stale report: editing any module an asset imports, or any SQL file,
changes it, though the asset may not run that part. An asset that declares its own code version keeps it (the
atlas's round tables: rescoring the corpus takes minutes, so only a change of the scoring rules or the tables'
columns makes a round stale, defs/mlperf/rounds.TABLES_VERSION).
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

import dagster as dg

from pipelines.config import REPO_ROOT, SQL_DIR, TEMPLATES_DIR
from pipelines.defs.raw import TODAY
from pipelines.fingerprint import file_sha256, installed_packages, named_sha256, walk

PACKAGE = "pipelines"
# Files a module reads when it runs, by the name of the folder it reads them through
READ_FOLDERS = {"SQL_DIR": SQL_DIR, "TEMPLATES_DIR": TEMPLATES_DIR}
# What reads the day (defs/raw.py today): the staging readers refuse or leave out rows dated after it, the
# documents say the day they were generated
DAY_GROUPS = ("staging",)
DAY_ASSETS = ("report_html", "atlas_html", "atlas_pdf")


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
    tree = ast.parse(path.read_bytes(), filename=str(path))
    imported, folders = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
            folders |= {alias.name for alias in node.names if alias.name in READ_FOLDERS}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in READ_FOLDERS:
            folders.add(node.id)
    return frozenset(imported), frozenset(folders)


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
    """The code version of the assets a module defines (see the module's docstring)."""
    return named_sha256([*((str(path.relative_to(REPO_ROOT)), _digest(path)) for path in sources_of(module)),
                         ("python", sys.version), ("packages", _packages())])


@cache
def _packages() -> str:
    return installed_packages()  # 0.09 s each time: once per process


def _module_of(assets_def: dg.AssetsDefinition) -> str:
    fn = assets_def.op.compute_fn
    return getattr(fn, "decorated_fn", fn).__module__


def with_versions(defs: dg.Definitions) -> dg.Definitions:
    """The definitions with every asset's code version set (unless it declares one) and the day among the
    dependencies of what reads it.
    (Dagster's map_resolved_asset_specs refuses definitions holding source assets, hence its permissive twin.)"""
    versions = {key: code_version_of(_module_of(a)) for a in defs.assets or []
                if isinstance(a, dg.AssetsDefinition) and a.is_executable for key in a.keys}

    def versioned(spec: dg.AssetSpec) -> dg.AssetSpec:
        reads_day = spec.group_name in DAY_GROUPS or spec.key.to_user_string() in DAY_ASSETS
        deps = [*spec.deps, dg.AssetDep(TODAY)] if reads_day and not spec.partitions_def else spec.deps
        return spec.replace_attributes(code_version=spec.code_version or versions.get(spec.key), deps=deps)

    return defs.permissive_map_resolved_asset_specs(func=versioned, selection=None)
