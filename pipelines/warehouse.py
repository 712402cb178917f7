"""The embedded DuckDB warehouse: connections that wait for the single writer, and SQL from sql/.

sql/ holds one statement per table, in a folder per layer (staging/, marts/, atlas/, checks/); a
table's file is found by its name wherever it sits. A table computed in polars needs no SQL file:
write_frame writes the frame as the table.

DuckDB allows one writing process per file. Two runs started at the same moment (the sensor and
the schedule, or two `make report`) would otherwise fail with a lock error, so opening the file
retries until the other writer has finished, up to a timeout.

SQL and values: every value that comes from input data reaches DuckDB as a registered frame
(`create_table(conn, name, view=frame)`) or as a `?` parameter, never spliced into SQL text.
The only SQL built with f-strings is a table or view name taken from our own code (sql/ file
names, asset names), as in table_rows and read_table below; tests/test_sql_parameters.py checks
the code for any other f-string, %-format or .format() reaching execute() or sql().

Crash safety: each table is replaced inside one transaction, so a run killed mid-statement
leaves the previous table (DuckDB rolls back an uncommitted transaction when the file is next
opened) and the next run starts from the last committed state.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb
import polars as pl

from pipelines.config import SQL_DIR
from pipelines.faults import kill_point

LOCK_WAIT_SECONDS = 600.0


@contextmanager
def connect(path: Path, read_only: bool = False, wait: float = LOCK_WAIT_SECONDS) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the warehouse file for the block, waiting up to `wait` seconds for another process's
    writer. The file is attached to the process's DuckDB engine (_Engine) for the block and detached after it,
    so, as with a connection of its own, the file is locked only while a block uses it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait
    delay = 0.05
    while True:
        try:
            name = ENGINE.attach(path, read_only)
            break
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
    try:
        conn = ENGINE.cursor()
        try:
            conn.execute(f"use {name}")  # the file's tables by their bare names; the name is ours (_Engine.attach)
            yield conn
        finally:
            conn.close()
    finally:
        ENGINE.detach(path)


class _Engine:
    """One in-memory DuckDB instance per process, to which connect() attaches database files.

    Opening a file with duckdb.connect builds a new DuckDB instance each time: 20-45 ms of CPU (its catalog of
    built-in functions), and a report's build opens its warehouse about 90 times. ATTACH and DETACH on an instance
    that exists cost a fifth of that. DETACH checkpoints the file and releases its lock, as closing the last
    connection did. Blocks of several threads may use one file at once: it stays attached, in the mode it was
    attached in, until the last of them ends (another mode meanwhile is refused, as duckdb.connect refuses it).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._instance: duckdb.DuckDBPyConnection | None = None
        self._attached: dict[Path, tuple[str, bool, int]] = {}  # file: its name here, read-only, blocks using it
        self._names = itertools.count(1)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            return self._base().cursor()

    def attach(self, path: Path, read_only: bool) -> str:
        key = path.resolve()
        with self._lock:
            if key in self._attached:
                name, mode, users = self._attached[key]
                if mode != read_only:
                    raise duckdb.ConnectionException(
                        f"{path} is open {'read-only' if mode else 'for writing'} in this process; "
                        f"it cannot be opened {'read-only' if read_only else 'for writing'} at the same time")
                self._attached[key] = (name, mode, users + 1)
                return name
            name = f"warehouse_{next(self._names)}"
            base = self._base().cursor()
            try:
                if read_only:
                    base.execute(f"attach ? as {name} (read_only)", [str(key)])
                else:
                    base.execute(f"attach ? as {name}", [str(key)])
            finally:
                base.close()
            self._attached[key] = (name, read_only, 1)
            return name

    def detach(self, path: Path) -> None:
        key = path.resolve()
        with self._lock:
            name, mode, users = self._attached[key]
            if users > 1:
                self._attached[key] = (name, mode, users - 1)
                return
            base = self._base().cursor()
            try:
                base.execute(f"detach {name}")
            except Exception:
                # still attached (a checkpoint that failed, say): kept, used by no block, so that the next block
                # reuses it and detaches it at its end, in a process that runs for days (the UI's code server)
                self._attached[key] = (name, mode, 0)
                raise
            finally:
                base.close()
            del self._attached[key]

    def _base(self) -> duckdb.DuckDBPyConnection:
        if self._instance is None:
            # spilled data goes to the system's temporary folder, not to `.tmp` in the working directory (DuckDB's
            # default for an in-memory instance)
            spill = Path(tempfile.gettempdir()) / f"duckdb-{os.getpid()}.tmp"
            self._instance = duckdb.connect(":memory:", config={"temp_directory": str(spill)})
        return self._instance

    def forget(self) -> None:
        """In a forked child: start again. The parent's instance is left alone (its threads are not here)."""
        _ORPHANS.append(self._instance)
        self.__init__()


