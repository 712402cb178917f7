"""Pricing options, discounts, savings at the baseline's own pricing and the commitment break-even,
against figures worked out by hand (the arithmetic is in the comments)."""

from datetime import date

import polars as pl
import pytest

from pipelines.ingest.prices.normalized import PRICE_SCHEMA
from pipelines.metrics.cost import EXPORT_COLUMNS, OPTION_EXPORT_COLUMNS, assemble_inputs, cost_to_train
from pipelines.domain.pricing import monthly_cost, option_label, parse_option
from pipelines.metrics.pricing_options import (apply_discounts, break_even_runs_per_month, break_even_share, cheapest_at,
                                               cheapest_options, choose_options)

P4D_MIN = 28.770861111111106  # ResNet-50, DGX A100 (the bundled data's score)
P3_MIN = 71.27832222222223  # ResNet-50, DGX-1


def price(instance, model, usd, term=None, payment=None, offering=None, upfront=None, recurring=None):
    return {"provider": "aws", "region": "us-east-1", "instance_type": instance, "usd_per_hour": usd,
            "as_of": date(2026, 9, 24), "source": "s", "pricing_model": model, "term_years": term,
            "payment_option": payment, "offering_class": offering, "upfront_usd": upfront,
            "recurring_usd_per_hour": recurring, "certainty": "exact"}


def book(*rows):
    return pl.DataFrame(list(rows), schema={k: v for k, v in PRICE_SCHEMA.items() if k in rows[0]})


P4D = [
    price("p4d", "on_demand", 32.7726),
    price("p4d", "spot", 9.8318),
    price("p4d", "reserved", 20.0, 1, "no_upfront", "standard", 0.0, 20.0),
    # all upfront: 150,000 / 8,760 h = 17.123288 USD/h
    price("p4d", "reserved", 150000 / 8760, 1, "all_upfront", "standard", 150000.0, 0.0),
    price("p4d", "savings_plan", 18.5, 1, "no_upfront", "compute", 0.0, 18.5),
    # partial upfront, 3 years: 200,000 / 26,280 h + 5.0 = 7.610350 + 5.0 = 12.610350 USD/h
    price("p4d", "reserved", 200000 / 26280 + 5.0, 3, "partial_upfront", "standard", 200000.0, 5.0),
]


def by_option(frame):
    return {r["pricing_option"]: r for r in frame.iter_rows(named=True)}


def test_option_spellings():
    assert parse_option("on_demand") == (("on_demand",), None)
    assert parse_option("commitment_3y") == (("reserved", "savings_plan", "committed_use"), 3)
    assert parse_option("savings_plan_1y") == (("savings_plan",), 1)
    assert parse_option("reserved_2y") is None and parse_option("spot_1y") is None and parse_option("ondemand") is None
    assert [option_label(o) for o in ("on_demand", "spot", "commitment_1y", "reserved_3y", "savings_plan_1y")] == [
        "On demand", "Spot", "1-year commitment", "3-year reserved", "1-year savings plan"]


def test_choose_cheapest_commitment_of_each_term():
    chosen = by_option(choose_options(book(*P4D), ["on_demand", "spot", "commitment_1y", "commitment_3y",
                                                   "savings_plan_1y", "reserved_1y", "committed_use_1y"]))
    assert chosen["on_demand"]["usd_per_hour"] == 32.7726
    assert chosen["spot"]["usd_per_hour"] == 9.8318
    # 1 year: min(20.0 no upfront, 17.123288 all upfront, 18.5 savings plan) = 17.123288, the all-upfront RI
    assert chosen["commitment_1y"]["usd_per_hour"] == pytest.approx(17.123288, abs=1e-6)
    assert chosen["commitment_1y"]["payment_option"] == "all_upfront"
    assert chosen["reserved_1y"]["usd_per_hour"] == pytest.approx(17.123288, abs=1e-6)
    assert chosen["savings_plan_1y"]["usd_per_hour"] == 18.5
    assert chosen["commitment_3y"]["usd_per_hour"] == pytest.approx(12.610350, abs=1e-6)
    assert "committed_use_1y" not in chosen  # AWS sells none: no row, never a made-up price


