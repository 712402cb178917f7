"""What the rows of an AWS Price List (AmazonEC2) mean, for the CSV reader (aws.py) and the JSON
reader (aws_json.py) alike: which products count, and the price rows of their terms.

A product counts when it is the plain Linux instance of one of our types: Product Family Compute
Instance (or bare metal), Operating System Linux, Pre Installed S/W NA, License Model "No License
required", Tenancy Shared, CapacityStatus Used (not an unused or allocated capacity reservation),
usage type containing BoxUsage, and MarketOption OnDemand where the file has the attribute: a
Capacity Block for ML has the same usage type as the instance (operation RunInstances:CB) and is
not an on-demand price. Its terms:

- OnDemand: one Hrs dimension, the hourly price. Zero means no price (reservation-only
  instances such as p5e list 0) and the row is dropped.
- Reserved: a term (OfferTermCode) with LeaseContractLength 1yr/3yr, PurchaseOption No/Partial/All
  Upfront and OfferingClass standard/convertible has an Hrs dimension (the recurring hourly fee)
  and, unless it is No Upfront, an "Upfront Fee" dimension of Unit Quantity (USD once). Effective
  hourly = Hrs + Upfront / (years x 8,760 h), the same rule as ec2instances.info's scraper. A
  term whose effective rate is zero is no price either. The legacy Light/Medium/Heavy Utilization
  options of old files are not sold any more and are skipped.

Every kept product also yields its (usage type, operation): the key that a savings plan rate
names instead of an instance type (aws_savings_plans.py joins on it).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.prices.normalized import HOURS_PER_YEAR, effective_hourly, parse_price, parse_upfront

OFFER_CODE = "AmazonEC2"
FAMILIES = ["Compute Instance", "Compute Instance (bare metal)"]
MARKET_ON_DEMAND = "OnDemand"

LEASES = {"1yr": 1, "3yr": 3}
PURCHASE_OPTIONS = {"No Upfront": "no_upfront", "Partial Upfront": "partial_upfront", "All Upfront": "all_upfront"}
LEGACY_PURCHASE_OPTIONS = ("Light Utilization", "Medium Utilization", "Heavy Utilization")
OFFERING_CLASSES = ("standard", "convertible")
UPFRONT_UNIT = "Quantity"
HOURLY_UNIT = "Hrs"

# The (usage type, operation) of each counted product, for the savings plan join.
USAGE_SCHEMA = {"usage_type": pl.Utf8, "operation": pl.Utf8, "region": pl.Utf8, "instance_type": pl.Utf8}


def empty_usage() -> pl.DataFrame:
    return pl.DataFrame(schema=USAGE_SCHEMA)


def usage_frame(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=USAGE_SCHEMA, orient="row").unique(maintain_order=True) if rows else empty_usage()


def source_text(region: str, publication: date, detail: str = "") -> str:
    base = f"AWS Price List API, {OFFER_CODE} {region}, publication {publication.isoformat()}"
    return f"{base}: {detail}" if detail else base


def on_demand_row(path: Path, where: str, region: str, instance_type: str, price: object, publication: date,
                  rel: str) -> dict | None:
    """The on-demand price row, or None for a zero price (no price)."""
    value = parse_price(price, path, where)
    if value == 0:
        return None
    return {"provider": "aws", "region": region, "instance_type": instance_type, "usd_per_hour": value,
            "as_of": publication, "source": source_text(region, publication), "file": rel, "line": where}


def reserved_row(path: Path, where: str, region: str, instance_type: str, publication: date, rel: str, *,
                 lease: str, purchase: str, offering: str,
                 dimensions: list[tuple[str, object, str]]) -> dict | None:
    """The price row of one reserved term, or None (no price, or a legacy utilization option).

    `dimensions` are the term's (unit, price, where) triples: Hrs and, unless No Upfront, Quantity.
    """
    if purchase in LEGACY_PURCHASE_OPTIONS:
        return None
    if lease not in LEASES:
        raise InputError(path, where, f"LeaseContractLength {lease!r} is not one of {', '.join(LEASES)}")
    if purchase not in PURCHASE_OPTIONS:
        raise InputError(path, where, f"PurchaseOption {purchase!r} is not one of {', '.join(PURCHASE_OPTIONS)}")
    if offering not in OFFERING_CLASSES:
        raise InputError(path, where, f"OfferingClass {offering!r} is not one of {', '.join(OFFERING_CLASSES)}")
    years, payment = LEASES[lease], PURCHASE_OPTIONS[purchase]
    hourly = _one(path, where, dimensions, HOURLY_UNIT)
    fee = _one(path, where, dimensions, UPFRONT_UNIT)
    recurring = parse_price(hourly[0], path, hourly[1]) if hourly else 0.0
    upfront = parse_upfront(fee[0], path, fee[1], years) if fee else 0.0
    if hourly is None and payment != "all_upfront":
        raise InputError(path, where, f"{purchase} term has no Hrs dimension")
    if payment == "no_upfront" and upfront > 0:
        raise InputError(path, fee[1], f"a No Upfront term with an upfront fee of {upfront:g} USD")
    if payment == "all_upfront" and recurring > 0:
        raise InputError(path, hourly[1], f"an All Upfront term with an hourly fee of {recurring:g} USD")
    if payment == "partial_upfront" and fee is None:
        raise InputError(path, where, "Partial Upfront term has no Upfront Fee dimension")
    effective = effective_hourly(recurring, upfront, years)
    if effective == 0:
        return None
    detail = (f"Reserved {lease} {offering} {purchase} (upfront {upfront:g} USD + {recurring:g} USD/h over "
              f"{years} x {HOURS_PER_YEAR} h)")
    return {"provider": "aws", "region": region, "instance_type": instance_type,
            "usd_per_hour": parse_price(effective, path, where), "as_of": publication,
            "source": source_text(region, publication, detail),
            "pricing_model": "reserved", "term_years": years, "payment_option": payment, "offering_class": offering,
            "upfront_usd": upfront, "recurring_usd_per_hour": recurring, "file": rel, "line": where}


def _one(path: Path, where: str, dimensions: list[tuple[str, object, str]], unit: str) -> tuple[object, str] | None:
    found = [(price, at) for kind, price, at in dimensions if kind == unit]
    if len(found) > 1:
        raise InputError(path, found[1][1], f"a second {unit} dimension in the same reserved term ({where})")
    return found[0] if found else None
