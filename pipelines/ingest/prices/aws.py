"""AWS Price List (AmazonEC2) bulk CSV: on-demand and reserved prices of our instances.

A region's CSV is hundreds of MB to GBs, so it is never loaded: DuckDB scans it once (read_csv,
all text, the 5 metadata lines and the header skipped) and filters in SQL with parameters, which
keeps memory flat and time close to a bare scan. Columns are mapped by name from the header
(AWS reorders them between versions); the SQL names columns c0, c1 ... so no text from the file
ever becomes SQL. The scan keeps the OnDemand and Reserved rows of the products that count (see
aws_terms.py for the rule and the meaning of each row); the few rows left are paired into terms
in Python. Any kept row in another currency than USD is refused.

`line` of an on-demand row is its RateCode (e.g. `RateCode 5B2B....JRTCKXETXF.6YS6EN2CT7`), unique
in the file and found with grep; a reserved row's is `RateCode <SKU>.<OfferTermCode>`, the prefix
that both of its dimensions' rate codes share. Numbering rows costs DuckDB a second, ordered pass
(about 1.7x the scan time on a 1 GB file), which the price of a line number does not justify.
The date of every row is the file's Publication Date.
"""

from __future__ import annotations

import csv
import io
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb
import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import aws_terms
from pipelines.ingest.prices.aws_columns import METADATA_KEYS, NEEDED, OPTIONAL, column_key
from pipelines.ingest.prices.instances import instance_types
from pipelines.ingest.prices.normalized import parse_day, price_frame

_HEAD_BYTES = 1 << 16  # the metadata and header lines are a few KB
_MEMORY_LIMIT = "512MB"  # the scan streams; a limit keeps a bad file from taking the machine
# The columns _scan selects, in its order.
_SELECTED = ["sku", "rate_code", "term_type", "unit", "price", "currency", "region", "instance_type", "usage_type",
             "offer_term_code", "lease", "purchase", "offering", "market", "operation"]


