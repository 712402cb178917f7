"""Prices in force and price changes, against values computed by hand from reference/prices.csv."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from pipelines.metrics.price_changes import price_changes, prices_in_force
from tests.price_fixtures import reference_prices

JUNE_2025, JAN_2024, FEB_2022 = date(2025, 6, 1), date(2024, 1, 1), date(2022, 2, 8)


def by_type(frame: pl.DataFrame) -> dict[str, dict]:
    return {r["instance_type"]: r for r in frame.iter_rows(named=True)}


def test_prices_in_force_take_the_newest_on_or_before_the_date():
    history = reference_prices()
    june = by_type(prices_in_force(history, JUNE_2025))
    assert len(june) == 10  # every instance of the reference, each once
    assert (june["p4d.24xlarge"]["usd_per_hour"], june["p4d.24xlarge"]["as_of"]) == (21.957642, JUNE_2025)
    assert (june["p3.16xlarge"]["usd_per_hour"], june["p3.16xlarge"]["as_of"]) == (24.48, FEB_2022)
    assert june["p5.48xlarge"]["usd_per_hour"] == 55.04
    day_before = by_type(prices_in_force(history, date(2025, 5, 31)))
    assert day_before["p4d.24xlarge"]["usd_per_hour"] == 32.7726
    assert day_before["p5.48xlarge"]["usd_per_hour"] == 98.32
    assert set(by_type(prices_in_force(history, FEB_2022))) == set(june) - {"p5.48xlarge", "Standard_ND96isr_H100_v5"}
    assert prices_in_force(history, date(2020, 1, 1)).is_empty()


def test_june_2025_cut_against_the_2024_snapshot():
    changes = price_changes(reference_prices(), JUNE_2025, JAN_2024)
    assert changes.columns == [
        "provider", "region", "instance_type", "previous_as_of", "previous_usd_per_hour",
        "current_as_of", "current_usd_per_hour", "change_pct",
    ]
    rows = by_type(changes)
    p4d = rows["p4d.24xlarge"]
    # 32.7726 -> 21.957642: 21.957642 / 32.7726 = 0.67, a 33.0 % cut
    assert (p4d["previous_as_of"], p4d["previous_usd_per_hour"]) == (FEB_2022, 32.7726)
    assert (p4d["current_as_of"], p4d["current_usd_per_hour"]) == (JUNE_2025, 21.957642)
    assert p4d["change_pct"] == pytest.approx(-33.0, abs=1e-9)
    # 98.32 -> 55.04: 55.04 / 98.32 = 0.559805 -> -44.0195 %
    assert rows["p5.48xlarge"]["change_pct"] == pytest.approx(-44.019528, abs=1e-6)
    unchanged = [t for t, r in rows.items() if t not in ("p4d.24xlarge", "p5.48xlarge")]
    assert len(unchanged) == 8 and all(rows[t]["change_pct"] == 0 for t in unchanged)
    assert rows["a2-highgpu-8g"]["previous_usd_per_hour"] == rows["a2-highgpu-8g"]["current_usd_per_hour"] == 29.38708


def test_instances_new_at_the_date_have_null_previous():
    rows = by_type(price_changes(reference_prices(), JAN_2024, FEB_2022))
    for new in ("p5.48xlarge", "Standard_ND96isr_H100_v5"):
        assert rows[new]["previous_as_of"] is None and rows[new]["previous_usd_per_hour"] is None
        assert rows[new]["change_pct"] is None and rows[new]["current_usd_per_hour"] == 98.32
    assert rows["p4d.24xlarge"]["change_pct"] == 0


def test_first_snapshot_has_no_previous_at_all():
    changes = price_changes(reference_prices(), FEB_2022, None)
    assert changes.height == 8 and changes["previous_usd_per_hour"].null_count() == 8


def test_the_previous_prices_are_those_in_force_on_the_date_given():
    # the previous date is the report's (report_dates, metrics/price_dates.py), not the newest snapshot of any file:
    # a GCP-only snapshot on 2025-03-01 is "previous" only when the caller's rule says so
    extra = pl.DataFrame({
        "provider": ["gcp"], "region": ["us-central1"], "instance_type": ["a2-highgpu-8g"],
        "usd_per_hour": [30.0], "as_of": [date(2025, 3, 1)], "source": ["x"],
    })
    history = pl.concat([reference_prices(), extra])
    rows = by_type(price_changes(history, JUNE_2025, JAN_2024))
    assert rows["a2-highgpu-8g"]["previous_as_of"] < date(2025, 3, 1)
    assert rows["a2-highgpu-8g"]["previous_usd_per_hour"] == 29.38708
    rows = by_type(price_changes(history, JUNE_2025, date(2025, 3, 1)))
    assert rows["a2-highgpu-8g"]["previous_as_of"] == date(2025, 3, 1)
    assert rows["a2-highgpu-8g"]["change_pct"] == 0
    assert rows["p4d.24xlarge"]["previous_usd_per_hour"] == 32.7726
