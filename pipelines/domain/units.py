"""Numbers formatted once, here; the tables, charts and summary all show these same strings.

The units of the domain: how a number of each unit (USD, USD/h, minutes, percent, ratio, count,
kWh, kg CO2e) is written; columns.py names each column's unit."""

from __future__ import annotations

import math
from datetime import date

NO_RESULT = "no result"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def usd(value: float | None, digits: int = 2) -> str:
    return "–" if _missing(value) else f"${value:,.{digits}f}"


def usd_hour(value: float | None) -> str:
    return "–" if _missing(value) else f"${value:,.4f}"


def minutes(value: float | None) -> str:
    if _missing(value):
        return NO_RESULT
    if value < 60:
        return f"{value:,.1f} min"
    hours, rest = divmod(value, 60)
    return f"{int(hours)} h {rest:04.1f} min"


def pct(value: float | None, signed: bool = True) -> str:
    if _missing(value):
        return "–"
    if abs(value) < 0.05:
        return "0.0%"
    return f"{value:+.1f}%" if signed else f"{value:.1f}%"


def times(value: float | None) -> str:
    return "–" if _missing(value) else f"{value:.2f}×"


def multiple(ratio: float | None) -> str:
    """A ratio with three significant digits: 1.30×, 12.3×, 123×, 1,235×."""
    if _missing(ratio):
        return "–"
    if round(ratio, 2) < 10:
        return f"{ratio:.2f}×"
    if round(ratio, 1) < 100:
        return f"{ratio:.1f}×"
    return f"{ratio:,.0f}×"


def savings(value: float | None) -> str:
    """Savings against the baseline, readable either way: "+63.8%" when cheaper; when dearer, how
    many times the baseline's cost (savings of -1134.5% read "12.3× the baseline's cost": a
    negative percentage past -100% says nothing to a reader)."""
    if _missing(value):
        return "–"
    if value > -0.05:
        return pct(value)
    return f"{multiple(1.0 - value / 100.0)} the baseline's\u00a0cost"  # a narrow cell breaks before "baseline's"


def kwh(value: float | None) -> str:
    """Energy in kWh with three significant digits at least: 0.123 kWh, 12.3 kWh, 1,234 kWh."""
    if _missing(value):
        return "–"
    digits = 3 if abs(value) < 1 else 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0
    return f"{value:,.{digits}f} kWh"


def kg_co2e(value: float | None) -> str:
    """Emissions in kg CO2e, as kwh() rounds."""
    return "–" if _missing(value) else kwh(value).replace("kWh", "kg CO₂e")


def count(value: float | None) -> str:
    return "–" if _missing(value) else f"{value:,.0f}"


def per_dollar(value: float | None) -> str:
    """Samples per dollar with three significant digits: 987, 12.3 k, 3.07 M, 1.23 G."""
    if _missing(value):
        return "–"
    for scale, unit in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= scale:
            scaled = value / scale
            return f"{scaled:.{2 if scaled < 10 else 1 if scaled < 100 else 0}f}{unit}"
    return f"{value:.0f}"


def day(value: date | None) -> str:
    return "–" if value is None else value.isoformat()


def less_more(change_pct: float | None) -> str:
    """A relative difference in words: -63.8 -> '63.8% less', 27.5 -> '27.5% more'."""
    if _missing(change_pct):
        return "–"
    if abs(change_pct) < 0.05:
        return "the same"
    return f"{abs(change_pct):.1f}% {'less' if change_pct < 0 else 'more'}"


def rose_fell(change_pct: float | None) -> str:
    """A change over time in words: -33.0 -> 'fell 33.0%', 5.0 -> 'rose 5.0%'."""
    if _missing(change_pct):
        return "–"
    if abs(change_pct) < 0.05:
        return "did not change"
    return f"{'fell' if change_pct < 0 else 'rose'} {abs(change_pct):.1f}%"


def usd_range(low: float | None, high: float | None, results: int | None) -> str:
    """How sure a cost is, as the answer page prints it beside the cost: "$2.61–3.40 over 9 results"; "1 result"
    where one result stands behind it; "" where nothing does."""
    if _missing(low) or _missing(high) or not results:
        return ""
    if results == 1 or usd(low) == usd(high):
        return f"{results:,} result" + ("s" if results > 1 else "")
    return f"{usd(low)}–{usd(high).lstrip('$')} over {results:,} results"


def age(days: int | None) -> str:
    """A price's age at the price date: "price of that day", "price 12 days old"."""
    if days is None:
        return ""
    return "price of that day" if days == 0 else f"price {days:,} day{'s' if days != 1 else ''} old"


def wall_clock(hours: float | None) -> str:
    """A training run's wall-clock time: hours below two days, else days ("18.0 h", "6.4 days")."""
    if _missing(hours):
        return "–"
    return f"{hours:,.1f} h" if hours < 48 else f"{hours / 24:,.1f} days"


def gpu_hours(value: float | None) -> str:
    """Accelerator-hours with three significant figures: 950, 12.3 k, 1.46 M."""
    if _missing(value):
        return "–"
    for scale, suffix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"
