"""Energy estimate and emissions per training run (pipelines/metrics/energy.py), computed by hand."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from pipelines.metrics.energy import ESTIMATE, LOCATION_BASED, MEASURED, emissions_per_run, energy_per_run

BOARD = pl.DataFrame({
    "model": ["H100-SXM-80GB", "B200-SXM-180GB", "TPU v4"],
    "board_power_w": [700.0, 1000.0, None],
    "board_power_source": ["datasheet", "datasheet", None],
    "board_power_as_of": [date(2026, 12, 1), date(2026, 12, 1), None],
})
INTENSITY = pl.DataFrame({
    "provider": ["aws", "gcp", "gcp", "azure"],
    "region": ["us-east-1", "us-central1", "us-west4", "eastus"],
    "grid_gco2e_per_kwh": [380.0, 410.0, 360.0, 400.0],
    "as_of": [date(2024, 1, 1)] * 4,
    "source": ["a", "b", "c", "d"],
})
PUE = pl.DataFrame({
    "provider": ["aws", "gcp", "gcp"],
    "region": [None, None, "us-central1"],
    "pue": [1.135, 1.1, 1.11],
    "as_of": [date(2024, 1, 1)] * 3,
    "source": ["aws fleet", "gcp fleet", "gcp us-central1"],
})


def _results(**extra) -> pl.DataFrame:
    return pl.DataFrame({
        "entry": ["h100", "b200 measured", "tpu", "unknown", "no time"],
        "accelerator_model": ["H100-SXM-80GB", "B200-SXM-180GB", "TPU v4", None, "H100-SXM-80GB"],
        "accelerators": [64, 8, 256, 8, 8],
        "time_to_train_minutes": [30.0, 10.0, 5.0, 1.0, None],
        **extra,
    })


def test_the_estimate_is_accelerators_times_board_power_times_time():
    out = energy_per_run(_results(measured_energy_kwh=[None, 1.75, None, None, None]), BOARD)
    rows = {r["entry"]: r for r in out.to_dicts()}
    # 64 x 700 W x 0.5 h = 22,400 Wh = 22.4 kWh
    assert rows["h100"]["estimated_energy_kwh"] == pytest.approx(22.4, rel=1e-12)
    assert rows["h100"]["energy_kwh"] == pytest.approx(22.4, rel=1e-12)
    assert rows["h100"]["energy_basis"] == ESTIMATE == "estimate (board power)"
    assert rows["h100"]["utilization"] == 1.0 and rows["h100"]["energy_note"] is None
    # measured wins over the estimate (8 x 1000 W x 1/6 h = 1.333 kWh would be the estimate)
    assert rows["b200 measured"]["estimated_energy_kwh"] == pytest.approx(8 * 1000 * 10 / 60 / 1000, rel=1e-12)
    assert rows["b200 measured"]["energy_kwh"] == 1.75 and rows["b200 measured"]["energy_basis"] == MEASURED
    assert rows["b200 measured"]["utilization"] is None
    # no figure: null and a reason, never zero
    assert rows["tpu"]["energy_kwh"] is None and rows["tpu"]["energy_note"] == "no energy: no board power for TPU v4"
    assert rows["unknown"]["energy_note"] == "no energy: accelerator model unknown"
    assert rows["no time"]["energy_note"] == "no energy: no time to train"
    assert out["entry"].to_list() == _results()["entry"].to_list()


def test_a_stated_utilization_scales_the_estimate_only():
    out = energy_per_run(_results(measured_energy_kwh=[None, 1.75, None, None, None]), BOARD, utilization=0.6)
    rows = {r["entry"]: r for r in out.to_dicts()}
    assert rows["h100"]["energy_kwh"] == pytest.approx(64 * 700 * 0.6 * 0.5 / 1000, rel=1e-12)  # 13.44 kWh
    assert rows["h100"]["utilization"] == 0.6
    assert rows["b200 measured"]["energy_kwh"] == 1.75
    for bad in (0.0, 1.2, -0.5):
        with pytest.raises(ValueError, match="utilization"):
            energy_per_run(_results(), BOARD, utilization=bad)


def test_without_measured_column_everything_is_estimated():
    out = energy_per_run(_results(), BOARD)
    assert out.filter(pl.col("entry") == "b200 measured")["energy_basis"].item() == ESTIMATE


def test_emissions_are_kwh_times_pue_times_grid_intensity():
    runs = pl.DataFrame({
        "provider": ["aws", "gcp", "gcp", "azure", "aws", "aws"],
        "region": ["us-east-1", "us-central1", "us-west4", "eastus", "eu-west-9", "us-east-1"],
        "energy_kwh": [22.4, 22.4, 22.4, 22.4, 22.4, None],
    })
    out = emissions_per_run(runs, INTENSITY, PUE).to_dicts()
    # aws us-east-1: 22.4 kWh x 1.135 (fleet) = 25.424 kWh x 380 g/kWh = 9,661.12 g
    assert out[0]["emissions_kg_co2e"] == pytest.approx(9.66112, rel=1e-12)
    assert out[0]["pue"] == 1.135 and out[0]["pue_source"] == "aws fleet"
    assert out[0]["emissions_basis"] == LOCATION_BASED == "location-based"
    # gcp us-central1 has its own PUE: 22.4 x 1.11 = 24.864 kWh x 410 = 10,194.24 g
    assert out[1]["emissions_kg_co2e"] == pytest.approx(10.19424, rel=1e-12) and out[1]["pue"] == 1.11
    # gcp us-west4 falls back to the fleet PUE: 22.4 x 1.1 = 24.64 kWh x 360 = 8,870.4 g
    assert out[2]["emissions_kg_co2e"] == pytest.approx(8.8704, rel=1e-12) and out[2]["pue_source"] == "gcp fleet"
    # no PUE for azure here, no intensity for eu-west-9, no energy: null and why
    assert out[3]["emissions_kg_co2e"] is None and out[3]["emissions_note"] == "no emissions: no PUE for azure/eastus"
    assert out[4]["emissions_note"] == "no emissions: no grid intensity for aws/eu-west-9"
    assert out[5]["emissions_note"] == "no emissions: no energy" and out[5]["emissions_basis"] is None
    assert out[0]["grid_as_of"] == date(2024, 1, 1) and out[0]["grid_source"] == "a"


# ---- wired: the atlas's priced pairs and the report's cost rows ------------------------------------

def _priced() -> pl.DataFrame:
    """Atlas pairs as price_results makes them: three entries of one group (round, model, division),
    each priced on two instances; entry m1 and m2 have measured energy (atlas_scores.energy_kwh)."""
    entries = [("m1", "B200-SXM-180GB", 8, 12.0, 2.5), ("m2", "B200-SXM-180GB", 16, 7.0, 1.5),
               ("est", "H100-SXM-80GB", 64, 30.0, None)]
    places = [("aws", "us-east-1"), ("gcp", "us-central1")]
    rows = [{"system": s, "accelerator_model": m, "accelerators_total": n, "time_to_train_minutes": t,
             "energy_kwh": kwh, "energy_note": None, "energy_joules": None if kwh is None else kwh * 3.6e6,
             "official_energy_joules": None, "energy_runs": None, "provider": p, "region": r,
             "round": "v5.0", "benchmark_model": "bert", "division": "closed",
             "cost_to_train_usd": 100.0 + i, "instance_type": f"{p}-x", "submitter": "S"}
            for i, (s, m, n, t, kwh) in enumerate(entries) for p, r in places]
    return pl.DataFrame(rows)


def test_every_atlas_pair_gets_measured_or_estimated_energy_and_its_regions_emissions():
    from pipelines.metrics.atlas import rank, with_energy
    out = rank(with_energy(_priced(), BOARD, INTENSITY, PUE))
    rows = {(r["system"], r["provider"]): r for r in out.to_dicts()}
    m1_aws, m1_gcp, est_aws = rows[("m1", "aws")], rows[("m1", "gcp")], rows[("est", "aws")]
    # measured wins: 2.5 kWh (the estimate would be 8 x 1000 W x 0.2 h = 1.6 kWh)
    assert m1_aws["energy_kwh"] == 2.5 and m1_aws["energy_basis"] == "measured"
    assert m1_aws["estimated_energy_kwh"] == pytest.approx(1.6, rel=1e-12)
    # aws us-east-1: fleet PUE 1.135, 380 g/kWh: 2.5 x 1.135 x 380 / 1000 = 1.07825 kg
    assert m1_aws["emissions_kg_co2e"] == pytest.approx(1.07825, rel=1e-12)
    # gcp us-central1: its own PUE 1.11, 410 g/kWh: 2.5 x 1.11 x 410 / 1000 = 1.13775 kg
    assert m1_gcp["emissions_kg_co2e"] == pytest.approx(1.13775, rel=1e-12)
    assert m1_gcp["pue_source"] == "gcp us-central1" and m1_gcp["emissions_basis"] == "location-based"
    # no power logs: 64 x 700 W x 0.5 h = 22.4 kWh; x 1.135 x 380 / 1000 = 9.66112 kg
    assert est_aws["energy_kwh"] == pytest.approx(22.4, rel=1e-12)
    assert est_aws["energy_basis"] == "estimate (board power)" and est_aws["utilization"] == 1.0
    assert est_aws["emissions_kg_co2e"] == pytest.approx(9.66112, rel=1e-12)
    # energy rank: measured entries only, by kWh per run in the group (m2 1.5 < m1 2.5), the same
    # rank on every instance an entry is priced on; an estimate has none
    assert {s: rows[(s, p)]["energy_rank"] for s, p in rows} == {"m2": 1, "m1": 2, "est": None}
    assert "energy_joules" not in out.columns and out["measured_energy_kwh"].to_list().count(None) == 2


def test_energy_rank_is_within_round_model_and_division():
    from pipelines.metrics.atlas import rank, with_energy
    other = _priced().with_columns(pl.lit("open").alias("division"), pl.col("system") + "-open",
                                   pl.col("energy_kwh") * 10)
    out = rank(with_energy(pl.concat([_priced(), other]), BOARD, INTENSITY, PUE))
    ranks = dict(out.select("system", "energy_rank").unique().iter_rows())
    assert ranks == {"m2": 1, "m1": 2, "est": None, "m2-open": 1, "m1-open": 2, "est-open": None}


def test_the_reports_cost_rows_use_the_mapped_systems_measured_or_estimated_energy():
    from pipelines.metrics.energy import report_energy
    cost = pl.DataFrame({
        "round": ["v5.0", "v1.0", None], "system": ["lenovo_b200", "dgx_h100", None],
        "benchmark": ["bert", "bert", "bert"], "time_to_train_minutes": [3.5, 20.0, None],
        "provider": ["gcp", "azure", "aws"], "region": ["us-west4", "eastus", "us-east-1"],
    })
    systems = pl.DataFrame({"system": ["lenovo_b200", "dgx_h100"], "accelerators_total": [8, 16],
                            "accelerator_model": ["B200-SXM-180GB", "H100-SXM-80GB"]})
    scores = pl.DataFrame({"round": ["v5.0", "v4.1"], "system": ["lenovo_b200", "dgx_h100"],
                           "benchmark": ["bert", "bert"], "energy_kwh": [0.541449, 9.9]})
    out = report_energy(cost, systems, scores, BOARD, INTENSITY, PUE)
    b200, h100, none = out.to_dicts()
    # the v5.0 score has power logs: 0.541449 kWh; gcp us-west4 (fleet PUE 1.1, 360 g/kWh):
    # 0.541449 x 1.1 x 360 / 1000 = 0.21441380... kg
    assert b200["energy_basis"] == "measured" and b200["energy_kwh"] == 0.541449
    assert b200["emissions_kg_co2e"] == pytest.approx(0.541449 * 1.1 * 360 / 1000, rel=1e-12)
    assert b200["emissions_kg_co2e"] == pytest.approx(0.2144138, rel=1e-6)
    # the v4.1 energy is another round's score: the v1.0 time's run is estimated,
    # 16 x 700 W x 1/3 h = 3.7333 kWh; azure eastus has no PUE row: no emissions, and why
    assert h100["energy_basis"] == "estimate (board power)"
    assert h100["energy_kwh"] == pytest.approx(16 * 700 * 20 / 60 / 1000, rel=1e-12)
    assert h100["emissions_kg_co2e"] is None and h100["emissions_note"] == "no emissions: no PUE for azure/eastus"
    assert none["energy_kwh"] is None and none["emissions_note"] == "no emissions: no energy"


def test_a_catalog_without_board_power_columns_takes_the_projects(tmp_path):
    from pipelines.config import BUNDLED_RAW
    from pipelines.ingest.board_power import has_board_power
    old = tmp_path / "accelerators.csv"
    old.write_text("model,vendor,name_regex,system_regex,memory_gb,cloud_model,assumption\nX,V,x,,,,\n", encoding="utf-8")
    assert not has_board_power(old) and has_board_power(BUNDLED_RAW / "accelerators.csv")


def test_a_run_measured_on_the_instance_itself_is_estimated_from_the_instances_accelerators():
    """A team's throughput measured on aws/p4d.24xlarge names the instance as its system: no systems
    JSON describes it, instances.csv does (8x A100-SXM-40GB, 400 W in the catalog). Before, such a row
    read "no energy: accelerator model unknown" while the same instance's MLPerf rows had an estimate."""
    from pipelines.metrics.energy import report_energy
    board = pl.concat([BOARD, pl.DataFrame({"model": ["A100-SXM-40GB"], "board_power_w": [400.0],
                                            "board_power_source": ["datasheet"], "board_power_as_of": [date(2026, 12, 1)]})])
    cost = pl.DataFrame({
        "round": [None, "v1.0"], "system": ["aws/p4d.24xlarge", "dgx_a100"], "benchmark": ["ourmodel", "resnet"],
        "time_to_train_minutes": [102.5, 28.8], "provider": ["aws", "aws"], "region": ["us-east-1", "us-east-1"],
    })
    systems = pl.DataFrame({"system": ["dgx_a100"], "accelerators_total": [8], "accelerator_model": ["A100-SXM-40GB"]})
    instances = pl.DataFrame({"provider": ["aws"], "instance_type": ["p4d.24xlarge"], "accelerator_count": [8],
                              "accelerator_model": ["A100-SXM-40GB"]})
    scores = pl.DataFrame(schema={"round": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8, "energy_kwh": pl.Float64})
    own, mlperf = report_energy(cost, systems, scores, board, INTENSITY, PUE, instances=instances).to_dicts()
    # 8 x 400 W x 102.5 min / 60 / 1000 = 5.4666... kWh; the MLPerf run: 8 x 400 W x 28.8 min = 1.536 kWh
    assert own["energy_basis"] == "estimate (board power)" and own["energy_note"] is None
    assert own["energy_kwh"] == pytest.approx(5.466666666, rel=1e-9)
    assert mlperf["energy_kwh"] == pytest.approx(1.536, rel=1e-12)
    # and its emissions in aws us-east-1: fleet PUE 1.135 x 380 g/kWh
    assert own["emissions_kg_co2e"] == pytest.approx(5.466666666 * 1.135 * 380 / 1000, rel=1e-9)
