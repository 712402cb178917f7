"""What an asset's output depends on besides the inputs its definition names, declared to Dagster: its code
version, the day for the assets whose code reads it, and the outputs it writes into (defs/outputs.py).

An asset's code version is its function's module's (pipelines/code_versions.py): one hash over the project's
source files that module imports, directly or not, the SQL and templates they read, the Python version and every
installed package's version. Dagster then reports an asset stale when its code changed since it was built,
and gives an asset built again from the same inputs with the same code the same data version, so what reads
it is not rebuilt (without a code version every materialization is a new version).

Coarse where being fine would risk a stale report: editing any module an asset imports, or any SQL file,
changes it, though the asset may not run that part. An asset that declares its own code version keeps it (the
atlas's round tables: rescoring the corpus takes minutes, so only a change of the scoring rules or the tables'
columns makes a round stale, defs/mlperf/rounds.TABLES_VERSION). The chart and PDF caches key their files by the
same code versions (``code_version_of`` of their drawing and printing modules: publish/chart_cache.py, pdf_parts.py).

The day (defs/raw.py ``today``) is an input of every asset whose function reaches ``config.today()`` or
``config.build_day()`` through the project's code (``reads_day``: the functions and classes it names, followed into
the modules that define them), so no list says which assets read it: a reader refusing rows dated after today, a
document saying the day it was generated. Which outputs an asset writes into is read from its definition: an asset
of kind duckdb keeps a table in the warehouse, and the documents of a publication are its publishing asset and what
that reads outside the warehouse (defs/outputs.py).
"""

from __future__ import annotations

import ast
import inspect
from functools import cache

import dagster as dg

from pipelines.code_versions import (PACKAGE, code_version_of, keep_facts, module_path, parsed, remembered, sources_key,
                                     sources_of)
from pipelines.defs.outputs import PUBLICATIONS, WAREHOUSE, WAREHOUSE_KIND
from pipelines.defs.raw import TODAY

# The functions that read the day: the calendar day the readers check dates against, the day the documents say
DAY_FUNCTIONS = {(f"{PACKAGE}.config", "today"), (f"{PACKAGE}.config", "build_day")}


# ---- which functions read the day ------------------------------------------------------------------

Ref = tuple[str, "str | None"]  # (module, top-level name), or (module, None): the whole module


@cache
def _scope(module: str) -> tuple[dict[str, tuple[ast.AST, ...]], dict[str, Ref]]:
    """A project module's top-level definitions (functions, classes, assignments) by name, and its imports."""
    tree = parsed(module_path(module))
    top: dict[str, list[ast.AST]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            top.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        top.setdefault(name.id, []).append(node)
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom, ast.If, ast.Try))]
    bound: dict[str, Ref] = {}
    for statement in imports:
        for node in ast.walk(statement):
            _bind(node, module, bound)
    return {name: tuple(nodes) for name, nodes in top.items()}, bound


def _bind(node: ast.AST, module: str, bound: dict[str, Ref]) -> None:
    """What an import statement binds, by local name, into `bound` (anything else: nothing)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            head = alias.name.split(".")[0]
            bound[alias.asname or head] = (alias.name if alias.asname else head, None)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: from the module's package
            package = module if module_path(module).name == "__init__.py" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}".rstrip(".")
        for alias in node.names:
            bound[alias.asname or alias.name] = (base, alias.name)


def _target(module: str, name: str | None) -> Ref:
    """A name imported from a module: a submodule is the whole submodule."""
    if name is not None and module_path(f"{module}.{name}") is not None:
        return f"{module}.{name}", None
    return module, name


def _refs(module: str, nodes: tuple[ast.AST, ...]) -> set[Ref]:
    """What the code of `nodes` (in `module`) names: the module's own top-level names, and what it imports (at the
    top or in the code itself), an attribute of an imported module as that module's name."""
    top, imported = _scope(module)
    bound = dict(imported)
    names, attributes = [], []
    for node in (sub for n in nodes for sub in ast.walk(n)):
        if isinstance(node, ast.Name):
            names.append(node)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            attributes.append(node)
        else:
            _bind(node, module, bound)  # an import in the code itself
    found: set[Ref] = set()
    roots = set()
    for node in attributes:
        if node.value.id in bound:
            base, name = _target(*bound[node.value.id])
            if name is None:  # module.attr
                roots.add(id(node.value))
                found.add(_target(base, node.attr))
    for node in names:
        if id(node) not in roots:
            if node.id in bound:
                found.add(_target(*bound[node.id]))
            elif node.id in top:
                found.add((module, node.id))
    return found


