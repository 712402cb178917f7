"""The one price frame every format is read into, its checks, and the normalized CSV reader.

Every provider format ends up as rows of PRICE_SCHEMA so the pipeline sees one table whatever
the source. The checks live here, once, so a price is held to the same rules whether it came
from the project's own CSV or from a provider's export: a number, finite, not negative, not
absurd (> MAX_USD_PER_HOUR), with a plausible date that is not in the future.

Every row carries its pricing option (domain.pricing.PRICE_OPTION): pricing_model (on_demand, spot, reserved,
savings_plan, committed_use), term_years (1 or 3, commitments only), payment_option (no_upfront,
partial_upfront, all_upfront; where a provider sells several) and offering_class (standard,
convertible for AWS reserved instances; compute, ec2_instance for AWS savings plans, whose two
plans price the same instance differently). usd_per_hour is always the effective hourly rate,
recurring hourly + upfront / (term_years x 8,760 h); upfront_usd and recurring_usd_per_hour keep
its parts where they are known. certainty is "exact" for a price read from a price list and
"approximate" for one not checked against a file.

A spot price that stands for several availability zones keeps their spread: zone_count,
zone_min_usd_per_hour and zone_max_usd_per_hour (see aws_spot.py for which figure stands for a
region); interruption_frequency is the provider's bucket of how often spot capacity was reclaimed
("<5%", "5-10%", ... ">20%"), where the input gives one. All four are null on other rows.

The normalized CSV (`provider,region,instance_type,usd_per_hour,as_of,source`, extra columns
allowed; optional pricing_model, term_years, payment_option, offering_class, upfront_usd,
recurring_usd_per_hour, certainty, offer_kind and, for spot, zone_count, zone_min_usd_per_hour,
zone_max_usd_per_hour and interruption_frequency; a missing or empty pricing_model meaning on_demand) is the
hand-kept form. It is small, so it is read with the csv module, which keeps exact
line numbers. Its rows are kept as written (not filtered to instances.csv): a curated file lists
what the team meant to price, and a typo there should surface downstream, not vanish here.
Zero is an error in it (someone forgot a price), while provider files simply list zero-price
rows that are dropped.
"""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import date, datetime
from pathlib import Path

import polars as pl

from pipelines.config import today as calendar_today
from pipelines.domain.offers import SELLER_ALIASES, SELLERS, seller
from pipelines.domain.errors import InputError
from pipelines.domain.pricing import COMMITMENTS, PAYMENT_OPTIONS, PRICING_MODELS, pricing_model_of
from pipelines.ingest.csv_table import read_text
from pipelines.ingest.names import not_one_of, provider_problem


RESERVED_CLASSES = ("standard", "convertible")  # AWS reserved instances
SAVINGS_PLAN_CLASSES = ("compute", "ec2_instance")  # AWS Compute and EC2 Instance Savings Plans
OFFERING_CLASSES = RESERVED_CLASSES + SAVINGS_PLAN_CLASSES
# How often spot capacity was reclaimed, as the providers bucket it: "<5%", "5-10%", ">20%", "20+%".
INTERRUPTION_BUCKET = re.compile(r"^(?:[<>]\s?\d{1,2}%|\d{1,2}\s?-\s?\d{1,2}\s?%|\d{1,2}\+\s?%)$")
CERTAINTIES = ("exact", "approximate")
# Who set the price (domain/offers.py: list, quote, marketplace, auction; "community" read as marketplace)
OFFER_KINDS = (*SELLERS, *SELLER_ALIASES)
HOURS_PER_YEAR = 8760  # AWS, Azure and GCP all bill a commitment year as 365 x 24 hours

PRICE_SCHEMA: dict[str, pl.DataType] = {
    "provider": pl.Utf8,
    "region": pl.Utf8,
    "instance_type": pl.Utf8,
    "usd_per_hour": pl.Float64,  # effective hourly rate
    "as_of": pl.Date,
    "source": pl.Utf8,
    "pricing_model": pl.Utf8,
    "term_years": pl.Int64,
    "payment_option": pl.Utf8,
    "offering_class": pl.Utf8,
    "upfront_usd": pl.Float64,
    "recurring_usd_per_hour": pl.Float64,
    "certainty": pl.Utf8,
    "zone_count": pl.Int64,  # spot: zones the figure stands for
    "zone_min_usd_per_hour": pl.Float64,
    "zone_max_usd_per_hour": pl.Float64,
    "interruption_frequency": pl.Utf8,  # spot: the provider's bucket, e.g. "<5%"
    "offer_kind": pl.Utf8,  # who set the price here; read.py makes it the offer kind (domain/offers.py)
    "file": pl.Utf8,
    "line": pl.Utf8,
}
PRICE_COLUMNS = list(PRICE_SCHEMA)

