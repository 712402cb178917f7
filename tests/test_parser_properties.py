"""Property tests: every hand-kept input parser gives a parsed result or InputError, nothing else.

Parsers under test: the strict CSV reader (csv_table.py) and the readers built on it (tables.py:
instances, mappings, throughput), the MLPerf result-summarizer CSV (results_summary.py) and
report.toml (report_config.py). Inputs: arbitrary bytes, valid bundled files mutated at random
(bytes cut, inserted, lines dropped or doubled, cells replaced by nasty values), and CSVs built
from the right header with arbitrary cells. A parsed result must also keep the promises the
pipeline relies on (positive counts, finite times, unique keys, a baseline among its instances).
The MLPerf log, systems JSON and price parsers have their own property tests.
"""

from __future__ import annotations

import math
import pickle
import re
import tempfile
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, example, given, settings, strategies as st

from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table
from pipelines.ingest.report_config import ReportConfig, parse_report_config
from pipelines.ingest.results_summary import read_results_summary
from pipelines.ingest.tables import read_instances, read_mappings, read_throughput

RAW = Path(__file__).resolve().parents[1] / "raw"
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NASTY = ["", " ", "0", "-1", "1e400", "-0", "nan", "NaN", "inf", "-inf", "1_000", "9" * 40, "0x10", "١٢", "2021-02-30",
         "2999-01-01", "2021-05-15", "\x00", '"', '""', ",", "\n", "\r\n", "\ufeff", "\u2028", "é", "\\", "'", "aws", "gcp",
         "8", "3.5", "1e-320", "True", "[1, 2]", "{", "=", "#", '"""', "a" * 300]

numbers = st.one_of(st.integers().map(str), st.integers(min_value=2**62).map(str), st.integers(max_value=0).map(str),
                    st.floats().map(repr), st.floats().map(str).map(str.upper), st.decimals().map(str))
cells = st.one_of(st.sampled_from(NASTY), numbers, st.text(max_size=12))


def _write(data: bytes, suffix: str) -> Path:
    handle = tempfile.NamedTemporaryFile(delete=False, suffix=suffix, dir=_TMP)
    handle.write(data)
    handle.close()
    return Path(handle.name)


_TMP = tempfile.mkdtemp(prefix="parser_properties_")


def parse_or_input_error(parser, data: bytes, suffix: str = ".csv"):
    """The parser's result for a file with `data`, or None when it raised InputError for that file."""
    path = _write(data, suffix)
    try:
        return parser(path)
    except InputError as error:
        assert error.path == str(path), error
        assert str(error).startswith(str(path)), error
        assert error.problem
        return None
    finally:
        path.unlink()


