"""Read one price file or a whole folder of them into the one validated price frame.

A folder holds dated snapshots in any mix of formats; history is never overwritten, so the
folder's result is every snapshot's rows, one price per (provider, region, instance_type, pricing
option, as_of) (see combine.py). Some prices need more than one file, so each file is first read
into its parts (`Parts`) and the folder combines them once:
- GCP instance prices are composed from unit prices that may sit on different pages (gcp.py);
- AWS savings plan rates name a usage type and operation, which an AWS Price List of the folder
  ties to an instance type and region (aws_savings_plans.py);
- the AWS spot advisor's interruption buckets go onto the spot prices in force on its date
  (aws_spot.py).
A SkyPilot catalog (skypilot.py) lists every offer of its cloud; its prices are kept for the
instances of the instance table only, as a provider's price list is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import aws, aws_json, aws_savings_plans, aws_spot, aws_terms, azure, detect, gcp, skypilot
from pipelines.ingest.prices.combine import collapse_duplicates
from pipelines.ingest.prices.files import price_files
from pipelines.ingest.prices.instances import check_instances
from pipelines.domain.offers import certainty_expr, offer_kind_expr
from pipelines.domain.pricing import PRICE_OPTION, PRICING_MODELS
from pipelines.ingest.prices.normalized import (MAX_USD_PER_ACCELERATOR_HOUR, PRICE_COLUMNS, empty_prices,
                                                read_normalized_csv)



@dataclass
class Parts:
    """What the files of a folder hold, before the folder combines them (module docstring)."""

    prices: list[pl.DataFrame] = field(default_factory=list)
    gcp_units: list[pl.DataFrame] = field(default_factory=list)
    aws_usage: list[pl.DataFrame] = field(default_factory=list)
    savings_plan_rates: list[pl.DataFrame] = field(default_factory=list)
    spot_buckets: list[pl.DataFrame] = field(default_factory=list)

    def add(self, other: Parts) -> None:
        for name in self.__dataclass_fields__:
            getattr(self, name).extend(getattr(other, name))

    def combine(self, instances: pl.DataFrame, root: Path) -> pl.DataFrame:
        prices = list(self.prices)
        units = pl.concat([gcp.empty_units(), *self.gcp_units])
        if not units.is_empty():
            prices.append(gcp.compose(units, instances, root))
        rates = pl.concat([aws_savings_plans.empty_rates(), *self.savings_plan_rates])
        if not rates.is_empty():
            usage = pl.concat([aws_terms.empty_usage(), *self.aws_usage])
            prices.append(aws_savings_plans.join(rates, usage, root))
        combined = pl.concat([empty_prices(), *prices]).select(PRICE_COLUMNS)
        buckets = pl.concat([aws_spot.empty_buckets(), *self.spot_buckets])
        return aws_spot.attach_buckets(combined, buckets, root)


def read_price_file(path: Path, instances: pl.DataFrame, root: Path | None = None) -> pl.DataFrame:
    """Prices in one file of any supported format, filtered to `instances` (provider formats).

    `root` is the folder the `file` column is relative to (default: the file's own folder).
    """
    path = Path(path)
    root = Path(root) if root is not None else path.parent
    check_instances(instances)
    return _refuse_absurd(_finish(_parse(path, _relative(path, root), instances).combine(instances, root), root),
                          instances, root)


def read_price_folder(folder: Path, instances: pl.DataFrame) -> pl.DataFrame:
    """Every snapshot in every price file under `folder` (files.price_files: the files the raw_prices observation
    hashes; hidden, temporary and note files skipped)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(folder, None, "is not a folder of price files")
    check_instances(instances)
    files = price_files(folder)
    if not files:
        raise InputError(folder, None, "holds no price files")
    parts = Parts()
    for path in files:
        parts.add(_parse(path, _relative(path, folder), instances))
    return _refuse_absurd(_finish(parts.combine(instances, folder), folder), instances, folder)


def _refuse_absurd(prices: pl.DataFrame, instances: pl.DataFrame, root: Path) -> pl.DataFrame:
    """Refuse a price above MAX_USD_PER_ACCELERATOR_HOUR per accelerator of its instance, naming its file and line:
    fetched data is untrusted, and one absurd row would decide every "cheapest" it takes part in."""
    per_accelerator = (prices.join(instances.select("provider", "instance_type", "accelerator_count"),
                                   on=["provider", "instance_type"], how="inner")
                       .filter(pl.col("usd_per_hour") / pl.col("accelerator_count") > MAX_USD_PER_ACCELERATOR_HOUR))
    if per_accelerator.height:
        r = per_accelerator.row(0, named=True)
        raise InputError(root / r["file"], f"{r['line']} ({r['instance_type']})",
                         f"{r['usd_per_hour']:g} USD/h is {r['usd_per_hour'] / r['accelerator_count']:,.2f} USD per "
                         f"accelerator-hour for its {r['accelerator_count']} accelerators, above "
                         f"{MAX_USD_PER_ACCELERATOR_HOUR:,.0f}: a unit mix-up, not a price")
    return prices


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def _finish(prices: pl.DataFrame, root: Path) -> pl.DataFrame:
    """One price per key, ordered by instance, then option (on-demand first), then date."""
    rank = pl.col("pricing_model").replace_strict(PRICING_MODELS, range(len(PRICING_MODELS)), default=None)
    order = ["provider", "region", "instance_type", rank, *PRICE_OPTION[1:], "as_of"]
    return (
        collapse_duplicates(prices.select(PRICE_COLUMNS), root)
        .with_columns(offer_kind_expr().alias("offer_kind"))
        .with_columns(certainty_expr())
        .sort(order, nulls_last=False, maintain_order=True)
    )


def _parse(path: Path, rel: str, instances: pl.DataFrame) -> Parts:
    """The parts of one file (most files hold prices only)."""
    kind = detect.sniff(path)
    if kind == detect.SKYPILOT_CSV or skypilot.in_layout(rel):
        prices = skypilot.read_catalog(path, rel).prices
        return Parts(prices=[prices.join(instances.select("provider", "instance_type").unique(),
                                         on=["provider", "instance_type"], how="semi")])
    if kind == detect.NORMALIZED_CSV:
        return Parts(prices=[read_normalized_csv(path, rel)])
    if kind == detect.AWS_CSV:
        prices, usage = aws.read_aws_csv(path, rel, instances)
        return Parts(prices=[prices], aws_usage=[usage])
    if kind == detect.AWS_SAVINGS_PLAN_CSV:
        return Parts(savings_plan_rates=[aws_savings_plans.read_csv(path, rel, instances)])
    doc = _load_json(path)
    kind = detect.json_kind(doc, path)
    if kind == detect.AWS_JSON:
        prices, usage = aws_json.read_aws_json(doc, path, rel, instances)
        return Parts(prices=[prices], aws_usage=[usage])
    if kind == detect.AWS_SAVINGS_PLAN_JSON:
        return Parts(savings_plan_rates=[aws_savings_plans.read_json(doc, path, rel, instances)])
    if kind == detect.AWS_SPOT_HISTORY_JSON:
        return Parts(prices=[aws_spot.read_spot_history(doc, path, rel, instances)])
    if kind == detect.AWS_SPOT_ADVISOR_JSON:
        return Parts(spot_buckets=[aws_spot.read_spot_advisor(doc, path, rel, instances)])
    if kind == detect.AZURE_JSON:
        return Parts(prices=[azure.read_azure_json(doc, path, rel, instances)])
    return Parts(gcp_units=[gcp.unit_prices(doc, path, rel)])


def _load_json(path: Path) -> object:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InputError(path, raw[: exc.start].count(b"\n") + 1, "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"is not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # over-long integers, absurd nesting
        raise InputError(path, None, f"is not valid JSON: {type(exc).__name__}") from None
