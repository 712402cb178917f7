"""Issue 43, an answer a buyer can act on.

- every price says what it is (domain/offers.py): a list price paid as spot is a spot offer; Mithril's catalog
  price is an auction's reserve, approximate at best; a quote from any provider is a quote;
- one pick and one tie rule (domain/best.py), checked on rows whose answer is worked out by hand;
- the spread of the MLPerf results behind each figure (metrics/result_spread.py), by hand;
- on the bundled report: no auction offer is "cheapest", Mithril's rows are auctions and not exact, every priced
  row has its spread with low <= point <= high and costs = price x time, a Llama 2 70B LoRA row rests on two or
  more results, and the PDF names each benchmark's data set and quality target.
"""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.best import pick, with_rank
from pipelines.domain.offers import certainty_expr, offer_kind_expr
from pipelines.ingest.prices.normalized import read_normalized_csv
from pipelines.ingest.prices.skypilot import read_catalog
from pipelines.metrics.cheapest_offers import cheapest_offers
from pipelines.metrics.result_spread import comparable_results, with_spread


# ---- what each price is ------------------------------------------------------------------------------------------
def test_offer_kind_follows_who_set_the_price_and_how_it_is_paid():
    rows = pl.DataFrame({"offer_kind": ["list", "list", "list", None, "auction", "community", "quote"],
                         "pricing_model": ["on_demand", "spot", "reserved", "savings_plan", "spot", "on_demand",
                                           "on_demand"],
                         "certainty": ["exact"] * 7})
    out = rows.with_columns(offer_kind_expr()).with_columns(certainty_expr())
    assert out["offer_kind"].to_list() == ["list", "spot", "commitment", "commitment", "auction", "marketplace", "quote"]
    assert out["certainty"].to_list() == ["exact"] * 4 + ["approximate", "exact", "exact"]


MITHRIL = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
           "h100-80gb.sxm.8x,H100,8,208,1800,8.0,us-central1-a,"
           "\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}]}\",8.0\n")


def test_mithrils_catalog_price_is_an_auction_and_never_exact(tmp_path):
    """SkyPilot's fetch_mithril.py writes the auction's minimum_price_cents / 100 into Price and SpotPrice: one bid,
    listed once (a spot figure equal to the on-demand one is no cheaper way to pay: skypilot.py)."""
    from pipelines.ingest.prices.read import read_price_folder
    from pipelines.ingest.prices.instances import check_instances  # noqa: F401 - the reader checks its instances

    folder = tmp_path / "prices" / "skypilot_2026-12-04" / "mithril"
    folder.mkdir(parents=True)
    (folder / "vms.csv").write_text(MITHRIL)
    catalog = read_catalog(folder / "vms.csv", "skypilot_2026-12-04/mithril/vms.csv")
    assert catalog.offers["offer_kind"].to_list() == ["auction"]
    instances = pl.DataFrame({"provider": ["mithril"], "instance_type": ["h100-80gb.sxm.8x"],
                              "accelerator": ["H100"], "accelerator_count": [8], "accelerator_memory_gb": [80.0],
                              "vcpus": [208], "memory_gib": [1800.0], "accelerator_model": ["H100-SXM-80GB"],
                              "billing": ["instance"]})
    prices = read_price_folder(tmp_path / "prices", instances)
    assert prices.select("pricing_model", "offer_kind", "certainty", "usd_per_hour").rows() == [
        ("on_demand", "auction", "approximate", 8.0)]
    assert catalog.skipped == {"spot price not below the on-demand price (no spot discount: on demand only)": 1}


def test_a_quote_from_a_provider_no_catalog_lists(tmp_path):
    path = tmp_path / "quote.csv"
    path.write_text("provider,region,instance_type,usd_per_hour,as_of,source,offer_kind\n"
                    "coreweave,us-east-04,gd-8xh100ib-i128,20.00,2026-12-01,sales quote,quote\n")
    row = read_normalized_csv(path, "quote.csv").row(0, named=True)
    assert (row["provider"], row["offer_kind"], row["usd_per_hour"]) == ("coreweave", "quote", 20.0)


# ---- one pick, one tie rule --------------------------------------------------------------------------------------
def _offers(**columns) -> pl.DataFrame:
    base = {"provider": ["a", "b", "c", "d"], "region": ["r"] * 4, "instance_type": ["x"] * 4,
            "option_position": [0] * 4, "offer_kind": ["list"] * 4}
    return pl.DataFrame(base | columns)


def test_cheapest_ties_go_to_the_shorter_time_then_the_surer_price_then_the_names():
    # a and b cost the same: b is faster. c costs the same as d: c is a spot price, d a list price -> d
    rows = _offers(cost_to_train_usd=[5.0, 5.0, 9.0, 9.0], time_to_train_minutes=[60.0, 30.0, 10.0, 10.0],
                   offer_kind=["list", "list", "spot", "list"], group=["g1", "g1", "g2", "g2"])
    picked = {r["group"]: (r["provider"], r["tied"]) for r in pick(rows, ["group"], "cost").to_dicts()}
    assert picked == {"g1": ("b", 2), "g2": ("d", 2)}


