"""The price date and the previous snapshot: one rule for the report and the atlas, the instance set
as its parameter (pure polars).

A document prices at one date: the date it fixes (report.toml's price_date; the atlas fixes none),
else the newest on-demand snapshot of the instances it prices. The previous snapshot ("What
changed" compares the two) is the newest on-demand snapshot of those instances before that date.
On demand sets the dates: spot and commitment snapshots (which may be newer) count from the date on,
as their newest price dated on or before it, but do not move it; nor does a price of an instance
outside the set, nor one of an offer kind report.toml leaves out (exclude_offer_kinds).

The instance sets:
- the report's: the instances its comparisons compare, a whole_market comparison with every
  instance that has the accelerators (model and count) of one it lists (sql/marts/compared_instances.sql);
- the atlas's: the instances whose accelerator is the cloud model of a scored system, else (no such
  instance has a price) every instance of the catalog (defs/atlas/marts.py).

price_changes and cost_changes both compare the two dates of the report_dates mart, which this rule
computes; the coverage check computes it before the marts exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from pipelines.domain.pricing import on_demand
from pipelines.metrics.price_changes import offered

INSTANCE = ["provider", "instance_type"]


@dataclass(frozen=True)
class PriceDates:
    price_date: date | None  # None: no instance of the set has an on-demand price, and no date is fixed
    previous: date | None  # None: no earlier snapshot


def price_dates(prices: pl.DataFrame, instances: pl.DataFrame, exclude_offer_kinds: list[str] | None = None,
                fixed: date | None = None) -> PriceDates:
    """The price date and the snapshot before it, of `instances` (provider, instance_type).

    `prices`: the price book (stg_prices, every pricing model); `fixed`: a price date the document
    sets (report.toml's price_date), which the snapshots then do not move."""
    snapshots = (on_demand(offered(prices, exclude_offer_kinds))
                 .join(instances.select(INSTANCE).unique(), on=INSTANCE, how="semi")["as_of"])
    price_date = fixed if fixed is not None else snapshots.max()
    if price_date is None:
        return PriceDates(None, None)
    return PriceDates(price_date, snapshots.filter(snapshots < price_date).max())  # type: ignore[arg-type]


def report_dates(prices: pl.DataFrame, compared: pl.DataFrame, exclude_offer_kinds: list[str] | None,
                 fixed: date | None) -> pl.DataFrame:
    """The report_dates mart: the report's price date, the previous snapshot and the first snapshot
    of the whole price book (one row)."""
    dates = price_dates(prices, compared, exclude_offer_kinds, fixed)
    return pl.DataFrame({"price_date": [dates.price_date], "previous_price_date": [dates.previous],
                         "first_price_date": [prices["as_of"].min()]},
                        schema={"price_date": pl.Date, "previous_price_date": pl.Date, "first_price_date": pl.Date})
