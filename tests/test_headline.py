"""What may headline (pipelines/domain/offers.in_headline, the one expression) and the spot age rule
(pipelines/metrics/price_age.py: a spot price older than report.toml spot_stale_after_days is no current price),
on hand-made offers; every expected figure is worked out from the rows in the comments."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from pipelines.domain.best import with_rank
from pipelines.domain.offers import HEADLINE_DEFAULT, headline_rows, in_headline, in_market, stale_spot
from pipelines.metrics.price_age import with_price_age

ON = date(2026, 12, 7)


def _offers() -> pl.DataFrame:
    """One training run priced five ways; cost = usd_per_hour x 1 hour."""
    return pl.DataFrame({
        "provider": ["aws", "aws", "nebius", "mithril", "lambda"],
        "instance_type": ["p5", "p5", "h100x8", "h100x8", "h100x8"],
        "region": ["us-east-1"] * 5,
        "pricing_model": ["spot", "on_demand", "spot", "on_demand", "on_demand"],
        "offer_kind": ["spot", "list", "spot", "auction", "list"],
        "price_as_of": [date(2026, 5, 18), date(2025, 6, 1), date(2026, 12, 4), ON, ON],
        "cost_to_train_usd": [5.0, 10.0, 12.0, 1.0, 20.0],
        "time_to_train_minutes": [60.0] * 5,
    })


def test_a_spot_price_is_stale_after_spot_stale_after_days_a_list_price_after_stale_after_days():
    out = with_price_age(_offers(), ON, 365, spot_stale_after_days=7)
    # ages: 2026-05-18 -> 2026-12-07 = 13 + 30 + 31 + 31 + 30 + 31 + 30 + 7 = 203 days; 2025-06-01 -> 2026-06-01 =
    # 365, + 30 + 31 + 31 + 30 + 31 + 30 + 6 = 554; 2026-12-04 -> 3; the others 0
    assert out["price_age_days"].to_list() == [203, 554, 3, 0, 0]
    # spot: 203 > 7 stale, 3 not; the list price 554 > 365 stale (marked, still a price one can buy at)
    assert out["stale"].to_list() == [True, True, False, False, False]
    at_seven = with_price_age(_offers().with_columns(pl.lit(date(2026, 11, 30)).alias("price_as_of")), ON, 365,
                              spot_stale_after_days=7)
    assert at_seven["stale"].to_list()[0] is False  # 7 days: not more than 7
    at_eight = with_price_age(_offers().with_columns(pl.lit(date(2026, 11, 29)).alias("price_as_of")), ON, 365,
                              spot_stale_after_days=7)
    assert at_eight["stale"].to_list() == [True, False, True, False, False]  # 8 days: only the spot prices


def test_in_headline_is_the_kinds_less_a_stale_spot_price():
    aged = with_price_age(_offers(), ON, 365, spot_stale_after_days=7)
    keep = aged.select(in_headline(HEADLINE_DEFAULT, aged.columns).alias("k"))["k"].to_list()
    # the stale spot (203 d) out, the stale list price in, the fresh spot in, the auction out, the list price in
    assert keep == [False, True, True, False, True]
    market = aged.select(in_market(HEADLINE_DEFAULT, aged.columns).alias("m"))["m"].to_list()
    assert market == [False, False, False, True, False]  # a stale spot price is not the market column's either
    # a frame never aged (no `stale`) and one without offer kinds: kinds only, a missing kind is a list price
    plain = _offers().select(in_headline(HEADLINE_DEFAULT, _offers().columns).alias("k"))["k"].to_list()
    assert plain == [True, True, True, False, True]
    bare = pl.DataFrame({"x": [1]})
    assert bare.select(in_headline(("spot",), bare.columns).alias("k"))["k"].to_list() == [False]
    assert headline_rows([{"offer_kind": "spot", "stale": True}, {"offer_kind": None}, {"offer_kind": "spot"}]) == [
        {"offer_kind": None}, {"offer_kind": "spot"}]


def test_a_stale_spot_price_ranks_after_every_headline_offer():
    aged = with_price_age(_offers(), ON, 365, spot_stale_after_days=7)
    ranked = with_rank(aged, [], "cost", "rank", HEADLINE_DEFAULT)
    got = dict(zip(zip(ranked["provider"], ranked["offer_kind"]), ranked["rank"]))
    # headline by cost: aws list $10 (1), nebius spot $12 (2), lambda list $20 (3); then the rest by cost:
    # mithril's auction $1 (4), aws's 203-day spot $5 (5)
    assert got == {("aws", "list"): 1, ("nebius", "spot"): 2, ("lambda", "list"): 3, ("mithril", "auction"): 4,
                   ("aws", "spot"): 5}
    # fresh (2026-12-04 for all): the $5 spot is cheapest
    fresh = with_price_age(_offers().with_columns(pl.lit(date(2026, 12, 4)).alias("price_as_of")), ON, 365)
    assert with_rank(fresh, [], "cost", "rank", HEADLINE_DEFAULT).filter(pl.col("rank") == 1)["cost_to_train_usd"][0] == 5.0


def test_the_tables_label_a_stale_spot_price():
    from pipelines.publish.report_pricing import price_subs, price_tags

    old_spot = {"pricing_model": "spot", "stale": True, "price_age_days": 203}
    (tag,) = price_tags(old_spot)
    assert (tag.text, tag.title) == ("stale", "spot, 203 days old: not a current price")
    assert price_subs(old_spot) == (stale_spot(203),) == ("spot, 203 days old: not a current price",)  # under it
    old_list = {"pricing_model": "on_demand", "stale": True, "price_age_days": 554}
    (tag,) = price_tags(old_list)
    assert tag.text == "stale" and tag.title == "price 554 days old at the price date" and price_subs(old_list) == ()
    fresh_spot = {"pricing_model": "spot", "stale": False, "price_age_days": 3}
    assert price_tags(fresh_spot) == () == price_subs(fresh_spot)


def test_the_chapters_fastest_is_never_a_stale_spot_price():
    from pipelines.publish.report_sections import fastest_of

    from pipelines.metrics.cost import with_time_rank

    aged = (with_price_age(_offers(), ON, 365, spot_stale_after_days=7)
            .with_columns(pl.Series("time_to_train_minutes", [30.0, 60.0, 45.0, 20.0, 60.0]),
                          pl.lit(0).alias("option_position"), pl.lit("c").alias("comparison")))
    rows = with_time_rank(aged, ["comparison"], HEADLINE_DEFAULT).to_dicts()  # the cost_to_train mart's rank
    # by time: mithril 20 min (auction: out), aws spot 30 min (stale: out), nebius spot 45 min (fresh: the fastest)
    fastest = fastest_of(rows, HEADLINE_DEFAULT)
    assert (fastest["provider"], fastest["time_to_train_minutes"], fastest["tied"]) == ("nebius", 45.0, 1)


def test_the_answer_never_names_a_stale_spot_price_cheapest():
    from pipelines.metrics.cheapest_offers import cheapest_offers
    from pipelines.metrics.cost import cost_to_train

    def rows(spot_as_of: date) -> pl.DataFrame:
        # a list instance (on demand $20/h) with a spot price $4/h, and a second instance on demand only ($30/h);
        # both train in 30 minutes: on demand $10 and $15, spot $2
        out = []
        for position, (instance, options) in enumerate((("a", {"on_demand": 20.0, "spot": 4.0}),
                                                        ("b", {"on_demand": 30.0}))):
            for option, usd in options.items():
                out.append({"comparison": "c", "comparison_title": "C", "benchmark": "bert", "benchmark_position": 0,
                            "position": position, "provider": "aws", "region": "us-east-1", "instance_type": instance,
                            "is_baseline": instance == "b", "pricing_option": option,
                            "option_position": ["on_demand", "spot"].index(option), "pricing_model": option,
                            "offer_kind": "spot" if option == "spot" else "list", "usd_per_hour": usd,
                            "time_to_train_minutes": 30.0, "accelerator_count": 8, "accelerator": "H100",
                            "system": "s", "samples_per_second": None,
                            "price_as_of": spot_as_of if option == "spot" else ON})
        return with_price_age(pl.DataFrame(out), ON, 365, spot_stale_after_days=7)

    (old,) = cheapest_offers(cost_to_train(rows(date(2026, 5, 18)))).to_dicts()  # spot 203 days old
    assert (old["cheapest_instance_type"], old["cheapest_pricing_option"], old["cheapest_cost_usd"]) == (
        "a", "on_demand", 10.0)  # 20 x 0.5; never the $2 spot run
    assert old["market_cost_usd"] is None  # nor shown as a market offer
    (fresh,) = cheapest_offers(cost_to_train(rows(date(2026, 12, 5)))).to_dicts()  # 2 days old
    assert (fresh["cheapest_pricing_option"], fresh["cheapest_cost_usd"], fresh["cheapest_price_age_days"]) == (
        "spot", pytest.approx(2.0), 2)  # 4 x 0.5
    assert fresh["cheapest_savings_pct"] == pytest.approx(100 * (1 - 2.0 / 15.0))  # against b on demand, 30 x 0.5


def test_the_atlas_cheapest_for_an_accelerator_is_never_a_stale_spot_price():
    from pipelines.metrics.atlas import rank, trend

    priced = with_price_age(_offers(), ON, 365, spot_stale_after_days=7).with_columns(
        pl.lit("v5.0").alias("round"), pl.lit("bert").alias("benchmark_model"), pl.lit("bert").alias("benchmark"),
        pl.lit("closed").alias("division"), pl.lit("H100-SXM-80GB").alias("accelerator_model"),
        pl.lit("S").alias("submitter"), pl.lit("sys").alias("system"), pl.lit(1).alias("instances_needed"))
    out = rank(priced, HEADLINE_DEFAULT)
    cheapest = out.filter(pl.col("cheapest_for_accelerator"))
    # the $5 spot price is 203 days old and the $1 bid an auction's: the $10 list price is the accelerator's cheapest
    assert cheapest.select("provider", "offer_kind", "cost_to_train_usd").rows() == [("aws", "list", 10.0)]
    assert trend(out, HEADLINE_DEFAULT)["cheapest_cost_usd"].to_list() == [10.0]


def test_a_described_model_s_pick_is_never_a_stale_spot_price():
    from pipelines.metrics.priced_offers import with_offer_ages

    estimates = pl.DataFrame({"provider": ["aws", "aws"], "region": ["us-east-1"] * 2, "instance_type": ["p5", "p5"],
                              "pricing_option": ["spot", "on_demand"], "offer_kind": ["spot", "list"],
                              "cost_usd": [500.0, 1000.0], "hours": [10.0, 10.0]})
    offers = with_price_age(estimates.select("provider", "region", "instance_type", "pricing_option", "offer_kind")
                            .with_columns(pl.Series("as_of", [date(2026, 5, 18), ON]),
                                          pl.Series("pricing_model", ["spot", "on_demand"])),
                            ON, 365, "as_of", spot_stale_after_days=7)
    aged = with_offer_ages(estimates, offers)
    assert aged.select("price_age_days", "stale").rows() == [(203, True), (0, False)]
    ranked = with_rank(aged, [], "cost", "rank", HEADLINE_DEFAULT, cost="cost_usd", time="hours")
    assert ranked.sort("rank")["pricing_option"].to_list() == ["on_demand", "spot"]  # $1,000 first, the $500 spot last


def test_a_stale_spot_price_is_no_instance_s_cheapest_option_and_a_market_offer_no_benchmark_s():
    from pipelines.metrics.pricing_options import cheapest_options

    def row(position, instance, option, kind, rate, stale):  # 30 minutes a run: cost = rate x 0.5
        return {"comparison": "c", "benchmark": "resnet", "position": position, "provider": "aws",
                "region": "us-east-1", "instance_type": instance, "pricing_option": option, "pricing_model": option,
                "offer_kind": kind, "usd_per_hour": rate, "cost_to_train_usd": rate * 0.5,
                "time_to_train_minutes": 30.0, "stale": stale}
    cost = pl.DataFrame([
        row(0, "a", "on_demand", "list", 20.0, False), row(0, "a", "spot", "spot", 6.0, True),  # spot 203 days old
        row(1, "m", "on_demand", "auction", 8.0, False),  # Mithril's bid: $4
        row(2, "b", "on_demand", "list", 16.0, False),
    ])
    out = cheapest_options(cost, ("on_demand", "spot"), (1,))
    picks = {(r["instance_type"], r["runs_per_month"]): (r["pricing_option"], r["cost_usd"], r["cheapest_of_benchmark"])
             for r in out.iter_rows(named=True)}
    # a: on demand $10 (the stale spot's $3 is no current price, for one run or a month of one run: 20 x 0.5 = $10)
    assert picks[("a", None)] == ("on_demand", 10.0, False) and picks[("a", 1)] == ("on_demand", pytest.approx(10.0), False)
    # the auction's $4 is its instance's only way to pay, never the benchmark's cheapest: b on demand 16 x 0.5 = $8
    assert picks[("m", None)] == ("on_demand", 4.0, False)
    assert picks[("b", None)] == ("on_demand", 8.0, True)
    fresh = cheapest_options(cost.with_columns(pl.lit(False).alias("stale")), ("on_demand", "spot"), ())
    assert fresh.filter(pl.col("cheapest_of_benchmark")).select("instance_type", "pricing_option", "cost_usd").rows() == [
        ("a", "spot", 3.0)]  # 6 x 0.5, when the spot price is current
