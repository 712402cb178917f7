"""The market's price index (pipelines/metrics/price_index.py), by hand: the cheapest and median price of an
accelerator-hour of each current accelerator at every snapshot, list and spot apart, auctions left out."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from pipelines.metrics.price_index import price_index


def test_cheapest_and_median_per_accelerator_hour_at_every_snapshot():
    instances = pl.DataFrame({"provider": ["a", "b", "c", "m"], "instance_type": ["x8", "y8", "z1", "q8"],
                              "accelerator_model": ["H100-SXM-80GB"] * 4, "accelerator_count": [8, 8, 1, 8]})
    d1, d2 = date(2026, 1, 1), date(2026, 2, 1)
    prices = pl.DataFrame({
        "provider": ["a", "b", "c", "a", "m", "b"], "region": ["r"] * 6,
        "instance_type": ["x8", "y8", "z1", "x8", "q8", "y8"],
        "pricing_model": ["on_demand", "on_demand", "on_demand", "on_demand", "on_demand", "spot"],
        "usd_per_hour": [24.0, 32.0, 2.5, 16.0, 1.0, 12.0], "as_of": [d1, d1, d1, d2, d2, d2],
        "offer_kind": ["list", "list", "quote", "list", "auction", "spot"],
        "term_years": [None] * 6, "payment_option": [None] * 6, "offering_class": [None] * 6})
    rows = {(r["price_kind"], r["as_of"]): r for r in price_index(prices, instances).to_dicts()}
    # d1, list: 24/8 = 3.00, 32/8 = 4.00, the quote 2.50/1 -> cheapest 2.50, median 3.00, 3 offers
    assert (rows[("list", d1)]["offers"], rows[("list", d1)]["cheapest_usd"], rows[("list", d1)]["median_usd"]) == (3, 2.5, 3.0)
    # d2: a's new price 16/8 = 2.00 replaces 3.00; b and c still in force; the auction's $1 is left out
    assert (rows[("list", d2)]["offers"], rows[("list", d2)]["cheapest_usd"]) == (3, 2.0)
    assert rows[("list", d2)]["median_usd"] == pytest.approx(2.5)
    assert (rows[("spot", d2)]["offers"], rows[("spot", d2)]["cheapest_usd"]) == (1, 1.5)  # 12/8
    assert ("spot", d1) not in rows
