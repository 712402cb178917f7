"""Azure Retail Prices pages: Linux prices of our sizes under every pricing model, across pages, USD only."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import read_price_file, read_price_folder
from pipelines.ingest.prices.azure import read_azure_json
from tests.price_fixtures import azure_item, azure_pages, instances, write


def write_pages(folder, pages):
    for n, page in enumerate(pages):
        write(folder / f"azure-eastus-2024-01-01-p{n + 1}.json", json.dumps(page))


def on_demand(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.filter(pl.col("pricing_model") == "on_demand")


def test_pages_in_a_folder_give_reference_prices_without_decoys(tmp_path):
    write_pages(tmp_path, azure_pages())
    frame = on_demand(read_price_folder(tmp_path, instances()))
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
    frame = on_demand(read_price_file(write(tmp_path / "p2.json", json.dumps(azure_pages()[1])), instances()))
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
    assert "c.json:$.Items[11] 22.032" in info.value.problem and "23.0" in info.value.problem


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
    frame = on_demand(read_price_file(write(tmp_path / "ahead.json", json.dumps(page)), instances()))
    assert frame.filter(frame["instance_type"] == "Standard_ND96isr_H100_v5")["usd_per_hour"].to_list() == [98.32]


def test_the_day_decides_which_announced_prices_are_in_force():
    page = azure_pages()[1]  # ND96isr H100 v5 at 98.32 from 2024-01-01
    page["Items"].append(azure_item("Standard_ND96isr_H100_v5", "ND96isr H100 v5", "Virtual Machines NDH100v5 Series",
                                    60.0, "2024-06-01T00:00:00Z"))

    def h100(today: date) -> list[tuple]:
        frame = on_demand(read_azure_json(page, Path("page.json"), "page.json", instances(), today=today))
        return frame.filter(pl.col("instance_type") == "Standard_ND96isr_H100_v5").select("as_of", "usd_per_hour").rows()

    assert h100(date(2023, 12, 31)) == []
    assert h100(date(2024, 5, 31)) == [(date(2024, 1, 1), 98.32)]
    assert h100(date(2024, 6, 1)) == [(date(2024, 1, 1), 98.32), (date(2024, 6, 1), 60.0)]


# --- reservations, savings plans, spot ---------------------------------------------------------

def options(frame: pl.DataFrame, instance_type: str) -> dict[tuple, float]:
    rows = frame.filter(pl.col("instance_type") == instance_type)
    return {(r["pricing_model"], r["term_years"]): round(r["usd_per_hour"], 9) for r in rows.iter_rows(named=True)}


def test_every_pricing_model_with_hand_computed_effective_rates(tmp_path):
    write_pages(tmp_path, azure_pages())
    frame = read_price_folder(tmp_path, instances())
    # A reservation's retailPrice is the total for the term although unitOfMeasure says "1 Hour":
    # 1 Year 148,920 / 8,760 h = 17.0; 3 Years 262,800 / 26,280 h = 10.0. Savings plans are hourly.
    assert options(frame, "Standard_ND96asr_v4") == {
        ("on_demand", None): 27.197, ("spot", None): 8.1591,
        ("reserved", 1): 17.0, ("reserved", 3): 10.0,
        ("savings_plan", 1): 19.038, ("savings_plan", 3): 13.5985,
    }
    # 113,880 / 8,760 = 13.0; 197,100 / 26,280 = 7.5
    assert options(frame, "Standard_ND40rs_v2") == {
        ("on_demand", None): 22.032, ("spot", None): 6.6096, ("reserved", 1): 13.0, ("reserved", 3): 7.5,
        ("savings_plan", 1): 15.4224, ("savings_plan", 3): 11.016,
    }
    # 543,120 / 8,760 = 62.0; 1,051,200 / 26,280 = 40.0
    assert options(frame, "Standard_ND96isr_H100_v5") == {
        ("on_demand", None): 98.32, ("spot", None): 29.496, ("reserved", 1): 62.0, ("reserved", 3): 40.0,
        ("savings_plan", 1): 68.824, ("savings_plan", 3): 49.16,
    }
    # no Windows, Low Priority, DevTest (eastus or westeurope), free or per-GB item leaves a row
    assert frame.height == 18 and set(frame["region"]) == {"eastus"}


def test_rows_say_where_they_come_from(tmp_path):
    write_pages(tmp_path, azure_pages())
    frame = read_price_folder(tmp_path, instances()).filter(pl.col("instance_type") == "Standard_ND96asr_v4")
    rows = {(r["pricing_model"], r["term_years"]): r for r in frame.iter_rows(named=True)}
    reserved = rows[("reserved", 1)]
    assert (reserved["line"], reserved["payment_option"], reserved["upfront_usd"]) == ("$.Items[5]", None, None)
    assert reserved["source"] == ("Azure Retail Prices API, Virtual Machines NDasrA100v4 Series ND96asr A100 v4 "
                                  "(Reservation 1 Year: retailPrice 148920 USD for the term / (1 x 8760 h)) in eastus, "
                                  "effective 2022-02-08")
    assert rows[("savings_plan", 3)]["line"] == "$.Items[0].savingsPlan[0]"
    assert rows[("spot", None)]["source"] == ("Azure Retail Prices API, Virtual Machines NDasrA100v4 Series ND96asr A100 "
                                              "v4 Spot (Consumption, Spot) in eastus, effective 2022-02-08")


def test_spot_is_told_by_the_meter_name_too(tmp_path):
    page = azure_pages()[0]
    page["Items"] = [azure_item("Standard_ND40rs_v2", "ND40rs v2", "Virtual Machines NDv2 Series", 6.0,
                                "2022-02-08T00:00:00Z", meterName="ND40rs v2 Spot")]
    frame = read_price_file(write(tmp_path / "m.json", json.dumps(page)), instances())
    assert frame.select("pricing_model", "usd_per_hour").rows() == [("spot", 6.0)]


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        (lambda items: items[5].update(reservationTerm="5 Years"), "$.Items[5].reservationTerm", "'5 Years'"),
        (lambda items: items[5].update(retailPrice=-1.0), "$.Items[5].retailPrice", "negative"),
        (lambda items: items[5].update(retailPrice=9e9), "$.Items[5].retailPrice", "absurd"),
        (lambda items: items[0]["savingsPlan"][0].update(term="2 Years"), "$.Items[0].savingsPlan[0].term", "'2 Years'"),
        (lambda items: items[0]["savingsPlan"][1].update(retailPrice="abc"), "$.Items[0].savingsPlan[1].retailPrice",
         "not a number"),
        (lambda items: items[0].update(savingsPlan={"term": "1 Year"}), "$.Items[0].savingsPlan", "JSON array"),
    ],
)
def test_bad_commitment_items(tmp_path, change, where, words):
    page = azure_pages()[0]
    change(page["Items"])
    with pytest.raises(InputError) as info:
        read_price_file(write(tmp_path / "bad.json", json.dumps(page)), instances())
    assert (info.value.where, words in info.value.problem) == (where, True), info.value
