"""AWS Price List CSV and JSON: only the plain Linux on-demand price of our instances survives."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

import polars as pl
import pytest

from pipelines.errors import InputError
from pipelines.ingest.prices import PRICE_COLUMNS, read_price_file
from pipelines.ingest.prices.aws_columns import HEADER_2025
from tests.price_fixtures import (
    AWS_2022, AWS_2025, aws_csv, aws_csv_2025, aws_decoys, aws_json, aws_row, instances, write,
)


def prices_of(frame: pl.DataFrame) -> dict[str, float]:
    return dict(zip(frame["instance_type"], frame["usd_per_hour"]))


def test_csv_keeps_one_plain_linux_on_demand_price_per_instance(tmp_path):
    frame = read_price_file(write(tmp_path / "index.csv", aws_csv_2025()), instances())
    assert frame.columns == PRICE_COLUMNS
    # hand-checked against reference/prices.csv (2025-06-01); dl1 is listed at zero only: dropped
    assert prices_of(frame) == {"p3.16xlarge": 24.48, "p3dn.24xlarge": 31.212,
                                "p4d.24xlarge": 21.957642, "p5.48xlarge": 55.04}
    assert set(frame["as_of"]) == {date(2025, 6, 1)}
    assert set(frame["region"]) == {"us-east-1"}
    assert set(frame["source"]) == {"AWS Price List API, AmazonEC2 us-east-1, publication 2025-06-01"}
    p4d = frame.filter(pl.col("instance_type") == "p4d.24xlarge")
    assert p4d["line"].to_list() == ["RateCode P4D24XLARGSKU001.JRTCKXETXF.6YS6EN2CT7"]  # first of the duplicates


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
        (lambda: aws_csv([aws_row("p4d.24xlarge", "1")], publication=f"{date.today() + timedelta(days=3)}T00:00:00Z"), "3", "future"),
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
    assert "c.csv:RateCode P4D24XLARGSKU001.JRTCKXETXF.6YS6EN2CT7 1.5" in info.value.problem
    assert "c.csv:RateCode OTHER.X.Y 2.5" in info.value.problem


def test_json_form_gives_the_2022_prices(tmp_path):
    frame = read_price_file(write(tmp_path / "index.json", json.dumps(aws_json(AWS_2022))), instances())
    assert prices_of(frame) == {"p4d.24xlarge": 32.7726, "p3dn.24xlarge": 31.212,
                                "p3.16xlarge": 24.48, "dl1.24xlarge": 13.10904}
    assert set(frame["as_of"]) == {date(2022, 2, 8)}
    assert frame["line"][0].startswith("$.terms.OnDemand.")


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
    ],
)
def test_json_bad_input(tmp_path, change, words):
    doc = aws_json(AWS_2022)
    change(doc)
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "bad.json", json.dumps(doc)), instances())
    assert words in str(info.value)
