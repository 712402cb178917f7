"""The price date and the previous snapshot: one rule (metrics/price_dates.py), the instance set as its
parameter; price_changes and cost_changes compare the same two dates."""

from __future__ import annotations

import datetime as dt

import duckdb
import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.metrics.atlas import atlas_price_date
from pipelines.metrics.price_dates import PriceDates, price_dates
from pipelines.warehouse import read_table
from tests.pipeline_runner import make_dirs, run_pipeline
from tests.small_raw import write_small_raw

JAN, MAR, JUN, SEP = dt.date(2024, 1, 1), dt.date(2024, 3, 1), dt.date(2024, 6, 1), dt.date(2024, 9, 1)


def _prices(rows: list[tuple]) -> pl.DataFrame:
    """(instance_type, as_of, pricing_model, offer_kind) rows of aws prices."""
    return pl.DataFrame([{"provider": "aws", "region": "us-east-1", "instance_type": t, "usd_per_hour": 1.0,
                          "as_of": d, "pricing_model": m, "offer_kind": k} for t, d, m, k in rows])


def _instances(*types: str) -> pl.DataFrame:
    return pl.DataFrame({"provider": ["aws"] * len(types), "instance_type": list(types),
                         "accelerator_model": [t.split(".")[0].upper() for t in types]})


PRICES = _prices([("a.8x", JAN, "on_demand", "list"), ("b.8x", MAR, "on_demand", "list"),
                  ("a.8x", JUN, "on_demand", "list"), ("a.8x", SEP, "spot", "list"),
                  ("c.8x", SEP, "on_demand", "marketplace")])


def test_the_rule_takes_the_newest_on_demand_snapshot_of_the_set_and_the_one_before():
    assert price_dates(PRICES, _instances("a.8x")) == PriceDates(JUN, JAN)  # b's March snapshot is not a's
    assert price_dates(PRICES, _instances("a.8x", "b.8x")) == PriceDates(JUN, MAR)
    assert price_dates(PRICES, _instances("b.8x")) == PriceDates(MAR, None)
    # the spot price of September does not move the date; an excluded offer kind does not count
    assert price_dates(PRICES, _instances("a.8x", "c.8x")) == PriceDates(SEP, JUN)
    assert price_dates(PRICES, _instances("a.8x", "c.8x"), ["marketplace"]) == PriceDates(JUN, JAN)
    # a fixed date (report.toml's price_date) wins; the previous snapshot is the set's before it
    assert price_dates(PRICES, _instances("a.8x", "b.8x"), fixed=dt.date(2024, 5, 1)) == PriceDates(dt.date(2024, 5, 1), MAR)
    assert price_dates(PRICES, _instances("z.8x")) == PriceDates(None, None)


def test_the_atlas_uses_the_rule_over_the_instances_of_its_cloud_models():
    instances = _instances("a.8x", "b.8x", "c.8x")
    assert atlas_price_date(PRICES, instances, ["B"]) == MAR
    assert atlas_price_date(PRICES, instances, ["A"], ["marketplace"]) == JUN
    # no priced instance carries a used cloud model: every instance of the catalog
    assert atlas_price_date(PRICES, instances, ["Z"]) == SEP
    assert atlas_price_date(PRICES, instances, []) == SEP
    with pytest.raises(InputError):
        atlas_price_date(PRICES.clear(), instances, ["A"])


@pytest.fixture(scope="module")
def three_snapshots(tmp_path_factory):
    """The small data set with an instance the report does not compare (other.4x) and a third snapshot,
    2024-03-01, that prices only that instance: the compared instances' snapshots are 2024-01-01 and
    2024-06-01."""
    dirs = make_dirs(tmp_path_factory.mktemp("dates"), raw_source=None)
    write_small_raw(dirs.raw)
    with (dirs.raw / "instances.csv").open("a") as handle:
        handle.write("aws,other.4x,NVIDIA V100-SXM2-16GB,4,16,32,244,,V100-SXM2-16GB,instance\n")
    with (dirs.raw / "prices" / "p1.csv").open("a") as handle:
        handle.write("aws,us-east-1,other.4x,10.0,2024-01-01,list A\n")
    (dirs.raw / "prices" / "p3.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        "aws,us-east-1,other.4x,12.0,2024-03-01,list C\n")
    result = run_pipeline(dirs, pdf=False)
    assert result.success
    with duckdb.connect(str(dirs.warehouse), read_only=True) as conn:
        yield {name: read_table(conn, name) for name in ("report_dates", "price_changes", "cost_changes")}


def test_price_changes_and_cost_changes_compare_the_same_two_dates(three_snapshots):
    # by hand: the compared instances (big.8x, small.8x) have on-demand snapshots 2024-01-01 and 2024-06-01;
    # other.4x's 2024-03-01 is no snapshot of theirs: the report compares 2024-06-01 with 2024-01-01
    dates = three_snapshots["report_dates"].row(0, named=True)
    assert (dates["price_date"], dates["previous_price_date"]) == (JUN, JAN)

    prices = {r["instance_type"]: r for r in three_snapshots["price_changes"].iter_rows(named=True)}
    # the prices in force on 2024-06-01 and on 2024-01-01, for every instance the price book has
    assert {t: (r["previous_as_of"], r["previous_usd_per_hour"], r["current_as_of"], r["current_usd_per_hour"])
            for t, r in prices.items()} == {
        "big.8x": (JAN, 30.0, JUN, 24.0), "small.8x": (JAN, 20.0, JAN, 20.0), "other.4x": (JAN, 10.0, MAR, 12.0)}

    costs = three_snapshots["cost_changes"]
    assert costs.height == 4  # two benchmarks x the two compared instances, on demand
    for r in costs.iter_rows(named=True):
        # cost_changes prices every compared instance at the same two dates as price_changes
        assert (r["previous_usd_per_hour"], r["current_usd_per_hour"]) == (
            prices[r["instance_type"]]["previous_usd_per_hour"], prices[r["instance_type"]]["current_usd_per_hour"])
