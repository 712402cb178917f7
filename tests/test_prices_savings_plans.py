"""AWS Savings Plans offer files (JSON and CSV), joined to our instances through the EC2 price list."""

from __future__ import annotations

import json

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import read_price_file, read_price_folder
from tests.price_fixtures import (
    aws_csv, aws_csv_2025, aws_json, aws_row, instances, savings_plan_csv, savings_plan_json, write,
)

# Hand-checked against the fixture's rates: discountedRate is already the hourly rate. All Upfront pays
# the rate for every hour of the term before it starts: 11.2104 x 3 x 8760 = 294,609.312 USD.
EXPECTED = {
    ("p4d.24xlarge", "compute", 1, "no_upfront"): (15.3704, 0.0, 15.3704),
    ("p4d.24xlarge", "compute", 3, "all_upfront"): (11.2104, 294609.312, 0.0),
    ("p4d.24xlarge", "ec2_instance", 1, "partial_upfront"): (12.5408, None, None),
    ("p4d.24xlarge", "ec2_instance", 3, "no_upfront"): (8.7831, 0.0, 8.7831),
    ("p5.48xlarge", "compute", 1, "no_upfront"): (40.1792, 0.0, 40.1792),
}


def plans(frame: pl.DataFrame) -> dict[tuple, tuple]:
    rows = frame.filter(pl.col("pricing_model") == "savings_plan")
    return {(r["instance_type"], r["offering_class"], r["term_years"], r["payment_option"]):
            (r["usd_per_hour"], None if r["upfront_usd"] is None else round(r["upfront_usd"], 6), r["recurring_usd_per_hour"])
            for r in rows.iter_rows(named=True)}


@pytest.mark.parametrize(("form", "price_list"), [("json", "csv"), ("csv", "csv"), ("json", "json")])
def test_rates_join_the_price_list_by_usage_type_and_operation(tmp_path, form, price_list):
    # the price list of any date names the usage types (they do not change); its JSON form works alike
    if price_list == "csv":
        write(tmp_path / "aws-us-east-1-2025-06-01.csv", aws_csv_2025())
    else:
        write(tmp_path / "aws-us-east-1-2022-02-08.json", json.dumps(aws_json({"p4d.24xlarge": "32.7726", "p5.48xlarge": "98.32"})))
    offer = json.dumps(savings_plan_json()) if form == "json" else savings_plan_csv()
    write(tmp_path / f"aws-savings-plans-us-east-1-2025-06-01.{form}", offer)
    frame = read_price_folder(tmp_path, instances())
    # Windows, dedicated, host, unused-reservation, other-service, other-type and SageMaker rates leave nothing
    assert plans(frame) == EXPECTED
    row = frame.filter((pl.col("offering_class") == "compute") & (pl.col("term_years") == 3)).row(0, named=True)
    assert (row["region"], str(row["as_of"]), row["file"]) == (
        "us-east-1", "2025-06-01", f"aws-savings-plans-us-east-1-2025-06-01.{form}")
    assert row["source"] == ("AWS Price List API, Savings Plans us-east-1, publication 2025-06-01: Compute Savings Plan "
                             "3yr All Upfront, discountedRate 11.2104 USD/h for BoxUsage:p4d.24xlarge RunInstances")
    assert row["line"] == ("$.terms.savingsPlan[1].rates[0]" if form == "json"
                           else "RateCode CSP3ALLUPFRONT00.DSKU000000000000")


def test_the_join_takes_the_region_from_the_usage_type_the_price_list_names(tmp_path):
    # a us-west-2 price list names USW2-BoxUsage:p4d.24xlarge; the rate for it is us-west-2's
    west = [aws_row("p4d.24xlarge", "25.25", **{"Region Code": "us-west-2", "usageType": "USW2-BoxUsage:p4d.24xlarge"})]
    write(tmp_path / "aws-us-west-2.csv", aws_csv(west))
    rates = {"CSP1NOUPFRONT000": [("USW2-BoxUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "17.675")]}
    write(tmp_path / "sp-us-west-2.json", json.dumps(savings_plan_json(region="us-west-2", rates=rates)))
    frame = read_price_folder(tmp_path, instances()).filter(pl.col("pricing_model") == "savings_plan")
    assert frame.select("region", "instance_type", "usd_per_hour").rows() == [("us-west-2", "p4d.24xlarge", 17.675)]


def test_a_linux_rate_of_ours_without_its_price_list_is_an_input_error(tmp_path):
    path = write(tmp_path / "sp.json", json.dumps(savings_plan_json()))
    with pytest.raises(InputError) as info:
        read_price_file(path, instances())
    assert info.value.path == str(path) and info.value.where == "$.terms.savingsPlan[0].rates[0]"
    assert "usage type BoxUsage:p4d.24xlarge (RunInstances) cannot be tied to an instance" in info.value.problem


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        (lambda d: d["terms"]["savingsPlan"][0]["rates"][0]["discountedRate"].update(currency="CNY"),
         "$.terms.savingsPlan[0].rates[0]", "CNY"),
        (lambda d: d["terms"]["savingsPlan"][0]["rates"][0]["discountedRate"].update(price="-1"),
         "$.terms.savingsPlan[0].rates[0]", "negative"),
        (lambda d: d["terms"]["savingsPlan"][0]["leaseContractLength"].update(duration=2),
         "$.terms.savingsPlan[0].leaseContractLength", "not 1 or 3 years"),
        (lambda d: d["products"][0]["attributes"].update(purchaseOption="Most Upfront"),
         "$.products[0].attributes.purchaseOption", "'Most Upfront'"),
        (lambda d: d.update(publicationDate="2025-13-01T00:00:00Z"), "$.publicationDate", "not a date"),
        (lambda d: d.update(products={}), "$.products", "JSON array"),
    ],
)
def test_bad_offer_file(tmp_path, change, where, words):
    write(tmp_path / "aws.csv", aws_csv_2025())
    doc = savings_plan_json()
    change(doc)
    write(tmp_path / "sp.json", json.dumps(doc))
    with pytest.raises(InputError) as info:
        read_price_folder(tmp_path, instances())
    assert (info.value.where, words in info.value.problem) == (where, True), info.value


def test_csv_of_another_savings_plan_offer_is_refused(tmp_path):
    text = savings_plan_csv().replace("AmazonComputeSavingsPlan", "AmazonDatabaseSavingsPlans", 1)
    with pytest.raises(InputError, match="offer 'AmazonDatabaseSavingsPlans' is not AmazonComputeSavingsPlan"):
        read_price_file(write(tmp_path / "db.csv", text), instances())
