"""GCP SKU pages: instance prices composed from unit prices under every pricing model, on-demand
checked against reference/prices.csv, spot and committed use against hand compositions."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import read_price_file, read_price_folder
from pipelines.ingest.prices import gcp
from pipelines.ingest.prices.gcp import gpu_sku_name
from tests.price_fixtures import GCP_COMMITTED, GCP_SPOT, gcp_pages, gcp_sku, instances, reference_prices, write


def write_pages(folder, pages, stem="gcp-us-central1-2022-02-08"):
    for n, page in enumerate(pages):
        write(folder / f"{stem}-p{n + 1}.json", json.dumps(page))


def on_demand(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.filter(pl.col("pricing_model") == "on_demand")


def reference(instance_type: str) -> float:
    return reference_prices().filter(pl.col("instance_type") == instance_type)["usd_per_hour"].item()


def test_composed_prices_equal_the_reference(tmp_path):
    write_pages(tmp_path, gcp_pages())
    frame = on_demand(read_price_folder(tmp_path, instances()))
    # a2-highgpu-8g: 96 x 0.031611 + 680 x 0.004237 + 8 x 2.933908 = 5.915816 + 23.471264 = 29.38708
    # n1-highmem-96+8xV100: 96 x 0.031611 + 624 x 0.004237 + 8 x 2.48 = 5.678544 + 19.84 = 25.518544
    assert frame.select("region", "instance_type", "usd_per_hour", "as_of").rows() == [
        ("us-central1", "a2-highgpu-8g", 29.38708, date(2022, 2, 8)),
        ("us-central1", "n1-highmem-96+8xV100", 25.518544, date(2022, 2, 8)),
    ]
    assert frame["usd_per_hour"].to_list() == [reference("a2-highgpu-8g"), reference("n1-highmem-96+8xV100")]
    a2 = frame.row(0, named=True)
    assert a2["source"] == ("GCP Cloud Billing Catalog, Compute Engine us-central1: a2-highgpu-8g "
                            "96 vCPU x 0.031611 + 680 GiB x 0.004237 + 8 Nvidia Tesla A100 GPU x 2.933908")
    assert a2["file"] == "gcp-us-central1-2022-02-08-p1.json + gcp-us-central1-2022-02-08-p3.json"
    assert a2["line"] == ("gcp-us-central1-2022-02-08-p1.json:$.skus[0].pricingInfo[0] + "
                          "gcp-us-central1-2022-02-08-p1.json:$.skus[4].pricingInfo[0] + "
                          "gcp-us-central1-2022-02-08-p3.json:$.skus[0].pricingInfo[0]")


def test_one_file_with_every_sku_composes_alone(tmp_path):
    merged = {"skus": [s for page in gcp_pages() for s in page["skus"]], "nextPageToken": ""}
    frame = on_demand(read_price_file(write(tmp_path / "all.json", json.dumps(merged)), instances()))
    assert dict(zip(frame["instance_type"], frame["usd_per_hour"])) == {
        "a2-highgpu-8g": 29.38708, "n1-highmem-96+8xV100": 25.518544}
    assert frame["line"][0] == "$.skus[0].pricingInfo[0] + $.skus[4].pricingInfo[0] + $.skus[14].pricingInfo[0]"


def test_a_page_missing_parts_prices_nothing(tmp_path):
    assert read_price_file(write(tmp_path / "p1.json", json.dumps(gcp_pages()[0])), instances()).is_empty()


def test_a_later_page_with_only_the_changed_gpu_recomposes(tmp_path):
    write_pages(tmp_path, gcp_pages())
    cut = {"skus": [gcp_sku("GPU0-0000-0001", "Nvidia Tesla V100 GPU running in Americas", 2.0,
                            group="GPU", effective="2025-06-01T08:00:00Z")], "nextPageToken": ""}
    write(tmp_path / "gcp-us-central1-2025-06-01-p1.json", json.dumps(cut))
    n1 = on_demand(read_price_folder(tmp_path, instances())).filter(pl.col("instance_type") == "n1-highmem-96+8xV100")
    assert n1.select("usd_per_hour", "as_of").rows() == [
        (25.518544, date(2022, 2, 8)), (round(5.678544 + 8 * 2.0, 9), date(2025, 6, 1))]


def test_same_pages_twice_change_nothing(tmp_path):
    write_pages(tmp_path, gcp_pages())
    first = read_price_folder(tmp_path, instances())
    write_pages(tmp_path, gcp_pages(), stem="copy")
    assert read_price_folder(tmp_path, instances()).drop("file", "line").equals(first.drop("file", "line"))


def test_conflicting_unit_prices_on_one_date_fail(tmp_path):
    pages = gcp_pages()
    pages[2]["skus"].append(gcp_sku("GPU0-0000-0099", "Nvidia Tesla A100 GPU running in Americas", 3.1, group="GPU"))
    write_pages(tmp_path, pages)
    with pytest.raises(InputError) as info:
        read_price_folder(tmp_path, instances())
    assert "us-central1 gpu A100 on_demand on 2022-02-08" in info.value.problem and "3.1" in info.value.problem


def test_rupiah_page_is_refused(tmp_path):
    path = write(tmp_path / "idr.json", json.dumps(gcp_pages(currency="IDR")[1]))
    with pytest.raises(InputError) as info:
        read_price_file(path, instances())
    assert info.value.where == "$.skus[0].pricingInfo[0].pricingExpression.tieredRates[0].unitPrice.currencyCode"
    assert "IDR" in info.value.problem


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda s: s["pricingInfo"][0]["pricingExpression"].update(usageUnit="MiBy.h"), "expected 'GiBy.h'"),
        (lambda s: s["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"].update(units="x"), "whole number"),
        (lambda s: s["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"].update(nanos=2e9), "below 1e9"),
        (lambda s: s["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"].update(units="-1"), "negative"),
        (lambda s: s["pricingInfo"][0].update(effectiveTime="soon"), "not a date"),
        (lambda s: s["pricingInfo"][0]["pricingExpression"].update(tieredRates=[]), "no rates"),
    ],
)
def test_bad_sku(tmp_path, change, words):
    page = gcp_pages()[1]
    change(page["skus"][0])  # N1 Predefined Instance Ram
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "bad.json", json.dumps(page)), instances())
    assert info.value.where.startswith("$.skus[0]") and words in info.value.problem


@pytest.mark.parametrize(
    ("accelerator", "memory", "name"),
    [("NVIDIA A100-SXM4-40GB", 40, "A100"), ("NVIDIA A100-SXM4-80GB", 80, "A100 80GB"),
     ("NVIDIA V100-SXM2-16GB", 16, "V100"), ("NVIDIA H100-SXM5-80GB", 80, "H100 80GB"),
     ("NVIDIA L4", 24, "L4"), ("Habana Gaudi HL-205", 32, None)],
)
def test_gpu_sku_names(accelerator, memory, name):
    assert gpu_sku_name(accelerator, memory) == name


# --- spot and committed use ---------------------------------------------------------------------

def test_spot_and_committed_use_compose_like_on_demand(tmp_path):
    write_pages(tmp_path, gcp_pages())
    frame = read_price_folder(tmp_path, instances())
    got = {(r["instance_type"], r["pricing_model"], r["term_years"]): r["usd_per_hour"] for r in frame.iter_rows(named=True)}
    # the hand compositions are written out in tests/price_fixtures.py (GCP_SPOT, GCP_COMMITTED):
    # a2-highgpu-8g spot: 96 x 0.009483 + 680 x 0.001271 + 8 x 0.88 = 8.814648
    # a2-highgpu-8g 1 year: 96 x 0.019915 + 680 x 0.002669 + 8 x 1.848362 = 18.513656
    # a2-highgpu-8g 3 years ("for 3 Year" host, "for 3 Years" GPU): 96 x 0.014225 + 680 x 0.001907 + 8 x 1.031772 = 10.916536
    # n1-highmem-96+8xV100 spot: 96 x 0.006655 + 624 x 0.000892 + 8 x 0.74 = 7.115488
    # n1-highmem-96+8xV100 1 year ("Commitment v1: Cpu" is N1's): 96 x 0.019915 + 624 x 0.002669 + 8 x 1.562 = 16.073296
    assert got == {
        ("a2-highgpu-8g", "on_demand", None): 29.38708, ("n1-highmem-96+8xV100", "on_demand", None): 25.518544,
        ("a2-highgpu-8g", "spot", None): GCP_SPOT["a2-highgpu-8g"],
        ("n1-highmem-96+8xV100", "spot", None): GCP_SPOT["n1-highmem-96+8xV100"],
        ("a2-highgpu-8g", "committed_use", 1): GCP_COMMITTED[("a2-highgpu-8g", 1)],
        ("a2-highgpu-8g", "committed_use", 3): GCP_COMMITTED[("a2-highgpu-8g", 3)],
        ("n1-highmem-96+8xV100", "committed_use", 1): GCP_COMMITTED[("n1-highmem-96+8xV100", 1)],
    }  # no 3-year n1 price: there is a 3-year N1 host commitment but no 3-year V100 one
    assert GCP_SPOT["a2-highgpu-8g"] == round(96 * 0.009483 + 680 * 0.001271 + 8 * 0.88, 9)
    assert GCP_COMMITTED[("a2-highgpu-8g", 3)] == round(96 * 0.014225 + 680 * 0.001907 + 8 * 1.031772, 9)


def test_committed_use_rows_say_term_and_parts(tmp_path):
    write_pages(tmp_path, gcp_pages())
    frame = read_price_folder(tmp_path, instances())
    a2 = frame.filter((pl.col("instance_type") == "a2-highgpu-8g") & (pl.col("term_years") == 1)).row(0, named=True)
    assert (a2["payment_option"], a2["upfront_usd"], a2["recurring_usd_per_hour"]) == (None, 0.0, 18.513656)
    assert a2["source"] == ("GCP Cloud Billing Catalog, Compute Engine us-central1 committed use 1 year(s): a2-highgpu-8g "
                            "96 vCPU x 0.019915 + 680 GiB x 0.002669 + 8 Commitment v1: Nvidia Tesla A100 GPU x 1.848362")
    spot = frame.filter((pl.col("instance_type") == "n1-highmem-96+8xV100") & (pl.col("pricing_model") == "spot")).row(0, named=True)
    assert spot["source"] == ("GCP Cloud Billing Catalog, Compute Engine us-central1 spot (preemptible): n1-highmem-96 "
                              "96 vCPU x 0.006655 + 624 GiB x 0.000892 + 8 Nvidia Tesla V100 GPU attached to Spot "
                              "Preemptible VMs x 0.74")


def test_old_preemptible_gpu_wording_is_spot_too(tmp_path):
    pages = gcp_pages()
    for page in pages:
        for sku in page["skus"]:
            if sku["description"] == "Nvidia Tesla A100 GPU attached to Spot Preemptible VMs running in Americas":
                sku["description"] = "Preemptible Nvidia Tesla A100 GPU running in Americas"
    write_pages(tmp_path, pages)
    frame = read_price_folder(tmp_path, instances()).filter(pl.col("pricing_model") == "spot")
    assert dict(zip(frame["instance_type"], frame["usd_per_hour"]))["a2-highgpu-8g"] == GCP_SPOT["a2-highgpu-8g"]


def test_a_commitment_whose_usage_type_and_description_disagree_is_refused(tmp_path):
    page = {"skus": [gcp_sku("A2C0-0000-0009", "Commitment v1: A2 Cpu in Americas for 3 Years", 0.014225,
                             group="CPU", usage_type="Commit1Yr")], "nextPageToken": ""}
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "c.json", json.dumps(page)), instances())
    assert info.value.where == "$.skus[0].category.usageType" and "Commit1Yr" in info.value.problem


def test_spend_based_commitments_and_other_regions_are_not_parts(tmp_path):
    units = gcp.unit_prices(gcp_pages()[3], Path("p4.json"), "p4.json")
    assert "Commitment - dollar based v1: GCE for 1 year" not in set(units["description"])
    assert "Reserved Nvidia Tesla A100 GPU in Americas" not in set(units["description"])
    # the us-east1 spot core exists as a unit price, but only for us-east1
    assert set(units.filter(pl.col("description").str.starts_with("Preemptible A2 Instance Core"))["region"]) == {"us-east1"}
