"""The answer per comparison and benchmark (pipelines/metrics/cheapest_offers.py), computed by hand
from cost_to_train rows: the cheapest offer over every pricing option, the cheapest on demand, the
fastest, and their savings against the baseline."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.metrics.cheapest_offers import cheapest_offers
from pipelines.metrics.cost import cost_to_train


def _rows() -> pl.DataFrame:
    """Two instances and a baseline on one benchmark; prices per option; times in minutes."""
    rows = []
    for position, (instance, minutes, prices) in enumerate((
        ("big", 30.0, {"on_demand": 40.0, "spot": 16.0}),
        ("mid", 60.0, {"on_demand": 18.0, "commitment_1y": 9.0, "spot": 9.0}),
        ("old", 120.0, {"on_demand": 12.0, "spot": 4.0}),  # the baseline
    )):
        for option, usd in prices.items():
            rows.append({"comparison": "c", "comparison_title": "C", "benchmark": "resnet", "benchmark_position": 0,
                         "position": position, "provider": "aws", "region": "us-east-1", "instance_type": instance,
                         "is_baseline": instance == "old", "pricing_option": option,
                         "option_position": ["on_demand", "spot", "commitment_1y"].index(option),
                         "usd_per_hour": usd, "time_to_train_minutes": minutes, "accelerator_count": 8, "accelerator": "A100", "system": "s",
                         "price_as_of": None, "samples_per_second": None})
    rows.append({**rows[0], "instance_type": "none", "position": 3, "time_to_train_minutes": None})  # no result
    return pl.DataFrame(rows)


def test_the_cheapest_over_every_option_the_cheapest_on_demand_and_the_fastest():
    (row,) = cheapest_offers(cost_to_train(_rows())).to_dicts()
    # costs = usd/h x minutes / 60. On demand: big 40 x 0.5 = $20, mid 18 x 1 = $18, old 12 x 2 = $24 (baseline)
    # spot: big 16 x 0.5 = $8, mid $9, old 4 x 2 = $8 (a tie with big: the shorter time wins, big's 30 min);
    # mid's 1-year commitment 9 x 1 = $9
    assert (row["cheapest_instance_type"], row["cheapest_pricing_option"], row["cheapest_cost_usd"]) == ("big", "spot", 8.0)
    assert row["cheapest_minutes"] == 30.0 and row["cheapest_usd_per_hour"] == 16.0
    assert row["cheapest_savings_pct"] == pytest.approx(100 * (1 - 8 / 24))  # against the baseline on demand, $24
    assert (row["cheapest_on_demand_instance_type"], row["cheapest_on_demand_cost_usd"]) == ("mid", 18.0)
    assert row["cheapest_on_demand_savings_pct"] == pytest.approx(25.0)  # 1 - 18 / 24
    assert (row["fastest_instance_type"], row["fastest_minutes"], row["fastest_cost_usd"]) == ("big", 30.0, 20.0)
    assert (row["baseline_instance_type"], row["baseline_cost_usd"], row["baseline_pricing_option"]) == ("old", 24.0, "on_demand")
    assert (row["instances"], row["instances_with_result"]) == (4, 3)


def test_savings_follow_the_baselines_own_pricing():
    (row,) = cheapest_offers(cost_to_train(_rows(), baseline_pricing="spot"), baseline_pricing="spot").to_dicts()
    # the baseline on spot: 4 x 2 = $8; the cheapest offer costs the same: 0% saved; mid on demand $18: 1 - 18/8
    assert row["baseline_cost_usd"] == 8.0 and row["baseline_pricing_option"] == "spot"
    assert row["cheapest_savings_pct"] == pytest.approx(0.0)
    assert row["cheapest_on_demand_savings_pct"] == pytest.approx(100 * (1 - 18 / 8))


def test_a_benchmark_without_any_result_keeps_a_row_with_empty_offers():
    rows = _rows().with_columns(pl.lit(None, pl.Float64).alias("time_to_train_minutes"))
    (row,) = cheapest_offers(cost_to_train(rows)).to_dicts()
    assert row["cheapest_instance_type"] is None and row["cheapest_cost_usd"] is None
    assert row["fastest_instance_type"] is None and row["instances_with_result"] == 0