@cache
def _expand(ref: Ref) -> frozenset[Ref]:
    """What a project name's code names (a name a module imports from elsewhere: that name; the whole module:
    every statement of it); nothing for a module whose imports, directly or not, never name the day."""
    module, name = ref
    if module_path(module) is None or not _may_read_day(module):
        return frozenset()
    top, imported = _scope(module)
    if name is None:
        return frozenset(_refs(module, tuple(parsed(module_path(module)).body)))
    if name in top:
        return frozenset(_refs(module, top[name]))
    return frozenset({_target(*imported[name])} if name in imported else ())


@cache
def _may_read_day(module: str) -> bool:
    """Whether any project file the module imports, directly or not, mentions a day function (a quick bound)."""
    names = tuple(name.encode() for _, name in DAY_FUNCTIONS)
    return any(path.suffix == ".py" and any(name in path.read_bytes() for name in names) for path in sources_of(module))


_READERS: set[Ref] = set()  # names found to reach a day function
_NOT_READERS: set[Ref] = set()  # names whose whole closure was followed without reaching one


def reads_day(function) -> bool:
    """Whether the function (an asset's: its compute function), or any project code it names (followed through what
    that names), names config.today or config.build_day."""
    function = inspect.unwrap(_function_of(function) if isinstance(function, dg.AssetsDefinition) else function)
    start = (function.__module__, function.__qualname__.split(".")[0])  # a factory's inner function: its factory
    if module_path(start[0]) is None:  # not the project's: nothing kept of it
        return _reaches_day(start)
    return remembered(f"{sources_key()} reads_day {':'.join(start)}", lambda: _reaches_day(start))


def _reaches_day(start: Ref) -> bool:
    came_from: dict[Ref, Ref | None] = {start: None}
    todo = [start]
    while todo:
        ref = todo.pop()
        if ref in DAY_FUNCTIONS or ref in _READERS:
            while ref is not None:  # every name on the way reaches it too
                _READERS.add(ref)
                ref = came_from[ref]
            return True
        for found in sorted(_expand(ref) - _NOT_READERS, key=str):
            if found not in came_from:
                came_from[found] = ref
                todo.append(found)
    _NOT_READERS.update(came_from)
    return False


def _module_of(assets_def: dg.AssetsDefinition) -> str:
    return _function_of(assets_def).__module__


def _function_of(assets_def: dg.AssetsDefinition):
    fn = assets_def.op.compute_fn
    return getattr(fn, "decorated_fn", fn)


def with_versions(defs: dg.Definitions) -> dg.Definitions:
    """The definitions with every asset's code version set (unless it declares one), the day among the inputs of what
    reads it, and each output among the inputs of what writes into it (see the module's docstring)."""
    executable = [a for a in defs.assets or [] if isinstance(a, dg.AssetsDefinition) and a.is_executable]
    versions = {key: code_version_of(_module_of(a)) for a in executable for key in a.keys}
    day = {key for a in executable if reads_day(_function_of(a)) for key in a.keys}
    keep_facts()
    specs = {spec.key: spec for a in executable for spec in a.specs}
    folders = {}
    for publication in PUBLICATIONS:
        published = specs.get(dg.AssetKey(publication.asset))
        if published is not None:
            documents = {published.key} | {dep.asset_key for dep in published.deps if dep.asset_key in specs
                                            and WAREHOUSE_KIND not in specs[dep.asset_key].kinds}
            folders.update(dict.fromkeys(documents, publication.folder_asset))

    def versioned(spec: dg.AssetSpec) -> dg.AssetSpec:
        added = [] if spec.partitions_def else [
            *([TODAY] if spec.key in day else []),
            *([WAREHOUSE] if WAREHOUSE_KIND in spec.kinds else []),
            *([folders[spec.key]] if spec.key in folders else [])]
        return spec.replace_attributes(code_version=spec.code_version or versions.get(spec.key),
                                       deps=[*spec.deps, *(dg.AssetDep(name) for name in added)])

    return map_specs(defs, versioned)


def map_specs(defs: dg.Definitions, func) -> dg.Definitions:
    """`func` applied to the spec of every asset the definitions define (dg.map_asset_specs); their source assets,
    which Definitions.map_asset_specs refuses, kept as they are; everything else as it was."""
    mappable = [a for a in defs.assets or [] if isinstance(a, (dg.AssetsDefinition, dg.AssetSpec))]
    sources = [a for a in defs.assets or [] if not isinstance(a, (dg.AssetsDefinition, dg.AssetSpec))]
    return dg.Definitions(
        assets=[*dg.map_asset_specs(func, mappable), *sources], asset_checks=defs.asset_checks,
        schedules=defs.schedules, sensors=defs.sensors, jobs=defs.jobs, resources=defs.resources,
        executor=defs.executor, loggers=defs.loggers, metadata=defs.metadata, component_tree=defs.component_tree)
