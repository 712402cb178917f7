"""Scale-aware cost of the atlas (pipelines/metrics/atlas.py) against figures computed by hand."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from pipelines.metrics import atlas


def _scores(rows: list[tuple]) -> pl.DataFrame:
    """rows: (round, folder, system, benchmark, minutes)."""
    return pl.DataFrame(
        [{"round": r, "submitter": f, "system": s, "benchmark": b, "runs": 5, "dropped_runs": 0,
          "time_to_train_minutes": m, "reason": None if m is not None else "3 result files; resnet requires 5",
          "scaling_factor": 1.0, "benchmark_model": b, "folder": f, "benchmark_path": f"{f}/{s}/{b}", "quirk": None}
         for r, f, s, b, m in rows])


def _systems(rows: list[tuple]) -> pl.DataFrame:
    """rows: (round, folder, system, nodes, per_node, accelerator_model, cloud_model, status_class)."""
    return pl.DataFrame(
        [{"round": r, "folder": f, "system": s, "system_name": s, "division": "closed", "status": st,
          "status_class": st, "number_of_nodes": n, "accelerators_per_node": k, "accelerators_total": n * k,
          "accelerator_model_name": model, "accelerator_model": model, "cloud_model": cloud, "assumption": None,
          "problem": None} for r, f, s, n, k, model, cloud, st in rows])


INSTANCES = pl.DataFrame({
    "provider": ["aws", "azure", "gcp"], "instance_type": ["p4de.24xlarge", "Standard_ND96amsr_A100_v4", "tpu-v4"],
    "accelerator_model": ["A100-SXM-80GB", "A100-SXM-80GB", "TPU-v4"], "accelerator_count": [8, 8, 1],
    "billing": ["instance", "instance", "chip"], "notes": [None, None, None],
})
PRICES = pl.DataFrame({
    "provider": ["aws", "aws", "azure", "gcp"],
    "instance_type": ["p4de.24xlarge", "p4de.24xlarge", "Standard_ND96amsr_A100_v4", "tpu-v4"],
    "region": ["us-east-1", "us-east-1", "eastus", "us-central2"],
    "usd_per_hour": [50.0, 40.0, 32.77, 3.22],
    "as_of": [date(2022, 1, 1), date(2024, 1, 1), date(2024, 1, 1), date(2024, 1, 1)],
    "certainty": ["exact", "approximate", "approximate", "approximate"],
    "source": ["a", "b", "c", "d"],
})


@pytest.fixture(scope="module")
def ranked():
    scores = _scores([
        ("v2.0", "Acme", "multi_node", "resnet", 90.0),    # 3 nodes x 4 = 12 A100s, 90 minutes
        ("v2.0", "Acme", "one_node", "resnet", 100.0),     # 1 x 8 A100s, 100 minutes
        ("v2.0", "Google", "tpu_pod", "resnet", 30.0),     # 64 hosts x 4 = 256 TPU v4 chips, 30 minutes
        ("v2.0", "Acme", "short", "resnet", None),         # not scored
        ("v2.0", "Ipu", "ipu", "resnet", 20.0),            # no cloud has it
    ])
    systems = _systems([
        ("v2.0", "Acme", "multi_node", 3, 4, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise"),
        ("v2.0", "Acme", "one_node", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise"),
        ("v2.0", "Google", "tpu_pod", 64, 4, "TPU v4", "TPU-v4", "cloud"),
        ("v2.0", "Acme", "short", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise"),
        ("v2.0", "Ipu", "ipu", 1, 16, "Graphcore IPU GC200", None, "on-premise"),
    ])
    entries = atlas.entries(scores, systems)
    in_force = atlas.prices_in_force(PRICES, date(2025, 6, 1))
    return entries, atlas.rank(atlas.price_results(entries, INSTANCES, in_force))


def _pair(ranked_frame: pl.DataFrame, system: str, instance: str) -> dict:
    rows = ranked_frame.filter((pl.col("system") == system) & (pl.col("instance_type") == instance))
    assert rows.height == 1
    return rows.row(0, named=True)


def test_multi_node_result_needs_whole_instances(ranked):
    _, frame = ranked
    row = _pair(frame, "multi_node", "p4de.24xlarge")
    # 12 accelerators on 8-GPU instances: ceil(12 / 8) = 2 instances, 4 GPUs idle; newest price 40.0
    assert (row["accelerators_total"], row["instances_needed"], row["idle_accelerators"]) == (12, 2, 4)
    assert row["usd_per_hour"] == 40.0 and row["price_as_of"] == date(2024, 1, 1)
    assert row["cost_to_train_usd"] == pytest.approx(2 * 40.0 * 1.5)           # 120.00
    assert row["accelerator_hours"] == pytest.approx(12 * 1.5)                  # 18.0
    assert row["usd_per_accelerator_hour"] == pytest.approx(120.0 / 18.0)       # 6.667 > 40 / 8 = 5.0
    azure = _pair(frame, "multi_node", "Standard_ND96amsr_A100_v4")
    assert azure["cost_to_train_usd"] == pytest.approx(2 * 32.77 * 1.5)         # 98.31


def test_per_chip_billing_prices_every_chip(ranked):
    _, frame = ranked
    row = _pair(frame, "tpu_pod", "tpu-v4")
    assert (row["instances_needed"], row["idle_accelerators"]) == (256, 0)
    assert row["cost_to_train_usd"] == pytest.approx(256 * 3.22 * 0.5)          # 412.16
    assert row["usd_per_accelerator_hour"] == pytest.approx(3.22)
    assert row["price_basis"] == "same cloud"  # Google's cloud result priced on GCP


def test_on_premise_results_are_estimates(ranked):
    _, frame = ranked
    assert _pair(frame, "one_node", "p4de.24xlarge")["price_basis"].startswith("estimate: result not measured in the cloud")


def test_ranks_cheapest_per_accelerator_fastest_and_front(ranked):
    _, frame = ranked
    # costs: multi_node azure 98.31, aws 120.00; one_node azure 8 GPUs x 1 instance: 32.77 x 100/60 = 54.617,
    # aws 40 x 100/60 = 66.667; tpu_pod 412.16
    order = frame.select("system", "instance_type", "cost_rank").rows()
    assert order == [
        ("one_node", "Standard_ND96amsr_A100_v4", 1), ("one_node", "p4de.24xlarge", 2),
        ("multi_node", "Standard_ND96amsr_A100_v4", 3), ("multi_node", "p4de.24xlarge", 4), ("tpu_pod", "tpu-v4", 5),
    ]
    cheapest = frame.filter(pl.col("cheapest_for_accelerator")).select("system", "instance_type").rows()
    assert cheapest == [("one_node", "Standard_ND96amsr_A100_v4"), ("tpu_pod", "tpu-v4")]
    assert set(frame.filter(pl.col("fastest"))["system"]) == {"tpu_pod"}  # 30 minutes
    # front: tpu_pod (fastest, 30 min), one_node on Azure (cheapest, 100 min) and multi_node on Azure
    # (90 min at 98.31: only tpu_pod is faster and it costs more); the AWS rows are beaten by Azure's
    front = frame.filter(pl.col("on_pareto_front")).select("system", "instance_type").rows()
    assert sorted(front) == [("multi_node", "Standard_ND96amsr_A100_v4"), ("one_node", "Standard_ND96amsr_A100_v4"),
                             ("tpu_pod", "tpu-v4")]


def test_divisions_are_ranked_apart_closed_first():
    """v0.7 Fujitsu's open-division V100 result once ranked 7th among closed ones and was tagged the
    cheapest of its accelerator: an open result never outranks or outshines a closed one."""
    scores = _scores([("v2.0", "Acme", "closed_a", "resnet", 100.0), ("v2.0", "Acme", "closed_b", "resnet", 50.0),
                      ("v2.0", "Open", "open_a", "resnet", 10.0)])
    systems = _systems([("v2.0", "Acme", "closed_a", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise"),
                        ("v2.0", "Acme", "closed_b", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise"),
                        ("v2.0", "Open", "open_a", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise")])
    systems = systems.with_columns(pl.when(pl.col("system") == "open_a").then(pl.lit("open"))
                                   .otherwise(pl.col("division")).alias("division"))
    one = INSTANCES.filter(pl.col("provider") == "aws")
    frame = atlas.rank(atlas.price_results(atlas.entries(scores, systems), one,
                                           atlas.prices_in_force(PRICES, date(2025, 6, 1))))
    # one p4de at 40 USD/h: closed_b 33.33, closed_a 66.67; open_a 6.67 but in its own division
    assert frame.select("division", "system", "cost_rank", "cheapest_for_accelerator", "fastest").rows() == [
        ("closed", "closed_b", 1, True, True), ("closed", "closed_a", 2, False, False),
        ("open", "open_a", 1, True, True)]
    trend = atlas.trend(frame)  # closed only: 40 x 50/60
    assert trend.select("system", "cheapest_cost_usd").rows() == [("closed_b", pytest.approx(40 * 50 / 60))]


def test_entries_that_cannot_be_priced_say_why(ranked):
    entries, frame = ranked
    why = dict(entries.select("system", "not_priced_because").rows())
    assert why["short"].startswith("not scored: 3 result files")
    assert why["ipu"] == "no price list or catalog in the price book sells Graphcore IPU GC200"
    assert why["multi_node"] is None
    assert "short" not in frame["system"].to_list() and "ipu" not in frame["system"].to_list()


def test_trend_keeps_the_cheapest_per_round_and_its_change(ranked):
    _, frame = ranked
    later = frame.with_columns(pl.lit("v2.1").alias("round"), pl.col("cost_to_train_usd") * 0.5)
    trend = atlas.trend(pl.concat([frame, later]))
    assert trend.select("round", "system", "instance_type").rows() == [
        ("v2.0", "one_node", "Standard_ND96amsr_A100_v4"), ("v2.1", "one_node", "Standard_ND96amsr_A100_v4")]
    assert trend["cheapest_cost_usd"].to_list() == pytest.approx([32.77 * 100 / 60, 32.77 * 100 / 60 * 0.5])
    assert trend["change_pct"].to_list()[1] == pytest.approx(-50.0)


def test_trend_says_the_change_since_the_first_priced_round(ranked):
    _, frame = ranked
    rounds = [frame.with_columns(pl.lit(r).alias("round"), pl.col("cost_to_train_usd") * f)
              for r, f in (("v3.0", 0.25), ("v2.1", 0.5))]
    trend = atlas.trend(pl.concat([frame, *rounds]))
    assert trend["round"].to_list() == ["v2.0", "v2.1", "v3.0"]
    assert trend["change_pct"].to_list()[1:] == pytest.approx([-50.0, -50.0])  # each against the round before
    assert trend["change_since_first_pct"].to_list() == pytest.approx([0.0, -50.0, -75.0])  # against v2.0


def test_prices_in_force_ignore_later_snapshots():
    in_force = atlas.prices_in_force(PRICES, date(2023, 1, 1))
    assert in_force.select("instance_type", "usd_per_hour").rows() == [("p4de.24xlarge", 50.0)]


def test_round_tables_rank_each_division_apart_and_say_so():
    """The round's table lists the closed division's results ranked 1, 2, ... then the open ones from 1
    again, tagged; the section's words are about the closed division."""
    from pipelines.publish.atlas_rounds import best_per_result, model_section
    from pipelines.publish.numbering import Numbering
    from pipelines.publish.palette import Palette

    scores = _scores([("v2.0", "Acme", "closed_a", "resnet", 100.0), ("v2.0", "Acme", "closed_b", "resnet", 50.0),
                      ("v2.0", "Open", "open_a", "resnet", 10.0)])
    systems = _systems([("v2.0", "Acme", s, 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise")
                        for s in ("closed_a", "closed_b")] +
                       [("v2.0", "Open", "open_a", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise")])
    systems = systems.with_columns(pl.when(pl.col("system") == "open_a").then(pl.lit("open"))
                                   .otherwise(pl.col("division")).alias("division"))
    frame = atlas.rank(atlas.price_results(atlas.entries(scores, systems), INSTANCES.filter(pl.col("provider") == "aws"),
                                           atlas.prices_in_force(PRICES, date(2025, 6, 1))))
    frame = frame.with_columns(pl.lit(None, pl.Utf8).alias("quirk"))
    assert [(r["system"], r["result_rank"]) for r in best_per_result(frame)] == [
        ("closed_b", 1), ("closed_a", 2), ("open_a", 1)]
    section = model_section("3.1", "v2.0", "resnet", frame, Numbering(), Palette(["A100-SXM-80GB"]))
    assert section.cheapest.system == "closed_b" and section.open_results == 1 and section.division == "closed"
    assert "closed division first, open division ranked apart" in section.table.caption
    ranks = [(row.cells[0].text, any(t.text == "open division" for t in row.cells[1].tags)) for row in section.table.rows]
    assert ranks == [("1", False), ("2", False), ("1", True)]


def test_an_entry_of_unknown_division_is_priced_but_ranked_against_neither_division():
    """v0.7 Tencent GN10X: its systems JSON spells the field "divison" and its name says nothing. It is
    priced like any result but takes no rank or tag from the closed results it would otherwise beat."""
    from pipelines.publish.atlas_rounds import best_per_result, model_section
    from pipelines.publish.numbering import Numbering
    from pipelines.publish.palette import Palette

    scores = _scores([("v2.0", "Acme", "closed_a", "resnet", 100.0), ("v2.0", "Acme", "closed_b", "resnet", 50.0),
                      ("v2.0", "Nodiv", "nodiv", "resnet", 10.0)])
    systems = _systems([("v2.0", f, s, 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise")
                        for f, s in (("Acme", "closed_a"), ("Acme", "closed_b"), ("Nodiv", "nodiv"))])
    systems = systems.with_columns(pl.when(pl.col("system") == "nodiv").then(pl.lit(None, pl.Utf8))
                                   .otherwise(pl.col("division")).alias("division"))
    frame = atlas.rank(atlas.price_results(atlas.entries(scores, systems), INSTANCES.filter(pl.col("provider") == "aws"),
                                           atlas.prices_in_force(PRICES, date(2025, 6, 1))))
    # one p4de at 40 USD/h: nodiv 6.67 USD, priced; closed_b 33.33 is still the closed division's first
    assert frame.select("division", "system", "cost_to_train_usd", "cost_rank", "cheapest_for_accelerator", "fastest",
                        "on_pareto_front").rows() == [
        ("closed", "closed_b", pytest.approx(40 * 50 / 60), 1, True, True, True),
        ("closed", "closed_a", pytest.approx(40 * 100 / 60), 2, False, False, False),
        (None, "nodiv", pytest.approx(40 * 10 / 60), None, None, None, None)]
    frame = frame.with_columns(pl.lit(None, pl.Utf8).alias("quirk"))
    assert [(r["system"], r["result_rank"]) for r in best_per_result(frame)] == [
        ("closed_b", 1), ("closed_a", 2), ("nodiv", None)]
    section = model_section("3.1", "v2.0", "resnet", frame, Numbering(), Palette(["A100-SXM-80GB"]))
    assert section.cheapest.system == "closed_b" and section.unranked_results == 1
    assert "1 of unknown division last, unranked" in section.table.caption
    last = section.table.rows[-1]
    assert last.cells[0].text == "–" and [t.text for t in last.cells[1].tags] == ["estimate", "division unknown"]
    assert "Division unknown: its systems JSON gives no division" in last.cells[1].note.text
    # the chart draws the two ranked results only, and says so
    assert section.figure is not None and "Not drawn: 1 result(s) of unknown division" in section.figure.caption


def test_the_pdf_digest_lists_fewer_rows_and_no_model_charts():
    """The web edition lists the 10 cheapest and every tagged result with a chart per model; the PDF's
    digest the 3 cheapest of each division, without the chart."""
    from pipelines.publish.atlas_rounds import DIGEST, WEB, model_section
    from pipelines.publish.numbering import Numbering
    from pipelines.publish.palette import Palette

    rows = [("v2.0", "Acme", f"sys_{i:02d}", "resnet", 100.0 + i) for i in range(12)]
    scores = _scores(rows)
    systems = _systems([(r, f, s, 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise") for r, f, s, _, _ in rows])
    frame = atlas.rank(atlas.price_results(atlas.entries(scores, systems), INSTANCES.filter(pl.col("provider") == "aws"),
                                           atlas.prices_in_force(PRICES, date(2025, 6, 1))))
    frame = frame.with_columns(pl.lit(None, pl.Utf8).alias("quirk"))
    web = model_section("3.1", "v2.0", "resnet", frame, Numbering(), Palette(["A100-SXM-80GB"]), WEB)
    digest = model_section("3.1", "v2.0", "resnet", frame, Numbering(), Palette(["A100-SXM-80GB"]), DIGEST)
    # one instance, 12 results, one accelerator: the cheapest (sys_00) is also the cheapest A100 and fastest
    assert [row.cells[0].text for row in web.table.rows] == [str(i) for i in range(1, 11)]
    assert [row.cells[0].text for row in digest.table.rows] == ["1", "2", "3"]
    assert web.figure is not None and digest.figure is None
    assert "the 3 cheapest or tagged of 12" in digest.table.caption


def test_the_cheapest_way_to_pay_prefers_on_demand_on_a_tie_and_keeps_report_order():
    pairs = pl.DataFrame({"round": ["v2.0"] * 2, "folder": ["A"] * 2, "system": ["s", "t"], "benchmark": ["resnet"] * 2,
                          "provider": ["aws"] * 2, "instance_type": ["p"] * 2, "usd_per_hour": [10.0, 10.0],
                          "cost_to_train_usd": [5.0, 5.0]})
    options = pl.DataFrame({"round": ["v2.0"] * 3, "folder": ["A"] * 3, "system": ["s", "t", "t"],
                            "benchmark": ["resnet"] * 3, "provider": ["aws"] * 3, "instance_type": ["p"] * 3,
                            "pricing_option": ["spot", "commitment_1y", "commitment_3y"], "option_position": [1, 2, 3],
                            "usd_per_hour": [10.0, 4.0, 4.0], "cost_to_train_usd": [5.0, 2.0, 2.0]})
    best = atlas.with_cheapest_option(pairs, options)
    # s: spot costs what on demand costs -> on demand; t: both commitments at 2.0 -> the one listed first
    assert best.select("system", "cheapest_option", "cheapest_option_cost_usd").rows() == [
        ("s", "on_demand", 5.0), ("t", "commitment_1y", 2.0)]


def test_tied_entries_come_in_one_order_whatever_the_input_order():
    # one system submitted from three folders with the same time (v4.0's smc, smc-ac-power, smc-dc-power):
    # the atlas lists them by folder in every build, so the same inputs give the same tables and pages
    from pipelines.publish.atlas_rounds import best_per_result

    folders = ["smc-dc-power", "smc", "smc-ac-power"]
    scores = _scores([("v4.0", f, "64xSMC", "resnet", 56.9) for f in folders]).with_columns(
        pl.lit("Sustainable Metal Cloud").alias("submitter"))  # one submitter's name in all three
    systems = _systems([("v4.0", f, "64xSMC", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "cloud") for f in folders])
    in_force = atlas.prices_in_force(PRICES, date(2025, 6, 1))
    priced = atlas.price_results(atlas.entries(scores, systems), INSTANCES, in_force)
    orders = set()
    for seed in range(6):  # rows arrive in any order (parallel joins and reads do that to big frames)
        frame = atlas.rank(priced.sample(fraction=1.0, shuffle=True, seed=seed))
        assert frame["cost_rank"].to_list() == [1, 1, 1, 4, 4, 4]  # azure's 32.77 ties three ways, then aws's 40.0
        best = best_per_result(frame.sample(fraction=1.0, shuffle=True, seed=seed + 100)
                               .with_columns(pl.lit("closed").alias("division")))
        orders.add((tuple(frame["folder"]), tuple(r["folder"] for r in best)))
    assert orders == {(("smc", "smc-ac-power", "smc-dc-power") * 2, ("smc", "smc-ac-power", "smc-dc-power"))}


def test_a_cloud_model_no_priced_offer_carries_is_named(ranked):
    entries, _ = ranked
    scores = _scores([("v5.1", "Amd", "mi325", "llama2_70b_lora", 20.0)])
    systems = _systems([("v5.1", "Amd", "mi325", 1, 8, "MI325X", "MI325X", "on-premise")])
    # a cloud model the accelerator catalog gives, but no priced offer carries: named, not silently dropped
    why = atlas.entries(scores, systems, offered=["A100-SXM-80GB", "TPU-v4"])["not_priced_because"].to_list()
    assert why == ["no price list or catalog in the price book sells MI325X"]
    assert atlas.entries(scores, systems, offered=["MI325X"])["not_priced_because"].to_list() == [None]


def test_multi_node_pairs_on_offers_without_a_fabric_are_flagged():
    scores = _scores([("v2.0", "Acme", "multi_node", "resnet", 90.0), ("v2.0", "Acme", "one_node", "resnet", 100.0)])
    systems = _systems([("v2.0", "Acme", "multi_node", 3, 4, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise"),
                        ("v2.0", "Acme", "one_node", 1, 8, "A100-SXM-80GB", "A100-SXM-80GB", "on-premise")])
    instances = INSTANCES.with_columns(pl.when(pl.col("provider") == "aws").then(pl.lit("EFA")).alias("fabric"))
    prices = atlas.prices_in_force(PRICES, date(2025, 6, 1)).with_columns(
        pl.when(pl.col("provider") == "azure").then(pl.lit("marketplace")).otherwise(pl.lit("list")).alias("offer_kind"))
    frame = atlas.price_results(atlas.entries(scores, systems), instances, prices)
    got = {(r["system"], r["provider"]): (r["instances_needed"], r["cluster_flag"], r["offer_kind"])
           for r in frame.to_dicts()}
    # 12 A100s need 2 instances of 8: on Azure (no fabric stated) flagged, on AWS (EFA) not; one node never
    assert got == {("multi_node", "aws"): (2, None, "list"),
                   ("multi_node", "azure"): (2, "multi-node: no inter-node fabric stated for this offer", "marketplace"),
                   ("one_node", "aws"): (1, None, "list"), ("one_node", "azure"): (1, None, "marketplace")}
