"""Every point of a scatter carries its own row's details as an SVG <title> (the web edition's hover
text), on the right point, though a scatter of one style is drawn as one matplotlib artist."""

from __future__ import annotations

import re
from html import escape

from pipelines.publish.charts import Point, TrendPoint, pareto_chart, trend_chart
from pipelines.publish.palette import Style

BLUE, VERMILION = Style("#0072B2", "o"), Style("#D55E00", "s")
TITLED = re.compile(r'<(use|path) ([^>]*)><title>([^<]*)</title></\1>')


def _titled(svg: str) -> list[tuple[str, str]]:
    """(attributes, title) of every point that has a title, in document order."""
    return [(m.group(2), m.group(3)) for m in TITLED.finditer(svg)]


def test_every_pareto_point_has_its_own_title_on_its_own_position():
    # 40 points in two styles, on and off the front: minutes rise with i, so x must too
    points = [Point("", 10 + 3 * i, 100 + (37 * i) % 90, i % 5 == 0, BLUE if i % 2 else VERMILION,
                    tip=f"row {i}: {10 + 3 * i} min <&>") for i in range(40)]
    titled = _titled(pareto_chart(points, "p", "alt"))
    assert sorted(title for _, title in titled) == sorted(escape(p.tip) for p in points)
    x_of = {int(re.match(r"row (\d+)", title).group(1)): float(re.search(r'\bx="([\d.]+)"', attrs).group(1))
            for attrs, title in titled}
    assert [x_of[i] for i in range(40)] == sorted(x_of.values()), "each title sits on the point it describes"


def test_a_point_without_details_gets_no_title_and_a_single_point_keeps_its_title():
    points = [Point("only", 12.0, 50.0, True, BLUE, tip="the one"), Point("", 20.0, 40.0, True, VERMILION)]
    titled = _titled(pareto_chart(points, "q", "alt"))
    assert [title for _, title in titled] == ["the one"]


def test_trend_points_carry_their_round_details():
    panels = {"resnet": [TrendPoint(0, 30.0, "A100", "v1.0 resnet $30"), TrendPoint(1, 20.0, "H100", "v2.0 resnet $20"),
                         TrendPoint(2, 10.0, "A100", "v3.0 resnet $10")]}
    svg = trend_chart(panels, ["v1.0", "v2.0", "v3.0"], {"A100": BLUE, "H100": VERMILION}, "t", "alt")
    assert sorted(title for _, title in _titled(svg)) == ["v1.0 resnet $30", "v2.0 resnet $20", "v3.0 resnet $10"]


def test_open_division_points_are_hollow_and_named_in_the_legend():
    points = [Point("", 10.0, 50.0, True, BLUE, tip="closed one", key="A100"),
              Point("", 20.0, 40.0, False, BLUE, tip="open one", key="A100", hollow=True)]
    svg = pareto_chart(points, "d", "alt")
    style_of = {title: attrs for attrs, title in _titled(svg)}
    assert "closed division (filled)" in svg and "open division (hollow)" in svg
    # the open point: an outline in its accelerator's colour, no fill; the closed one is filled
    assert "fill: none" in style_of["open one"] and "stroke: #0072b2" in style_of["open one"]
    assert "fill: #0072b2" in style_of["closed one"]
    plain = pareto_chart([Point("", 10.0, 50.0, True, BLUE, key="A100"), Point("", 20.0, 40.0, False, BLUE, key="A100")],
                         "e", "alt")
    assert "open division" not in plain
