"""report_job's staging tables, blocking checks and marts called as the plain functions they are, in the order
the job runs them, without a Dagster run.

A Dagster run of these steps costs about half a second of run creation and event-log writes on top of the
steps' own half second: for the bad-input corpus (tests/test_bad_inputs.py, over a hundred cases) the steps
alone say what matters, each bad input's one-line reason. The same module's whole-job and command-line cases
run the job itself, and check that its reason is this one.

Every step is handed one connection to the real warehouse file, open for the whole case: opening DuckDB builds
its catalog of functions (10 ms, 27 times a case: half of what was left). What the steps write and read is the
same; opening the file, waiting for its lock and read-only connections are every other test's.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import dagster as dg
import duckdb

from pipelines.defs.resources import PipelineSettings
from pipelines.runs import definitions, failed_check_reason, one_line

GROUPS = ("staging", "marts")  # what a bad input can stop; the report's steps never run after such a failure


@dataclass(frozen=True)
class Step:
    name: str
    fn: Callable  # the asset's or check's own function (pipelines/defs/...), with its input_errors_as_failures
    check: bool
    takes_context: bool


@functools.cache
def steps() -> tuple[Step, ...]:
    """The staging and marts assets and the blocking checks on them, in dependency order (a multi-asset once).
    Within a level of the graph the checks come first: a blocking check holds back everything downstream of
    its asset, which the graph's levels alone do not say."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)
        graph = definitions().resolve_asset_graph()
    ordered: list[Step] = []
    seen: set[int] = set()
    for level in graph.toposorted_entity_keys_by_level:
        for key in sorted(level, key=lambda k: (not isinstance(k, dg.AssetCheckKey), k.to_user_string())):
            if isinstance(key, dg.AssetCheckKey):
                if graph.get(key.asset_key).group_name in GROUPS and graph.get_check_spec(key).blocking:
                    fn = graph.assets_def_for_key(key).node_def.compute_fn.decorated_fn
                    ordered.append(Step(key.to_user_string(), fn, True, False))
                continue
            node = graph.get(key)
            if node.group_name not in GROUPS or id(node.assets_def) in seen:
                continue
            seen.add(id(node.assets_def))
            fn = node.assets_def.op.compute_fn.decorated_fn
            ordered.append(Step(key.to_user_string(), fn, False, "context" in inspect.signature(fn).parameters))
    return tuple(ordered)


def first_failure(settings: PipelineSettings, context: dg.AssetExecutionContext) -> str | None:
    """Run the steps over `settings`' folders until one fails; its one-line reason as the command line prints
    it (pipelines.runs.failure_reason), or None when every step succeeded. An error no step foresaw propagates."""
    Path(settings.warehouse).parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(settings.warehouse) as conn:
        _OPEN[settings.warehouse] = conn
        try:
            return _first_failure(_OneConnection(**settings.model_dump()), context)
        finally:
            del _OPEN[settings.warehouse]


def _first_failure(settings: PipelineSettings, context: dg.AssetExecutionContext) -> str | None:
    for step in steps():
        try:
            out = step.fn(context, settings=settings) if step.takes_context else step.fn(settings=settings)
            if inspect.isgenerator(out):  # a multi-asset yields one result per table
                out = list(out)
        except dg.Failure as failure:  # what input_errors_as_failures makes of an InputError
            return one_line(failure.description)
        if step.check and not out.passed:
            return one_line(failed_check_reason(out.description))
    return None


_OPEN: dict[str, duckdb.DuckDBPyConnection] = {}  # warehouse file -> the connection first_failure holds open


class _OneConnection(PipelineSettings):
    """The settings the steps are given: their connect() hands out the one connection first_failure opened."""

    @contextmanager
    def connect(self, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        yield _OPEN[self.warehouse]
