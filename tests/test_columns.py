"""The column dictionary (pipelines/domain/columns.py) covers every column the pipeline makes, and the
UI's metadata uses it: column descriptions in the schema, previews rounded as the report rounds.

Coverage is checked on real outputs: the warehouse and the data files of the bundled report and
of the atlas built on the shared MLPerf sample, so a new column without a meaning fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipelines.domain.columns import COLUMNS, FORMATS, TABLE_COLUMNS, describe, formatted
from pipelines.defs.metadata import _markdown, table_metadata
from pipelines.defs.report.documents import EXPORTS

from pipelines.publish.exports import ATLAS_FILES  # the atlas's data files and the tables they hold


def tables(warehouse: Path) -> dict[str, list[str]]:
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        names = [r[0] for r in conn.sql("select table_name from information_schema.tables").fetchall()]
        return {name: [r[0] for r in conn.sql(f"describe {name}").fetchall()] for name in names}


@pytest.mark.slow
def test_every_column_of_every_table_and_data_file_has_a_meaning(bundled_run, sample_atlas_run):
    """The bundled report's warehouse and the shared sample's atlas's (which holds the staging the atlas reads)."""
    found = tables(bundled_run.warehouse) | tables(sample_atlas_run.warehouse)
    assert {"stg_prices", "cost_to_train", "input_files", "atlas_costs", "atlas_systems"} <= set(found)
    missing = [f"{table}.{column}" for table, columns in found.items() for column in columns if not describe(table, column)]
    assert not missing, missing

    data = {("report", p.stem): p for p in (bundled_run.reports / "latest" / "data").glob("*.csv")}
    data |= {("atlas", p.stem): p for p in (sample_atlas_run.published / "data").glob("*.csv")}
    # the bundled data has no MLPerf result trees: its MLPerf scores and runs have no rows, and a table
    # without rows is not published (their columns are checked above, in the warehouse)
    assert {stem for kind, stem in data if kind == "report"} == set(EXPORTS) - {"mlperf_scores", "mlperf_runs"}
    assert {stem for kind, stem in data if kind == "atlas"} == set(ATLAS_FILES)
    for (kind, stem), path in data.items():
        table = EXPORTS[stem][0] if kind == "report" else ATLAS_FILES[stem]
        # data/atlas.csv: the on-demand pairs, then the same pairs under the other pricing options
        sources = [table] + (["atlas_option_costs"] if (kind, stem) == ("atlas", "atlas") else [])
        header = path.read_text().splitlines()[0].split(",")
        assert set(header) <= {c for t in sources for c in found[t]}, (path, table)
        assert all(any(describe(t, column) for t in sources) for column in header), path


def test_meanings_are_sentences_and_units_are_known():
    for name, column in list(COLUMNS.items()) + [(f"{t}.{c}", v) for (t, c), v in TABLE_COLUMNS.items()]:
        assert column.meaning and column.meaning == column.meaning.strip() and not column.meaning.endswith("."), name
        assert column.unit is None or column.unit in FORMATS, name


def test_values_are_shown_as_the_report_shows_them():
    # figures checked by hand: p4d.24xlarge ResNet at 21.957642 USD/h for 28.770861 min
    assert formatted("cost_to_train", "cost_to_train_usd", 10.529004471824997) == "$10.53"
    assert formatted("cost_to_train", "usd_per_hour", 21.957642) == "$21.9576"
    assert formatted("cost_to_train", "time_to_train_minutes", 28.770861) == "28.8 min"
    assert formatted("cost_to_train", "time_to_train_minutes", 131.5) == "2 h 11.5 min"
    assert formatted("cost_to_train", "savings_pct", -12.34567) == "-12.3%"
    assert formatted("cost_to_train", "speedup", 2.751234) == "2.75×"
    assert formatted("cost_to_train", "samples_per_dollar", 123456.789) == "123,457"
    assert formatted("stg_instances", "memory_gib", 1152.0) == "1,152"  # no unit: 4 decimals at most
    assert formatted("atlas_costs", "scaling_factor", 0.123456789) == "0.1235"
    assert formatted("cost_to_train", "cost_rank", 3) == "3"  # integers as they are
    assert formatted("cost_to_train", "is_baseline", True) == "True"
    assert formatted("cost_to_train", "cost_to_train_usd", None) == ""
    assert formatted("cost_to_train", "cost_to_train_usd", float("nan")) == ""


def test_preview_cells_are_rounded_and_safe_in_markdown():
    frame = pl.DataFrame({"instance_type": ["a|b"], "cost_to_train_usd": [10.529004471824997],
                          "mapping_note": ["two\nlines"], "accelerator_memory_gb": [39.99999999]})
    assert _markdown("cost_to_train", frame).splitlines() == [
        "| instance_type | cost_to_train_usd | mapping_note | accelerator_memory_gb |",
        "| --- | --- | --- | --- |",
        "| a\\|b | $10.53 | two lines | 40 |",
    ]


@pytest.mark.slow
def test_materialization_metadata_describes_columns_and_rounds_previews(bundled_run):
    with duckdb.connect(str(bundled_run.warehouse), read_only=True) as conn:
        for table in ("cost_to_train", "price_history", "stg_comparisons"):
            meta = table_metadata(conn, table, preview=True)
            columns = meta["dagster/column_schema"].columns
            assert columns and all(c.description for c in columns), table
            cells = [c.strip() for line in meta["preview"].value.splitlines()[2:] for c in line.split(" | ")]
            long = [c for c in cells if re.fullmatch(r"[-+$]?[\d,]*\.\d{5,}", c)]
            assert not long, long  # no 15-digit floats
    cost = table_metadata(duckdb.connect(str(bundled_run.warehouse), read_only=True), "cost_to_train", preview=True)
    assert "$" in cost["preview"].value and " min |" in cost["preview"].value
