"""AWS Savings Plans offer files (JSON and CSV): Compute and EC2 Instance Savings Plan rates of our
instances, joined to the instance through the EC2 price list.

The offer (root index `currentSavingsPlanIndexUrl`, per region
`/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/<version>/<region>/index.json|csv`) lists plans as
products (productFamily ComputeSavingsPlans or EC2InstanceSavingsPlans, purchaseOption, purchaseTerm)
and, per plan, rates: `discountedUsageType`, `discountedOperation`, `discountedServiceCode` and
`discountedRate{price, currency}`, which is already an hourly rate (the effective one whatever the
payment option). The CSV form has one row per rate with the plan's columns beside it (Product
Family, PurchaseOption, LeaseContractLength, DiscountedUsageType ...), after the same five
metadata lines as every AWS Price List CSV (OfferCode AmazonComputeSavingsPlan).

The join (documented rule). A rate names the on-demand product it discounts by usage type and
operation, not by instance type. The EC2 price list says which usage type and operation the plain
Linux on-demand product of each instance has (aws_terms.py keeps them: `BoxUsage:p4d.24xlarge`
with `RunInstances` in us-east-1, `USW2-BoxUsage:p4d.24xlarge` in us-west-2: the prefix names the
region, so the pair is unique across regions). A rate takes the instance type and region of the
on-demand product with the same (usage type, operation), from any AWS Price List in the folder.
Rates of other operations (Windows RunInstances:0002, RHEL :0010 ...), tenancies (DedicatedUsage,
HostBoxUsage), unused reservations and other services never match a plain Linux product and are
left out. A Linux rate of one of our instances (usage type `[<prefix>-]BoxUsage:<our type>`,
operation RunInstances) that no price list in the folder names is an InputError: without the
price list the rate cannot be tied to a region and product, and dropping it would hide a price.

Rows: pricing_model savings_plan, offering_class compute or ec2_instance (the two plans price the
same instance differently), term_years, payment_option, usd_per_hour = discountedRate; upfront 0
for No Upfront, discountedRate x term hours for All Upfront (the commitment is paid before the
term), unknown for Partial Upfront (at least half up front, the buyer chooses). as_of is the
file's publication date; `line` is the rate's JSON path or `RateCode <rate code>`.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import aws
from pipelines.ingest.prices.aws_columns import column_key
from pipelines.ingest.prices.aws_terms import PURCHASE_OPTIONS
from pipelines.ingest.prices.instances import instance_types
from pipelines.ingest.prices.jsontools import as_dict, as_list, opt_text
from pipelines.ingest.prices.normalized import HOURS_PER_YEAR, parse_day, parse_price, price_frame

# The CSV names the offer AmazonComputeSavingsPlan (the URL says AWSComputeSavingsPlan).
CSV_OFFER_CODES = ("AmazonComputeSavingsPlan", "AWSComputeSavingsPlan")
PLAN_CLASSES = {"computesavingsplans": "compute", "ec2instancesavingsplans": "ec2_instance"}
PLAN_NAMES = {"compute": "Compute Savings Plan", "ec2_instance": "EC2 Instance Savings Plan"}
LINUX_OPERATION = "RunInstances"
# The usage type of an instance's plain (shared tenancy) hours: an optional region prefix, BoxUsage.
BOX_USAGE = re.compile(r"^(?:[A-Z0-9]+-)*BoxUsage:(?P<type>\S+)$")

RATE_SCHEMA = {
    "usage_type": pl.Utf8, "operation": pl.Utf8, "offering_class": pl.Utf8, "term_years": pl.Int64,
    "payment_option": pl.Utf8, "usd_per_hour": pl.Float64, "as_of": pl.Date, "offer": pl.Utf8,
    "file": pl.Utf8, "line": pl.Utf8,
}

CSV_NEEDED = {
    "rate_code": "RateCode", "rate": "DiscountedRate", "currency": "Currency",
    "service": "DiscountedServiceCode", "usage_type": "DiscountedUsageType", "operation": "DiscountedOperation",
    "purchase": "PurchaseOption", "length": "LeaseContractLength", "length_unit": "LeaseContractLengthUnit",
    "family": "Product Family",
}


def empty_rates() -> pl.DataFrame:
    return pl.DataFrame(schema=RATE_SCHEMA)


# --- JSON --------------------------------------------------------------------------------------

def read_json(doc: dict, path: Path, rel: str, instances: pl.DataFrame) -> pl.DataFrame:
    """The rates of our instances' plain Linux usage in a savings plan offer file (JSON)."""
    publication = parse_day(doc.get("publicationDate"), path, "$.publicationDate")
    offer = f"Savings Plans {opt_text(doc.get('regionCode')) or 'offer'}"
    plans = {}
    for index, product in enumerate(as_list(doc.get("products"), path, "$.products")):
        where = f"$.products[{index}]"
        product = as_dict(product, path, where)
        attrs = as_dict(product.get("attributes", {}), path, f"{where}.attributes")
        plan = PLAN_CLASSES.get(column_key(opt_text(product.get("productFamily"))))
        if plan is not None:
            plans[opt_text(product.get("sku"))] = (plan, opt_text(attrs.get("purchaseOption")), where)
    wanted = set(instance_types(instances, "aws"))
    rows = []
    terms = as_dict(doc.get("terms"), path, "$.terms")
    for index, term in enumerate(as_list(terms.get("savingsPlan"), path, "$.terms.savingsPlan")):
        where = f"$.terms.savingsPlan[{index}]"
        term = as_dict(term, path, where)
        if opt_text(term.get("sku")) not in plans:
            continue
        plan, purchase, product_where = plans[opt_text(term["sku"])]
        length = as_dict(term.get("leaseContractLength"), path, f"{where}.leaseContractLength")
        years = _years(length.get("duration"), length.get("unit"), path, f"{where}.leaseContractLength")
        payment = _payment(purchase, path, f"{product_where}.attributes.purchaseOption")
        for j, rate in enumerate(as_list(term.get("rates", []), path, f"{where}.rates")):
            rate_where = f"{where}.rates[{j}]"
            rate = as_dict(rate, path, rate_where)
            usage = opt_text(rate.get("discountedUsageType"))
            if opt_text(rate.get("discountedServiceCode")) != "AmazonEC2" or not _ours(usage, wanted):
                continue
            discounted = as_dict(rate.get("discountedRate"), path, f"{rate_where}.discountedRate")
            rows.append(_rate_row(path, rate_where, usage, opt_text(rate.get("discountedOperation")), plan, years,
                                  payment, discounted.get("price"), discounted.get("currency"), publication, offer, rel))
    return _frame(rows)


