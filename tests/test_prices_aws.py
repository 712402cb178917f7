"""AWS Price List CSV and JSON: the plain Linux on-demand and reserved prices of our instances, and
nothing of the decoy rows around them."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

import polars as pl
import pytest

from pipelines.config import today
from pipelines.domain.errors import InputError
from pipelines.ingest.prices import PRICE_COLUMNS, read_price_file
from pipelines.ingest.prices.aws_columns import HEADER_2025
from tests.price_fixtures import (
    AWS_2022, AWS_2025, aws_csv, aws_csv_2025, aws_decoys, aws_json, aws_reserved_rows, aws_row,
    instances, write,
)


def prices_of(frame: pl.DataFrame, model: str = "on_demand") -> dict[str, float]:
    frame = frame.filter(pl.col("pricing_model") == model)
    return dict(zip(frame["instance_type"], frame["usd_per_hour"]))


def reserved_of(frame: pl.DataFrame, instance_type: str) -> dict[tuple, tuple]:
    """(term_years, offering_class, payment_option) -> (usd_per_hour, upfront_usd, recurring_usd_per_hour)."""
    rows = frame.filter((pl.col("pricing_model") == "reserved") & (pl.col("instance_type") == instance_type))
    return {(r["term_years"], r["offering_class"], r["payment_option"]):
            (round(r["usd_per_hour"], 9), r["upfront_usd"], r["recurring_usd_per_hour"]) for r in rows.iter_rows(named=True)}


def test_csv_keeps_the_plain_linux_prices_of_our_instances_only(tmp_path):
    frame = read_price_file(write(tmp_path / "index.csv", aws_csv_2025()), instances())
    assert frame.columns == PRICE_COLUMNS
    # hand-checked against reference/prices.csv (2025-06-01); dl1 is listed at zero only: dropped
    assert prices_of(frame) == {"p3.16xlarge": 24.48, "p3dn.24xlarge": 31.212,
                                "p4d.24xlarge": 21.957642, "p5.48xlarge": 55.04}
    assert set(frame["as_of"]) == {date(2025, 6, 1)}
    assert set(frame["region"]) == {"us-east-1"}
    assert set(frame.filter(pl.col("pricing_model") == "on_demand")["source"]) == {
        "AWS Price List API, AmazonEC2 us-east-1, publication 2025-06-01"}
    p4d = frame.filter((pl.col("instance_type") == "p4d.24xlarge") & (pl.col("pricing_model") == "on_demand"))
    assert p4d["line"].to_list() == ["RateCode P4D24XLARGXXXSKU.JRTCKXETXF.6YS6EN2CT7"]  # first of the duplicates
    # no decoy (Windows, RHEL, SQL, dedicated, host, unused or allocated capacity reservation, BYOL,
    # Capacity Block, other types, data transfer) leaves a row: 4 on-demand + 12 + 1 + 1 reserved
    assert frame.height == 18


def test_csv_columns_are_mapped_by_name_and_crlf_bom_are_read(tmp_path):
    header = list(HEADER_2025)
    random.Random(7).shuffle(header)
    rows = [aws_row(t, p) for t, p in AWS_2025.items()] + aws_decoys("p4d.24xlarge", "21.957642")
    text = "\ufeff" + aws_csv(rows, header=tuple(header)).replace("\n", "\r\n")
    frame = read_price_file(write(tmp_path / "shuffled.csv", text), instances())
    assert prices_of(frame) == {k: float(v) for k, v in AWS_2025.items()}


def test_csv_with_fewer_columns_of_an_older_version_is_read(tmp_path):
    needed = ("SKU", "RateCode", "TermType", "Unit", "PricePerUnit", "Currency", "Product Family",
              "Instance Type", "Tenancy", "Operating System", "License Model", "usageType",
              "CapacityStatus", "Pre Installed S/W", "Region Code")
    text = aws_csv([aws_row("p4d.24xlarge", "32.7726000000")], header=needed, publication="2022-02-08T00:00:00Z")
    frame = read_price_file(write(tmp_path / "old.csv", text), instances())
    assert frame.select("usd_per_hour", "as_of").rows() == [(32.7726, date(2022, 2, 8))]


def test_bare_metal_family_is_kept(tmp_path):
    text = aws_csv([aws_row("p4d.24xlarge", "21.9576420000", **{"Product Family": "Compute Instance (bare metal)"})])
    assert read_price_file(write(tmp_path / "m.csv", text), instances()).height == 1


@pytest.mark.parametrize(
    ("make", "where", "words"),
    [
        (lambda: aws_csv([aws_row("p4d.24xlarge", "150.0", Currency="CNY")]), "RateCode", "CNY"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "abc")]), "RateCode", "not a number"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "-1")]), "RateCode", "negative"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "NaN")]), "RateCode", "finite"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "9999")]), "RateCode", "absurd"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "1")], header=HEADER_2025[:3] + HEADER_2025[4:]), "6", "TermType"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "1")], offer="AmazonRDS"), "5", "AmazonRDS"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "1")], publication="2022-13-45T00:00:00Z"), "3", "not a date"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "1")], publication=f"{today() + timedelta(days=3)}T00:00:00Z"), "3", "future"),
        (lambda: aws_csv([]), "7", "no rows"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "1")]) + '"a","b"\n', None, "malformed"),
        (lambda: aws_csv([aws_row("p4d.24xlarge", "1"), aws_row("p4d.24xlarge", "2", RateCode="OTHER.JRTCKXETXF.6YS6EN2CT7")]),
         "RateCode OTHER.JRTCKXETXF.6YS6EN2CT7", "conflicting"),
        (lambda: '"FormatVersion","v1.0"\n"Oops","x"\n', "2", "metadata"),
    ],
)
def test_csv_bad_input(tmp_path, make, where, words):
    path = write(tmp_path / "bad.csv", make())
    with pytest.raises(InputError) as info:
        read_price_file(path, instances())
    assert info.value.path == str(path)
    if where is not None:
        assert info.value.where.startswith(where)
    assert words in info.value.problem


def test_conflict_lists_both_rows_and_prices(tmp_path):
    text = aws_csv([aws_row("p4d.24xlarge", "1.5"), aws_row("p4d.24xlarge", "2.5", RateCode="OTHER.X.Y")])
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "c.csv", text), instances())
    assert "c.csv:RateCode P4D24XLARGXXXSKU.JRTCKXETXF.6YS6EN2CT7 1.5" in info.value.problem
    assert "c.csv:RateCode OTHER.X.Y 2.5" in info.value.problem


def test_json_form_gives_the_2022_prices(tmp_path):
    frame = read_price_file(write(tmp_path / "index.json", json.dumps(aws_json(AWS_2022))), instances())
    assert prices_of(frame) == {"p4d.24xlarge": 32.7726, "p3dn.24xlarge": 31.212,
                                "p3.16xlarge": 24.48, "dl1.24xlarge": 13.10904}
    assert set(frame["as_of"]) == {date(2022, 2, 8)}
    assert frame.filter(pl.col("pricing_model") == "on_demand")["line"][0].startswith("$.terms.OnDemand.")


def test_json_in_another_currency_is_refused(tmp_path):
    path = write(tmp_path / "cn.json", json.dumps(aws_json(AWS_2022, currency="CNY")))
    with pytest.raises(InputError, match="no USD price"):
        read_price_file(path, instances())


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.pop("publicationDate"), "not a date"),
        (lambda d: d.update(products=[]), "expected a JSON object"),
        (lambda d: d.update(offerCode="AmazonS3"), "AmazonS3"),
        (lambda d: d["products"]["SKU0QQQQQQQQQQQQ"]["attributes"].pop("regionCode"), "regionCode"),
        (lambda d: d["terms"]["Reserved"]["SKU0QQQQQQQQQQQQ"]["SKU0QQQQQQQQQQQQ.HU7G6KETJZ"]["termAttributes"]
         .update(LeaseContractLength="2yr"), "LeaseContractLength '2yr'"),
        (lambda d: d["terms"]["Reserved"]["SKU0QQQQQQQQQQQQ"]["SKU0QQQQQQQQQQQQ.HU7G6KETJZ"]["priceDimensions"]
         ["SKU0QQQQQQQQQQQQ.HU7G6KETJZ.2TG2D8R56U"]["pricePerUnit"].update(USD="-98550"), "upfront fee '-98550' is negative"),
    ],
)
def test_json_bad_input(tmp_path, change, words):
    doc = aws_json(AWS_2022)
    change(doc)
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "bad.json", json.dumps(doc)), instances())
    assert words in str(info.value)


# --- reserved terms -----------------------------------------------------------------------------

def test_csv_reserved_terms_give_hand_computed_effective_rates(tmp_path):
    frame = read_price_file(write(tmp_path / "index.csv", aws_csv_2025()), instances())
    # effective = Hrs + Upfront Fee / (years x 8760 h); p4d.24xlarge, 2025-06-01 fixture:
    assert reserved_of(frame, "p4d.24xlarge") == {
        (1, "standard", "no_upfront"): (13.448, 0.0, 13.448),
        (1, "standard", "partial_upfront"): (round(6.5 + 57000 / 8760, 9), 57000.0, 6.5),  # 6.5 + 6.506849315 = 13.006849315
        (1, "standard", "all_upfront"): (12.75, 111690.0, 0.0),  # 111690 / 8760
        (3, "standard", "no_upfront"): (9.8, 0.0, 9.8),
        (3, "standard", "partial_upfront"): (8.0, 105120.0, 4.0),  # 4.0 + 105120 / 26280 = 4.0 + 4.0
        (3, "standard", "all_upfront"): (7.5, 197100.0, 0.0),  # 197100 / 26280
        (1, "convertible", "no_upfront"): (15.86, 0.0, 15.86),
        (1, "convertible", "partial_upfront"): (15.8, 70080.0, 7.8),  # 7.8 + 70080 / 8760 = 7.8 + 8.0
        (1, "convertible", "all_upfront"): (15.5, 135780.0, 0.0),  # 135780 / 8760
        (3, "convertible", "no_upfront"): (11.0, 0.0, 11.0),
        (3, "convertible", "partial_upfront"): (10.2, 131400.0, 5.2),  # 5.2 + 131400 / 26280 = 5.2 + 5.0
        (3, "convertible", "all_upfront"): (10.0, 262800.0, 0.0),  # 262800 / 26280
    }
    assert reserved_of(frame, "p5.48xlarge") == {(1, "standard", "no_upfront"): (35.776, 0.0, 35.776)}
    # p3's only term is a legacy Heavy Utilization one: skipped; Windows and dedicated terms: ignored
    assert reserved_of(frame, "p3.16xlarge") == {}
    partial = frame.filter((pl.col("instance_type") == "p4d.24xlarge") & (pl.col("payment_option") == "partial_upfront")
                           & (pl.col("term_years") == 1) & (pl.col("offering_class") == "standard")).row(0, named=True)
    assert partial["line"] == "RateCode P4D24XLARGXXXSKU.HU7G6KETJZ"  # the prefix of both dimensions' rate codes
    assert partial["source"] == ("AWS Price List API, AmazonEC2 us-east-1, publication 2025-06-01: Reserved 1yr standard "
                                 "Partial Upfront (upfront 57000 USD + 6.5 USD/h over 1 x 8760 h)")
    assert partial["as_of"] == date(2025, 6, 1) and partial["certainty"] == "exact"


def test_a_reservation_only_instance_has_reserved_prices_but_no_on_demand_price(tmp_path):
    # dl1 lists on-demand at 0 (no price), a 1-year All Upfront term (70080 / 8760 = 8.0) and a
    # 1-year No Upfront term at 0 (no price either)
    frame = read_price_file(write(tmp_path / "index.csv", aws_csv_2025()), instances())
    dl1 = frame.filter(pl.col("instance_type") == "dl1.24xlarge")
    assert dl1.select("pricing_model", "payment_option", "usd_per_hour").rows() == [("reserved", "all_upfront", 8.0)]


def test_capacity_blocks_and_unused_reservations_are_not_prices(tmp_path):
    rows = [aws_row("p5.48xlarge", "55.04"),
            aws_row("p5.48xlarge", "31.464", "C", **{"MarketOption": "CapacityBlock", "operation": "RunInstances:CB"}),
            aws_row("p5.48xlarge", "55.04", "U", **{"CapacityStatus": "UnusedCapacityReservation",
                                                    "usageType": "UnusedBox:p5.48xlarge"})]
    frame = read_price_file(write(tmp_path / "cb.csv", aws_csv(rows)), instances())
    assert frame.select("pricing_model", "usd_per_hour").rows() == [("on_demand", 55.04)]


def test_json_reserved_terms_give_hand_computed_effective_rates(tmp_path):
    frame = read_price_file(write(tmp_path / "index.json", json.dumps(aws_json(AWS_2022))), instances())
    # p4d.24xlarge 2022 terms; each decoy product (Windows, SQL, dedicated, capacity reservations,
    # Capacity Block) carries the same terms, which must all be ignored
    assert reserved_of(frame, "p4d.24xlarge") == {
        (1, "standard", "partial_upfront"): (20.6, 98550.0, 9.35),  # 9.35 + 98550 / 8760 = 9.35 + 11.25
        (3, "standard", "all_upfront"): (12.0, 315360.0, 0.0),  # 315360 / 26280
        (3, "convertible", "no_upfront"): (16.5, 0.0, 16.5),
    }
    assert frame.filter(pl.col("pricing_model") == "reserved")["line"].to_list()[0] == (
        '$.terms.Reserved.SKU0QQQQQQQQQQQQ["SKU0QQQQQQQQQQQQ.HU7G6KETJZ"]')


@pytest.mark.parametrize(
    ("terms", "change", "where", "words"),
    [
        ({"4NA7Y494T4": (0, 13.0)}, {"LeaseContractLength": "2yr"}, "RateCode P4D24XLARGXXXSKU.4NA7Y494T4",
         "LeaseContractLength '2yr' is not one of 1yr, 3yr"),
        ({"4NA7Y494T4": (0, 13.0)}, {"PurchaseOption": "Some Upfront"}, "RateCode P4D24XLARGXXXSKU.4NA7Y494T4",
         "PurchaseOption 'Some Upfront'"),
        ({"4NA7Y494T4": (0, 13.0)}, {"OfferingClass": ""}, "RateCode P4D24XLARGXXXSKU.4NA7Y494T4", "OfferingClass ''"),
        ({"HU7G6KETJZ": (-57000, 6.5)}, {}, "RateCode P4D24XLARGXXXSKU.HU7G6KETJZ.2TG2D8R56U", "upfront fee '-57000' is negative"),
        ({"HU7G6KETJZ": (9e12, 6.5)}, {}, "RateCode P4D24XLARGXXXSKU.HU7G6KETJZ.2TG2D8R56U", "absurd"),
        ({"6QCMYABX3D": (111690, 2.0)}, {}, "RateCode P4D24XLARGXXXSKU.6QCMYABX3D.6YS6EN2CT7", "All Upfront term with an hourly fee"),
    ],
)
def test_csv_bad_reserved_terms(tmp_path, terms, change, where, words):
    rows = [aws_row("p4d.24xlarge", "21.957642"), *(r | change for r in aws_reserved_rows("p4d.24xlarge", terms))]
    path = write(tmp_path / "bad.csv", aws_csv(rows))
    with pytest.raises(InputError) as info:
        read_price_file(path, instances())
    assert (info.value.where, words in info.value.problem) == (where, True), info.value


def test_csv_term_dimensions_that_do_not_add_up_are_refused(tmp_path):
    partial = aws_reserved_rows("p4d.24xlarge", {"HU7G6KETJZ": (57000, 6.5)})
    cases = {
        "a No Upfront term with an upfront fee": [r | {"PurchaseOption": "No Upfront"} for r in partial],
        "Partial Upfront term has no Upfront Fee": partial[:1],
        "a second Hrs dimension": partial + [partial[0] | {"RateCode": "P4D24XLARGXXXSKU.HU7G6KETJZ.XXXXXXXXXX"}],
        "disagree on PurchaseOption": [partial[0], partial[1] | {"PurchaseOption": "All Upfront"}],
    }
    for words, rows in cases.items():
        with pytest.raises(InputError, match=words):
            read_price_file(write(tmp_path / "t.csv", aws_csv([aws_row("p4d.24xlarge", "21.957642"), *rows])), instances())


def test_csv_without_reserved_columns_reads_on_demand_only(tmp_path):
    header = tuple(h for h in HEADER_2025 if h not in ("OfferTermCode", "LeaseContractLength", "PurchaseOption",
                                                     "OfferingClass", "MarketOption", "operation"))
    text = aws_csv([aws_row("p4d.24xlarge", "21.957642")], header=header)
    assert read_price_file(write(tmp_path / "old.csv", text), instances()).select("pricing_model").rows() == [("on_demand",)]
