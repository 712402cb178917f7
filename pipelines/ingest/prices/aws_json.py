"""AWS Price List (AmazonEC2) offer file in JSON: on-demand and reserved prices of our instances.

The JSON form has `products{sku: {productFamily, attributes}}` and `terms.OnDemand` /
`terms.Reserved` `{sku: {<sku>.<term code>: {priceDimensions{rate code: {unit, pricePerUnit{USD}}},
termAttributes{LeaseContractLength, OfferingClass, PurchaseOption}}}}`; attribute keys are
camelCase (`instanceType`, `capacitystatus`, `marketoption` ...). The same products count as in
the CSV and their terms mean the same (aws_terms.py). `line` is the JSON path of the on-demand
dimension or of the reserved term. The date of every row is the file's publicationDate.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import aws_terms
from pipelines.ingest.prices.instances import instance_types
from pipelines.ingest.prices.jsontools import as_dict, as_text, key, opt_text
from pipelines.ingest.prices.normalized import parse_day, price_frame


def read_aws_json(doc: dict, path: Path, rel: str, instances: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(prices, usage map) of an AWS offer file in JSON."""
    offer = doc.get("offerCode", aws_terms.OFFER_CODE)
    if offer != aws_terms.OFFER_CODE:
        raise InputError(path, "$.offerCode", f"offer {offer!r} is not {aws_terms.OFFER_CODE}: not EC2 instance prices")
    publication = parse_day(doc.get("publicationDate"), path, "$.publicationDate")
    products = as_dict(doc["products"], path, "$.products")
    terms = as_dict(doc["terms"], path, "$.terms")
    on_demand = as_dict(terms.get("OnDemand", {}), path, "$.terms.OnDemand")
    reserved = as_dict(terms.get("Reserved", {}), path, "$.terms.Reserved")
    wanted = set(instance_types(instances, "aws"))
    out, usage = [], []
    for sku, product in products.items():
        where = f"$.products{key(sku)}"
        product = as_dict(product, path, where)
        attrs = as_dict(product.get("attributes", {}), path, f"{where}.attributes")
        if not _counts(product, attrs, wanted):
            continue
        region = as_text(attrs.get("regionCode"), path, f"{where}.attributes.regionCode")
        instance_type = opt_text(attrs["instanceType"])
        usage.append({"usage_type": opt_text(attrs.get("usagetype")), "operation": opt_text(attrs.get("operation")),
                      "region": region, "instance_type": instance_type})
        for term_where, term in _terms(on_demand, sku, path, "$.terms.OnDemand"):
            for unit, price, dim_where in _dimensions(term, path, term_where):
                if unit == aws_terms.HOURLY_UNIT:
                    kept = aws_terms.on_demand_row(path, dim_where, region, instance_type, price, publication, rel)
                    out += [kept] if kept else []
        for term_where, term in _terms(reserved, sku, path, "$.terms.Reserved"):
            attributes = as_dict(term.get("termAttributes", {}), path, f"{term_where}.termAttributes")
            kept = aws_terms.reserved_row(
                path, term_where, region, instance_type, publication, rel,
                lease=opt_text(attributes.get("LeaseContractLength")), purchase=opt_text(attributes.get("PurchaseOption")),
                offering=opt_text(attributes.get("OfferingClass")), dimensions=_dimensions(term, path, term_where))
            out += [kept] if kept else []
    return price_frame(out), aws_terms.usage_frame(usage)


def _counts(product: dict, attrs: dict, wanted: set[str]) -> bool:
    """The product rule of aws_terms.py, on the JSON's attribute names."""
    return (
        opt_text(attrs.get("instanceType")) in wanted
        and opt_text(product.get("productFamily")) in aws_terms.FAMILIES
        and opt_text(attrs.get("operatingSystem")) == "Linux"
        and opt_text(attrs.get("preInstalledSw")) == "NA"
        and opt_text(attrs.get("licenseModel")) == "No License required"
        and opt_text(attrs.get("tenancy")) == "Shared"
        and opt_text(attrs.get("capacitystatus")) == "Used"
        and "BoxUsage" in opt_text(attrs.get("usagetype"))
        and (opt_text(attrs.get("marketoption")) or aws_terms.MARKET_ON_DEMAND) == aws_terms.MARKET_ON_DEMAND
    )


def _terms(by_sku: dict, sku: str, path: Path, where: str) -> list[tuple[str, dict]]:
    terms = as_dict(by_sku.get(sku, {}), path, f"{where}{key(sku)}")
    return [(f"{where}{key(sku)}{key(code)}", as_dict(term, path, f"{where}{key(sku)}{key(code)}"))
            for code, term in terms.items()]


def _dimensions(term: dict, path: Path, where: str) -> list[tuple[str, object, str]]:
    """(unit, USD price, JSON path) of every price dimension of a term."""
    dims = as_dict(term.get("priceDimensions", {}), path, f"{where}.priceDimensions")
    out = []
    for rate_code, dim in dims.items():
        dim_where = f"{where}.priceDimensions{key(rate_code)}"
        dim = as_dict(dim, path, dim_where)
        out.append((opt_text(dim.get("unit")), _usd(dim.get("pricePerUnit"), path, f"{dim_where}.pricePerUnit"),
                    f"{dim_where}.pricePerUnit.USD"))
    return out


def _usd(price_per_unit: object, path: Path, where: str) -> object:
    prices = as_dict(price_per_unit, path, where)
    if "USD" not in prices:
        others = ", ".join(map(str, prices)) or "none"
        raise InputError(path, where, f"no USD price (currencies: {others}); convert explicitly first")
    return prices["USD"]
