"""Energy and emissions in the report's and the atlas's tables and charts: the cells, their
footnotes (how each figure was made, from which factors) and the chart of cost against emissions.

An estimated energy says so in its cell ("estimate"), its footnote gives the product it is
(accelerators x board power x utilization x time); an emissions figure's footnote gives the
region's PUE and grid intensity with their sources. Formulas: docs/energy_and_carbon.md.
"""

from __future__ import annotations

from pipelines.domain.columns import ESTIMATE, MEASURED
from pipelines.domain import units as fmt
from pipelines.publish import charts
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.numbering import Numbering
from pipelines.publish.records import Cell, Column, Figure, chart_id

# on screen shown on request (records.Column.detail): a table with them did not fit 1280 px
ENERGY_COLUMNS = (Column("Energy per run", numeric=True, css="wrap", width="8%", detail=True),
                  Column("Emissions per run", numeric=True, css="wrap", width="10%", detail=True))


def energy_footnote(r: dict, brief: bool = False) -> str:
    """How the energy figure was made. `brief` (the report, whose methodology says why an estimate is an upper
    bound) leaves that sentence out of each note."""
    if r.get("energy_basis") == MEASURED:
        return (f"Energy measured: the MLPerf power logs of {r['system']} ({r.get('round') or 'its round'}), scored as the "
                f"official result summarizer scores them (olympic mean of the runs, scaling.json applied): "
                f"{fmt.kwh(r['energy_kwh'])} per training run.")
    if r.get("energy_basis") == ESTIMATE:
        accelerators = r["accelerators"] if "accelerators" in r else r["accelerators_total"]  # report / atlas
        product = (f"Energy estimate (board power): {accelerators} accelerators × {r['board_power_w']:,.0f} W "
                   f"(board power of {r['accelerator_model']}) × utilization {r['utilization']:g} × "
                   f"{fmt.minutes(r['time_to_train_minutes'])} = {fmt.kwh(r['energy_kwh'])}")
        return product + (" (an upper bound)." if brief else
                          "; an upper bound of the accelerators' own energy, without host, network and cooling.")
    note = r.get("energy_note") or "no energy"
    return note[0].upper() + note[1:] + "."


def carbon_footnote(r: dict, cited: bool = False) -> str:
    """How an emissions figure was made and from which factors; `cited`: the factors' sources are an entry
    of the sources appendix (carbon_source) instead of the note's end."""
    place = f"{r['provider']} {r['region']}"
    if r.get("emissions_kg_co2e") is None:
        return f"{place}: " + (r.get("emissions_note") or "no emissions") + "."
    text = (f"Emissions in {place}, location-based: energy × PUE {r['pue']:g} × grid {r['grid_gco2e_per_kwh']:,.1f} "
            f"g CO₂e/kWh / 1000.")
    return text if cited else text + f" Grid intensity: {r['grid_source']} (as of {fmt.day(r['grid_as_of'])}); PUE: {r['pue_source']}."


def carbon_source(r: dict) -> tuple[str, str, str] | None:
    """The sources appendix entry of a region's emission factors (key, kind, text), or None without emissions."""
    if r.get("emissions_kg_co2e") is None:
        return None
    return (f"carbon:{r['provider']}:{r['region']}", "emission factors",
            f"{r['provider']} {r['region']}: grid intensity {r['grid_gco2e_per_kwh']:,.1f} g CO₂e/kWh, {r['grid_source']} "
            f"(as of {fmt.day(r['grid_as_of'])}); PUE {r['pue']:g}, {r['pue_source']}.")


def energy_cells(r: dict, numbering: Numbering | None, key: str, cited: bool = False) -> tuple[Cell, Cell]:
    """The energy and emissions cells of a priced row; ``key`` names the training run (its footnote);
    ``cited``: the emissions note cites its factors' sources in the sources appendix (the report).
    Without ``numbering`` the cells carry no notes (a row the printed table leaves out)."""
    estimate = r.get("energy_basis") == ESTIMATE
    energy = Cell(fmt.kwh(r.get("energy_kwh")), sort=r.get("energy_kwh"), subs=("estimate",) if estimate else (),
                  note=numbering.note(f"energy:{key}", energy_footnote(r, brief=cited)) if numbering else None)
    emissions = Cell(fmt.kg_co2e(r.get("emissions_kg_co2e")), sort=r.get("emissions_kg_co2e"),
                     subs=("estimate",) if estimate and r.get("emissions_kg_co2e") is not None else (),
                     note=numbering.note(f"carbon:{r['provider']}:{r['region']}:{r.get('emissions_note')}",
                                         carbon_footnote(r, cited), carbon_source(r) if cited else None)
                     if numbering else None)
    return energy, emissions


def _tip(r: dict, label) -> str:
    """A point's hover text: the figures of its row, as the table shows them."""
    return " · ".join((label(r), f"energy {fmt.kwh(r['energy_kwh'])} ({r['energy_basis']})",
                       f"emissions {fmt.kg_co2e(r['emissions_kg_co2e'])} in {r['provider']} {r['region']}",
                       f"cost to train {fmt.usd(r['cost_to_train_usd'])}"))


def emissions_figure(numbering: Numbering, rows: list[dict], title: str, label,
                     cache: ChartCache = NO_CACHE) -> Figure | None:
    """Cost to train against emissions per run of the rows that have both (numbered only when it is
    drawn); None below two points. ``label``: a row's name on the chart."""
    known = [r for r in rows if r.get("emissions_kg_co2e") is not None and r.get("cost_to_train_usd") is not None]
    if len(known) < 2:
        return None
    number = numbering.figure()
    points = [charts.EmissionsPoint(label(r), r["emissions_kg_co2e"], r["cost_to_train_usd"],
                                    r["energy_basis"] == ESTIMATE, _tip(r, label)) for r in known]
    estimated = sum(1 for p in points if p.estimate)
    alt = (f"Scatter plot of emissions per training run against cost to train for {title}: "
           + "; ".join(f"{label(r)} {fmt.kg_co2e(r['emissions_kg_co2e'])}"
                       + (" (estimate)" if r["energy_basis"] == ESTIMATE else "") + f", {fmt.usd(r['cost_to_train_usd'])}"
                       for r in known) + ".")
    caption = (f"{title}: cost to train against emissions per training run (kg CO₂e, location-based: energy × PUE × "
               f"grid intensity of the instance's region)"
               + (f"; hollow circles: energy estimated from board power ({estimated} of {len(points)})" if estimated else "")
               + ".")
    return Figure(number, cache.svg(charts.emissions_chart, points, chart_id(number), alt), alt, caption)
