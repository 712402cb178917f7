"""Number formatting (pipelines/domain/units.py): the strings tables, charts and summary share."""

from __future__ import annotations

import math
from datetime import date

import pytest
from hypothesis import given, strategies as st

from pipelines.domain import units as fmt


@pytest.mark.parametrize("value, text", [
    (10.529004, "$10.53"), (29.081555, "$29.08"), (0.004, "$0.00"), (12345.678, "$12,345.68"),
    (None, "–"), (math.nan, "–"),
])
def test_usd(value, text):
    assert fmt.usd(value) == text


@pytest.mark.parametrize("value, text", [(21.957642, "$21.9576"), (24.48, "$24.4800"), (1234.5, "$1,234.5000"), (None, "–")])
def test_usd_hour(value, text):
    assert fmt.usd_hour(value) == text


@pytest.mark.parametrize("value, text", [
    (28.770861, "28.8 min"), (59.94, "59.9 min"), (71.278322, "1 h 11.3 min"), (164.367692, "2 h 44.4 min"),
    (120.0, "2 h 00.0 min"), (None, "no result"),
])
def test_minutes(value, text):
    assert fmt.minutes(value) == text


@pytest.mark.parametrize("value, signed, text", [
    (63.79, True, "+63.8%"), (-27.5, True, "-27.5%"), (0.04, True, "0.0%"), (-0.04, True, "0.0%"),
    (19.26, False, "19.3%"), (None, True, "–"),
])
def test_pct(value, signed, text):
    assert fmt.pct(value, signed=signed) == text


@pytest.mark.parametrize("value, text", [(-63.79, "63.8% less"), (27.5, "27.5% more"), (0.01, "the same"), (None, "–")])
def test_less_more(value, text):
    assert fmt.less_more(value) == text


@pytest.mark.parametrize("value, text", [(-33.0, "fell 33.0%"), (5.04, "rose 5.0%"), (0.0, "did not change"), (None, "–")])
def test_rose_fell(value, text):
    assert fmt.rose_fell(value) == text


@pytest.mark.parametrize("value, text", [
    (63.79, "+63.8%"), (0.0, "0.0%"), (-0.04, "0.0%"),
    (-1134.5, "12.3× the baseline's cost"),  # cost = 1 + 11.345 times the baseline's: 12.345x
    (-1234.5, "13.3× the baseline's cost"), (-29.5, "1.29× the baseline's cost"), (-9899.0, "100× the baseline's cost"),
    (-123400.0, "1,235× the baseline's cost"), (None, "–"), (math.nan, "–"),
])
def test_savings_below_zero_read_as_a_multiple_of_the_baseline(value, text):
    assert fmt.savings(value).replace("\u00a0", " ") == text


@pytest.mark.parametrize("ratio, text", [(1.2951, "1.30×"), (9.996, "10.0×"), (12.345, "12.3×"), (99.96, "100×"),
                                         (1234.5, "1,234×"), (None, "–")])
def test_multiple_has_three_significant_digits(ratio, text):
    assert fmt.multiple(ratio) == text


def test_times_count_day():
    assert fmt.times(2.4773) == "2.48×" and fmt.times(None) == "–"
    assert fmt.count(26675.98 * 3600 / 21.957642) == "4,373,581" and fmt.count(None) == "–"
    assert fmt.day(date(2025, 6, 1)) == "2025-06-01" and fmt.day(None) == "–"


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_usd_round_trips_to_the_cent(value):
    text = fmt.usd(value)
    assert abs(float(text.replace("$", "").replace(",", "")) - value) <= 0.005 + 1e-9 * abs(value)


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_minutes_round_trips(value):
    text = fmt.minutes(value)
    if " h " in text:
        hours, rest = text.removesuffix(" min").split(" h ")
        total = int(hours) * 60 + float(rest)
    else:
        total = float(text.removesuffix(" min").replace(",", ""))
    assert abs(total - value) <= 0.05 + 1e-9 * value
