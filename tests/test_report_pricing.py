"""The bundled report under every pricing option: the options in force at its price date, against
figures worked out by hand from raw/prices/ (the arithmetic is in the comments)."""

import polars as pl
import pytest

RESNET_A100 = 28.770861111111106 / 60  # DGX A100 ResNet-50 v1.0: 0.479514 h
RESNET_V100 = 71.27832222222223 / 60  # DGX-1 ResNet-50 v0.7: 1.187972 h


@pytest.fixture(scope="module")
def cost(bundled_run):
    frame = pl.read_csv(bundled_run.reports / "latest" / "data" / "cost_to_train.csv", try_parse_dates=True)
    return frame.filter((pl.col("comparison") == "a100-vs-v100") & (pl.col("benchmark") == "resnet"))


def option(cost, instance, name):
    rows = cost.filter((pl.col("instance_type") == instance) & (pl.col("pricing_option") == name))
    assert rows.height == 1, (instance, name)
    return rows.row(0, named=True)


def test_options_in_force_at_the_price_date(cost):
    options = {i: cost.filter(pl.col("instance_type") == i)["pricing_option"].to_list()
               for i in cost["instance_type"].unique(maintain_order=True)}
    # at 2025-06-01: GCP's Cyclenerd spot and CUDs of that date, p3/p3dn's 2019 reserved instances; the 2026
    # AWS commitments and spot are dated after it, so p4d has on demand only
    assert options["p4d.24xlarge"] == ["on_demand"]
    assert options["p3.16xlarge"] == ["on_demand", "commitment_1y", "commitment_3y"]
    assert options["a2-highgpu-8g"] == ["on_demand", "spot", "commitment_1y", "commitment_3y"]
    assert options["Standard_ND96asr_v4"] == ["on_demand"]


def test_on_demand_rows_are_as_before(cost):
    p4d = option(cost, "p4d.24xlarge", "on_demand")
    assert p4d["usd_per_hour"] == 21.957642 and p4d["whose_price"] == "list"
    assert p4d["cost_to_train_usd"] == pytest.approx(10.529004, abs=1e-6)  # 21.957642 x 0.479514
    assert p4d["pricing_model"] == "on_demand" and p4d["term_years"] is None
    assert p4d["usd_per_accelerator_hour"] == pytest.approx(2.744705, abs=1e-6)  # 21.957642 / 8


def test_commitment_rows_by_hand(cost):
    # p3.16xlarge 1 year: the cheapest of the 2019 RIs (standard 16.708 / 15.91205 / 15.593721, convertible
    # 19.227 / 18.311479 / 17.944863) is the standard all-upfront 15.593721 USD/h
    ri = option(cost, "p3.16xlarge", "commitment_1y")
    assert (ri["usd_per_hour"], ri["payment_option"], ri["offering_class"]) == (15.593721, "all_upfront", "standard")
    # 15.593721 x 1.187972 h = 18.524905; savings against p3.16xlarge on demand (29.081555): 36.3002 %
    assert ri["cost_to_train_usd"] == pytest.approx(18.524905, abs=1e-6)
    assert ri["savings_pct"] == pytest.approx(36.3002, abs=1e-4)
    # break-even: 15.593721 / 24.48 = 0.636998 of the term; 730 x 15.593721 / (24.48 x 1.187972) = 391.43 runs a month
    assert ri["break_even_share"] == pytest.approx(0.636998, abs=1e-6)
    assert ri["break_even_runs_per_month"] == pytest.approx(391.43, abs=0.01)
    cud = option(cost, "a2-highgpu-8g", "commitment_3y")
    # GCP 3-year CUD 7508.53662384 / 730 = 10.285667 USD/h x 0.479514 h = 4.932125; share 10.285667 / 29.38708 = 0.350006
    assert cud["cost_to_train_usd"] == pytest.approx(4.932125, abs=1e-6)
    assert cud["break_even_share"] == pytest.approx(0.350006, abs=1e-6)
    assert cud["cheapest_option"] is True


def test_spot_row_by_hand(cost):
    spot = option(cost, "a2-highgpu-8g", "spot")
    # Cyclenerd 2025-06-01 hour_spot 11.54364 x 0.479514 h = 5.535341; savings 100 x (1 - 5.535341 / 29.081555) = 80.9661 %
    assert spot["cost_to_train_usd"] == pytest.approx(5.535341, abs=1e-6)
    assert spot["savings_pct"] == pytest.approx(80.9661, abs=1e-4)
    assert spot["break_even_share"] is None
