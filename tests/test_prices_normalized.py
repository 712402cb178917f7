"""The normalized price CSV and the folder reader: exact values, every kind of bad input."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest

from pipelines.config import build_day, today
from pipelines.domain.errors import InputError
from pipelines.ingest.prices import PRICE_COLUMNS, PRICE_SCHEMA, read_price_file, read_price_folder
from tests.price_fixtures import REFERENCE_PRICES_CSV, instances, write, write_reference_snapshots

HEADER = "provider,region,instance_type,usd_per_hour,as_of,source\n"
ROW = "aws,us-east-1,p4d.24xlarge,32.7726,2022-02-08,AWS list price\n"


def read(tmp_path: Path, text: str | bytes, name: str = "p.csv") -> pl.DataFrame:
    return read_price_file(write(tmp_path / name, text), instances())


def error(tmp_path: Path, text: str | bytes, name: str = "p.csv") -> InputError:
    with pytest.raises(InputError) as info:
        read(tmp_path, text, name)
    assert info.value.path.endswith(name)
    return info.value


def test_reads_reference_prices_with_schema_and_lines(tmp_path):
    frame = read(tmp_path, REFERENCE_PRICES_CSV)
    assert frame.columns == PRICE_COLUMNS
    assert dict(frame.schema) == PRICE_SCHEMA
    assert frame.height == 12
    p4d = frame.filter(pl.col("instance_type") == "p4d.24xlarge").sort("as_of")
    assert p4d["usd_per_hour"].to_list() == [32.7726, 21.957642]
    assert p4d["as_of"].to_list() == [date(2022, 2, 8), date(2025, 6, 1)]
    assert p4d["line"].to_list() == ["2", "12"]
    assert set(frame["file"]) == {"p.csv"}


def test_bom_crlf_extra_columns_and_blank_lines_are_read(tmp_path):
    text = "\ufeff" + (HEADER.rstrip("\n") + ",note\n" + "\n" + ROW.rstrip("\n") + ",x\n").replace("\n", "\r\n")
    frame = read(tmp_path, text.encode("utf-8"))
    assert frame.row(0, named=True) | {} == {
        "provider": "aws", "region": "us-east-1", "instance_type": "p4d.24xlarge",
        "usd_per_hour": 32.7726, "as_of": date(2022, 2, 8), "source": "AWS list price",
        "pricing_model": "on_demand", "term_years": None, "payment_option": None, "offering_class": None,
        "upfront_usd": 0.0, "recurring_usd_per_hour": 32.7726, "certainty": "exact", "zone_count": None,
        "zone_min_usd_per_hour": None, "zone_max_usd_per_hour": None, "interruption_frequency": None,
        "offer_kind": "list", "file": "p.csv", "line": "3",
    }


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("", "1", "empty"),
        ("  \n", "1", "empty"),
        (HEADER, "2", "no rows"),
        (HEADER.replace("usd_per_hour", "usd_per_hr") + ROW, "1", "usd_per_hour"),
        (HEADER.replace(",source", "") + ROW, "1", "source"),
        (HEADER + ROW.replace("32.7726", "abc"), "2 column usd_per_hour", "not a number"),
        (HEADER + ROW.replace("32.7726", "-1"), "2 column usd_per_hour", "negative"),
        (HEADER + ROW.replace("32.7726", "0"), "2 column usd_per_hour", "zero"),
        (HEADER + ROW.replace("32.7726", "0.0"), "2 column usd_per_hour", "zero"),
        (HEADER + ROW.replace("32.7726", "NaN"), "2 column usd_per_hour", "finite"),
        (HEADER + ROW.replace("32.7726", "inf"), "2 column usd_per_hour", "finite"),
        (HEADER + ROW.replace("32.7726", "23000"), "2 column usd_per_hour", "absurd"),
        (HEADER + ROW.replace("32.7726", ""), "2 column usd_per_hour", "empty"),
        (HEADER + ROW.replace("2022-02-08", "2022-02-30"), "2 column as_of", "not a date"),
        (HEADER + ROW.replace("2022-02-08", "08/02/2022"), "2 column as_of", "not a date"),
        (HEADER + ROW.replace("2022-02-08", "1999-01-01"), "2 column as_of", "before"),
        (HEADER + ROW.replace("aws,", "oracle cloud,", 1), "2 column provider", "is not a provider name"),
        (HEADER + ROW.replace("AWS list price", ""), "2 column source", "empty"),
        (HEADER + ROW + "aws,us-east-1\n", "3", "fields"),
        (HEADER + ROW + ROW.replace("32.7726", "33"), "3", "conflicting"),
        (HEADER.rstrip() + ",currency\n" + ROW.rstrip() + ",EUR\n", "2 column currency", "EUR"),
        (b"provider,region\n\xff\xfe\n", "2", "UTF-8"),
        (b"\x00\x01\x02", "", "binary"),
    ],
)
def test_bad_input_names_file_and_place(tmp_path, text, where, words):
    exc = error(tmp_path, text)
    assert exc.where == where
    assert words in exc.problem


def test_future_date_is_refused(tmp_path):
    tomorrow = (today() + timedelta(days=1)).isoformat()
    exc = error(tmp_path, HEADER + ROW.replace("2022-02-08", tomorrow))
    assert (exc.where, "future" in exc.problem) == ("2 column as_of", True)


def test_a_pinned_build_day_is_printed_but_dates_are_checked_against_the_calendar(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    assert build_day() == date(2025, 11, 29)
    yesterday = today() - timedelta(days=1)
    assert yesterday > build_day()  # a price dated after the pinned day is still read
    assert read(tmp_path, HEADER + ROW.replace("2022-02-08", yesterday.isoformat()))["as_of"].to_list() == [yesterday]


def test_identical_duplicate_in_one_file_collapses_to_first(tmp_path):
    frame = read(tmp_path, HEADER + ROW + ROW)
    assert (frame.height, frame["line"].to_list()) == (1, ["2"])


def test_conflict_lists_every_row_with_file_line_and_price(tmp_path):
    write(tmp_path / "a.csv", HEADER + ROW)
    write(tmp_path / "sub" / "b.csv", HEADER + "\n" + ROW.replace("32.7726", "33.5"))
    with pytest.raises(InputError) as info:
        read_price_folder(tmp_path, instances())
    exc = info.value
    assert exc.path == str(tmp_path / "sub" / "b.csv") and exc.where == "3"
    assert "aws us-east-1 p4d.24xlarge on_demand on 2022-02-08" in exc.problem
    assert "a.csv:2 32.7726" in exc.problem and "sub/b.csv:3 33.5" in exc.problem


def test_folder_keeps_history_and_a_copy_changes_nothing(tmp_path):
    paths = write_reference_snapshots(tmp_path)
    first = read_price_folder(tmp_path, instances())
    write(tmp_path / "copy of 2022.csv", paths[0].read_bytes())
    write(tmp_path / "README.md", "notes, not prices")
    write(tmp_path / ".partial.tmp", "garbage")
    again = read_price_folder(tmp_path, instances())
    # same prices; a duplicate keeps the first file in path order, here the copy
    assert again.drop("file", "line").equals(first.drop("file", "line"))
    assert first.height == 12
    assert first.filter(pl.col("instance_type") == "p5.48xlarge")["usd_per_hour"].to_list() == [98.32, 55.04]
    assert set(first["file"]) == {p.name for p in paths}


def test_empty_or_missing_folder_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no price files"):
        read_price_folder(tmp_path, instances())
    with pytest.raises(InputError, match="not a folder"):
        read_price_folder(tmp_path / "nope", instances())


def test_unrecognized_json_is_an_input_error(tmp_path):
    exc = error(tmp_path, '{"hello": 1}', "x.json")
    assert "not a known price format" in exc.problem
    exc = error(tmp_path, '{"skus": [', "y.json")
    assert "not valid JSON" in exc.problem


OPTION_HEADER = ("provider,region,instance_type,usd_per_hour,as_of,source,pricing_model,term_years,payment_option,"
                 "offering_class,upfront_usd,recurring_usd_per_hour,certainty\n")


def test_pricing_options_are_read_with_effective_rates(tmp_path):
    # Hand-computed: 1-year partial upfront, 57,000 USD upfront + 6.5 USD/h: 6.5 + 57000 / 8760 = 13.006849...
    effective = 6.5 + 57000 / 8760
    text = OPTION_HEADER + (
        "aws,us-east-1,p4d.24xlarge,21.957642,2025-06-01,list,,,,,,,\n"
        f"aws,us-east-1,p4d.24xlarge,{effective:.6f},2025-06-01,AWS RI,reserved,1,partial_upfront,standard,57000,6.5,\n"
        "aws,us-east-1,p4d.24xlarge,9.12,2025-06-01,AWS spot,spot,,,,,,approximate\n"
        "gcp,us-central1,a2-highgpu-8g,18.5,2025-06-01,GCP CUD,committed_use,3,,,,,\n"
    )
    frame = read(tmp_path, text).sort("pricing_model")
    rows = {r["pricing_model"]: r for r in frame.iter_rows(named=True)}
    assert {k: rows["on_demand"][k] for k in ("term_years", "upfront_usd", "recurring_usd_per_hour", "certainty")} == {
        "term_years": None, "upfront_usd": 0.0, "recurring_usd_per_hour": 21.957642, "certainty": "exact"}
    assert rows["reserved"]["term_years"] == 1 and rows["reserved"]["payment_option"] == "partial_upfront"
    assert rows["reserved"]["offering_class"] == "standard"
    assert rows["reserved"]["usd_per_hour"] == pytest.approx(13.006849, abs=1e-6)
    assert (rows["reserved"]["upfront_usd"], rows["reserved"]["recurring_usd_per_hour"]) == (57000.0, 6.5)
    assert (rows["spot"]["upfront_usd"], rows["spot"]["recurring_usd_per_hour"], rows["spot"]["certainty"]) == (
        0.0, 9.12, "approximate")
    # a commitment given by its effective rate alone keeps unknown parts unknown
    assert (rows["committed_use"]["upfront_usd"], rows["committed_use"]["recurring_usd_per_hour"]) == (None, None)


def test_one_price_per_option_and_date(tmp_path):
    text = OPTION_HEADER + (
        "aws,us-east-1,p4d.24xlarge,21.957642,2025-06-01,list,on_demand,,,,,,\n"
        "aws,us-east-1,p4d.24xlarge,13.5,2025-06-01,RI,reserved,1,no_upfront,standard,,,\n"
        "aws,us-east-1,p4d.24xlarge,12.9,2025-06-01,RI,reserved,1,no_upfront,convertible,,,\n"
    )
    assert read(tmp_path, text).height == 3
    exc = error(tmp_path, text + "aws,us-east-1,p4d.24xlarge,13.7,2025-06-01,RI,reserved,1,no_upfront,standard,,,\n")
    assert (exc.where, "conflicting" in exc.problem, "reserved 1 no_upfront standard" in exc.problem) == ("5", True, True)


@pytest.mark.parametrize(
    ("row", "where", "words"),
    [
        ("13.6,2025-06-01,s,reservd,1,,,,,", "2 column pricing_model", "is not one of"),
        ("13.6,2025-06-01,s,reserved,2,,,,,", "2 column term_years", "is not 1 or 3"),
        ("13.6,2025-06-01,s,reserved,,,,,,", "2 column term_years", "needs a term"),
        ("13.6,2025-06-01,s,on_demand,1,,,,,", "2 column term_years", "needs a commitment model"),
        ("13.6,2025-06-01,s,spot,,all_upfront,,,,", "2 column payment_option", "commitments only"),
        ("13.6,2025-06-01,s,committed_use,1,,standard,,,", "2 column offering_class", "reserved instances only"),
        ("13.6,2025-06-01,s,spot,,,,100,,", "2 column upfront_usd", "needs a commitment term"),
        ("13.6,2025-06-01,s,reserved,1,partial_upfront,standard,-1,13,", "2 column upfront_usd", "at least 0"),
        ("13.6,2025-06-01,s,reserved,1,partial_upfront,standard,8760,13,", "2 column usd_per_hour", "effective rate"),
        ("13.6,2025-06-01,s,spot,,,,,,sure", "2 column certainty", "is not one of"),
        ("13.6,2025-06-01,s,reserved,1,,compute,,,", "2 column offering_class", "savings plans only"),
        ("13.6,2025-06-01,s,savings_plan,1,,standard,,,", "2 column offering_class", "reserved instances only"),
    ],
)
def test_bad_pricing_options(tmp_path, row, where, words):
    exc = error(tmp_path, OPTION_HEADER + "aws,us-east-1,p4d.24xlarge," + row + "\n")
    assert exc.where == where and words in exc.problem


SPOT_HEADER = ("provider,region,instance_type,usd_per_hour,as_of,source,pricing_model,zone_count,zone_min_usd_per_hour,"
               "zone_max_usd_per_hour,interruption_frequency\n")


def test_spot_rows_keep_their_zone_spread_and_interruption_bucket(tmp_path):
    # a region's spot figure computed elsewhere: median 9.9 of three zones (9.1, 9.9, 10.2)
    text = SPOT_HEADER + (
        "aws,us-east-1,p4d.24xlarge,9.9,2025-06-01,AWS spot history,spot,3,9.1,10.2,10-15%\n"
        "gcp,us-central1,a2-highgpu-8g,8.814648,2025-06-01,GCP spot,spot,,,,\n"
        "aws,us-east-1,p4d.24xlarge,21.957642,2025-06-01,list,,,,,\n"
    )
    frame = read(tmp_path, text)
    spot = frame.filter((pl.col("pricing_model") == "spot") & (pl.col("provider") == "aws")).row(0, named=True)
    assert {k: spot[k] for k in ("usd_per_hour", "upfront_usd", "recurring_usd_per_hour", "zone_count",
                                 "zone_min_usd_per_hour", "zone_max_usd_per_hour", "interruption_frequency")} == {
        "usd_per_hour": 9.9, "upfront_usd": 0.0, "recurring_usd_per_hour": 9.9, "zone_count": 3,
        "zone_min_usd_per_hour": 9.1, "zone_max_usd_per_hour": 10.2, "interruption_frequency": "10-15%"}
    gcp = frame.filter(pl.col("provider") == "gcp").row(0, named=True)
    assert (gcp["pricing_model"], gcp["usd_per_hour"], gcp["zone_count"], gcp["interruption_frequency"]) == (
        "spot", 8.814648, None, None)
    assert frame.filter(pl.col("pricing_model") == "on_demand")["zone_count"].to_list() == [None]


@pytest.mark.parametrize(
    ("row", "where", "words"),
    [
        ("9.9,2025-06-01,s,on_demand,3,,,", "2 column zone_count", "spot prices only"),
        ("9.9,2025-06-01,s,spot,0,,,", "2 column zone_count", "at least 1"),
        ("9.9,2025-06-01,s,spot,two,,,", "2 column zone_count", "whole number"),
        ("9.9,2025-06-01,s,spot,3,10.0,10.2,", "2 column zone_min_usd_per_hour", "does not contain the price 9.9"),
        ("9.9,2025-06-01,s,spot,3,9.1,9.5,", "2 column zone_max_usd_per_hour", "does not contain the price 9.9"),
        ("9.9,2025-06-01,s,spot,3,-1,10.2,", "2 column zone_min_usd_per_hour", "at least 0"),
        ("9.9,2025-06-01,s,spot,3,9.1,10.2,often", "2 column interruption_frequency", "not an interruption-frequency bucket"),
        ("9.9,2025-06-01,s,on_demand,,,,<5%", "2 column interruption_frequency", "spot prices only"),
    ],
)
def test_bad_spot_columns(tmp_path, row, where, words):
    exc = error(tmp_path, SPOT_HEADER + "aws,us-east-1,p4d.24xlarge," + row + "\n")
    assert exc.where == where and words in exc.problem, exc


def test_savings_plan_classes_tell_the_two_aws_plans_apart(tmp_path):
    text = OPTION_HEADER + (
        "aws,us-east-1,p4d.24xlarge,15.3704,2025-06-01,SP,savings_plan,1,no_upfront,compute,,,\n"
        "aws,us-east-1,p4d.24xlarge,14.1,2025-06-01,SP,savings_plan,1,no_upfront,ec2_instance,,,\n"
    )
    frame = read(tmp_path, text)
    assert frame.select("offering_class", "usd_per_hour").rows() == [("compute", 15.3704), ("ec2_instance", 14.1)]


def test_a_price_above_1000_usd_per_accelerator_hour_is_refused(tmp_path):
    """Fetched data is untrusted (issue 44): a one-GPU instance at 1,500 USD/h is under the 2,000 USD/h an instance
    may cost but no accelerator's rate; 1,000 USD/h is still read."""
    one = instances().head(1).with_columns(pl.lit("p9.xlarge").alias("instance_type"),
                                           pl.lit(1, instances()["accelerator_count"].dtype).alias("accelerator_count"))
    header = "provider,region,instance_type,usd_per_hour,as_of,source\n"
    path = write(tmp_path / "p.csv", header + "aws,us-east-1,p9.xlarge,3.0,2024-01-01,ok\naws,us-east-1,p9.xlarge,1500,2024-02-01,x\n")
    with pytest.raises(InputError) as error:
        read_price_file(path, pl.concat([instances(), one]))
    assert "p.csv:3 (p9.xlarge): 1500 USD/h is 1,500.00 USD per accelerator-hour for its 1 accelerators" in str(error.value)
    path = write(tmp_path / "q.csv", header + "aws,us-east-1,p9.xlarge,1000,2024-02-01,x\n")
    assert read_price_file(path, pl.concat([instances(), one]))["usd_per_hour"].to_list() == [1000.0]