@st.composite
def mutated(draw, original: bytes) -> bytes:
    """A valid file with a few random edits of the kinds real files get."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cut", "insert", "drop_line", "double_line", "cell", "truncate", "bytes"]))
        lines = bytes(data).split(b"\n")
        if kind == "cut" and data:
            start = draw(st.integers(0, len(data) - 1))
            del data[start:start + draw(st.integers(1, 40))]
        elif kind == "insert":
            at = draw(st.integers(0, len(data)))
            data[at:at] = draw(st.sampled_from(NASTY)).encode("utf-8")
        elif kind == "bytes":
            at = draw(st.integers(0, len(data)))
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "drop_line" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            data = bytearray(b"\n".join(lines))
        elif kind == "double_line" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            data = bytearray(b"\n".join(lines))
        elif kind == "cell" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            parts = lines[i].split(b",")
            parts[draw(st.integers(0, len(parts) - 1))] = draw(cells).encode("utf-8")
            lines[i] = b",".join(parts)
            data = bytearray(b"\n".join(lines))
        elif kind == "truncate" and data:
            del data[draw(st.integers(0, len(data) - 1)):]
    return bytes(data)


def csv_from(header: list[str], rows: list[list[str]]) -> bytes:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def rows_for(header: list[str]):
    return st.lists(st.lists(cells, min_size=len(header), max_size=len(header)), max_size=6)


# ---- csv_table.read_csv_table -----------------------------------------------------------------
COLUMNS = [Column("name"), Column("count", "int", positive=True), Column("share", "float", required=False),
           Column("day", "date", required=False)]


def read_generic(path: Path) -> pl.DataFrame:
    return read_csv_table(path, COLUMNS)


def check_generic(frame: pl.DataFrame | None) -> None:
    if frame is None:
        return
    assert frame.height > 0
    assert frame["count"].min() > 0
    assert all(math.isfinite(v) for v in frame["share"].drop_nulls())
    assert frame["line"].is_sorted() and frame["line"].min() >= 2


@FAST
@given(st.binary(max_size=600))
@example(b"")
@example(b"\xef\xbb\xbf")
@example(b"name,count\n\"unclosed,1\n")
@example(b"name,count\nx,99999999999999999999999\n")
@example(b"name,count,share,day\nx,1,1e400,\n")
def test_csv_table_any_bytes(data):
    check_generic(parse_or_input_error(read_generic, data))


@FAST
@given(rows_for(["name", "count", "share", "day", "extra"]))
def test_csv_table_arbitrary_cells(rows):
    check_generic(parse_or_input_error(read_generic, csv_from(["name", "count", "share", "day", "extra"], rows)))


# ---- tables.py: instances, mappings, throughput ------------------------------------------------
def check_instances(frame):
    if frame is None:
        return
    assert frame["accelerator_count"].min() > 0 and frame["vcpus"].min() > 0
    assert not frame.select("provider", "instance_type").is_duplicated().any()
    # any lower-case name: the big three, a catalog's cloud or a user's own provider (coreweave)
    assert all(re.fullmatch(r"[a-z][a-z0-9]*", provider) for provider in frame["provider"])


def check_mappings(frame):
    if frame is None:
        return
    assert not frame.select("provider", "instance_type", "benchmark").is_duplicated().any()


def check_throughput(frame):
    if frame is None:
        return
    assert frame["samples_per_second"].min() > 0
    assert all(math.isfinite(v) for v in frame["samples_per_second"])
    assert not frame.select("system", "benchmark").is_duplicated().any()


TABLES = [
    (read_instances, "instances.csv", check_instances),
    (read_mappings, "mappings.csv", check_mappings),
    (read_throughput, "throughput/mlperf_logged_throughput.csv", check_throughput),
]


@FAST
@given(st.sampled_from(TABLES), st.binary(max_size=400))
def test_tables_any_bytes(table, data):
    reader, _, check = table
    check(parse_or_input_error(reader, data))


@FAST
@given(st.data())
def test_tables_mutated_bundled_files(data):
    reader, name, check = data.draw(st.sampled_from(TABLES))
    check(parse_or_input_error(reader, data.draw(mutated((RAW / name).read_bytes()))))


@FAST
@given(st.data())
def test_tables_arbitrary_cells(data):
    reader, name, check = data.draw(st.sampled_from(TABLES))
    header = (RAW / name).read_text(encoding="utf-8").splitlines()[0].split(",")
    check(parse_or_input_error(reader, csv_from(header, data.draw(rows_for(header)))))


@st.composite
def valid_rows_with_nasty_cells(draw, path: Path) -> bytes:
    """The bundled file's rows, a few cells replaced by nasty values (one bad cell among good ones)."""
    import csv

    header, *rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    rows = [list(r) for r in rows]
    for _ in range(draw(st.integers(1, 3))):
        row = draw(st.integers(0, len(rows) - 1))
        rows[row][draw(st.integers(0, len(header) - 1))] = draw(cells)
    return csv_from(header, rows)


@FAST
@given(st.data())
def test_tables_one_bad_cell_among_good_ones(data):
    reader, name, check = data.draw(st.sampled_from(TABLES))
    check(parse_or_input_error(reader, data.draw(valid_rows_with_nasty_cells(RAW / name))))


def test_bundled_tables_parse():
    for reader, name, check in TABLES:
        frame = reader(RAW / name)
        assert frame.height > 0
        check(frame)


# ---- results_summary.py -----------------------------------------------------------------------
SUMMARIES = sorted((RAW / "results").glob("*.csv"))


def check_summary(frame):
    if frame is None:
        return
    assert all(math.isfinite(v) and v > 0 for v in frame["time_to_train_minutes"])
    assert frame["system"].null_count() == 0 and frame["benchmark"].null_count() == 0


@FAST
@given(st.binary(max_size=600))
@example(b"private_id,details_url\n")
@example(b"a,private_id,details_url\n")
def test_results_summary_any_bytes(data):
    check_summary(parse_or_input_error(read_results_summary, data))


