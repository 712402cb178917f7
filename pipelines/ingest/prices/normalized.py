"""The one price frame every format is read into, its checks, and the normalized CSV reader.

Every provider format ends up as rows of PRICE_SCHEMA so the pipeline sees one table whatever
the source. The checks live here, once, so a price is held to the same rules whether it came
from the project's own CSV or from a provider's export: a number, finite, not negative, not
absurd (> MAX_USD_PER_HOUR), with a plausible date that is not in the future.

The normalized CSV (`provider,region,instance_type,usd_per_hour,as_of,source`, extra columns
allowed) is the hand-kept form. It is small, so it is read with the csv module, which keeps exact
line numbers. Its rows are kept as written (not filtered to instances.csv): a curated file lists
what the team meant to price, and a typo there should surface downstream, not vanish here.
Zero is an error in it (someone forgot a price), while provider files simply list zero-price
rows that are dropped.
"""

from __future__ import annotations

import csv
import io
import math
from datetime import date, datetime
from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.csv_table import read_text

PROVIDERS = ("aws", "gcp", "azure")

PRICE_SCHEMA: dict[str, pl.DataType] = {
    "provider": pl.Utf8,
    "region": pl.Utf8,
    "instance_type": pl.Utf8,
    "usd_per_hour": pl.Float64,
    "as_of": pl.Date,
    "source": pl.Utf8,
    "file": pl.Utf8,
    "line": pl.Utf8,
}
PRICE_COLUMNS = list(PRICE_SCHEMA)

# The dearest on-demand instance any provider lists is a few hundred USD/h; anything above this
# is a unit mix-up (per month, per 1000 hours, another currency) rather than a price.
MAX_USD_PER_HOUR = 2000.0
# Cloud on-demand prices do not exist before EC2's launch: an earlier date is a typo.
EARLIEST_DATE = date(2006, 1, 1)

NORMALIZED_COLUMNS = ("provider", "region", "instance_type", "usd_per_hour", "as_of", "source")


def empty_prices() -> pl.DataFrame:
    return pl.DataFrame(schema=PRICE_SCHEMA)


def price_frame(rows: list[dict]) -> pl.DataFrame:
    """Rows (dicts with the PRICE_SCHEMA keys) as a typed frame in the schema's column order."""
    return pl.DataFrame(rows, schema=PRICE_SCHEMA, orient="row") if rows else empty_prices()


def parse_price(text: object, path: Path | str, where: str | int) -> float:
    """A price from text or a number; InputError unless finite, >= 0 and <= MAX_USD_PER_HOUR.

    Zero is returned, not refused: provider files list zero-price rows that callers drop.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise InputError(path, where, f"price {text!r} is not a number")
    try:
        value = float(text.strip() if isinstance(text, str) else text)
    except (ValueError, OverflowError):
        raise InputError(path, where, f"price {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(path, where, f"price {text!r} is not a finite number")
    if value < 0:
        raise InputError(path, where, f"price {text!r} is negative")
    if value > MAX_USD_PER_HOUR:
        raise InputError(path, where, f"price {text!r} USD/h is absurd (more than {MAX_USD_PER_HOUR:g})")
    return value


def parse_day(text: object, path: Path | str, where: str | int, today: date | None = None) -> date:
    """The date of `YYYY-MM-DD` or an ISO timestamp (`2025-06-01T00:00:00Z`, with fractions).

    A future date means a wrong clock or a typo; a date before 2006 predates cloud prices.
    """
    if not isinstance(text, str) or len(text.strip()) < 10:
        raise InputError(path, where, f"date {text!r} is not a date (YYYY-MM-DD)")
    value = text.strip()
    try:
        day = date.fromisoformat(value[:10])
        if len(value) > 10:  # a timestamp: the rest must be valid too
            datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(path, where, f"date {text!r} is not a date (YYYY-MM-DD)") from None
    if day > (today or date.today()):
        raise InputError(path, where, f"date {value} is in the future")
    if day < EARLIEST_DATE:
        raise InputError(path, where, f"date {value} is before {EARLIEST_DATE}, not a price date")
    return day


def read_normalized_csv(path: Path, rel: str) -> pl.DataFrame:
    """Rows of a normalized price CSV; InputError naming file, line and column for any bad cell."""
    text = read_text(path)
    if not text.strip():
        raise InputError(path, 1, "is empty, expected a header line")
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[dict] = []
    try:
        header = [h.strip().lower() for h in next(reader)]
        missing = [c for c in NORMALIZED_COLUMNS if c not in header]
        if missing:
            raise InputError(
                path, 1,
                f"missing column(s) {', '.join(missing)}; expected {','.join(NORMALIZED_COLUMNS)}, "
                f"header is {','.join(header)}",
            )
        doubled = sorted({h for h in header if header.count(h) > 1 and h})
        if doubled:
            raise InputError(path, 1, f"column(s) {', '.join(doubled)} appear twice in the header")
        index = {name: i for i, name in enumerate(header)}
        while True:
            start = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                break
            if not any(cell.strip() for cell in cells):
                continue  # blank lines carry nothing
            if len(cells) != len(header):
                raise InputError(path, start, f"has {len(cells)} fields, the header has {len(header)}")
            rows.append(_normalized_row(path, rel, start, {k: cells[i].strip() for k, i in index.items()}))
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"is not valid CSV: {exc}") from None
    if not rows:
        raise InputError(path, 2, "has a header but no rows")
    return price_frame(rows)


def _normalized_row(path: Path, rel: str, line: int, cell: dict[str, str]) -> dict:
    for name in ("provider", "region", "instance_type", "usd_per_hour", "as_of", "source"):
        if not cell[name]:
            raise InputError(path, f"{line} column {name}", "is empty")
    provider = cell["provider"].lower()
    if provider not in PROVIDERS:
        raise InputError(path, f"{line} column provider", f"{cell['provider']!r} is not one of {', '.join(PROVIDERS)}")
    currency = cell.get("currency", "USD") or "USD"
    if currency.upper() != "USD":
        raise InputError(path, f"{line} column currency", f"currency {currency!r} is not USD; convert explicitly first")
    price = parse_price(cell["usd_per_hour"], path, f"{line} column usd_per_hour")
    if price == 0:
        raise InputError(path, f"{line} column usd_per_hour", "price is zero")
    if len(cell["as_of"]) != 10:
        raise InputError(path, f"{line} column as_of", f"date {cell['as_of']!r} is not a date (YYYY-MM-DD)")
    return {
        "provider": provider,
        "region": cell["region"],
        "instance_type": cell["instance_type"],
        "usd_per_hour": price,
        "as_of": parse_day(cell["as_of"], path, f"{line} column as_of"),
        "source": cell["source"],
        "file": rel,
        "line": str(line),
    }