# --- CSV ---------------------------------------------------------------------------------------

def read_csv(path: Path, rel: str, instances: pl.DataFrame) -> pl.DataFrame:
    """The rates of our instances' plain Linux usage in a savings plan offer file (CSV), scanned by DuckDB."""
    metadata, header = aws.read_head(path, CSV_OFFER_CODES)
    publication = parse_day(metadata["Publication Date"][1], path, metadata["Publication Date"][0])
    c = aws.column_refs(aws.column_indexes(header, CSV_NEEDED, {"region": "DiscountedRegionCode"}, path))
    wanted = instance_types(instances, "aws")
    if not wanted:
        return empty_rates()
    with aws.csv_rows(path, len(header)) as conn:
        query = f"""
            select {c['rate_code']}, {c['rate']}, {c['currency']}, {c['service']}, {c['usage_type']}, {c['operation']},
                   {c['purchase']}, {c['length']}, {c['length_unit']}, {c['family']}, {c['region']}
            from rows
            where {c['service']} = 'AmazonEC2'
              and list_contains($types, regexp_extract({c['usage_type']}, $box_usage, 1))
        """
        found = conn.sql(query, params={"types": wanted, "box_usage": BOX_USAGE.pattern}).fetchall()
    names = list(CSV_NEEDED) + ["region"]  # the order selected above
    rows = []
    for values in found:
        cell = dict(zip(names, (value or "" for value in values)))
        plan = PLAN_CLASSES.get(column_key(cell["family"]))
        if plan is None:
            continue
        where = f"RateCode {cell['rate_code']}"
        offer = f"Savings Plans {cell['region'] or 'offer'}"
        rows.append(_rate_row(path, where, cell["usage_type"], cell["operation"], plan,
                              _years(cell["length"], cell["length_unit"], path, where), _payment(cell["purchase"], path, where),
                              cell["rate"], cell["currency"], publication, offer, rel))
    return _frame(rows)