def test_the_fastest_counts_its_ties_and_names_the_cheapest_of_them():
    rows = _offers(cost_to_train_usd=[7.0, 3.0, 5.0, 1.0], time_to_train_minutes=[10.0, 10.0, 10.0, 20.0])
    (row,) = pick(rows, [], "time").to_dicts()
    assert (row["provider"], row["tied"], row["cost_to_train_usd"]) == ("b", 3, 3.0)


def test_the_rank_puts_auction_and_marketplace_offers_after_every_other():
    rows = _offers(cost_to_train_usd=[1.0, 2.0, 3.0, 0.5], time_to_train_minutes=[1.0] * 4,
                   offer_kind=["auction", "spot", "list", "marketplace"])
    ranked = with_rank(rows, [], "cost", "cost_rank", ("list", "spot", "commitment", "quote"))
    assert dict(zip(ranked["provider"], ranked["cost_rank"])) == {"b": 1, "c": 2, "d": 3, "a": 4}


def _cost_rows() -> pl.DataFrame:
    """One benchmark, three offers: an auction at $1, a list price at $4 and its spot price at $2 (times by hand)."""
    common = {"comparison": "c", "comparison_title": "C", "benchmark": "bert", "benchmark_position": 0,
              "region": "r", "is_baseline": False, "baseline_cost_usd": None, "savings_pct": None,
              "time_to_train_minutes": 60.0}
    rows = [
        common | {"provider": "mithril", "instance_type": "m", "position": 1, "pricing_option": "on_demand",
                  "option_position": 0, "usd_per_hour": 1.0, "cost_to_train_usd": 1.0, "offer_kind": "auction"},
        common | {"provider": "nebius", "instance_type": "n", "position": 2, "pricing_option": "on_demand",
                  "option_position": 0, "usd_per_hour": 4.0, "cost_to_train_usd": 4.0, "offer_kind": "list",
                  "is_baseline": True, "baseline_cost_usd": 4.0},
        common | {"provider": "nebius", "instance_type": "n", "position": 2, "pricing_option": "spot",
                  "option_position": 1, "usd_per_hour": 2.0, "cost_to_train_usd": 2.0, "offer_kind": "spot"},
    ]
    return pl.DataFrame(rows)


def test_the_headline_leaves_the_auction_out_and_shows_it_apart():
    (row,) = cheapest_offers(_cost_rows()).to_dicts()
    assert (row["cheapest_provider"], row["cheapest_pricing_option"], row["cheapest_cost_usd"]) == ("nebius", "spot", 2.0)
    assert (row["cheapest_on_demand_provider"], row["cheapest_on_demand_cost_usd"]) == ("nebius", 4.0)
    assert (row["market_provider"], row["market_offer_kind"], row["market_cost_usd"]) == ("mithril", "auction", 1.0)
    assert (row["fastest_provider"], row["fastest_tied"]) == ("nebius", 1)  # the auction is no fastest either
    # report.toml may ask for auctions in the headline
    (asked,) = cheapest_offers(_cost_rows(), headline_kinds=("list", "spot", "auction")).to_dicts()
    assert asked["cheapest_provider"] == "mithril" and asked["market_provider"] is None


# ---- the spread of the results behind a figure -------------------------------------------------------------------
def test_the_spread_is_over_closed_results_of_the_same_accelerators_at_the_same_scale():
    results = pl.DataFrame({
        "benchmark": ["bert"] * 5, "round": ["v4.1", "v5.0", "v5.0", "v5.0", "v5.0"],
        "system": ["own", "s2", "s3", "open", "big"], "division": ["closed", "closed", "closed", "open", "closed"],
        "accelerator_model_name": ["H100 SXM"] * 5, "accelerators_count": [8, 8, 8, 8, 16],
        "time_to_train_minutes": [10.0, 12.0, 9.0, 5.0, 4.0]})
    comparable = comparable_results(results, {"H100 SXM": "H100-SXM-80GB"})
    assert sorted(comparable["system"]) == ["big", "own", "s2", "s3"]  # closed only; the scale is the spread's
    cost = pl.DataFrame({"provider": ["p", "q"], "instance_type": ["i", "j"], "benchmark": ["bert"] * 2,
                         "accelerator_count": [8, 8], "round": ["v4.1", None], "system": ["own", None],
                         "time_to_train_minutes": [10.0, 30.0], "time_origin": ["MLPerf result", "measured throughput"],
                         "usd_per_hour": [6.0, 6.0]})
    instances = pl.DataFrame({"provider": ["p", "q"], "instance_type": ["i", "j"],
                              "accelerator_model": ["H100-SXM-80GB"] * 2})
    spread = with_spread(cost, instances, comparable).to_dicts()
    # p: own 10, s2 12, s3 9 (not big's 16 GPUs) -> 3 results, 9..12 min, at $6/h $0.90..$1.20; q: a team's own
    # measurement
    assert [(r["results_count"], r["time_to_train_minutes_low"], r["time_to_train_minutes_high"]) for r in spread] == [
        (3, 9.0, 12.0), (1, 30.0, 30.0)]
    assert spread[0]["cost_to_train_usd_low"] == pytest.approx(0.9) and spread[0]["cost_to_train_usd_high"] == pytest.approx(1.2)


