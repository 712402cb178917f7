"""No chart text overlaps other text or leaves its figure: every chart of the bundled report and of
the atlas built from the shared MLPerf sample, measured in chromium from the published SVG (the
boxes of the rendered <text> elements, as a reader sees them), plus the palette's contrast."""

from __future__ import annotations

import pytest

from pipelines.publish.palette import CHART_BACKGROUNDS, COLORS, Palette, contrast
from tests.browser import browser, open_offline

# Each chart's texts as boxes in page pixels: [chart id, [[text, left, top, right, bottom], ...], svg box]
BOXES = """() => [...document.querySelectorAll('svg.chart-svg')].map(svg => {
    const box = r => [r.left, r.top, r.right, r.bottom];
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim())
        .map(t => [t.textContent.trim(), ...box(t.getBoundingClientRect())]);
    return [svg.id, texts, box(svg.getBoundingClientRect())];
})"""
SLACK = 0.5  # px: anti-aliasing, not overlap


def problems(charts) -> list[str]:
    found = []
    for chart, texts, (left, top, right, bottom) in charts:
        for text, x0, y0, x1, y1 in texts:
            if x0 < left - SLACK or y0 < top - SLACK or x1 > right + SLACK or y1 > bottom + SLACK:
                found.append(f"{chart}: {text!r} leaves its figure")
        for i, (a, ax0, ay0, ax1, ay1) in enumerate(texts):
            for b, bx0, by0, bx1, by1 in texts[i + 1:]:
                if min(ax1, bx1) - max(ax0, bx0) > SLACK and min(ay1, by1) - max(ay0, by0) > SLACK:
                    found.append(f"{chart}: {a!r} overlaps {b!r}")
    return found


def chart_boxes(path) -> list:
    with browser() as chromium:
        page, _ = open_offline(chromium, path, tables=False)
        return page.evaluate(BOXES)


def test_problems_finds_overlap_and_overflow():
    charts = [["c", [["a", 10, 10, 50, 20], ["b", 40, 15, 80, 25], ["c", 90, 10, 130, 20]], [0, 0, 120, 100]]]
    assert problems(charts) == ["c: 'c' leaves its figure", "c: 'a' overlaps 'b'"]


@pytest.mark.slow
def test_no_chart_text_overlaps_in_the_report(bundled_run):
    charts = chart_boxes(bundled_run.reports / "latest" / "report.html")
    assert len(charts) >= 10 and all(len(texts) >= 5 for _, texts, _ in charts)
    assert problems(charts) == []


@pytest.mark.slow
def test_no_chart_text_overlaps_in_the_atlas(sample_atlas_folder):
    charts = chart_boxes(sample_atlas_folder / "atlas.html")
    assert len(charts) >= 3
    assert problems(charts) == []


def test_palette_colours_contrast_with_the_chart_background_and_stay_distinct():
    assert len(set(COLORS)) == len(COLORS)
    for color in COLORS:
        for background in CHART_BACKGROUNDS:
            assert contrast(color, background) >= 3.0, (color, background)  # WCAG 1.4.11 non-text contrast
    palette = Palette(f"instance {i}" for i in range(25))
    styles = [palette[f"instance {i}"] for i in range(25)]
    assert len(set(styles)) == 25, "colour and marker together tell every key apart"
    assert palette["instance 3"] == Palette(["instance 0", "instance 1", "instance 2", "instance 3"])["instance 3"]
