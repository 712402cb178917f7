"""Energy and emissions as the report and the atlas show them (pipelines/publish/energy_cells.py):
cells marked where they are estimates, footnotes that give the arithmetic and the factors' sources,
and the chart of cost against emissions."""

from __future__ import annotations

from datetime import date

from pipelines.domain import units as numbers
from pipelines.publish.energy_cells import carbon_footnote, emissions_figure, energy_cells, energy_footnote
from pipelines.publish.numbering import Numbering


def _row(**changes) -> dict:
    # 64 x 700 W x 0.5 h = 22.4 kWh; aws fleet PUE 1.135, us-east-1 380 g/kWh: 22.4 x 1.135 x 380 / 1000 = 9.66112 kg
    row = {"system": "dgx_h100", "benchmark": "bert", "round": "v4.1", "provider": "aws", "region": "us-east-1",
           "accelerators": 64, "board_power_w": 700.0, "accelerator_model": "H100-SXM-80GB", "utilization": 1.0,
           "time_to_train_minutes": 30.0, "energy_kwh": 22.4, "energy_basis": "estimate (board power)",
           "energy_note": None, "emissions_kg_co2e": 9.66112, "emissions_note": None, "pue": 1.135,
           "pue_source": "cloud-carbon-footprint PUE_AVG", "grid_gco2e_per_kwh": 380.0,
           "grid_source": "cloud-carbon-footprint eGRID2020", "grid_as_of": date(2022, 11, 2), "cost_to_train_usd": 50.0}
    return row | changes


def test_units_are_formatted_once():
    assert numbers.kwh(22.4) == "22.4 kWh" and numbers.kwh(0.5414) == "0.541 kWh" and numbers.kwh(1234.4) == "1,234 kWh"
    assert numbers.kwh(4.607) == "4.61 kWh" and numbers.kwh(None) == "–"
    assert numbers.kg_co2e(9.66112) == "9.66 kg CO₂e"


def test_an_estimate_is_marked_and_its_footnote_gives_the_product():
    energy, emissions = energy_cells(_row(), Numbering(), "dgx_h100:bert")
    assert (energy.text, energy.subs, energy.sort) == ("22.4 kWh", ("estimate",), 22.4)
    assert (emissions.text, emissions.subs) == ("9.66 kg CO₂e", ("estimate",))
    assert energy_footnote(_row()) == (
        "Energy estimate (board power): 64 accelerators × 700 W (board power of H100-SXM-80GB) × utilization 1 × "
        "30.0 min = 22.4 kWh; an upper bound of the accelerators' own energy, without host, network and cooling.")
    note = carbon_footnote(_row())
    assert "aws us-east-1, location-based: energy × PUE 1.135 × grid 380.0 g CO₂e/kWh / 1000" in note
    assert "cloud-carbon-footprint eGRID2020" in note and "cloud-carbon-footprint PUE_AVG" in note


def test_a_measured_energy_is_not_marked_and_a_missing_one_says_why():
    energy, _ = energy_cells(_row(energy_basis="measured", energy_kwh=0.541449), Numbering(), "k")
    assert energy.subs == () and energy.text == "0.541 kWh"
    assert energy_footnote(_row(energy_basis="measured")).startswith("Energy measured: the MLPerf power logs of dgx_h100 (v4.1)")
    missing = _row(energy_basis=None, energy_kwh=None, energy_note="no energy: no board power for TPU v4",
                   emissions_kg_co2e=None, emissions_note="no emissions: no energy")
    energy, emissions = energy_cells(missing, Numbering(), "k")
    assert energy.text == emissions.text == "–" and energy.subs == emissions.subs == ()
    assert energy_footnote(missing) == "No energy: no board power for TPU v4."
    assert carbon_footnote(missing) == "aws us-east-1: no emissions: no energy."


def test_the_chart_of_cost_against_emissions():
    numbering = Numbering()
    rows = [_row(), _row(system="lenovo_b200", energy_basis="measured", emissions_kg_co2e=0.2, cost_to_train_usd=20.0),
            _row(system="none", emissions_kg_co2e=None)]
    figure = emissions_figure(numbering, rows, "BERT", lambda r: r["system"])
    assert figure is not None and figure.number == 1 and figure.svg.startswith("<svg")
    assert "dgx_h100 9.66 kg CO₂e (estimate), $50.00" in figure.alt and "lenovo_b200 0.200 kg CO₂e, $20.00" in figure.alt
    assert "none" not in figure.alt and "hollow circles: energy estimated from board power (1 of 2)" in figure.caption
    assert "Emissions per training run (kg CO₂e, location-based" in figure.svg
    # one point is no chart, and takes no figure number
    assert emissions_figure(numbering, rows[:1], "BERT", lambda r: r["system"]) is None
    assert numbering.figure() == 2
