"""AWS spot: EC2 DescribeSpotPriceHistory (the zone aggregation) and the spot advisor's buckets."""

from __future__ import annotations

import json
from datetime import date, timedelta

import polars as pl
import pytest

from pipelines.config import today
from pipelines.domain.errors import InputError
from pipelines.ingest.prices import read_price_file, read_price_folder
from tests.price_fixtures import instances, spot_advisor, spot_history, spot_record, write

FIGURE = ["region", "instance_type", "as_of", "usd_per_hour", "zone_count", "zone_min_usd_per_hour",
          "zone_max_usd_per_hour"]


def test_a_region_on_a_day_is_the_median_over_zones_of_each_zones_last_price(tmp_path):
    frame = read_price_file(write(tmp_path / "spot.json", json.dumps(spot_history())), instances())
    assert set(frame["pricing_model"]) == {"spot"}
    # p4d in us-east-1. Zones are known from the first midnight at or after their first record:
    # 1b (05-18 00:00) from 05-18, 1a (05-20 10:00) from 05-21, 1c (05-25 08:30) from 05-26 -> all from 05-26.
    #   05-26 00:00: 1a 9.5, 1b 10.2, 1c 8.7 -> median 9.5, range 8.7-10.2 (unchanged to 05-30)
    #   05-31 00:00: 1a 9.9 (since 05-30 16:00)          -> median 9.9, range 8.7-10.2
    #   06-01 00:00: 1c 9.1 (since 05-31 23:59:59)       -> median 9.9, range 9.1-10.2
    # The file's newest record (m5.large, 06-01 06:00) ends the days. Windows, SUSE, the Local Zone
    # us-east-1-bos-1a and 1b's "Linux/UNIX (Amazon VPC)" records are left out.
    # us-west-2: 2b (05-27 12:00) and 2a (05-28 00:00) from 05-28: median (11.0 + 11.4) / 2 = 11.2.
    # p5: one zone with only a VPC record (05-29 12:00) from 05-30: 21.5.
    assert frame.select(FIGURE).rows() == [
        ("us-east-1", "p4d.24xlarge", date(2025, 5, 26), 9.5, 3, 8.7, 10.2),
        ("us-east-1", "p4d.24xlarge", date(2025, 5, 31), 9.9, 3, 8.7, 10.2),
        ("us-east-1", "p4d.24xlarge", date(2025, 6, 1), 9.9, 3, 9.1, 10.2),
        ("us-east-1", "p5.48xlarge", date(2025, 5, 30), 21.5, 1, 21.5, 21.5),
        ("us-west-2", "p4d.24xlarge", date(2025, 5, 28), 11.2, 2, 11.0, 11.4),
    ]
    last = frame.row(2, named=True)
    assert last["line"] == "$.SpotPriceHistory[2] + $.SpotPriceHistory[8] + $.SpotPriceHistory[1]"
    assert last["source"] == ("AWS EC2 DescribeSpotPriceHistory, Linux/UNIX, median over 3 zone(s) of each zone's "
                              "last price at or before 2025-06-01 00:00 UTC (us-east-1a 9.9, us-east-1b 10.2, "
                              "us-east-1c 9.1)")
    assert (last["upfront_usd"], last["recurring_usd_per_hour"], last["interruption_frequency"]) == (0.0, 9.9, None)


def test_two_overlapping_downloads_agree_day_by_day(tmp_path):
    full = spot_history()
    later = {"SpotPriceHistory": full["SpotPriceHistory"] + [
        spot_record("us-east-1b", "p4d.24xlarge", "9.700000", "2025-06-02T03:00:00+00:00")]}
    write(tmp_path / "spot-2025-06-01.json", json.dumps(full))
    write(tmp_path / "spot-2025-06-02.json", json.dumps(later))
    frame = read_price_folder(tmp_path, instances()).filter(
        (pl.col("region") == "us-east-1") & (pl.col("instance_type") == "p4d.24xlarge"))
    # the second file adds 06-02 (1b 10.2 -> 9.7 at 03:00 counts from 06-03) -> nothing new by 06-02 00:00;
    # the days both files cover are identical, so they collapse into one row each
    assert frame.select("as_of", "usd_per_hour").rows() == [
        (date(2025, 5, 26), 9.5), (date(2025, 5, 31), 9.9), (date(2025, 6, 1), 9.9)]


def test_an_even_number_of_zones_takes_the_mean_of_the_middle_two(tmp_path):
    records = [spot_record(f"us-east-1{zone}", "p4d.24xlarge", price, "2025-05-01T00:00:00Z")
               for zone, price in zip("abcd", ["8.0", "9.0", "10.0", "14.0"])]
    frame = read_price_file(write(tmp_path / "s.json", json.dumps({"SpotPriceHistory": records})), instances())
    assert frame.select(FIGURE[2:]).rows() == [(date(2025, 5, 1), 9.5, 4, 8.0, 14.0)]  # (9.0 + 10.0) / 2


