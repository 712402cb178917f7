"""A strict reader for the small hand-kept CSV inputs (instances, mappings, throughput ...).

The files are small, so they are read with the csv module, which keeps exact line numbers for
error messages. Each column is declared with a type; a missing column, an empty required value or
a value of the wrong type raises InputError naming the file, line and column. Extra columns are
kept as text. A byte-order mark and CRLF line ends are accepted. A date column refuses a date in
the future (a typo or a wrong clock). Only regular files are read: a directory, a FIFO (which
would block the run forever), a dangling symbolic link or a symbolic-link loop is an InputError.
"""

from __future__ import annotations

import csv
import errno
import io
import math
import os
import stat
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Callable

import polars as pl

from pipelines.config import today as calendar_today
from pipelines.domain.errors import InputError


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = "str"  # str | int | float | date
    required: bool = True  # False: an empty cell is null
    positive: bool = False  # numbers must be > 0
    may_be_absent: bool = False  # a column added later: a file without it reads as all empty


_DTYPES = {"str": pl.Utf8, "int": pl.Int64, "float": pl.Float64, "date": pl.Date}


def _convert(kind: str, text: str, today: date) -> object:
    if kind == "str":
        return text
    if kind == "int":
        value = int(text)
        if not -(2**63) <= value < 2**63:
            raise ValueError("out of the 64-bit range")
        return value
    if kind == "float":
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    if kind == "date":
        day = date.fromisoformat(text)
        if day > today:
            raise FutureDate(day)
        return day
    raise AssertionError(kind)


class FutureDate(ValueError):
    """A well-formed date that lies after today."""


_KIND_WORDS = {"int": "a whole number", "float": "a number", "date": "a date (YYYY-MM-DD)"}


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file, or InputError naming why it cannot be read.

    The file is opened non-blocking and checked with fstat before reading, so a FIFO put in place
    of an input fails at once instead of waiting forever for a writer.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(path, None, f"is a dangling symbolic link (to {os.readlink(path)})") from None
        raise InputError(path, None, "is missing") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(path, None, "is a symbolic link loop") from None
        if exc.errno == errno.EISDIR:
            raise InputError(path, None, "is a directory, expected a file") from None
        raise InputError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(path, None, "is a directory, expected a file")
        if not stat.S_ISREG(mode):
            raise InputError(path, None, "is not a regular file (a FIFO, socket or device)")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """The file's text as UTF-8 (a BOM is dropped), or InputError for anything unreadable."""
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, line, "is not UTF-8 text") from None


def read_csv_table(
    path: Path,
    columns: list[Column],
    check_row: Callable[[dict, int], None] | None = None,
    today: date | None = None,
) -> pl.DataFrame:
    """Rows of a CSV as a typed frame with a `line` column; InputError for any bad cell (a date after `today`,
    default config.today(), among them)."""
    today = today or calendar_today()
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(path, 1, "is empty, expected a header line") from None
    except csv.Error as exc:
        raise InputError(path, 1, f"is not valid CSV: {exc}") from None
    header = [h.strip() for h in header]
    missing = [c.name for c in columns if c.name not in header and not c.may_be_absent]
    if missing:
        raise InputError(path, 1, f"missing column(s) {', '.join(missing)}; header is {','.join(header)}")
    index = {name: i for i, name in enumerate(header)}
    extra = [h for h in header if h not in {c.name for c in columns}]

    rows: dict[str, list] = {c.name: [] for c in columns} | {h: [] for h in extra} | {"line": []}
    try:
        for cells in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue  # blank lines carry nothing
            if len(cells) != len(header):
                raise InputError(path, line, f"has {len(cells)} fields, the header has {len(header)}")
            record = {}
            for col in columns:
                text_value = cells[index[col.name]].strip() if col.name in index else ""
                if not text_value:
                    if col.required:
                        raise InputError(path, f"{line} column {col.name}", "is empty")
                    record[col.name] = None
                    continue
                try:
                    value = _convert(col.kind, text_value, today)
                except FutureDate as future:
                    raise InputError(path, f"{line} column {col.name}", f"date {future} lies in the future") from None
                except ValueError:
                    raise InputError(
                        path, f"{line} column {col.name}",
                        f"{text_value!r} is not {_KIND_WORDS[col.kind]}",
                    ) from None
                if col.positive and value <= 0:
                    raise InputError(path, f"{line} column {col.name}", f"{text_value} must be greater than zero")
                record[col.name] = value
            if check_row:
                check_row(record, line)
            for name, value in record.items():
                rows[name].append(value)
            for name in extra:
                rows[name].append(cells[index[name]].strip())
            rows["line"].append(line)
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"is not valid CSV: {exc}") from None
    if not rows["line"]:
        raise InputError(path, 2, "has a header but no rows")
    schema = {c.name: _DTYPES[c.kind] for c in columns} | {h: pl.Utf8 for h in extra} | {"line": pl.Int64}
    return pl.DataFrame(rows, schema=schema)
