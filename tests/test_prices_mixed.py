"""Every format in one folder: the reference prices come out once each, history kept."""

from __future__ import annotations

import json

import polars as pl

from pipelines.ingest.prices import detect, read_price_folder
from tests.price_fixtures import (
    AWS_2022, REFERENCE_PRICES_CSV, aws_csv_2025, aws_json, azure_pages, gcp_pages, instances, reference_prices,
    savings_plan_csv, savings_plan_json, spot_advisor, spot_history, write, write_reference_snapshots,
)


def test_all_formats_with_the_reference_csv_agree_and_collapse(tmp_path):
    write_reference_snapshots(tmp_path / "normalized")
    write(tmp_path / "aws-us-east-1-2025-06-01.csv", aws_csv_2025())
    write(tmp_path / "aws-us-east-1-2022-02-08.json", json.dumps(aws_json(AWS_2022)))
    for n, page in enumerate(azure_pages()):
        write(tmp_path / f"azure-eastus-p{n}.json", json.dumps(page))
    for n, page in enumerate(gcp_pages()):
        write(tmp_path / f"gcp-us-central1-p{n}.json", json.dumps(page))
    write(tmp_path / "aws-savings-plans-us-east-1-2025-06-01.json", json.dumps(savings_plan_json()))
    write(tmp_path / "aws-spot-us-east-1-2025-06-01.json", json.dumps(spot_history()))
    write(tmp_path / "aws-spot-advisor-2025-06-01.json", json.dumps(spot_advisor()))
    everything = read_price_folder(tmp_path, instances())
    # every pricing model of every format, once: AWS on-demand 7 reference rows + p3 and p3dn on 2025-06-01,
    # 12 + 1 + 1 reserved (CSV) + 3 (JSON), 5 savings plans,
    # 5 spot rows; Azure 3 x (spot, 2 reserved, 2 savings plans); GCP 2 spot + 3 committed use
    assert everything.group_by("provider", "pricing_model").len().sort("provider", "pricing_model").rows() == [
        ("aws", "on_demand", 9), ("aws", "reserved", 17), ("aws", "savings_plan", 5), ("aws", "spot", 5),
        ("azure", "on_demand", 3), ("azure", "reserved", 6), ("azure", "savings_plan", 6), ("azure", "spot", 3),
        ("gcp", "committed_use", 3), ("gcp", "on_demand", 2), ("gcp", "spot", 2),
    ]
    frame = everything.filter(pl.col("pricing_model") == "on_demand")
    key = ["provider", "region", "instance_type", "as_of"]
    # provider files add only what the reference lacks: p3dn and p3 re-listed on 2025-06-01
    extra = frame.join(reference_prices(), on=key, how="anti")
    assert extra.select("instance_type", "usd_per_hour").sort("instance_type").rows() == [
        ("p3.16xlarge", 24.48), ("p3dn.24xlarge", 31.212)]
    joined = frame.join(reference_prices(), on=key, suffix="_ref")
    assert joined.height == 12
    assert (joined["usd_per_hour"] == joined["usd_per_hour_ref"]).all()
    assert frame.select(key).is_duplicated().sum() == 0
    # a duplicate keeps the row of the first file in path order ("aws-..." before "normalized/")
    p4d = joined.filter((pl.col("instance_type") == "p4d.24xlarge") & (pl.col("as_of").dt.year() == 2025))
    assert p4d["file"].to_list() == ["aws-us-east-1-2025-06-01.csv"]
    assert set(joined.filter(pl.col("provider") == "gcp")["file"]) == {"normalized/on_demand_2022-02-08.csv"}
    assert frame.filter(pl.col("provider") == "gcp").height == 2


def test_every_kind_is_recognized_by_content_not_name(tmp_path):
    files = {
        "normalized": REFERENCE_PRICES_CSV, "aws_csv": aws_csv_2025(), "aws_savings_plan_csv": savings_plan_csv(),
        "aws_json": json.dumps(aws_json(AWS_2022)), "aws_savings_plan_json": json.dumps(savings_plan_json()),
        "aws_spot_history_json": json.dumps(spot_history()), "aws_spot_advisor_json": json.dumps(spot_advisor()),
        "azure_json": json.dumps(azure_pages()[0]), "gcp_json": json.dumps(gcp_pages()[0]),
    }
    for kind, text in files.items():
        path = write(tmp_path / "snapshot.txt.data", text)  # the name says nothing
        sniffed = detect.sniff(path)
        if sniffed == detect.JSON:
            sniffed = detect.json_kind(json.loads(text), path)
        assert sniffed == {"normalized": detect.NORMALIZED_CSV}.get(kind, kind)