# ---- the bundled report ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def data(bundled_run) -> Path:
    return bundled_run.reports / "latest" / "data"


def test_no_auction_offer_is_the_bundled_answer(data):
    offers = pl.read_csv(data / "cheapest_offers.csv")
    for prefix in ("cheapest", "cheapest_on_demand", "fastest"):
        assert set(offers[f"{prefix}_offer_kind"].drop_nulls()) <= {"list", "spot", "commitment", "quote"}, prefix
    assert set(offers["market_offer_kind"].drop_nulls()) == {"auction"}  # Mithril's, shown apart
    cost = pl.read_csv(data / "cost_to_train.csv", infer_schema_length=None)
    mithril = cost.filter(pl.col("provider") == "mithril")
    assert mithril.height and set(mithril["offer_kind"]) == {"auction"} and set(mithril["certainty"]) == {"approximate"}


def test_every_priced_row_has_its_spread(data):
    cost = pl.read_csv(data / "cost_to_train.csv", infer_schema_length=None).filter(
        pl.col("cost_to_train_usd").is_not_null())
    assert cost.height > 100
    for r in cost.iter_rows(named=True):
        assert r["results_count"] >= 1
        assert r["time_to_train_minutes_low"] <= r["time_to_train_minutes"] <= r["time_to_train_minutes_high"]
        assert r["cost_to_train_usd_low"] <= r["cost_to_train_usd"] <= r["cost_to_train_usd_high"]
        for end in ("", "_low", "_high"):  # cost = price x time
            assert math.isclose(r[f"cost_to_train_usd{end}"],
                                r["usd_per_hour"] * r[f"time_to_train_minutes{end}"] / 60, rel_tol=1e-9)
    lora = cost.filter((pl.col("benchmark") == "llama2_70b_lora") & (pl.col("results_count") >= 2))
    assert lora.height and (lora["time_to_train_minutes_high"] > lora["time_to_train_minutes_low"]).any()


def test_the_pdf_says_what_an_auction_price_is_and_what_each_benchmark_trains(bundled_pdf_texts):
    first_pages = " ".join(" ".join(bundled_pdf_texts[:2]).split())
    assert "Auction: the lowest bid the market accepts now; capacity and price are not held" in first_pages
    whole = " ".join(" ".join(bundled_pdf_texts).split())
    assert "SCROLLS GovReport" in whole and "eval loss <= 0.925" in whole
    assert "sections 2–2" not in whole


def test_the_report_and_the_atlas_agree_on_every_shared_figure(bundled_run, sample_atlas_run):
    """One answer everywhere (issue 43): the same MLPerf result (round, system, benchmark) on the same instance, on
    demand, has the same time in the report and the atlas; at the same price it costs the same, and prices of the
    same date are the same price."""
    key = ["round", "system", "benchmark", "provider", "region", "instance_type"]
    report = (pl.read_csv(bundled_run.reports / "latest" / "data" / "cost_to_train.csv", infer_schema_length=None)
              .filter((pl.col("pricing_option") == "on_demand") & pl.col("cost_to_train_usd").is_not_null()
                      & (pl.col("time_origin") == "MLPerf result"))
              .select(*key, "time_to_train_minutes", "usd_per_hour", "cost_to_train_usd", "price_as_of"))
    atlas = pl.read_csv(sample_atlas_run.published / "data" / "atlas.csv", infer_schema_length=None)
    if "pricing_option" in atlas.columns:  # the atlas's export holds every way to pay: on demand here
        atlas = atlas.filter(pl.col("pricing_option").fill_null("on_demand") == "on_demand")
    atlas = (atlas.filter(pl.col("instances_needed") == 1)
             .select(*key, "time_to_train_minutes", "usd_per_hour", "cost_to_train_usd", "price_as_of"))
    shared = report.join(atlas, on=key, suffix="_atlas")
    assert shared.height, "no result priced on the same instance in both"
    for r in shared.iter_rows(named=True):
        where = f"{r['round']} {r['system']} {r['benchmark']} on {r['provider']} {r['instance_type']}"
        assert r["time_to_train_minutes"] == pytest.approx(r["time_to_train_minutes_atlas"], rel=1e-6), where
        if r["price_as_of"] == r["price_as_of_atlas"]:
            assert r["usd_per_hour"] == r["usd_per_hour_atlas"], where
        if r["usd_per_hour"] == r["usd_per_hour_atlas"]:
            assert r["cost_to_train_usd"] == pytest.approx(r["cost_to_train_usd_atlas"], rel=1e-9), where
