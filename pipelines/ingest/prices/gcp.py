"""GCP Cloud Billing Catalog SKU pages: instance prices composed from unit prices, under every
pricing model the catalog sells (on-demand, spot, 1- and 3-year committed use).

GCP bills a VM as parts: vCPUs, memory and attached GPUs each have a SKU with a unit price
(even a2-highgpu-8g, whose GPUs come with the machine type). So a page yields *unit prices*
(`unit_prices`), and an instance price is composed (`compose`) with the counts from the
project's instance table, never from the catalog:

    price = core SKU x vcpus + RAM SKU x memory_gib + GPU SKU x accelerator_count

with every part of one pricing model (a committed host with on-demand GPUs is no price GCP sells).

Matching an instance to its SKUs (documented rule):
- machine family = the instance type's host part (before "+") up to the first "-", upper case:
  "a2-highgpu-8g" -> A2, "n1-highmem-96+8xV100" -> N1;
- GPU model from the instance's accelerator ("NVIDIA A100-SXM4-40GB" -> "A100"; 80 GB A100/H100
  -> "A100 80GB"/"H100 80GB"), so "Nvidia Tesla A100 GPU" never matches an 80 GB part;
- on-demand (category.usageType OnDemand): "<FAMILY> [Predefined ]Instance Core|Ram running in
  ...", "Nvidia [Tesla ]<MODEL> GPU running in ...";
- spot (usageType Preemptible; the description decides, as a few spot SKUs are filed as
  OnDemand): "[Spot ]Preemptible <FAMILY> [Predefined ]Instance Core|Ram running in ...",
  "[Spot ]Preemptible Nvidia [Tesla ]<MODEL> GPU running in ...", "Nvidia [Tesla ]<MODEL> GPU
  attached to Spot Preemptible VMs running in ...";
- committed use (usageType Commit1Yr / Commit3Yr): "Commitment v1: [<FAMILY> ]Cpu|Ram in ... for
  1 Year" (no family: N1), "Commitment v1: Nvidia [Tesla ]<MODEL> GPU [running ]in ... for 3
  Year(s)" (both spellings occur); the term in the description must agree with the usageType;
- core SKUs are priced per "h", RAM per "GiBy.h", GPUs per "h"; Custom, Sole Tenancy, Reserved,
  DWS and the spend-based "Commitment - dollar based" SKUs never match;
- a SKU counts for every region in its serviceRegions.
Price = units + nanos / 1e9 of the tier starting at usage 0; zero unit prices are dropped;
any currency other than USD on any SKU refuses the page (a billing account's currency).
A committed-use price is billed monthly with nothing up front (upfront 0); GCP sells one payment
option, so payment_option stays empty.

Dates: each pricingInfo's effectiveTime gives its unit price a date. A composed price exists at
every date on which one of its parts has a price, using for each part the newest unit price
dated on or before it; so pages fetched over midnight, or a later page holding only the SKUs
that changed, still compose. `line` lists the JSON paths of the parts, `file` their files.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.accelerators import simplify
from pipelines.ingest.prices.combine import collapse_duplicates
from pipelines.ingest.prices.jsontools import as_dict, as_list, opt_text
from pipelines.ingest.prices.normalized import parse_day, parse_price, price_frame

UNIT_SCHEMA = {
    "region": pl.Utf8,
    "part": pl.Utf8,  # core | ram | gpu
    "name": pl.Utf8,  # machine family (core, ram) or GPU model
    "pricing_model": pl.Utf8,  # on_demand | spot | committed_use
    "term_years": pl.Int64,  # committed use only
    "as_of": pl.Date,
    "unit_price": pl.Float64,
    "description": pl.Utf8,
    "file": pl.Utf8,
    "line": pl.Utf8,
}
UNIT_KEY = ["region", "part", "name", "pricing_model", "term_years", "as_of"]

_FAMILY = r"(?P<name>[A-Z][A-Z0-9]*)"
_MODEL = r"Nvidia (?:Tesla )?(?P<name>[A-Z][A-Z0-9]*(?: \d+GB)?) GPU"
_TERM = r" for (?P<years>[13]) Years?$"
# (pricing model, part, pattern, usage unit); the first match wins.
_SKUS = [
    ("on_demand", "core", re.compile(rf"^{_FAMILY} (?:Predefined )?Instance Core running in "), "h"),
    ("on_demand", "ram", re.compile(rf"^{_FAMILY} (?:Predefined )?Instance Ram running in "), "GiBy.h"),
    ("on_demand", "gpu", re.compile(rf"^{_MODEL} running in "), "h"),
    ("spot", "core", re.compile(rf"^(?:Spot )?Preemptible {_FAMILY} (?:Predefined )?Instance Core running in "), "h"),
    ("spot", "ram", re.compile(rf"^(?:Spot )?Preemptible {_FAMILY} (?:Predefined )?Instance Ram running in "), "GiBy.h"),
    ("spot", "gpu", re.compile(rf"^(?:Spot )?Preemptible {_MODEL} running in "), "h"),
    ("spot", "gpu", re.compile(rf"^{_MODEL} attached to Spot Preemptible VMs running in "), "h"),
    ("committed_use", "core", re.compile(rf"^Commitment v1: (?:{_FAMILY} )?Cpu in .+{_TERM}"), "h"),
    ("committed_use", "ram", re.compile(rf"^Commitment v1: (?:{_FAMILY} )?Ram in .+{_TERM}"), "GiBy.h"),
    ("committed_use", "gpu", re.compile(rf"^Commitment v1: {_MODEL} (?:running )?in .+{_TERM}"), "h"),
]
_COMMIT_USAGE = {"Commit1Yr": 1, "Commit3Yr": 3}
_DEFAULT_FAMILY = "N1"  # "Commitment v1: Cpu in ..." is the N1 commitment
# The GPUs GCP's SKU descriptions name ("Nvidia Tesla A100 GPU ..."), as words of the accelerator's simplified name:
# GCP's vocabulary, not a second accelerator catalog (that is accelerators.csv, whose names are matched the same way)
_SKU_GPUS = ("a100", "h100", "h200", "b200", "v100", "p100", "p4", "t4", "l4", "k80", "a10", "a10g")
_BIG_MEMORY_NAMES = {"A100", "H100"}  # GCP names their 80 GB parts "<model> 80GB"


def empty_units() -> pl.DataFrame:
    return pl.DataFrame(schema=UNIT_SCHEMA)


# --- unit prices from one page -----------------------------------------------------------------

def unit_prices(doc: dict, path: Path, rel: str) -> pl.DataFrame:
    """Unit prices of the core, RAM and GPU SKUs of one page, per pricing model (module docstring).

    The currency of every SKU is checked, matched or not: one non-USD SKU means the page is in
    a billing account's currency. Prices are checked only on the SKUs that are used.
    """
    rows = []
    for index, sku in enumerate(as_list(doc["skus"], path, "$.skus")):
        where = f"$.skus[{index}]"
        sku = as_dict(sku, path, where)
        category = as_dict(sku.get("category", {}), path, f"{where}.category")
        infos = as_list(sku.get("pricingInfo", []), path, f"{where}.pricingInfo")
        rates = [_rate(info, path, f"{where}.pricingInfo[{j}]") for j, info in enumerate(infos)]
        match = _match(opt_text(sku.get("description")), opt_text(category.get("usageType")), path, where)
        if match is None:
            continue
        model, part, name, unit, years = match
        regions = [r.strip() for r in as_list(sku.get("serviceRegions", []), path, f"{where}.serviceRegions")
                   if isinstance(r, str) and r.strip()]
        for j, (usage_unit, price, rate_where, effective) in enumerate(rates):
            info_where = f"{where}.pricingInfo[{j}]"
            if usage_unit != unit:
                raise InputError(path, f"{info_where}.pricingExpression.usageUnit",
                                 f"{part} SKU priced per {usage_unit!r}, expected {unit!r}")
            value = _usd(price, path, rate_where)
            if value == 0:
                continue
            day = parse_day(effective, path, f"{info_where}.effectiveTime")
            rows += [{
                "region": region, "part": part, "name": name, "pricing_model": model, "term_years": years,
                "as_of": day, "unit_price": value, "description": opt_text(sku.get("description")),
                "file": rel, "line": info_where,
            } for region in regions]
    return pl.DataFrame(rows, schema=UNIT_SCHEMA, orient="row") if rows else empty_units()


def _match(description: str, usage_type: str, path: Path, where: str) -> tuple[str, str, str, str, int | None] | None:
    """(pricing model, part, name, usage unit, term years) of a SKU we compose with, or None."""
    for model, part, pattern, unit in _SKUS:
        found = pattern.match(description)
        if not found:
            continue
        if model == "on_demand" and usage_type != "OnDemand":
            return None
        years = int(found.group("years")) if model == "committed_use" else None
        if model == "committed_use" and _COMMIT_USAGE.get(usage_type, years) != years:
            raise InputError(path, f"{where}.category.usageType",
                             f"usage type {usage_type} disagrees with the description's term ({description!r})")
        return model, part, (found.group("name") or _DEFAULT_FAMILY).upper(), unit, years
    return None


def _rate(info: object, path: Path, where: str) -> tuple[str, dict, str, object]:
    """(usage unit, unitPrice object, its JSON path, effectiveTime) of the tier starting at 0."""
    info = as_dict(info, path, where)
    expression = as_dict(info.get("pricingExpression"), path, f"{where}.pricingExpression")
    tiers = as_list(expression.get("tieredRates"), path, f"{where}.pricingExpression.tieredRates")
    if not tiers:
        raise InputError(path, f"{where}.pricingExpression.tieredRates", "no rates")
    chosen = 0
    for t, tier in enumerate(tiers):
        tier = as_dict(tier, path, f"{where}.pricingExpression.tieredRates[{t}]")
        if tier.get("startUsageAmount", 0) == 0:
            chosen = t
            break
    rate_where = f"{where}.pricingExpression.tieredRates[{chosen}].unitPrice"
    price = as_dict(tiers[chosen].get("unitPrice"), path, rate_where)
    currency = price.get("currencyCode")
    if currency != "USD":
        raise InputError(path, f"{rate_where}.currencyCode", f"currency {currency!r} is not USD; convert explicitly first")
    return opt_text(expression.get("usageUnit")), price, rate_where, info.get("effectiveTime")


def _usd(price: dict, path: Path, where: str) -> float:
    """units + nanos / 1e9, checked like every price."""
    units, nanos = price.get("units", "0"), price.get("nanos", 0)
    if isinstance(units, bool) or not isinstance(units, (str, int)) or not re.fullmatch(r"-?\d{1,12}", str(units)):
        raise InputError(path, f"{where}.units", f"units {units!r} is not a whole number")
    if isinstance(nanos, bool) or not isinstance(nanos, int) or abs(nanos) >= 10**9:
        raise InputError(path, f"{where}.nanos", f"nanos {nanos!r} is not a whole number below 1e9")
    return parse_price(int(units) + nanos / 1e9, path, where)


# --- composing instance prices -----------------------------------------------------------------

def gpu_sku_name(accelerator: str, memory_gb: object) -> str | None:
    """The GPU model as GCP's SKU descriptions name it, from instances.csv's accelerator."""
    model = next((word.upper() for word in simplify(accelerator).split() if word in _SKU_GPUS), None)
    if model is None:
        return None
    big = isinstance(memory_gb, (int, float)) and memory_gb >= 80
    return f"{model} 80GB" if model in _BIG_MEMORY_NAMES and big else model


def compose(units: pl.DataFrame, instances: pl.DataFrame, root: Path) -> pl.DataFrame:
    """Prices of every GCP instance in `instances` under every pricing model whose parts are all in `units`."""
    units = collapse_duplicates(units, root, key=UNIT_KEY, value="unit_price")
    table: dict[tuple, list[dict]] = {}
    for row in units.sort("as_of").iter_rows(named=True):
        option = (row["region"], row["pricing_model"], row["term_years"])
        table.setdefault((*option, row["part"], row["name"]), []).append(row)
    options = sorted({key[:3] for key in table}, key=lambda o: (o[0], o[1], o[2] or 0))
    out = []
    for spec in instances.filter(pl.col("provider") == "gcp").iter_rows(named=True):
        parts = _parts(spec)
        for option in options:
            history = [table.get((*option, part, name), []) for part, name, _ in parts]
            if not all(history):
                continue
            for day in sorted({row["as_of"] for rows in history for row in rows}):
                in_force = [_newest_on(rows, day) for rows in history]
                if all(in_force):
                    out.append(_composed_row(spec, option, day, parts, in_force, root))
    return price_frame(out)


def _parts(spec: dict) -> list[tuple[str, str, float]]:
    """[(part, name, count)] of an instance row: core, RAM and (when it has GPUs) its GPU."""
    instance_type = str(spec["instance_type"])
    family = instance_type.split("+")[0].split("-")[0].upper()
    counts = {}
    for column in ("vcpus", "memory_gib", "accelerator_count"):
        try:
            counts[column] = float(spec[column] or 0)
        except (TypeError, ValueError):
            raise InputError("instances.csv", f"{instance_type} column {column}", f"{spec[column]!r} is not a number") from None
    parts = [("core", family, counts["vcpus"]), ("ram", family, counts["memory_gib"])]
    if counts["accelerator_count"] > 0:
        gpu = gpu_sku_name(str(spec["accelerator"] or ""), spec["accelerator_memory_gb"])
        if gpu is None:
            raise InputError("instances.csv", f"{instance_type} column accelerator",
                             f"no GCP GPU SKU name known for {spec['accelerator']!r}")
        parts.append(("gpu", gpu, counts["accelerator_count"]))
    return parts


def _newest_on(rows: list[dict], day) -> dict | None:
    """The newest row dated on or before `day` (rows are sorted by date)."""
    found = None
    for row in rows:
        if row["as_of"] > day:
            break
        found = row
    return found


_MODEL_LABELS = {"on_demand": "", "spot": " spot (preemptible)", "committed_use": " committed use {years} year(s)"}


def _composed_row(spec: dict, option: tuple, day, parts, in_force: list[dict], root: Path) -> dict:
    region, model, years = option
    value = round(sum(count * row["unit_price"] for (_, _, count), row in zip(parts, in_force)), 9)
    files = list(dict.fromkeys(row["file"] for row in in_force))
    if len(files) == 1:
        line = " + ".join(row["line"] for row in in_force)
    else:
        line = " + ".join(f"{row['file']}:{row['line']}" for row in in_force)
    terms = []
    for (part, name, count), row in zip(parts, in_force):
        unit = {"core": "vCPU", "ram": "GiB", "gpu": re.split(r" (?:running )?in ", row["description"], maxsplit=1)[0]}[part]
        terms.append(f"{_num(count)} {unit} x {_num(row['unit_price'])}")
    host = str(spec["instance_type"]).split("+")[0]
    label = _MODEL_LABELS[model].format(years=years)
    source = f"GCP Cloud Billing Catalog, Compute Engine {region}{label}: {host} " + " + ".join(terms)
    where = line if len(files) == 1 else None
    price = parse_price(value, root / files[0], where)
    committed = {"term_years": years, "upfront_usd": 0.0, "recurring_usd_per_hour": price} if years else {}
    return {
        "provider": "gcp", "region": region, "instance_type": spec["instance_type"], "usd_per_hour": price,
        "as_of": day, "source": source, "pricing_model": model, **committed,
        "file": " + ".join(files), "line": line,
    }


def _num(value: float) -> str:
    return f"{value:.9f}".rstrip("0").rstrip(".")
