"""Cost, savings, speedup, price to beat and the Pareto front against figures worked out by hand."""

import polars as pl
import pytest

from pipelines.metrics.cost import EXPORT_COLUMNS, cost_to_train


def rows(**overrides):
    base = {
        "comparison": ["c"] * 4, "comparison_title": ["C"] * 4, "benchmark": ["resnet"] * 4,
        "benchmark_position": [0] * 4, "position": [0, 1, 2, 3], "provider": ["aws"] * 4, "region": ["us-east-1"] * 4,
        "instance_type": ["p4d", "p3", "dl1", "none"], "accelerator": ["A100", "V100", "Gaudi", "X"],
        "accelerator_count": [8] * 4, "system": ["a", "b", "c", None], "is_baseline": [False, True, False, False],
        # the ResNet-50 scores of the bundled data: DGX A100 v1.0, DGX-1 v0.7, Gaudi v1.0
        "time_to_train_minutes": [28.770861111111106, 71.27832222222223, 62.55155555555556, None],
        "usd_per_hour": [32.7726, 24.48, 13.10904, 10.0], "price_as_of": [None] * 4,
        "samples_per_second": [26675.98, None, None, None],
    }
    base.update(overrides)
    return pl.DataFrame(base)


def by_type(frame):
    return {r["instance_type"]: r for r in frame.iter_rows(named=True)}


def test_cost_savings_speedup_by_hand():
    out = by_type(cost_to_train(rows()))
    # p4d: 32.7726 $/h x 28.770861 min / 60 = 15.71493
    assert out["p4d"]["cost_to_train_usd"] == pytest.approx(32.7726 * 28.770861111111106 / 60, rel=1e-12)
    assert out["p4d"]["cost_to_train_usd"] == pytest.approx(15.71493, abs=1e-5)
    # baseline p3.16xlarge: 24.48 x 71.278322 / 60 = 29.08156
    assert out["p3"]["cost_to_train_usd"] == pytest.approx(29.08156, abs=1e-5)
    assert out["p3"]["savings_pct"] == pytest.approx(0.0)
    assert out["p3"]["speedup"] == pytest.approx(1.0)
    # savings = 100 x (1 - 15.71493 / 29.08156) = 45.9625 %
    assert out["p4d"]["savings_pct"] == pytest.approx(45.9625, abs=1e-4)
    # speedup = 71.278322 / 28.770861 = 2.47745
    assert out["p4d"]["speedup"] == pytest.approx(2.47745, abs=1e-5)
    # dl1: 13.10904 x 62.551556 / 60 = 13.66651; savings 53.0062 %
    assert out["dl1"]["cost_to_train_usd"] == pytest.approx(13.66651, abs=1e-5)
    assert out["dl1"]["savings_pct"] == pytest.approx(53.0062, abs=1e-4)
    # samples per dollar = 26675.98 x 3600 / 32.7726 = 2,930,299.3
    assert out["p4d"]["samples_per_dollar"] == pytest.approx(2930299.3, abs=0.1)


def test_no_result_stays_null_never_zero():
    out = by_type(cost_to_train(rows()))
    missing = out["none"]
    assert missing["cost_to_train_usd"] is None
    assert missing["savings_pct"] is None and missing["speedup"] is None and missing["cost_rank"] is None
    assert missing["usd_per_hour"] == 10.0  # the price is still shown


def test_price_to_beat_and_rank():
    out = by_type(cost_to_train(rows()))
    # price at which p4d trains as cheaply as the baseline: 29.08156 / (28.770861 / 60) = 60.6479 $/h
    assert out["p4d"]["price_to_beat_baseline"] == pytest.approx(29.081555 / (28.770861111111106 / 60), rel=1e-6)
    assert out["p4d"]["price_to_beat_baseline"] == pytest.approx(60.6479, abs=1e-4)
    # against the cheapest (dl1 at 13.66651): 13.66651 / (71.278322/60) = 11.5041 $/h for p3
    assert out["p3"]["price_to_beat_cheapest"] == pytest.approx(11.5041, abs=1e-4)
    # the cut p3 needs to get there: 100 x (1 - 11.5041 / 24.48) = 53.0062 %, the cheapest's none
    assert out["p3"]["cut_to_beat_cheapest_pct"] == pytest.approx(53.0062, abs=1e-4)
    assert out["dl1"]["cut_to_beat_cheapest_pct"] == pytest.approx(0.0, abs=1e-9)
    assert [out[t]["cost_rank"] for t in ("dl1", "p4d", "p3")] == [1, 2, 3]


def test_pareto_front_by_hand():
    out = by_type(cost_to_train(rows()))
    # p4d is fastest; dl1 cheapest; p3 is slower and dearer than both
    assert out["p4d"]["on_pareto_front"] is True
    assert out["dl1"]["on_pareto_front"] is True
    assert out["p3"]["on_pareto_front"] is False
    assert out["none"]["on_pareto_front"] is None


def test_export_columns_come_first_in_contract_order():
    out = cost_to_train(rows())
    assert out.columns[: len(EXPORT_COLUMNS)] == EXPORT_COLUMNS


def test_baseline_without_result_gives_no_savings():
    out = by_type(cost_to_train(rows(time_to_train_minutes=[28.77, None, 62.55, None])))
    assert out["p4d"]["cost_to_train_usd"] is not None
    assert out["p4d"]["savings_pct"] is None and out["p4d"]["speedup"] is None
