"""The bundled data under every pricing option: the options in force at a price date, against figures
worked out by hand from raw/prices/ (the arithmetic is in the comments). Most figures are those of
price date 2025-06-01 (report.toml's price_date pinned); the last test checks the default date's."""

import re
from html import unescape
from pathlib import Path

import polars as pl
import pytest

RESNET_A100 = 28.770861111111106 / 60  # DGX A100 ResNet-50 v1.0: 0.479514 h
RESNET_V100 = 71.27832222222223 / 60  # DGX-1 ResNet-50 v0.7: 1.187972 h


def _resnet_a100_v100(folder: Path) -> pl.DataFrame:
    """The ResNet-50 rows of 8x A100 vs 8x V100 in a report folder's cost_to_train.csv."""
    frame = pl.read_csv(folder / "data" / "cost_to_train.csv", try_parse_dates=True)
    return frame.filter((pl.col("comparison") == "a100-vs-v100") & (pl.col("benchmark") == "resnet"))


@pytest.fixture(scope="module")
def cost(bundled_2025_report):
    return _resnet_a100_v100(bundled_2025_report)


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


@pytest.fixture(scope="module")
def report_html(bundled_2025_report):
    return unescape((bundled_2025_report / "report.html").read_text(encoding="utf-8"))


def squashed(text):
    return " ".join(text.split())


def test_html_shows_the_options_and_the_break_even(report_html):
    html = report_html
    assert "ResNet-50: cost to train under each pricing option" in html
    assert "ResNet-50: when a commitment costs less than on demand" in html
    # the cheapest of every option in 8x A100 vs 8x V100, ResNet-50: a2-highgpu-8g's 3-year CUD, $4.93
    assert "the cheapest is GCP a2-highgpu-8g (3-year commitment) at $4.93" in html
    # p3.16xlarge 1-year RI: 15.593721 / 24.48 = 63.7 % of the term, from 391.43 runs a month
    assert "63.7% of the term" in html and "from 391 runs a month" in html
    assert "must restart from its last checkpoint" in html
    # A100/V100: 8 on-demand prices (7 dated 2022-02-08) and 7 option prices (the four 2019 RIs old); the
    # current generation: 8 on-demand prices (2025-05-16 or 2025-06-01) and a3-highgpu-8g's spot and 1-
    # and 3-year commitments (2025-06-01), none old: 11 of 26 at 2025-06-01
    assert "price dates from 2019-04-05 to 2025-06-01; 11 of 26 prices stale (older than 365 days; spot: 7)" in html
    assert "options-table" in html and "break-even-table" in html
    assert ">stale<" in html


def test_the_pdf_prints_the_options_and_the_break_even_of_its_html(bundled_run, bundled_pdf_texts):
    """The printed report (the bundled_run's: the PDF of the same template; the figures above are the 2025
    run's HTML) says what its HTML says about the options, the cheapest of each and the break-even."""
    folder = bundled_run.reports / "latest"
    pdf = squashed(" ".join(bundled_pdf_texts))
    html = squashed(re.sub(r"<[^>]+>", "", unescape((folder / "report.html").read_text(encoding="utf-8"))))
    assert "ResNet-50: cost to train under each pricing option" in pdf
    assert "ResNet-50: when a commitment costs less than on demand" in pdf
    assert "must restart from its last checkpoint" in pdf
    cheapest = re.findall(r"the cheapest is [^;$]*? at \$[\d,.]+\d", html)
    assert cheapest and all(sentence in pdf for sentence in cheapest), [c for c in cheapest if c not in pdf]
    terms = re.findall(r"\d+\.\d% of the term", html)
    assert terms and all(term in pdf for term in terms)


def test_the_default_date_takes_the_2026_spot_prices(bundled_run):
    """At the default price date (2026-12-07, the GPU clouds' catalogs) the 2026 spot snapshots are in
    force: AWS p4d's (SkyPilot catalog, 2026-05-18) and GCP a2-highgpu-8g's (Cyclenerd, 2026-07-30), listed
    though stale (203 and 130 days old: more than spot_stale_after_days, so never the cheapest); so
    are the 2026-09-24 AWS reservations and savings plans: p4d's cheapest 1-year commitment is the
    all-upfront standard RI at 12.993 USD/h, its cheapest 3-year one the all-upfront RI at 8.15906
    (raw/prices/reserved_2026-09-24.csv; the savings plans' 15.59 and 13.61 are dearer)."""
    cost = _resnet_a100_v100(bundled_run.reports / "latest")
    assert cost.filter(pl.col("instance_type") == "p4d.24xlarge")["pricing_option"].to_list() == [
        "on_demand", "spot", "commitment_1y", "commitment_3y"]
    assert option(cost, "p4d.24xlarge", "commitment_1y")["usd_per_hour"] == 12.993
    assert option(cost, "p4d.24xlarge", "commitment_3y")["usd_per_hour"] == 8.15906
    p4d = option(cost, "p4d.24xlarge", "spot")
    assert p4d["usd_per_hour"] == 8.0001 and p4d["cost_to_train_usd"] == pytest.approx(8.0001 * RESNET_A100)  # 3.836161
    a2 = option(cost, "a2-highgpu-8g", "spot")
    assert a2["usd_per_hour"] == 15.42416 and a2["cost_to_train_usd"] == pytest.approx(15.42416 * RESNET_A100)  # 7.396106


def test_a_negotiated_discount_is_labelled_the_users_own(tmp_path):
    from tests.pipeline_runner import built_report, make_dirs, run_pipeline

    dirs = make_dirs(tmp_path)
    toml = dirs.raw / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\n[[discounts]]\nprovider = "aws"\n'
                    'pricing_model = "on_demand"\npercent = 12\n', encoding="utf-8")
    result = run_pipeline(dirs, pdf=False)  # the data and the HTML are read: no PDF
    assert result.success
    built = built_report(dirs, result)
    cost = pl.read_csv(built / "data" / "cost_to_train.csv")
    p4d = cost.filter((pl.col("comparison") == "a100-vs-v100") & (pl.col("benchmark") == "resnet")
                      & (pl.col("instance_type") == "p4d.24xlarge")).row(0, named=True)
    # 21.957642 x (1 - 0.12) = 19.322725 USD/h; x 0.479514 h = 9.265524
    assert p4d["usd_per_hour"] == pytest.approx(19.32272496)
    assert p4d["cost_to_train_usd"] == pytest.approx(9.265524, abs=1e-6)
    assert p4d["whose_price"] == "own: 12% off on_demand list"
    # the baseline p3.16xlarge too: 24.48 x 0.88 = 21.5424 x 1.187972 h = 25.591768; savings 63.7949 % as before
    assert p4d["savings_pct"] == pytest.approx(100 * (1 - 9.265524 / 25.591768), abs=1e-4)
    gcp = cost.filter(pl.col("instance_type") == "a2-highgpu-8g")["whose_price"].unique().to_list()
    assert gcp == ["list"]
    html = unescape((built / "report.html").read_text(encoding="utf-8"))
    assert "own price" in html and "Your own negotiated price (own: 12% off on_demand list), not a list price" in html
    assert "list prices except the user's own negotiated prices (12% off AWS on_demand)" in html
    history = pl.read_csv(built / "data" / "price_history.csv")
    assert 21.957642 in history["usd_per_hour"].to_list()  # the price history keeps the list prices
