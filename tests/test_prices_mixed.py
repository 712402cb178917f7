"""Every format in one folder: the reference prices come out once each, history kept."""

from __future__ import annotations

import json

import polars as pl

from pipelines.ingest.prices import read_price_folder
from tests.price_fixtures import (
    AWS_2022, aws_csv_2025, aws_json, azure_pages, gcp_pages, instances, reference_prices, write,
    write_reference_snapshots,
)


def test_all_formats_with_the_reference_csv_agree_and_collapse(tmp_path):
    write_reference_snapshots(tmp_path / "normalized")
    write(tmp_path / "aws-us-east-1-2025-06-01.csv", aws_csv_2025())
    write(tmp_path / "aws-us-east-1-2022-02-08.json", json.dumps(aws_json(AWS_2022)))
    for n, page in enumerate(azure_pages()):
        write(tmp_path / f"azure-eastus-p{n}.json", json.dumps(page))
    for n, page in enumerate(gcp_pages()):
        write(tmp_path / f"gcp-us-central1-p{n}.json", json.dumps(page))
    frame = read_price_folder(tmp_path, instances())
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
