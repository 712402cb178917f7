"""Azure Retail Prices pages: Linux pay-as-you-go of our sizes, across pages, USD only."""

from __future__ import annotations

import json
from datetime import date

import pytest

from pipelines.errors import InputError
from pipelines.ingest.prices import read_price_file, read_price_folder
from tests.price_fixtures import azure_item, azure_pages, instances, write


def write_pages(folder, pages):
    for n, page in enumerate(pages):
        write(folder / f"azure-eastus-2024-01-01-p{n + 1}.json", json.dumps(page))


def test_pages_in_a_folder_give_reference_prices_without_decoys(tmp_path):
    write_pages(tmp_path, azure_pages())
    frame = read_price_folder(tmp_path, instances())
    assert frame.select("instance_type", "usd_per_hour", "as_of").rows() == [
        ("Standard_ND40rs_v2", 22.032, date(2022, 2, 8)),
        ("Standard_ND96asr_v4", 27.197, date(2022, 2, 8)),
        ("Standard_ND96isr_H100_v5", 98.32, date(2024, 1, 1)),
    ]
    assert set(frame["region"]) == {"eastus"}
    nd96 = frame.row(1, named=True)
    assert (nd96["file"], nd96["line"]) == ("azure-eastus-2024-01-01-p1.json", "$.Items[0]")
    assert nd96["source"] == ("Azure Retail Prices API, Virtual Machines NDasrA100v4 Series ND96asr A100 v4 "
                              "(Consumption) in eastus, effective 2022-02-08")


def test_a_single_page_reads_alone(tmp_path):
    frame = read_price_file(write(tmp_path / "p2.json", json.dumps(azure_pages()[1])), instances())
    assert sorted(frame["instance_type"]) == ["Standard_ND40rs_v2", "Standard_ND96isr_H100_v5"]


def test_euro_page_is_refused(tmp_path):
    path = write(tmp_path / "eur.json", json.dumps(azure_pages(currency="EUR")[0]))
    with pytest.raises(InputError) as info:
        read_price_file(path, instances())
    assert (info.value.where, "EUR" in info.value.problem) == ("$.BillingCurrency", True)


def test_one_foreign_item_in_a_usd_page_is_refused(tmp_path):
    page = azure_pages()[0]
    page["Items"][3]["currencyCode"] = "EUR"
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "mixed.json", json.dumps(page)), instances())
    assert info.value.where == "$.Items[3].currencyCode"


def test_different_prices_for_the_same_size_and_date_conflict(tmp_path):
    page = azure_pages()[1]
    page["Items"].append(azure_item("Standard_ND40rs_v2", "ND40rs v2", "Virtual Machines NDv2 Series",
                                    23.0, "2022-02-08T00:00:00Z"))
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "c.json", json.dumps(page)), instances())
    assert "c.json:$.Items[9] 22.032" in info.value.problem and "23.0" in info.value.problem


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("retailPrice", "abc", "not a number"),
        ("retailPrice", -1, "negative"),
        ("retailPrice", 1e9, "absurd"),
        ("armRegionName", "", "non-empty text"),
        ("effectiveStartDate", "yesterday", "not a date"),
        ("effectiveStartDate", None, "not a date"),
    ],
)
def test_bad_kept_item(tmp_path, field, value, words):
    page = azure_pages()[0]
    page["Items"][0][field] = value
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "bad.json", json.dumps(page)), instances())
    assert info.value.where.startswith("$.Items[0]") and words in info.value.problem


def test_items_not_a_list_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="expected a JSON array"):
        read_price_file(write(tmp_path / "x.json", '{"Items": {"a": 1}}'), instances())


def test_an_announced_price_not_yet_in_force_is_left_out(tmp_path):
    page = azure_pages()[1]
    page["Items"].append(azure_item("Standard_ND96isr_H100_v5", "ND96isr H100 v5", "Virtual Machines NDH100v5 Series",
                                    60.0, "2099-01-01T00:00:00Z"))
    frame = read_price_file(write(tmp_path / "ahead.json", json.dumps(page)), instances())
    assert frame.filter(frame["instance_type"] == "Standard_ND96isr_H100_v5")["usd_per_hour"].to_list() == [98.32]