def test_a_tie_goes_to_the_option_that_pays_less_upfront():
    chosen = choose_options(book(price("x", "reserved", 10.0, 1, "all_upfront", "standard", 87600.0, 0.0),
                                 price("x", "reserved", 10.0, 1, "no_upfront", "standard", 0.0, 10.0)), ["reserved_1y"])
    assert chosen["payment_option"].to_list() == ["no_upfront"]


def test_discounts_per_provider_and_per_instance():
    prices = book(*P4D, price("p3", "on_demand", 24.48))
    discounted = apply_discounts(prices, [
        {"provider": "aws", "instance_type": None, "pricing_model": "on_demand", "percent": 12.0},
        {"provider": "aws", "instance_type": "p4d", "pricing_model": "on_demand", "percent": 20.0},
        {"provider": "aws", "instance_type": None, "pricing_model": "reserved", "percent": 10.0},
        {"provider": "gcp", "instance_type": None, "pricing_model": "spot", "percent": 50.0},
    ])
    rows = {(r["instance_type"], r["pricing_model"], r["payment_option"]): r for r in discounted.iter_rows(named=True)}
    # p3 on demand: 24.48 x (1 - 0.12) = 21.5424; p4d's own 20 % wins: 32.7726 x 0.8 = 26.21808
    assert rows[("p3", "on_demand", None)]["usd_per_hour"] == pytest.approx(21.5424)
    assert rows[("p3", "on_demand", None)]["whose_price"] == "own: 12% off on_demand list"
    assert rows[("p4d", "on_demand", None)]["usd_per_hour"] == pytest.approx(26.21808)
    assert rows[("p4d", "on_demand", None)]["whose_price"] == "own: 20% off on_demand list"
    # reserved all upfront, 10 % off: upfront 150,000 x 0.9 = 135,000; 17.123288 x 0.9 = 15.410959
    ri = rows[("p4d", "reserved", "all_upfront")]
    assert ri["upfront_usd"] == pytest.approx(135000.0) and ri["usd_per_hour"] == pytest.approx(15.410959, abs=1e-6)
    # spot is aws's, the discount gcp's: untouched and still a list price
    assert rows[("p4d", "spot", None)]["usd_per_hour"] == 9.8318
    assert rows[("p4d", "spot", None)]["whose_price"] == "list"


def test_break_even_share_and_runs_per_month_by_hand():
    frame = pl.DataFrame({"c": [17.123287671232877], "od": [32.7726], "h": [P4D_MIN / 60]})
    out = frame.select(break_even_share(pl.col("c"), pl.col("od")).alias("share"),
                       break_even_runs_per_month(pl.col("c"), pl.col("od"), pl.col("h")).alias("runs")).row(0)
    # 17.123288 / 32.7726 = 0.522488: the commitment pays off when the instance trains 52.2 % of its term
    assert out[0] == pytest.approx(0.522488, abs=1e-6)
    # 730 x 17.123288 / (32.7726 x 0.4795144 h) = 12,500.0 / 15.714932 = 795.42 runs a month
    assert out[1] == pytest.approx(795.42, abs=0.01)