# The dearest on-demand instance any provider lists is a few hundred USD/h; anything above this
# is a unit mix-up (per month, per 1000 hours, another currency) rather than a price.
MAX_USD_PER_HOUR = 2000.0
# Per accelerator, no training accelerator rents for more than a few tens of USD an hour: above this a price is a
# unit mix-up or a fetched file gone wrong, refused with its file and line (read.py, once the instance is known).
MAX_USD_PER_ACCELERATOR_HOUR = 1000.0
# Cloud on-demand prices do not exist before EC2's launch: an earlier date is a typo.
EARLIEST_DATE = date(2006, 1, 1)

NORMALIZED_COLUMNS = ("provider", "region", "instance_type", "usd_per_hour", "as_of", "source")

_ON_DEMAND_DEFAULTS = {"pricing_model": "on_demand", "term_years": None, "payment_option": None,
                       "offering_class": None, "upfront_usd": None, "recurring_usd_per_hour": None,
                       "certainty": "exact", "zone_count": None, "zone_min_usd_per_hour": None,
                       "zone_max_usd_per_hour": None, "interruption_frequency": None, "offer_kind": "list"}
SPOT_SPREAD = ("zone_count", "zone_min_usd_per_hour", "zone_max_usd_per_hour", "interruption_frequency")


def empty_prices() -> pl.DataFrame:
    return pl.DataFrame(schema=PRICE_SCHEMA)


def price_frame(rows: list[dict]) -> pl.DataFrame:
    """Rows (dicts with the PRICE_SCHEMA keys) as a typed frame in the schema's column order.

    A row without pricing-option keys is an on-demand list price. A price without an upfront
    part (on demand, spot, or a commitment known to have none) gets upfront 0 and recurring =
    usd_per_hour; a commitment whose parts are unknown keeps them null.
    """
    if not rows:
        return empty_prices()
    full = []
    for row in rows:
        row = {**_ON_DEMAND_DEFAULTS, **row}
        if row["upfront_usd"] is None and row["recurring_usd_per_hour"] is None and (
                row["pricing_model"] in ("on_demand", "spot") or row["payment_option"] == "no_upfront"):
            row["upfront_usd"], row["recurring_usd_per_hour"] = 0.0, row["usd_per_hour"]
        full.append(row)
    return pl.DataFrame(full, schema=PRICE_SCHEMA, orient="row")


def effective_hourly(recurring_usd_per_hour: float, upfront_usd: float, term_years: int) -> float:
    """The effective hourly rate of a commitment: recurring + upfront spread over the term's hours."""
    return recurring_usd_per_hour + upfront_usd / (term_years * HOURS_PER_YEAR)


def parse_price(text: object, path: Path | str, where: str | int) -> float:
    """A price from text or a number; InputError unless finite, >= 0 and <= MAX_USD_PER_HOUR.

    Zero is returned, not refused: provider files list zero-price rows that callers drop.
    """
    return _parse_usd(text, path, where, "price", MAX_USD_PER_HOUR, "USD/h")


def parse_upfront(text: object, path: Path | str, where: str | int, term_years: int) -> float:
    """An upfront fee in USD: absurd when above MAX_USD_PER_HOUR for every hour of the term."""
    return _parse_usd(text, path, where, "upfront fee", MAX_USD_PER_HOUR * term_years * HOURS_PER_YEAR, "USD")


def _parse_usd(text: object, path: Path | str, where: str | int, what: str, limit: float, unit: str) -> float:
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise InputError(path, where, f"{what} {text!r} is not a number")
    try:
        value = float(text.strip() if isinstance(text, str) else text)
    except (ValueError, OverflowError):
        raise InputError(path, where, f"{what} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(path, where, f"{what} {text!r} is not a finite number")
    if value < 0:
        raise InputError(path, where, f"{what} {text!r} is negative")
    if value > limit:
        raise InputError(path, where, f"{what} {text!r} {unit} is absurd (more than {limit:g})")
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
    if day > (today or calendar_today()):
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
    provider = cell["provider"].lower()  # "AWS" is aws: a price file's providers are read case-blind
    problem = provider_problem(provider)
    if problem:
        raise InputError(path, f"{line} column provider", problem)
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
        **_pricing_option(path, line, cell, price),
        "file": rel,
        "line": str(line),
    }


def _choice(path: Path, line: int, cell: dict[str, str], column: str, allowed: tuple) -> str | None:
    value = cell.get(column, "").lower()
    if value and value not in allowed:
        raise InputError(path, f"{line} column {column}", not_one_of(cell[column], allowed))
    return value or None


