"""Frames in and out of the DuckDB warehouse (pipelines/warehouse.py): as they were, and without pyarrow."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipelines.warehouse import connect, read_table, to_polars, write_frame

REPO = Path(__file__).resolve().parents[1]


def sample() -> pl.DataFrame:
    return pl.DataFrame({
        "instance_type": ["p4d.24xlarge", "a3-highgpu-8g", None],
        "accelerators": [8, 8, None],
        "usd_per_hour": [21.96, 88.25, None],
        "as_of": [date(2026, 9, 15), date(2026, 8, 1), None],
        "seen_at": [datetime(2026, 9, 15, 12, 30), None, datetime(2026, 1, 1)],
        "approximate": [False, True, None],
        "notes": [["list price"], [], None],
    }, schema_overrides={"accelerators": pl.Int32})


def test_a_frame_comes_back_as_it_was_written(tmp_path):
    with duckdb.connect(str(tmp_path / "w.duckdb")) as conn:
        assert write_frame(conn, "prices", sample()) == 3
        assert_frame_equal(read_table(conn, "prices"), sample())  # values, order, column types
        write_frame(conn, "empty", sample().clear())
        assert_frame_equal(read_table(conn, "empty"), sample().clear())
        # SQL sees the frame's types: a sum of the hourly prices, an average over the non-null count
        assert conn.sql("select sum(usd_per_hour), avg(accelerators), count(as_of) from prices").fetchall() == \
            [(21.96 + 88.25, 8.0, 2)]


def test_a_query_result_is_the_frame_duckdb_computes():
    conn = duckdb.connect()
    frame = to_polars(conn.sql("select 2::bigint * 3 as six, 'x' as s, date '2026-09-15' + 1 as next_day "
                               "from range(2)"))
    assert frame.to_dicts() == [{"six": 6, "s": "x", "next_day": date(2026, 9, 16)}] * 2
    assert frame.schema == pl.Schema({"six": pl.Int64, "s": pl.String, "next_day": pl.Date})


def test_the_warehouse_needs_no_pyarrow(tmp_path):
    # polars and DuckDB hand frames over as Arrow C streams: pyarrow (~30 MiB resident) is not installed
    # for the pipeline, and would only add to the memory of every process that reads or writes a table
    script = f"""
import sys
sys.modules["pyarrow"] = None  # an import of it fails here, installed or not
import duckdb
from tests.test_warehouse import sample
from pipelines.warehouse import read_table, write_frame
with duckdb.connect({str(tmp_path / "w.duckdb")!r}) as conn:
    write_frame(conn, "prices", sample())
    assert read_table(conn, "prices").equals(sample())
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr[-2000:]


# connect(): the file attached to the process's one DuckDB instance for the block (warehouse._Engine)

HOLD = """
import sys, time, duckdb
conn = duckdb.connect(sys.argv[1])
conn.execute("create or replace table held as select 1 as x")
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _other_process(path: Path, code: str) -> str:
    """`code` run on the file by another process with a connection of its own (conn); what it printed."""
    script = f"import duckdb\nconn = duckdb.connect({str(path)!r})\n{code}"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout


def test_the_file_is_locked_only_inside_the_block_and_written_whole(tmp_path):
    path = tmp_path / "w.duckdb"
    with connect(path) as conn:
        write_frame(conn, "prices", sample())
    # another process can write the file now: its lock is released and its log folded into it (no .wal left)
    assert [p.name for p in tmp_path.iterdir()] == ["w.duckdb"]
    assert _other_process(path, "print(conn.sql('select count(*) from prices').fetchall())") == "[(3,)]\n"
    with connect(path, read_only=True) as conn:
        assert read_table(conn, "prices").height == 3
        assert conn.sql("select current_database()").fetchall() != [("memory",)]  # the file, not the instance


def test_blocks_at_once_share_the_file_in_one_mode(tmp_path):
    path = tmp_path / "w.duckdb"
    with connect(path) as outer:
        write_frame(outer, "a", sample())
        with connect(path) as inner:  # a nested block (a check reading while its asset writes)
            assert read_table(inner, "a").height == 3
        assert read_table(outer, "a").height == 3  # the inner block's end leaves the outer one's file attached
        with pytest.raises(duckdb.ConnectionException, match="open for writing in this process"):
            with connect(path, read_only=True):
                pass
    with ThreadPoolExecutor(4) as pool:  # threads at once (the UI's sensors), each its own connection
        heights = list(pool.map(lambda _: _read_height(path), range(8)))
    assert heights == [3] * 8
    assert _other_process(path, "print(conn.sql('select count(*) from a').fetchall())") == "[(3,)]\n"


def _read_height(path: Path) -> int:
    with connect(path, read_only=True) as conn:
        return read_table(conn, "a").height


def test_a_writer_in_another_process_is_waited_for(tmp_path):
    path = tmp_path / "w.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "1.5"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "holding\n"
    with pytest.raises(duckdb.IOException, match="lock"):  # waiting less than the holder holds it: its lock error
        with connect(path, wait=0.2):
            pass
    with connect(path) as conn:  # waiting long enough: the file, once the other process let it go
        assert conn.sql("select x from held").fetchall() == [(1,)]
    assert holder.wait(timeout=30) == 0
