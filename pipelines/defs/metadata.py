"""What the Dagster UI shows of an asset: rows, column schema with what each column means
(pipelines/domain/columns.py), a preview with numbers shown as the report shows them; a one-line failure."""


import functools
import inspect

import dagster as dg
import duckdb

from pipelines.domain.columns import describe, formatted
from pipelines.domain.errors import InputError, bad_input
from pipelines.warehouse import table_rows, to_polars

POOL = "duckdb_writer"  # every asset that writes the warehouse; the pool's limit is 1
# Every run that writes the warehouse carries this tag; runs that only score rounds into Parquet
# do not. A run queue allowing many runs at once (Kubernetes, README) limits this tag to 1.
WAREHOUSE_TAG = {"pipelines/warehouse": "write"}

# Every asset below the raw inputs (staging, marts, report, and the atlas where it is on: which ones is
# pipelines/definitions.with_automation's to say) is rebuilt when Dagster would call it stale or missing: an input's
# data version changed (the raw inputs, the day and the outputs it writes into, the warehouse file and the published
# folders, are observed by raw_files_sensor, defs/automation.py, as `make report` observes them first:
# pipelines/freshness.py), its own code version changed (defs/versions.py), or it is missing. That is eager() with
# code_version_changed() added (eager() ignores new code) and with what is missing when automation first evaluates
# it (eager() builds only what goes missing later: a new instance would never get its first report), never on top
# of a failed blocking check (eager() ignores those too). What one tick requests goes in one run.
# What an input requested in this tick feeds is requested with it, outside since_last_handled(): that operator
# lets the asset's own update in the same tick's window (a run that ended just before) cancel the request, and the
# report's PDF and publishing step then went to a later run without the HTML of their run's build folder.
_A = dg.AutomationCondition
_MISSING_AT_START = (_A.missing() & _A.initial_evaluation()).with_label("missing when automation started")
_WITH_ITS_INPUTS = _A.any_deps_match(_A.will_be_requested()).with_label("an input is rebuilt in this tick")
_NOT_NOW = ~_A.any_deps_missing() & ~_A.any_deps_in_progress() & ~_A.in_progress()
REGENERATE = (
    ((_A.newly_missing() | _A.any_deps_updated() | _A.code_version_changed()).since_last_handled()
     | _WITH_ITS_INPUTS | _MISSING_AT_START)
    & _NOT_NOW & _A.all_deps_blocking_checks_passed()
).with_label("stale or missing, blocking checks passed")
# Every asset check, the same way (a check has no code version of its own): evaluated in the run that rebuilds what
# it reads, where a blocking check stops what reads its asset.
RECHECK = (
    ((_A.newly_missing() | _A.any_deps_updated()).since_last_handled() | _WITH_ITS_INPUTS | _MISSING_AT_START)
    & _NOT_NOW
).with_label("what it reads changed, or never run")


def table_metadata(conn: duckdb.DuckDBPyConnection, table: str, preview: bool = False) -> dict:
    meta: dict = {
        "dagster/row_count": table_rows(conn, table),
        "dagster/column_schema": _column_schema(table, conn.sql(f"describe {table}").fetchall()),
        "table": dg.MetadataValue.text(table),
    }
    if preview:
        frame = to_polars(conn.sql(f"select * from {table} limit 10"))
        meta["preview"] = dg.MetadataValue.md(_markdown(table, frame))
    return meta


def frame_metadata(table: str, frame) -> dict:
    """table_metadata for a polars frame not in the warehouse (a scored round's table): rows, columns with
    their meaning, its first ten rows."""
    return {
        "dagster/row_count": frame.height,
        "dagster/column_schema": _column_schema(table, frame.schema.items()),
        "preview": dg.MetadataValue.md(_markdown(table, frame.head(10))),
    }


def _column_schema(table: str, columns) -> dg.TableSchema:
    """(name, type, ...) per column -> the UI's column schema, each column with its meaning (pipelines/domain/columns.py)."""
    return dg.TableSchema(columns=[dg.TableColumn(name=name, type=str(kind), description=_meaning(table, name))
                                   for name, kind, *_ in columns])


def _meaning(table: str, column: str) -> str | None:
    known = describe(table, column)
    return known.meaning if known else None


def _markdown(table: str, frame) -> str:
    header = "| " + " | ".join(frame.columns) + " |"
    rule = "| " + " | ".join("---" for _ in frame.columns) + " |"
    rows = ["| " + " | ".join(_cell(formatted(table, name, value)) for name, value in zip(frame.columns, row)) + " |"
            for row in frame.iter_rows()]
    return "\n".join([header, rule, *rows])


def _cell(text: str) -> str:
    """Markdown table cells cannot hold a pipe or a line break."""
    return " ".join(text.split()).replace("|", "\\|")


def input_errors_as_failures(fn):
    """Bad input ends the step with dg.Failure(description=<the one line>), so the UI's run page
    opens on that line rather than a stack trace; the InputError stays its cause (the command
    line's one-line message reads it there, pipelines.cli.failure_reason)."""

    def failure(error: InputError) -> dg.Failure:
        return dg.Failure(description=bad_input(error), allow_retries=False)

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def steps(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except InputError as error:
                raise failure(error) from error
        return steps

    @functools.wraps(fn)
    def step(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except InputError as error:
            raise failure(error) from error
    return step


def layout_metadata(context: dg.AssetExecutionContext, printed: dict) -> dict:
    """What the UI shows of a PDF asset's layout: per document, the table rows it started on a new page so that
    their footnotes print on their page (publish/pdf.py; PdfCache.hints keeps them for the next layout), and
    the tables that run past the right margin (none expected: each is also a warning in the run's log)."""
    for name, p in printed.items():
        if p.past_margin:
            context.log.warning(f"{name}: tables past the right margin: {'; '.join(p.past_margin)}")
    return {"rows_on_new_page": dg.MetadataValue.json({name: list(p.breaks) for name, p in printed.items()}),
            "tables_past_margin": dg.MetadataValue.json({name: list(p.past_margin) for name, p in printed.items()})}
