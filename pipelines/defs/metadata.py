"""What the Dagster UI shows of an asset: rows, column schema with what each column means
(pipelines/domain/columns.py), a preview with numbers shown as the report shows them; a one-line failure."""


import functools
import inspect

import dagster as dg
import duckdb

from pipelines.domain.columns import describe, formatted
from pipelines.domain.errors import InputError
from pipelines.warehouse import table_rows, to_polars

POOL = "duckdb_writer"  # every asset that writes the warehouse; the pool's limit is 1
# Every run that writes the warehouse carries this tag; runs that only score rounds into Parquet
# do not. A run queue allowing many runs at once (Kubernetes, README) limits this tag to 1.
WAREHOUSE_TAG = {"pipelines/warehouse": "write"}

# Marts and report assets: rebuild when an upstream asset changed outside a run that already
# included them, never on top of a failed blocking check (eager() alone ignores those checks).
# Why staging has no condition, and why this never double-runs the raw sensor: defs/automation.py.
REGENERATE = (
    dg.AutomationCondition.eager() & dg.AutomationCondition.all_deps_blocking_checks_passed()
).with_label("eager, blocking checks passed")


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
        return dg.Failure(description=f"bad input: {' '.join(str(error).split())}", allow_retries=False)

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