# --- shared ------------------------------------------------------------------------------------

def _ours(usage_type: str, wanted: set[str]) -> bool:
    found = BOX_USAGE.match(usage_type)
    return bool(found) and found.group("type") in wanted


def _years(duration: object, unit: object, path: Path, where: str) -> int:
    text = str(duration).strip() if isinstance(duration, (str, int)) and not isinstance(duration, bool) else ""
    if text not in ("1", "3") or opt_text(unit).lower() not in ("year", "years"):
        raise InputError(path, where, f"lease {duration!r} {unit!r} is not 1 or 3 years")
    return int(text)


def _payment(purchase: str, path: Path, where: str) -> str:
    if purchase not in PURCHASE_OPTIONS:
        raise InputError(path, where, f"purchase option {purchase!r} is not one of {', '.join(PURCHASE_OPTIONS)}")
    return PURCHASE_OPTIONS[purchase]


def _rate_row(path: Path, where: str, usage_type: str, operation: str, plan: str, years: int, payment: str,
              price: object, currency: object, publication: date, offer: str, rel: str) -> dict:
    if currency != "USD":
        raise InputError(path, where, f"currency {currency!r} is not USD; convert explicitly first")
    return {"usage_type": usage_type, "operation": operation, "offering_class": plan, "term_years": years,
            "payment_option": payment, "usd_per_hour": parse_price(price, path, where), "as_of": publication,
            "offer": offer, "file": rel, "line": where}


def _frame(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=RATE_SCHEMA, orient="row") if rows else empty_rates()


# --- the join ----------------------------------------------------------------------------------

def join(rates: pl.DataFrame, usage: pl.DataFrame, root: Path) -> pl.DataFrame:
    """Price rows of the rates whose (usage type, operation) an AWS price list names (module docstring)."""
    if rates.is_empty():
        return price_frame([])
    joined = rates.join(usage.unique(), on=["usage_type", "operation"], how="left", maintain_order="left")
    orphans = joined.filter(pl.col("instance_type").is_null() & (pl.col("operation") == LINUX_OPERATION))
    if orphans.height:
        first = orphans.row(0, named=True)
        raise InputError(
            root / first["file"], first["line"],
            f"savings plan rate for usage type {first['usage_type']} ({first['operation']}) cannot be tied to an "
            f"instance: no AWS Price List (AmazonEC2) in the folder names that usage type; add the region's "
            f"price list (the savings plan file names no instance type)")
    out = []
    for row in joined.filter(pl.col("instance_type").is_not_null()).iter_rows(named=True):
        rate, years, payment = row["usd_per_hour"], row["term_years"], row["payment_option"]
        if rate == 0:
            continue  # no price
        upfront, recurring = {"no_upfront": (0.0, rate), "all_upfront": (rate * years * HOURS_PER_YEAR, 0.0)}.get(
            payment, (None, None))
        purchase = next(k for k, v in PURCHASE_OPTIONS.items() if v == payment)
        out.append({
            "provider": "aws", "region": row["region"], "instance_type": row["instance_type"], "usd_per_hour": rate,
            "as_of": row["as_of"],
            "source": (f"AWS Price List API, {row['offer']}, publication {row['as_of'].isoformat()}: "
                       f"{PLAN_NAMES[row['offering_class']]} {years}yr {purchase}, discountedRate {rate:g} USD/h "
                       f"for {row['usage_type']} {row['operation']}"),
            "pricing_model": "savings_plan", "term_years": years, "payment_option": payment,
            "offering_class": row["offering_class"], "upfront_usd": upfront, "recurring_usd_per_hour": recurring,
            "file": row["file"], "line": row["line"],
        })
    return price_frame(out)
