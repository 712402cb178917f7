"""Frames in and out of the DuckDB warehouse (pipelines/warehouse.py): as they were, and without pyarrow."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import duckdb
import polars as pl
from polars.testing import assert_frame_equal

from pipelines.warehouse import read_table, to_polars, write_frame

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
