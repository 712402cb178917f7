"""A price index of the market: where the price of an accelerator-hour is going, from the snapshots a data set holds.

For each current accelerator (INDEXED), each snapshot date d (every distinct as_of of the price book) and each of
two kinds of price, list (the providers' published on-demand rates, quotes included) and spot (their published
interruptible rates):

    offers                  the priced instances with that accelerator whose price of that kind is in force at d
                            (the newest dated on or before d: metrics/price_changes.prices_in_force)
    cheapest_usd            the least USD per accelerator-hour among them: usd_per_hour / accelerator_count
    median_usd              their median USD per accelerator-hour

An auction's bid and a host's listing (offer kinds auction, marketplace) are left out: they are not rates a buyer
can count on (domain/offers.py). Each fetch adds a snapshot, so the index grows with every `make prices`.
"""

from __future__ import annotations

import polars as pl

from pipelines.domain import offers
from pipelines.metrics.price_changes import prices_in_force

# the accelerator models of accelerators.csv the index follows: today's training accelerators
INDEXED = ("H100-SXM-80GB", "H200-SXM-141GB", "B200-SXM-180GB", "MI300X", "A100-SXM-80GB")
KINDS = {"list": (offers.LIST, offers.QUOTE), "spot": (offers.SPOT,)}
SCHEMA = {"accelerator_model": pl.Utf8, "price_kind": pl.Utf8, "as_of": pl.Date, "offers": pl.Int64,
          "cheapest_usd": pl.Float64, "median_usd": pl.Float64}


def price_index(prices: pl.DataFrame, instances: pl.DataFrame) -> pl.DataFrame:
    """One row per accelerator model, price kind and snapshot date where at least one offer is priced (SCHEMA).
    `prices`: stg_prices; `instances`: stg_instances (accelerator_model, accelerator_count)."""
    machines = instances.filter(pl.col("accelerator_model").is_in(list(INDEXED))).select(
        "provider", "instance_type", "accelerator_model", "accelerator_count")
    rows = (prices.filter(pl.col("pricing_model").is_in(["on_demand", "spot"]))
            .join(machines, on=["provider", "instance_type"], how="inner"))
    frames = []
    for kind, kinds in KINDS.items():
        of_kind = rows.filter(pl.col("offer_kind").fill_null(offers.LIST).is_in(list(kinds)))
        for day in of_kind["as_of"].unique().sort().to_list():
            frames.append(
                prices_in_force(of_kind, day)
                .with_columns((pl.col("usd_per_hour") / pl.col("accelerator_count")).alias("_per_accelerator"))
                .group_by("accelerator_model")
                .agg(pl.len().cast(pl.Int64).alias("offers"), pl.col("_per_accelerator").min().alias("cheapest_usd"),
                     pl.col("_per_accelerator").median().alias("median_usd"))
                .with_columns(pl.lit(kind).alias("price_kind"), pl.lit(day, pl.Date).alias("as_of")))
    if not frames:
        return pl.DataFrame(schema=SCHEMA)
    order = pl.col("accelerator_model").replace_strict(list(INDEXED), list(range(len(INDEXED))), return_dtype=pl.Int64)
    return pl.concat(frames).select(list(SCHEMA)).cast(SCHEMA).sort(order, "price_kind", "as_of")
