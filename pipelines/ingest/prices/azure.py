"""Azure Retail Prices API pages: Linux prices of our VM sizes under every pricing model.

A page is `{"BillingCurrency", "CustomerEntityId", "CustomerEntityType", "Items": [...],
"NextPageLink", "Count"}`; the fetch step saves each page as its own file (or merges them), and
the folder reader combines them. An item counts when it prices one of our sizes (armSkuName) for
Linux: serviceName "Virtual Machines" (when present), productName without " Windows"/" Win",
unitOfMeasure "1 Hour", and neither skuName nor meterName names a " Low Priority" meter (retired
by Azure, not spot). By `type`:

- Consumption: on-demand, unless skuName or meterName ends in " Spot", which is spot. Its
  `savingsPlan` array (api-version 2023-01-01-preview) gives savings plan rates
  `[{"term": "1 Year" | "3 Years", "retailPrice": hourly, "unitPrice"}]`.
- Reservation, reservationTerm "1 Year" or "3 Years": retailPrice is the TOTAL for the whole term,
  although unitOfMeasure says "1 Hour"; the effective hourly rate is retailPrice / (years x 8,760).
  Azure sells reservations paid up front or monthly for the same total, so the row has no
  payment option and its upfront/recurring split is the buyer's choice (left unknown).
- DevTestConsumption (dev/test subscriptions only) is not taken.

Zero prices are dropped. instance_type = armSkuName, region = armRegionName, as_of =
effectiveStartDate, line = the item's JSON path. Any currency other than USD (page or item) is
refused. The API also lists announced prices whose effectiveStartDate is still ahead: they are not
in force yet, so such items are left out (the next fetch after that date picks them up).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl

from pipelines.config import today as calendar_today
from pipelines.domain.errors import InputError
from pipelines.ingest.prices.instances import instance_types
from pipelines.ingest.prices.jsontools import as_dict, as_list, as_text, opt_text
from pipelines.ingest.prices.normalized import HOURS_PER_YEAR, parse_day, parse_price, parse_upfront, price_frame

_NOT_LINUX = (" Windows", " Win")
TERMS = {"1 Year": 1, "3 Years": 3}


def read_azure_json(doc: dict, path: Path, rel: str, instances: pl.DataFrame,
                    today: date | None = None) -> pl.DataFrame:
    """The page's price rows in force on `today` (default config.today(): a price announced for later is left out)."""
    today = today or calendar_today()
    billing = doc.get("BillingCurrency", "USD")
    if billing != "USD":
        raise InputError(path, "$.BillingCurrency", f"currency {billing!r} is not USD; convert explicitly first")
    wanted = set(instance_types(instances, "azure"))
    out = []
    for index, item in enumerate(as_list(doc["Items"], path, "$.Items")):
        where = f"$.Items[{index}]"
        item = as_dict(item, path, where)
        currency = item.get("currencyCode", "USD")
        if currency != "USD":
            raise InputError(path, f"{where}.currencyCode", f"currency {currency!r} is not USD; convert explicitly first")
        if not _counts(item) or opt_text(item.get("armSkuName")) not in wanted:
            continue
        effective = item.get("effectiveStartDate")
        if isinstance(effective, str) and _is_ahead(effective, today):
            continue
        out += _rows(item, path, where, rel, today)
    return price_frame(out)


def _rows(item: dict, path: Path, where: str, rel: str, today: date) -> list[dict]:
    """The price rows of one counted item: on-demand and its savings plans, spot, or a reservation."""
    kind = opt_text(item.get("type"))
    if kind not in ("Consumption", "Reservation"):
        return []
    region = as_text(item.get("armRegionName"), path, f"{where}.armRegionName")
    day = parse_day(item.get("effectiveStartDate"), path, f"{where}.effectiveStartDate", today)
    names = f"{opt_text(item.get('productName')) or 'Virtual Machines'} {opt_text(item.get('skuName'))}"
    base = {"provider": "azure", "region": region, "instance_type": item["armSkuName"].strip(), "as_of": day,
            "file": rel, "line": where}
    tail = f"in {region}, effective {day.isoformat()}"
    if kind == "Reservation":
        return _reservation(item, path, where, base, names, tail)
    value = parse_price(item.get("retailPrice"), path, f"{where}.retailPrice")
    if value == 0:
        return []
    if _is_spot(item):
        return [base | {"usd_per_hour": value, "pricing_model": "spot",
                        "source": f"Azure Retail Prices API, {names} (Consumption, Spot) {tail}"}]
    rows = [base | {"usd_per_hour": value, "source": f"Azure Retail Prices API, {names} (Consumption) {tail}"}]
    return rows + _savings_plans(item, path, where, base, names, tail)


def _reservation(item: dict, path: Path, where: str, base: dict, names: str, tail: str) -> list[dict]:
    term = opt_text(item.get("reservationTerm"))
    if term not in TERMS:
        raise InputError(path, f"{where}.reservationTerm", f"reservation term {term!r} is not one of {', '.join(TERMS)}")
    years = TERMS[term]
    total = parse_upfront(item.get("retailPrice"), path, f"{where}.retailPrice", years)
    if total == 0:
        return []
    hourly = parse_price(total / (years * HOURS_PER_YEAR), path, f"{where}.retailPrice")
    return [base | {
        "usd_per_hour": hourly, "pricing_model": "reserved", "term_years": years,
        "source": (f"Azure Retail Prices API, {names} (Reservation {term}: retailPrice {total:g} USD for the term "
                   f"/ ({years} x {HOURS_PER_YEAR} h)) {tail}"),
    }]


def _savings_plans(item: dict, path: Path, where: str, base: dict, names: str, tail: str) -> list[dict]:
    rows = []
    for index, plan in enumerate(as_list(item.get("savingsPlan", []), path, f"{where}.savingsPlan")):
        at = f"{where}.savingsPlan[{index}]"
        plan = as_dict(plan, path, at)
        term = opt_text(plan.get("term"))
        if term not in TERMS:
            raise InputError(path, f"{at}.term", f"savings plan term {term!r} is not one of {', '.join(TERMS)}")
        value = parse_price(plan.get("retailPrice"), path, f"{at}.retailPrice")
        if value == 0:
            continue
        rows.append(base | {
            "usd_per_hour": value, "pricing_model": "savings_plan", "term_years": TERMS[term], "line": at,
            "source": f"Azure Retail Prices API, {names} (Consumption, savings plan {term}: hourly retailPrice) {tail}",
        })
    return rows


def _is_ahead(effective: str, today: date) -> bool:
    try:
        return date.fromisoformat(effective.strip()[:10]) > today
    except ValueError:
        return False  # parse_day reports it


def _is_spot(item: dict) -> bool:
    return any(opt_text(item.get(field)).endswith(" Spot") for field in ("skuName", "meterName"))


def _counts(item: dict) -> bool:
    product = opt_text(item.get("productName"))
    service = item.get("serviceName", "Virtual Machines")
    return (
        opt_text(item.get("unitOfMeasure")) == "1 Hour"
        and service == "Virtual Machines"
        and not any(word in product for word in _NOT_LINUX)
        and not any(" Low Priority" in opt_text(item.get(field)) for field in ("skuName", "meterName"))
    )