def test_monthly_cost_and_cheapest_at_runs_per_month():
    # on demand 30 $/h, spot 10 $/h, 1-year commitment 20 $/h effective, 0.5 h per run
    assert monthly_cost("on_demand", 30.0, 0.5, 100) == pytest.approx(1500.0)  # 100 x 0.5 x 30
    assert monthly_cost("commitment_1y", 20.0, 0.5, 100) == pytest.approx(14600.0)  # 730 x 20, hours used or not
    assert monthly_cost("commitment_1y", 20.0, 0.5, 1460) == pytest.approx(14600.0)  # 730 h: one commitment
    assert monthly_cost("commitment_1y", 20.0, 0.5, 2000) == pytest.approx(29200.0)  # 1,000 h: two commitments
    options = {"on_demand": 30.0, "spot": 10.0, "commitment_1y": 20.0}
    assert cheapest_at(options, 0.5, 100) == ("spot", pytest.approx(500.0))
    without_spot = {"on_demand": 30.0, "commitment_1y": 20.0}
    # break-even: 730 x 20 / (30 x 0.5) = 973.3 runs; below on demand wins, above the commitment
    assert cheapest_at(without_spot, 0.5, 973) == ("on_demand", pytest.approx(14595.0))
    assert cheapest_at(without_spot, 0.5, 974) == ("commitment_1y", pytest.approx(14600.0))


def inputs(baseline_commitment=None):
    comparisons = pl.DataFrame({
        "comparison": ["c", "c"], "comparison_title": ["C", "C"], "position": [0, 1],
        "provider": ["aws", "aws"], "region": ["us-east-1"] * 2, "instance_type": ["p4d", "p3"],
        "benchmark": ["resnet"] * 2, "benchmark_position": [0, 0], "is_baseline": [False, True]})
    instances = pl.DataFrame({"provider": ["aws", "aws"], "instance_type": ["p4d", "p3"],
                              "accelerator": ["A100", "V100"], "accelerator_count": [8, 8]})
    mappings = pl.DataFrame({"provider": ["aws", "aws"], "instance_type": ["p4d", "p3"], "benchmark": ["resnet"] * 2,
                             "system": ["a", "b"], "note": [None, None]}, schema_overrides={"note": pl.Utf8})
    ttt = pl.DataFrame({"system": ["a", "b"], "benchmark": ["resnet"] * 2, "round": ["v1.0", "v0.7"],
                        "time_to_train_minutes": [P4D_MIN, P3_MIN], "runs": [5, 5], "dropped_runs": [2, 2],
                        "samples_per_second": [None, None]}, schema_overrides={"samples_per_second": pl.Float64})
    throughput = pl.DataFrame(schema={"system": pl.Utf8, "benchmark": pl.Utf8, "samples_per_second": pl.Float64})
    rows = [*P4D, price("p3", "on_demand", 24.48)]
    if baseline_commitment:
        rows.append(price("p3", "reserved", baseline_commitment, 1, "no_upfront", "standard", 0.0, baseline_commitment))
    options = ["on_demand", "spot", "commitment_1y", "commitment_3y"]
    return assemble_inputs(comparisons, instances, mappings, ttt, choose_options(book(*rows), options), throughput,
                           options)


