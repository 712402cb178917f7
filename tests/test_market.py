"""A whole_market comparison takes every priced offer with the accelerators of an instance it lists."""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.metrics.market import with_market

COMPARISONS = pl.DataFrame({
    "comparison": ["cg", "cg", "other"], "comparison_title": ["t", "t", "o"], "description": ["", "", ""],
    "position": [0, 0, 0], "provider": ["aws", "aws", "aws"], "region": ["us-east-1"] * 3,
    "instance_type": ["p5.48xlarge", "p5.48xlarge", "p5.48xlarge"], "benchmark": ["bert", "rgat", "bert"],
    "benchmark_position": [1, 2, 1], "is_baseline": [True, True, True], "whole_market": [True, True, False],
    "config_path": ["c"] * 3})
INSTANCES = pl.DataFrame({
    "provider": ["aws", "lambda", "lambda", "nebius", "oci"],
    "instance_type": ["p5.48xlarge", "gpu_8x_h100_sxm5", "gpu_1x_h100", "gpu-h100-sxm_8gpu", "BM.GPU.H100.8"],
    "accelerator_model": ["H100-SXM-80GB"] * 4 + ["H100-SXM-80GB"], "accelerator_count": [8, 8, 1, 8, 8]})


def price(provider, region, instance_type, usd, day):
    return {"provider": provider, "region": region, "instance_type": instance_type, "usd_per_hour": usd,
            "as_of": day, "pricing_model": "on_demand", "term_years": None, "payment_option": None,
            "offering_class": None}


HISTORY = pl.DataFrame([
    price("aws", "us-east-1", "p5.48xlarge", 55.04, date(2025, 6, 1)),
    price("lambda", "us-east-1", "gpu_8x_h100_sxm5", 31.92, date(2026, 12, 4)),
    price("lambda", "us-east-1", "gpu_1x_h100", 3.99, date(2026, 12, 4)),
    price("nebius", "eu-north1", "gpu-h100-sxm_8gpu", 23.60, date(2026, 12, 4)),
    price("nebius", "us-central1", "gpu-h100-sxm_8gpu", 25.00, date(2026, 12, 4)),
    price("oci", "us-ashburn-1", "BM.GPU.H100.8", 80.0, date(2026, 12, 5)),  # after the date: not in force
])


def test_every_priced_offer_of_the_same_accelerators_joins_in_its_cheapest_region():
    out = with_market(COMPARISONS, INSTANCES, HISTORY, {"aws": "us-east-1"}, date(2026, 12, 4))
    added = out.filter((pl.col("comparison") == "cg") & (pl.col("provider") != "aws"))
    # lambda's 8-GPU offer (its only region) and nebius's in eu-north1 (23.60 < 25.00); not the 1-GPU
    # offer (another accelerator count), not OCI's (no price in force on 2026-12-04); one row per benchmark
    assert sorted((r["provider"], r["instance_type"], r["region"], r["benchmark"], r["position"], r["is_baseline"])
                  for r in added.to_dicts()) == [
        ("lambda", "gpu_8x_h100_sxm5", "us-east-1", "bert", 1, False),
        ("lambda", "gpu_8x_h100_sxm5", "us-east-1", "rgat", 1, False),
        ("nebius", "gpu-h100-sxm_8gpu", "eu-north1", "bert", 2, False),
        ("nebius", "gpu-h100-sxm_8gpu", "eu-north1", "rgat", 2, False)]
    # a comparison without whole_market is left as it is
    assert out.filter(pl.col("comparison") == "other").height == 1


def test_no_date_or_no_market_leaves_the_comparisons_alone():
    assert with_market(COMPARISONS, INSTANCES, HISTORY, {}, None).equals(COMPARISONS)
    plain = COMPARISONS.with_columns(pl.lit(False).alias("whole_market"))
    assert with_market(plain, INSTANCES, HISTORY, {}, date(2026, 12, 4)).equals(plain)


def test_exclude_offer_kinds_leaves_those_prices_out(tmp_path):
    from pipelines.domain.errors import InputError
    from pipelines.ingest.report_config import parse_report_config
    from pipelines.metrics.price_changes import offered
    import pytest

    history = HISTORY.with_columns(pl.when(pl.col("provider") == "nebius").then(pl.lit("marketplace"))
                                   .otherwise(pl.lit("list")).alias("offer_kind"))
    assert sorted(set(offered(history, ["marketplace"])["provider"])) == ["aws", "lambda", "oci"]
    assert offered(history, []).equals(history)
    base = ('title = "t"\nbenchmarks = ["bert"]\n[regions]\naws = "us-east-1"\n[[comparisons]]\nid = "c"\n'
            'title = "c"\nbaseline = "aws/p5.48xlarge"\ninstances = ["aws/p5.48xlarge"]\n')
    path = tmp_path / "report.toml"
    path.write_text('exclude_offer_kinds = ["marketplace", "auction"]\n' + base)
    assert parse_report_config(path).exclude_offer_kinds == ("marketplace", "auction")
    path.write_text('exclude_offer_kinds = ["auctions"]\n' + base)
    with pytest.raises(InputError, match=r"report\.toml:exclude_offer_kinds\[0\]: 'auctions' is not an offer kind"):
        parse_report_config(path)
