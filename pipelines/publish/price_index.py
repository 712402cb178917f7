"""The market's price index in the report (metrics/price_index.py): where the price of an accelerator-hour is going,
a chart of the cheapest list price of each current accelerator over the snapshots and a table of the newest
snapshot's cheapest and median, list and spot apart. Part of the chapter "What changed"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from pipelines.domain import units as fmt
from pipelines.publish import charts
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.numbering import Numbering
from pipelines.publish.records import Cell, Column, Figure, Row, Table, chart_id


@dataclass(frozen=True)
class PriceIndex:
    figure: Figure
    table: Table
    snapshots: int  # the snapshot dates the index spans


COLUMNS = (Column("Accelerator", header=True), Column("Cheapest list", numeric=True), Column("Median list", numeric=True),
           Column("Cheapest spot", numeric=True), Column("Median spot", numeric=True), Column("Offers", numeric=True))


def price_index_part(index: pl.DataFrame, price_date: date, numbering: Numbering,
                     cache: ChartCache = NO_CACHE) -> PriceIndex | None:
    """The chart and table of the index up to the report's price date; None without an indexed offer."""
    index = index.filter(pl.col("as_of") <= price_date)
    if index.is_empty():
        return None
    listed = index.filter(pl.col("price_kind") == "list")
    series = {model: [(r["as_of"], r["cheapest_usd"]) for r in rows.sort("as_of").iter_rows(named=True)]
              for (model,), rows in listed.group_by("accelerator_model", maintain_order=True)}
    tips = {model: [f"{model} {fmt.day(d)}: cheapest list {fmt.usd_hour(usd)} per accelerator-hour" for d, usd in points]
            for model, points in series.items()}
    number = numbering.figure()
    alt = ("Step chart of the cheapest list price of an accelerator-hour of each current accelerator over the price "
           "snapshots: " + "; ".join(f"{m} {fmt.usd_hour(p[-1][1])} on {fmt.day(p[-1][0])}" for m, p in series.items())
           + ".")
    figure = Figure(number, cache.svg(charts.price_history_chart, series, "Cheapest list price (USD per accelerator-hour)",
                                      chart_id(number), alt, price_date, None, tips), alt,
                    "The market's price index: the cheapest list price of an accelerator-hour of each current "
                    "accelerator at every snapshot the data set holds (data/price_index.csv has the median and spot too).")
    newest = index.sort("as_of").group_by("accelerator_model", "price_kind", maintain_order=True).last()
    rows = []
    for (model,), of_model in newest.group_by("accelerator_model", maintain_order=True):
        by_kind = {r["price_kind"]: r for r in of_model.iter_rows(named=True)}
        cells = [Cell(model)]
        for kind in ("list", "spot"):
            r = by_kind.get(kind)
            cells += [Cell(fmt.usd_hour(r["cheapest_usd"]) if r else "–", sort=r["cheapest_usd"] if r else None),
                      Cell(fmt.usd_hour(r["median_usd"]) if r else "–", sort=r["median_usd"] if r else None)]
        offers = sum(r["offers"] for r in by_kind.values())
        cells.append(Cell(f"{offers:,}", sort=offers))
        rows.append(Row(tuple(cells)))
    table = Table(numbering.table(), f"The price of an accelerator-hour on {fmt.day(price_date)}: the cheapest and "
                                     "median over the offers priced then, list and spot apart (auction and "
                                     "marketplace offers left out)", COLUMNS, tuple(rows), csv="price_index")
    return PriceIndex(figure, table, index["as_of"].n_unique())