def test_cost_per_pricing_option_and_savings_against_the_on_demand_baseline():
    out = cost_to_train(inputs())
    p4d = by_option(out.filter(pl.col("instance_type") == "p4d"))
    assert list(p4d) == ["on_demand", "spot", "commitment_1y", "commitment_3y"]
    # p3 has only an on-demand price: one row, no made-up spot or commitment rows
    assert out.filter(pl.col("instance_type") == "p3")["pricing_option"].to_list() == ["on_demand"]
    # on demand as before: 32.7726 x 28.770861 / 60 = 15.714932; baseline p3 24.48 x 71.278322 / 60 = 29.081555
    assert p4d["on_demand"]["cost_to_train_usd"] == pytest.approx(15.714932, abs=1e-6)
    assert p4d["on_demand"]["savings_pct"] == pytest.approx(45.9625, abs=1e-4)
    # 1-year commitment: 17.123288 x 28.770861 / 60 = 8.210862; savings 100 x (1 - 8.210862 / 29.081555) = 71.7661 %
    assert p4d["commitment_1y"]["cost_to_train_usd"] == pytest.approx(8.210862, abs=1e-6)
    assert p4d["commitment_1y"]["savings_pct"] == pytest.approx(71.7661, abs=1e-4)
    assert p4d["commitment_1y"]["baseline_cost_usd"] == pytest.approx(29.081555, abs=1e-6)
    assert p4d["commitment_1y"]["break_even_share"] == pytest.approx(0.522488, abs=1e-6)
    assert p4d["commitment_1y"]["break_even_runs_per_month"] == pytest.approx(795.42, abs=0.01)
    assert p4d["on_demand"]["break_even_share"] is None and p4d["spot"]["break_even_share"] is None
    # spot 9.8318 x 28.770861 / 60 = 4.714489: the cheapest option for p4d
    assert p4d["spot"]["cost_to_train_usd"] == pytest.approx(4.714489, abs=1e-6)
    assert [o for o, r in p4d.items() if r["cheapest_option"]] == ["spot"]
    # USD per accelerator-hour: 32.7726 / 8 = 4.096575
    assert p4d["on_demand"]["usd_per_accelerator_hour"] == pytest.approx(4.096575)
    assert p4d["on_demand"]["whose_price"] == "list" and p4d["on_demand"]["pricing_model"] == "on_demand"
    assert p4d["commitment_1y"]["upfront_usd"] == 150000.0 and p4d["commitment_1y"]["term_years"] == 1
    assert out.columns[:len(EXPORT_COLUMNS) + len(OPTION_EXPORT_COLUMNS)] == EXPORT_COLUMNS + OPTION_EXPORT_COLUMNS


def test_savings_against_the_baseline_at_its_own_pricing():
    # baseline p3 on a 1-year commitment at 15 $/h: 15 x 71.278322 / 60 = 17.819581
    out = cost_to_train(inputs(baseline_commitment=15.0), baseline_pricing="commitment_1y")
    p4d = by_option(out.filter(pl.col("instance_type") == "p4d"))
    # p4d on demand against it: 100 x (1 - 15.714932 / 17.819581) = 11.8109 %
    assert p4d["on_demand"]["savings_pct"] == pytest.approx(11.8109, abs=1e-4)
    # p4d 1-year commitment: 100 x (1 - 8.210862 / 17.819581) = 53.9222 %
    assert p4d["commitment_1y"]["savings_pct"] == pytest.approx(100 * (1 - 8.210862 / 17.819581), abs=1e-4)
    assert p4d["commitment_1y"]["savings_pct"] == pytest.approx(53.9222, abs=1e-4)
    base = by_option(out.filter(pl.col("instance_type") == "p3"))
    assert base["commitment_1y"]["savings_pct"] == pytest.approx(0.0)
    # the baseline's on-demand row: 100 x (1 - 29.081555 / 17.819581) = -63.2000 %: dearer than its baseline pricing
    assert base["on_demand"]["savings_pct"] == pytest.approx(-63.2000, abs=1e-4)


def test_options_table_marks_approximate_spot_and_its_interruption_bucket():
    from pipelines.publish.numbering import Numbering
    from pipelines.domain.report_settings import ReportSettings
    from pipelines.publish.report_pricing import pricing_tables

    base = {"comparison": "c", "benchmark": "resnet", "position": 0, "provider": "aws", "region": "us-east-1",
            "instance_type": "p4d", "is_baseline": True, "time_to_train_minutes": 30.0, "price_as_of": date(2026, 5, 18),
            "price_source": "s", "whose_price": "list", "stale": False, "price_age_days": 0, "upfront_usd": None,
            "interruption_frequency": None, "certainty": "exact", "term_years": None, "payment_option": None,
            "offering_class": None, "break_even_share": None, "break_even_runs_per_month": None}
    rows = [
        {**base, "pricing_option": "on_demand", "pricing_model": "on_demand", "usd_per_hour": 20.0,
         "cost_to_train_usd": 10.0},
        {**base, "pricing_option": "spot", "pricing_model": "spot", "usd_per_hour": 8.0, "cost_to_train_usd": 4.0,
         "certainty": "approximate", "interruption_frequency": "<5%"},
    ]
    cheapest = cheapest_options(pl.DataFrame(rows), ("on_demand", "spot"), (10,)).to_dicts()
    tables = pricing_tables("ResNet-50", rows, ReportSettings(pricing_models=("on_demand", "spot"), runs_per_month=(10,)), Numbering(),
                            cheapest=cheapest)
    spot = tables.options.rows[0].cells[2]
    assert spot.text == "$4.00" and spot.strong  # 8 $/h x 0.5 h, the cheapest
    assert spot.subs == ("≈ $8.0000/h", "interrupted <5%")
    assert "Approximate" in spot.note.text and "Spot interruption frequency: <5%" in spot.note.text
    assert tables.options.rows[0].cells[-1].text == "Spot"
    assert "restart from its last checkpoint" in tables.spot_note
    assert tables.break_even is None  # no commitment: no break-even table
    assert tables.cheapest == "AWS p4d (spot) at $4.00"