@pytest.mark.parametrize(
    ("record", "where", "words"),
    [
        ({"SpotPrice": "abc"}, "$.SpotPriceHistory[0].SpotPrice", "not a number"),
        ({"SpotPrice": "0.000000"}, "$.SpotPriceHistory[0].SpotPrice", "zero"),
        ({"SpotPrice": "-1"}, "$.SpotPriceHistory[0].SpotPrice", "negative"),
        ({"Timestamp": "yesterday"}, "$.SpotPriceHistory[0].Timestamp", "not an ISO date"),
        ({"Timestamp": "2025-05-01T00:00:00"}, "$.SpotPriceHistory[0].Timestamp", "no time zone"),
        ({"Timestamp": None}, "$.SpotPriceHistory[0].Timestamp", "non-empty text"),
        ({"Timestamp": f"{today() + timedelta(days=2)}T00:00:00Z"}, "$.SpotPriceHistory[0].Timestamp", "future"),
        ({"Timestamp": "1999-05-01T00:00:00Z"}, "$.SpotPriceHistory[0].Timestamp", "before"),
    ],
)
def test_bad_spot_records(tmp_path, record, where, words):
    doc = {"SpotPriceHistory": [spot_record("us-east-1a", "p4d.24xlarge", "9.5", "2025-05-01T00:00:00Z") | record]}
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "bad.json", json.dumps(doc)), instances())
    assert (info.value.where, words in info.value.problem) == (where, True), info.value


def test_two_prices_for_one_zone_at_one_moment_are_refused(tmp_path):
    doc = {"SpotPriceHistory": [spot_record("us-east-1a", "p4d.24xlarge", "9.5", "2025-05-01T00:00:00Z"),
                                spot_record("us-east-1a", "p4d.24xlarge", "9.8", "2025-05-01T00:00:00Z")]}
    with pytest.raises(InputError, match="us-east-1a has two spot prices at 2025-05-01T00:00:00"):
        read_price_file(write(tmp_path / "clash.json", json.dumps(doc)), instances())


# --- the spot advisor ---------------------------------------------------------------------------

def test_the_advisor_bucket_goes_on_the_spot_price_in_force_on_its_date(tmp_path):
    write(tmp_path / "spot.json", json.dumps(spot_history()))
    write(tmp_path / "aws-spot-advisor-2025-06-01.json", json.dumps(spot_advisor()))
    frame = read_price_folder(tmp_path, instances())
    # r = 2 -> ranges[2] "10-15%" (us-east-1 p4d), 4 -> ">20%" (p5), 1 -> "5-10%" (us-west-2 p4d);
    # the p4d rows of 05-26 and 05-31 were no longer in force on 06-01; Windows buckets are not Linux ones
    assert frame.select("region", "instance_type", "as_of", "interruption_frequency").rows() == [
        ("us-east-1", "p4d.24xlarge", date(2025, 5, 26), None),
        ("us-east-1", "p4d.24xlarge", date(2025, 5, 31), None),
        ("us-east-1", "p4d.24xlarge", date(2025, 6, 1), "10-15%"),
        ("us-east-1", "p5.48xlarge", date(2025, 5, 30), ">20%"),
        ("us-west-2", "p4d.24xlarge", date(2025, 5, 28), "5-10%"),
    ]


def test_the_newer_advisor_wins_and_a_given_bucket_is_kept(tmp_path):
    write(tmp_path / "spot.json", json.dumps(spot_history()))
    write(tmp_path / "aws-spot-advisor-2025-06-01.json", json.dumps(spot_advisor()))
    newer = spot_advisor()
    newer["spot_advisor"]["us-east-1"]["Linux"]["p4d.24xlarge"]["r"] = 3
    write(tmp_path / "aws-spot-advisor-2025-06-03.json", json.dumps(newer))
    write(tmp_path / "own.csv", "provider,region,instance_type,usd_per_hour,as_of,source,pricing_model,"
                                "interruption_frequency\naws,us-east-1,p5.48xlarge,21.5,2025-05-30,own,spot,<5%\n")
    frame = read_price_folder(tmp_path, instances())
    buckets = {(r["instance_type"], r["as_of"]): r["interruption_frequency"] for r in frame.iter_rows(named=True)
               if r["region"] == "us-east-1"}
    assert buckets[("p4d.24xlarge", date(2025, 6, 1))] == "15-20%"
    assert buckets[("p5.48xlarge", date(2025, 5, 30))] == "<5%"


def test_an_advisor_file_without_a_date_in_its_name_is_refused(tmp_path):
    with pytest.raises(InputError, match="carries no date of its own"):
        read_price_file(write(tmp_path / "spot-advisor-data.json", json.dumps(spot_advisor())), instances())


def test_an_unknown_bucket_is_refused(tmp_path):
    doc = spot_advisor()
    doc["spot_advisor"]["us-east-1"]["Linux"]["p4d.24xlarge"]["r"] = 7
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "aws-spot-advisor-2025-06-01.json", json.dumps(doc)), instances())
    assert info.value.where == '$.spot_advisor["us-east-1"].Linux["p4d.24xlarge"].r'


def test_two_advisor_files_of_one_date_that_disagree_are_refused(tmp_path):
    write(tmp_path / "spot.json", json.dumps(spot_history()))
    write(tmp_path / "a" / "aws-spot-advisor-2025-06-01.json", json.dumps(spot_advisor()))
    other = spot_advisor()
    other["spot_advisor"]["us-east-1"]["Linux"]["p4d.24xlarge"]["r"] = 0
    write(tmp_path / "b" / "aws-spot-advisor-2025-06-01.json", json.dumps(other))
    with pytest.raises(InputError) as info:
        read_price_folder(tmp_path, instances())
    assert "disagree on p4d.24xlarge in us-east-1" in info.value.problem
    assert info.value.where == '$.spot_advisor["us-east-1"].Linux["p4d.24xlarge"].r'
