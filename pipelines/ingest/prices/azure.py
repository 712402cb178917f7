"""Azure Retail Prices API pages: the Linux pay-as-you-go hourly price of our VM sizes.

A page is `{"BillingCurrency", "CustomerEntityId", "CustomerEntityType", "Items": [...],
"NextPageLink", "Count"}`; the fetch step saves each page as its own file, and the folder
reader combines them. An item is kept when it is the plain Linux on-demand price of one of our
instances: type Consumption (not Reservation, not DevTestConsumption), productName without
" Windows"/" Win", skuName without " Spot"/" Low Priority", unitOfMeasure "1 Hour", and
(when the field is present) serviceName "Virtual Machines". Zero prices are dropped.
instance_type = armSkuName, region = armRegionName, as_of = effectiveStartDate,
line = the item's JSON path. Any currency other than USD (page or item) is refused.
The API also lists announced prices whose effectiveStartDate is still ahead: they are not in
force yet, so such items are left out (the next fetch after that date picks them up).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.prices.instances import instance_types
from pipelines.ingest.prices.jsontools import as_dict, as_list, as_text, opt_text
from pipelines.ingest.prices.normalized import parse_day, parse_price, price_frame

_NOT_LINUX = (" Windows", " Win")
_NOT_ON_DEMAND = (" Spot", " Low Priority")


def read_azure_json(doc: dict, path: Path, rel: str, instances: pl.DataFrame) -> pl.DataFrame:
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
        if not _is_linux_on_demand(item) or opt_text(item.get("armSkuName")) not in wanted:
            continue
        value = parse_price(item.get("retailPrice"), path, f"{where}.retailPrice")
        if value == 0:
            continue
        region = as_text(item.get("armRegionName"), path, f"{where}.armRegionName")
        effective = item.get("effectiveStartDate")
        if isinstance(effective, str) and _is_ahead(effective):
            continue
        day = parse_day(effective, path, f"{where}.effectiveStartDate")
        out.append({
            "provider": "azure", "region": region, "instance_type": item["armSkuName"].strip(),
            "usd_per_hour": value, "as_of": day,
            "source": f"Azure Retail Prices API, {opt_text(item.get('productName')) or 'Virtual Machines'} "
                      f"{opt_text(item.get('skuName'))} (Consumption) in {region}, effective {day.isoformat()}",
            "file": rel, "line": where,
        })
    return price_frame(out)


def _is_ahead(effective: str) -> bool:
    try:
        return date.fromisoformat(effective.strip()[:10]) > date.today()
    except ValueError:
        return False  # parse_day reports it


def _is_linux_on_demand(item: dict) -> bool:
    product, sku = opt_text(item.get("productName")), opt_text(item.get("skuName"))
    service = item.get("serviceName", "Virtual Machines")
    return (
        opt_text(item.get("type")) == "Consumption"
        and opt_text(item.get("unitOfMeasure")) == "1 Hour"
        and service == "Virtual Machines"
        and not any(word in product for word in _NOT_LINUX)
        and not any(word in sku for word in _NOT_ON_DEMAND)
    )