def test_cheapest_options_per_instance_for_one_run_and_at_runs_a_month():
    """The cheapest_options mart: the one place the cheapest option is chosen (publish only shows it)."""
    def row(position, instance, option, rate, cost):
        return {"comparison": "c", "benchmark": "resnet", "position": position, "provider": "aws",
                "region": "us-east-1", "instance_type": instance, "pricing_option": option, "usd_per_hour": rate,
                "cost_to_train_usd": cost, "time_to_train_minutes": 30.0}
    cost = pl.DataFrame([
        row(0, "a", "on_demand", 20.0, 10.0), row(0, "a", "spot", 8.0, 4.0), row(0, "a", "commitment_1y", 8.0, 4.0),
        row(1, "b", "on_demand", 6.0, 3.0), row(1, "b", "commitment_1y", None, None),
    ])
    out = cheapest_options(cost, ("on_demand", "commitment_1y", "spot"), (1, 2000))
    picks = {(r["instance_type"], r["runs_per_month"]): (r["pricing_option"], r["cost_usd"], r["cheapest_of_benchmark"])
             for r in out.iter_rows(named=True)}
    # one run: a's commitment and spot tie at $4.00, report.toml lists the commitment first; b is cheaper still
    assert picks[("a", None)] == ("commitment_1y", 4.0, False)
    assert picks[("b", None)] == ("on_demand", 3.0, True)
    # a month of runs (0.5 h each): 1 run on spot 8 x 0.5 = $4 (a commitment bills 730 h); 2,000 runs = 1,000 h:
    # on demand 20,000, spot 8,000, a commitment 2 x 730 x 8 = 11,680
    assert picks[("a", 1)] == ("spot", pytest.approx(4.0), False)
    assert picks[("a", 2000)] == ("spot", pytest.approx(8000.0), False)
    assert picks[("b", 1)] == ("on_demand", pytest.approx(3.0), False)  # no commitment price: not a choice
    # without on demand among report.toml's options its rows are never picked
    assert set(cheapest_options(cost, ("spot",), ())["pricing_option"].to_list()) == {"spot", None}


def test_a_price_naming_no_pricing_model_is_on_demand_in_its_offer_kind_and_its_note():
    """domain.pricing.pricing_model_of: the reader, the offer kind and the report's notes read a missing model alike."""
    from pipelines.domain.offers import offer_kind_expr
    from pipelines.publish.report_pricing import option_words, price_line_key

    row = {"provider": "aws", "region": "us-east-1", "instance_type": "p4d", "pricing_model": None, "term_years": None,
           "payment_option": None, "offering_class": None, "price_as_of": date(2025, 6, 1)}
    assert option_words(row) == "on demand"
    assert price_line_key(row) == price_line_key({**row, "pricing_model": "on_demand"})  # the price book's row
    frame = pl.DataFrame({"offer_kind": [None], "pricing_model": [None]}, schema={"offer_kind": pl.Utf8,
                                                                                 "pricing_model": pl.Utf8})
    assert frame.select(offer_kind_expr())["offer_kind"].to_list() == ["list"]