def read_aws_csv(path: Path, rel: str, instances: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(prices, usage map) of an AWS Price List CSV (see the module docstring)."""
    metadata, header = read_head(path, (aws_terms.OFFER_CODE,))
    publication = parse_day(metadata["Publication Date"][1], path, metadata["Publication Date"][0])
    columns = _column_indexes(header, path)
    types = instance_types(instances, "aws")
    if not types:
        return price_frame([]), aws_terms.empty_usage()
    out, usage, terms = [], [], {}
    for row in _scan(path, len(header), columns, types):
        cell = dict(zip(_SELECTED, (value or "" for value in row)))
        where = f"RateCode {cell['rate_code'] or cell['sku']}"
        if cell["currency"] != "USD":
            raise InputError(path, where, f"currency {cell['currency']!r} is not USD; convert explicitly first")
        if not cell["region"]:
            raise InputError(path, where, "Region Code is empty")
        if cell["term_type"] == "OnDemand":
            if cell["unit"] != aws_terms.HOURLY_UNIT:
                continue
            usage.append({"usage_type": cell["usage_type"], "operation": cell["operation"], "region": cell["region"],
                          "instance_type": cell["instance_type"]})
            kept = aws_terms.on_demand_row(path, where, cell["region"], cell["instance_type"], cell["price"],
                                           publication, rel)
            out += [kept] if kept else []
        else:
            terms.setdefault((cell["sku"], cell["offer_term_code"]), []).append(cell)
    for (sku, term_code), cells in terms.items():
        kept = _reserved(path, rel, publication, f"RateCode {sku}.{term_code}", cells)
        out += [kept] if kept else []
    return price_frame(out), aws_terms.usage_frame(usage)


def _reserved(path: Path, rel: str, publication, where: str, cells: list[dict]) -> dict | None:
    first = cells[0]
    for name in ("lease", "purchase", "offering"):
        if any(c[name] != first[name] for c in cells):
            raise InputError(path, where, f"the dimensions of one reserved term disagree on {OPTIONAL[name]}")
    dimensions = [(c["unit"], c["price"], f"RateCode {c['rate_code']}") for c in cells]
    return aws_terms.reserved_row(path, where, first["region"], first["instance_type"], publication, rel,
                                  lease=first["lease"], purchase=first["purchase"], offering=first["offering"],
                                  dimensions=dimensions)


def read_head(path: Path, offer_codes: tuple[str, ...]) -> tuple[dict[str, tuple[int, str]], list[str]]:
    """({metadata key: (line, value)}, header) from the first 6 lines; InputError if malformed.

    Every AWS Price List CSV (EC2 offers and savings plans alike) starts with the same five
    metadata lines; `offer_codes` are the OfferCode values the caller reads.
    """
    with path.open("rb") as handle:
        head = handle.read(_HEAD_BYTES)
    text = head.decode("utf-8-sig", errors="replace")
    lines = text.splitlines(keepends=True)
    complete = lines if len(head) < _HEAD_BYTES else lines[:-1]  # the last may be cut at 64 KiB
    try:
        parsed = list(csv.reader(io.StringIO("".join(complete[:6]), newline="")))
    except csv.Error as exc:
        raise InputError(path, 1, f"AWS Price List CSV head is not valid CSV: {exc}") from None
    metadata: dict[str, tuple[int, str]] = {}
    for number, cells in enumerate(parsed[:5], start=1):
        if len(cells) < 2 or cells[0].strip() not in METADATA_KEYS:
            raise InputError(path, number, f"expected a metadata line ({', '.join(METADATA_KEYS)}), found {cells[:2]!r}")
        metadata[cells[0].strip()] = (number, cells[1].strip())
    if len(parsed) < 6:
        raise InputError(path, len(parsed) + 1, "AWS Price List CSV: expected 5 metadata lines and a header line")
    if len(complete) < 7:
        raise InputError(path, 7, "AWS Price List CSV has no rows after its header")
    for name in ("Publication Date", "OfferCode"):
        if name not in metadata:
            raise InputError(path, None, f"AWS Price List CSV lacks the {name!r} metadata line")
    line, offer = metadata["OfferCode"]
    if offer not in offer_codes:
        raise InputError(path, line, f"offer {offer!r} is not {' or '.join(offer_codes)}")
    return metadata, [cell.strip() for cell in parsed[5]]


def column_indexes(header: list[str], needed: dict[str, str], optional: dict[str, str], path: Path) -> dict[str, int | None]:
    """{short name: column index} by name; InputError for a needed column that is missing."""
    by_key: dict[str, int] = {}
    for index, name in enumerate(header):
        by_key.setdefault(column_key(name), index)
    missing = [name for name in needed.values() if column_key(name) not in by_key]
    if missing:
        raise InputError(path, 6, f"AWS Price List CSV header lacks column(s) {', '.join(missing)}")
    return {short: by_key.get(column_key(name)) for short, name in (needed | optional).items()}


def _column_indexes(header: list[str], path: Path) -> dict[str, int | None]:
    return column_indexes(header, NEEDED, OPTIONAL, path)


@contextmanager
def csv_rows(path: Path, width: int) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB connection whose view `rows` is the CSV's data rows: all text, columns c0, c1 ...

    Callers filter it in SQL whose only holes are those generated column names (values go in as
    parameters). A malformed file, found while DuckDB scans it, is an InputError.
    """
    conn = duckdb.connect(config={"memory_limit": _MEMORY_LIMIT})
    try:
        conn.read_csv(str(path), header=False, skiprows=6, names=[f"c{i}" for i in range(width)], all_varchar=True,
                      delimiter=",", quotechar='"', escapechar='"').create_view("rows")
        yield conn
    except duckdb.Error as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        found = re.search(r"[Ll]ine:?\s*(\d+)", str(exc))
        raise InputError(path, found.group(1) if found else None, f"AWS Price List CSV is malformed: {message}") from None
    finally:
        conn.close()


def column_refs(col: dict[str, int | None]) -> dict[str, str]:
    """{short name: `c<N>`}, or `null` for an optional column the file lacks."""
    return {short: f"c{index}" if index is not None else "null" for short, index in col.items()}


def _scan(path: Path, width: int, col: dict[str, int | None], types: list[str]) -> list[tuple]:
    """The candidate rows (columns in _SELECTED order), filtered by DuckDB."""
    c = column_refs(col)
    params = {"families": aws_terms.FAMILIES, "types": types, "on_demand": aws_terms.MARKET_ON_DEMAND}
    with csv_rows(path, width) as conn:
        query = f"""
            select {c['sku']}, {c['rate_code']}, {c['term_type']}, {c['unit']}, {c['price']}, {c['currency']},
                   {c['region']}, {c['instance_type']}, {c['usage_type']}, {c['offer_term_code']}, {c['lease']},
                   {c['purchase']}, {c['offering']}, {c['market']}, {c['operation']}
            from rows
            where {c['term_type']} in ('OnDemand', 'Reserved')
              and {c['unit']} in ('Hrs', 'Quantity')
              and list_contains($families, {c['family']})
              and {c['os']} = 'Linux'
              and {c['software']} = 'NA'
              and {c['license']} = 'No License required'
              and {c['tenancy']} = 'Shared'
              and {c['capacity']} = 'Used'
              and contains({c['usage_type']}, 'BoxUsage')
              and coalesce({c['market']}, $on_demand) = $on_demand
              and list_contains($types, {c['instance_type']})
        """
        return conn.sql(query, params=params).fetchall()