_ORPHANS: list = []
ENGINE = _Engine()
os.register_at_fork(after_in_child=ENGINE.forget)


def sql_path(name: str) -> Path:
    """sql/<layer>/<name>.sql: each table name has exactly one file, in whichever layer folder."""
    found = sorted(SQL_DIR.rglob(f"{name}.sql"))
    if len(found) != 1:
        raise FileNotFoundError(f"expected one sql/**/{name}.sql, found {len(found)}")
    return found[0]


def sql_text(name: str) -> str:
    return sql_path(name).read_text(encoding="utf-8")


Input = pl.DataFrame | duckdb.DuckDBPyRelation


def create_table(conn: duckdb.DuckDBPyConnection, name: str, **inputs: Input) -> int:
    """Run sql/**/<name>.sql, which creates table <name> from the inputs given as views; returns rows.

    Inputs are polars frames or DuckDB relations (read_parquet over files, say), visible under
    their keyword names for the statement only. The statement runs in a transaction, so a failure
    leaves the previous table in place.
    """
    return _in_transaction(conn, name, inputs)


def write_frame(conn: duckdb.DuckDBPyConnection, name: str, frame: pl.DataFrame) -> int:
    """Write a table computed in polars as it is (columns and order of the frame); same
    transaction guarantee as create_table. `name` is a table name from our code, never data."""
    if not name.isidentifier():
        raise ValueError(f"not a table name: {name!r}")
    return _in_transaction(conn, name, {"frame_in": frame}, frame=True)


def query(conn: duckdb.DuckDBPyConnection, name: str, **inputs: Input) -> pl.DataFrame:
    """Run sql/**/<name>.sql, one SELECT over the inputs given as views (as for create_table), as a frame.
    Works on a read-only connection: frames are registered, not created."""
    with _views(conn, inputs):
        return to_polars(conn.sql(sql_text(name)))


@contextmanager
def _views(conn: duckdb.DuckDBPyConnection, inputs: dict[str, Input]) -> Iterator[None]:
    """The inputs visible under their names while the block runs."""
    for view, value in inputs.items():
        if isinstance(value, duckdb.DuckDBPyRelation):
            value.create_view(view, replace=True)
        else:
            conn.register(view, _Scannable(value))
    try:
        yield
    finally:
        for view, value in inputs.items():
            if isinstance(value, duckdb.DuckDBPyRelation):
                conn.execute(f"drop view if exists {view}")
            else:
                conn.unregister(view)


def _in_transaction(conn: duckdb.DuckDBPyConnection, name: str, inputs: dict[str, Input], frame: bool = False) -> int:
    """sql/**/<name>.sql (or, for a frame, the frame as it is) run over the inputs in one transaction."""
    with _views(conn, inputs):
        try:
            conn.execute("begin transaction")
            if frame:
                conn.execute(f"create or replace table {name} as select * from frame_in")
            else:
                conn.execute(sql_text(name))
            kill_point(f"table:{name}")  # test-only fault injection, inert unless PIPELINE_KILL_AT is set
            conn.execute("commit")
        except Exception:
            conn.execute("rollback")
            raise
    return table_rows(conn, name)


def table_rows(conn: duckdb.DuckDBPyConnection, name: str) -> int:
    # table names come from our own sql/ file names, never from input data
    return conn.sql(f"select count(*) from {name}").fetchall()[0][0]


def read_table(conn: duckdb.DuckDBPyConnection, name: str) -> pl.DataFrame:
    return to_polars(conn.sql(f"select * from {name}"))


# DuckDB and polars hand frames to each other as Arrow C streams (the Arrow PyCapsule interface both speak)
# rather than through pyarrow, as .pl() and DuckDB's scan of a polars frame do: pyarrow, loaded for nothing
# else, holds ~30 MiB more in every process that reads or writes a table (the atlas publishes in one).

def to_polars(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """A DuckDB result as a polars frame (what .pl() gives, column types included)."""
    return pl.DataFrame(relation)


class _Scannable:
    """A polars frame as DuckDB scans it: a fresh Arrow C stream on every scan."""

    def __init__(self, frame: pl.DataFrame):
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema=None):
        return self.frame.__arrow_c_stream__(requested_schema)