def _amount(path: Path, line: int, cell: dict[str, str], column: str) -> float | None:
    text = cell.get(column, "")
    if not text:
        return None
    where = f"{line} column {column}"
    try:
        value = float(text)
    except ValueError:
        raise InputError(path, where, f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise InputError(path, where, f"{text!r} is not a finite amount of at least 0")
    return value


def _pricing_option(path: Path, line: int, cell: dict[str, str], price: float) -> dict:
    """The optional pricing-option columns of a normalized row, checked against each other."""
    model = pricing_model_of(_choice(path, line, cell, "pricing_model", PRICING_MODELS))
    term_text = cell.get("term_years", "")
    if term_text and term_text not in ("1", "3"):
        raise InputError(path, f"{line} column term_years", f"{term_text!r} is not 1 or 3")
    term = int(term_text) if term_text else None
    payment = _choice(path, line, cell, "payment_option", PAYMENT_OPTIONS)
    offering = _choice(path, line, cell, "offering_class", OFFERING_CLASSES)
    upfront = _amount(path, line, cell, "upfront_usd")
    recurring = _amount(path, line, cell, "recurring_usd_per_hour")
    certainty = _choice(path, line, cell, "certainty", CERTAINTIES) or "exact"
    kind = seller(_choice(path, line, cell, "offer_kind", OFFER_KINDS))
    committed = model in COMMITMENTS
    if term is not None and not committed:
        raise InputError(path, f"{line} column term_years",
                         f"a term of {term} year(s) needs a commitment model ({', '.join(COMMITMENTS)}), not {model}")
    if committed and term is None:
        raise InputError(path, f"{line} column term_years", f"{model} needs a term of 1 or 3 years")
    if payment is not None and not committed:
        raise InputError(path, f"{line} column payment_option", f"{payment} applies to commitments only, not {model}")
    if offering in RESERVED_CLASSES and model != "reserved":
        raise InputError(path, f"{line} column offering_class", f"{offering} applies to reserved instances only")
    if offering in SAVINGS_PLAN_CLASSES and model != "savings_plan":
        raise InputError(path, f"{line} column offering_class", f"{offering} applies to savings plans only")
    if upfront is not None and term is None:
        raise InputError(path, f"{line} column upfront_usd", "an upfront payment needs a commitment term (term_years)")
    if upfront is not None and recurring is not None:
        expected = effective_hourly(recurring, upfront, term)  # type: ignore[arg-type]
        if abs(expected - price) > max(1e-6, 1e-6 * price):
            raise InputError(path, f"{line} column usd_per_hour",
                             f"{price:g} is not the effective rate {recurring:g} + {upfront:g} / ({term} x "
                             f"{HOURS_PER_YEAR}) = {expected:.6f}")
    return {"pricing_model": model, "term_years": term, "payment_option": payment, "offering_class": offering,
            "upfront_usd": upfront, "recurring_usd_per_hour": recurring, "certainty": certainty,
            "offer_kind": kind, **_spot_spread(path, line, cell, model, price)}


def _spot_spread(path: Path, line: int, cell: dict[str, str], model: str, price: float) -> dict:
    """The optional spot columns: zone count, zone min and max around the price, interruption bucket."""
    given = [c for c in SPOT_SPREAD if cell.get(c, "")]
    if given and model != "spot":
        raise InputError(path, f"{line} column {given[0]}", f"applies to spot prices only, not {model}")
    count_text = cell.get("zone_count", "")
    if count_text and not (count_text.isdigit() and int(count_text) >= 1):
        raise InputError(path, f"{line} column zone_count", f"{count_text!r} is not a whole number of at least 1")
    low = _amount(path, line, cell, "zone_min_usd_per_hour")
    high = _amount(path, line, cell, "zone_max_usd_per_hour")
    if (low is not None and low > price) or (high is not None and high < price):
        column = "zone_min_usd_per_hour" if low is not None and low > price else "zone_max_usd_per_hour"
        raise InputError(path, f"{line} column {column}",
                         f"the zones' range {low if low is not None else '?'}-{high if high is not None else '?'} "
                         f"does not contain the price {price:g}")
    bucket = cell.get("interruption_frequency", "")
    if bucket and not INTERRUPTION_BUCKET.match(bucket):
        raise InputError(path, f"{line} column interruption_frequency",
                         f"{bucket!r} is not an interruption-frequency bucket such as <5%, 5-10% or >20%")
    return {"zone_count": int(count_text) if count_text else None, "zone_min_usd_per_hour": low,
            "zone_max_usd_per_hour": high, "interruption_frequency": bucket or None}
