"""AWS Price List (AmazonEC2) bulk files, CSV and JSON: the plain Linux on-demand hourly price.

A region's CSV is hundreds of MB to GBs, so it is never loaded: DuckDB scans it (read_csv,
all text, the 5 metadata lines and the header skipped) and filters in SQL with parameters, which
keeps memory flat and time close to a bare scan. Columns are mapped by name from the header
(AWS reorders them between versions); the SQL names columns c0, c1 ... so no text from the file
ever becomes SQL. A row is kept when it is the plain Linux on-demand price of one of our
instances: TermType OnDemand, Unit Hrs, Product Family Compute Instance (or bare metal),
Operating System Linux, Pre Installed S/W NA, License Model "No License required", Tenancy
Shared, CapacityStatus Used, usageType containing BoxUsage. Zero prices are dropped; any kept
row in another currency than USD is refused.

`line` of a CSV row is its RateCode (e.g. `RateCode 5B2B....JRTCKXETXF.6YS6EN2CT7`), unique in the
file and found with grep: numbering rows costs DuckDB a second, ordered pass (about 1.7x the
scan time on a 1 GB file), which the price of a line number does not justify.
The date of every row is the file's Publication Date.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from pathlib import Path

import duckdb
import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.prices.aws_columns import METADATA_KEYS, NEEDED, column_key
from pipelines.ingest.prices.instances import instance_types
from pipelines.ingest.prices.jsontools import as_dict, as_text, key, opt_text
from pipelines.ingest.prices.normalized import parse_day, parse_price, price_frame

FAMILIES = ["Compute Instance", "Compute Instance (bare metal)"]
OFFER_CODE = "AmazonEC2"
_HEAD_BYTES = 1 << 16  # the metadata and header lines are a few KB
_MEMORY_LIMIT = "512MB"  # the scan streams; a limit keeps a bad file from taking the machine


def source_text(region: str, publication: date) -> str:
    return f"AWS Price List API, {OFFER_CODE} {region}, publication {publication.isoformat()}"


# --- CSV ---------------------------------------------------------------------------------------

def read_aws_csv(path: Path, rel: str, instances: pl.DataFrame) -> pl.DataFrame:
    """Kept rows of an AWS Price List CSV (see the module docstring)."""
    metadata, header = _read_head(path)
    publication = parse_day(metadata["Publication Date"][1], path, metadata["Publication Date"][0])
    columns = _column_indexes(header, path)
    types = instance_types(instances, "aws")
    if not types:
        return price_frame([])
    rows = _scan(path, len(header), columns, types)
    out = []
    for sku, rate_code, region, instance_type, price, currency in rows:
        where = f"RateCode {rate_code or sku}"
        if currency != "USD":
            raise InputError(path, where, f"currency {currency!r} is not USD; convert explicitly first")
        value = parse_price(price, path, where)
        if value == 0:
            continue
        if not region:
            raise InputError(path, where, "Region Code is empty")
        out.append({
            "provider": "aws", "region": region, "instance_type": instance_type,
            "usd_per_hour": value, "as_of": publication,
            "source": source_text(region, publication), "file": rel, "line": where,
        })
    return price_frame(out)


def _read_head(path: Path) -> tuple[dict[str, tuple[int, str]], list[str]]:
    """({metadata key: (line, value)}, header) from the first 6 lines; InputError if malformed."""
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
    if offer != OFFER_CODE:
        raise InputError(path, line, f"offer {offer!r} is not {OFFER_CODE}: not EC2 instance prices")
    return metadata, [cell.strip() for cell in parsed[5]]


def _column_indexes(header: list[str], path: Path) -> dict[str, int]:
    by_key: dict[str, int] = {}
    for index, name in enumerate(header):
        by_key.setdefault(column_key(name), index)
    missing = [name for name in NEEDED.values() if column_key(name) not in by_key]
    if missing:
        raise InputError(path, 6, f"AWS Price List CSV header lacks column(s) {', '.join(missing)}")
    return {short: by_key[column_key(name)] for short, name in NEEDED.items()}


def _scan(path: Path, width: int, col: dict[str, int], types: list[str]) -> list[tuple]:
    """The candidate rows, filtered by DuckDB; column references are generated c<N> names."""
    c = {short: f"c{index}" for short, index in col.items()}
    query = f"""
        select {c['sku']}, {c['rate_code']}, {c['region']}, {c['instance_type']}, {c['price']}, {c['currency']}
        from read_csv($path, skip = 6, header = false, names = $names, all_varchar = true,
                      delim = ',', quote = '"', escape = '"')
        where {c['term_type']} = 'OnDemand'
          and {c['unit']} = 'Hrs'
          and list_contains($families, {c['family']})
          and {c['os']} = 'Linux'
          and {c['software']} = 'NA'
          and {c['license']} = 'No License required'
          and {c['tenancy']} = 'Shared'
          and {c['capacity']} = 'Used'
          and contains({c['usage_type']}, 'BoxUsage')
          and list_contains($types, {c['instance_type']})
    """
    params = {
        "path": str(path),
        "names": [f"c{i}" for i in range(width)],
        "families": FAMILIES,
        "types": types,
    }
    conn = duckdb.connect(config={"memory_limit": _MEMORY_LIMIT})
    try:
        return conn.sql(query, params=params).fetchall()
    except duckdb.Error as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        found = re.search(r"[Ll]ine:?\s*(\d+)", str(exc))
        raise InputError(path, found.group(1) if found else None, f"AWS Price List CSV is malformed: {message}") from None
    finally:
        conn.close()


# --- JSON --------------------------------------------------------------------------------------

def read_aws_json(doc: dict, path: Path, rel: str, instances: pl.DataFrame) -> pl.DataFrame:
    """Kept prices of an AWS offer file in JSON (same filter as the CSV; keys are camelCase)."""
    offer = doc.get("offerCode", OFFER_CODE)
    if offer != OFFER_CODE:
        raise InputError(path, "$.offerCode", f"offer {offer!r} is not {OFFER_CODE}: not EC2 instance prices")
    publication = parse_day(doc.get("publicationDate"), path, "$.publicationDate")
    products = as_dict(doc["products"], path, "$.products")
    terms = as_dict(doc["terms"], path, "$.terms")
    on_demand = as_dict(terms.get("OnDemand", {}), path, "$.terms.OnDemand")
    wanted = set(instance_types(instances, "aws"))
    out = []
    for sku, product in products.items():
        where = f"$.products{key(sku)}"
        product = as_dict(product, path, where)
        attrs = as_dict(product.get("attributes", {}), path, f"{where}.attributes")
        if not _is_plain_linux_on_demand(product, attrs, wanted):
            continue
        region = as_text(attrs.get("regionCode"), path, f"{where}.attributes.regionCode")
        for term_code, term in as_dict(on_demand.get(sku, {}), path, f"$.terms.OnDemand{key(sku)}").items():
            term_where = f"$.terms.OnDemand{key(sku)}{key(term_code)}"
            term = as_dict(term, path, term_where)
            dims = as_dict(term.get("priceDimensions", {}), path, f"{term_where}.priceDimensions")
            for rate_code, dim in dims.items():
                dim_where = f"{term_where}.priceDimensions{key(rate_code)}"
                dim = as_dict(dim, path, dim_where)
                if opt_text(dim.get("unit")) != "Hrs":
                    continue
                value = _usd(dim.get("pricePerUnit"), path, f"{dim_where}.pricePerUnit")
                if value == 0:
                    continue
                out.append({
                    "provider": "aws", "region": region, "instance_type": opt_text(attrs["instanceType"]),
                    "usd_per_hour": value, "as_of": publication,
                    "source": source_text(region, publication), "file": rel, "line": dim_where,
                })
    return price_frame(out)


def _is_plain_linux_on_demand(product: dict, attrs: dict, wanted: set[str]) -> bool:
    return (
        opt_text(attrs.get("instanceType")) in wanted
        and opt_text(product.get("productFamily")) in FAMILIES
        and opt_text(attrs.get("operatingSystem")) == "Linux"
        and opt_text(attrs.get("preInstalledSw")) == "NA"
        and opt_text(attrs.get("licenseModel")) == "No License required"
        and opt_text(attrs.get("tenancy")) == "Shared"
        and opt_text(attrs.get("capacitystatus")) == "Used"
        and "BoxUsage" in opt_text(attrs.get("usagetype"))
    )


def _usd(price_per_unit: object, path: Path, where: str) -> float:
    prices = as_dict(price_per_unit, path, where)
    if "USD" not in prices:
        others = ", ".join(map(str, prices)) or "none"
        raise InputError(path, where, f"no USD price (currencies: {others}); convert explicitly first")
    return parse_price(prices["USD"], path, f"{where}.USD")