@FAST
@given(st.data())
def test_results_summary_mutated(data):
    original = data.draw(st.sampled_from(SUMMARIES)).read_bytes()
    check_summary(parse_or_input_error(read_results_summary, data.draw(mutated(original))))


@FAST
@given(st.data())
def test_results_summary_one_bad_cell_among_good_ones(data):
    path = data.draw(st.sampled_from(SUMMARIES))
    check_summary(parse_or_input_error(read_results_summary, data.draw(valid_rows_with_nasty_cells(path))))


@FAST
@given(st.data())
def test_results_summary_arbitrary_cells(data):
    header = SUMMARIES[0].read_text(encoding="utf-8").splitlines()[0].split(",")
    check_summary(parse_or_input_error(read_results_summary, csv_from(header, data.draw(rows_for(header)))))


# ---- report_config.py -------------------------------------------------------------------------
def parse_toml(path: Path) -> ReportConfig:
    return parse_report_config(path)


def check_config(config: ReportConfig | None) -> None:
    if config is None:
        return
    assert config.title and config.benchmarks and config.comparisons
    for comparison in config.comparisons:
        assert comparison.baseline in comparison.instances
        assert set(comparison.benchmarks) <= set(config.all_benchmarks)  # the report's, and its workloads
        assert all(inst.provider in config.regions for inst in comparison.instances)


toml_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8),
              st.sampled_from(["aws/p4d.24xlarge", "aws/p3.16xlarge", "gcp/x", "resnet", "2022-02-08", "2999-01-01"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12,
)


def _toml_literal(value) -> str | None:
    """A TOML inline value for a JSON-like value, or None where TOML has no form (null)."""
    import json

    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if -(2**63) <= value < 2**63 else None
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value == math.inf else ("-inf" if value == -math.inf else repr(value)))
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        items = [_toml_literal(v) for v in value]
        return None if None in items else "[" + ", ".join(items) + "]"
    items = {k: _toml_literal(v) for k, v in value.items()}
    return None if None in items.values() else "{" + ", ".join(f"{json.dumps(k)} = {v}" for k, v in items.items()) + "}"


@FAST
@given(st.binary(max_size=600))
def test_report_config_any_bytes(data):
    check_config(parse_or_input_error(parse_toml, data, ".toml"))


@FAST
@given(st.data())
def test_report_config_mutated(data):
    check_config(parse_or_input_error(parse_toml, data.draw(mutated((RAW / "report.toml").read_bytes())), ".toml"))


@FAST
@given(st.sampled_from(["title", "benchmarks", "regions", "comparisons", "price_date", "mlperf_trees", "subtitle"]),
       toml_values)
@example(key="title", value="")  # found by this test: an empty title was accepted
def test_report_config_any_value_for_a_key(key, value):
    """Each top-level key of the bundled report.toml given a value of any type."""
    literal = _toml_literal(value)
    if literal is None:
        return
    import tomllib

    original = (RAW / "report.toml").read_text(encoding="utf-8")
    data = tomllib.loads(original)
    head = [f"{k} = {_toml_literal(v)}" for k, v in data.items() if not isinstance(v, (dict, list)) or k == "benchmarks"
            if k != key]
    head.append(f"{key} = {literal}")
    regions = "" if key == "regions" else "[regions]\n" + "\n".join(f'{k} = "{v}"' for k, v in data["regions"].items()) + "\n"
    comparisons = "" if key == "comparisons" else original[original.index("[[comparisons]]"):]
    check_config(parse_or_input_error(parse_toml, ("\n".join(head) + "\n" + regions + comparisons).encode("utf-8"), ".toml"))


def test_bundled_report_config_parses():
    check_config(parse_report_config(RAW / "report.toml"))


def test_input_error_is_one_line_and_survives_pickling():
    error = InputError("/data/raw/prices/x.csv", "3 column usd_per_hour", "price 'abc' is not a number")
    assert str(error) == "/data/raw/prices/x.csv:3 column usd_per_hour: price 'abc' is not a number"
    again = pickle.loads(pickle.dumps(error))
    assert (again.path, again.where, again.problem) == (error.path, error.where, error.problem)
    assert str(InputError("/x.csv", None, "is empty")) == "/x.csv: is empty"
