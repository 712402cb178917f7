"""One colour and marker per instance (the report) and per accelerator model (the atlas), the same in
every figure of a document.

Colours: the Okabe-Ito set, colour-blind safe, with the light ones darkened so that every colour has at
least 3:1 contrast against the charts' light background (WCAG 2.x non-text contrast; the charts keep a
light panel in dark mode too, templates/report.css --chart-bg). Markers differ as well, so two series
stay apart in greyscale print and past the tenth key. Keys get their style in the order a document first
names them (report.toml's order; accelerator models sorted), so a figure with a few of them uses the
same colours as one with all of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

CHART_BACKGROUNDS = ("#ffffff", "#f7f8fa")  # print and light screen; --chart-bg in dark mode
COLORS = ("#0072B2", "#D55E00", "#009E73", "#B8528F", "#332288", "#996600", "#2F8C7E", "#882255", "#5E5E5E",
          "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "h", "p", "*")
OTHER = "#5E5E5E"  # a key the document did not name


@dataclass(frozen=True)
class Style:
    color: str
    marker: str


class Palette:
    def __init__(self, keys: Iterable[str]):
        self._styles: dict[str, Style] = {}
        for key in keys:
            if key not in self._styles:
                i = len(self._styles)
                # past len(COLORS) keys the marker cycle shifts, so (colour, marker) stays unique
                self._styles[key] = Style(COLORS[i % len(COLORS)], MARKERS[(i + i // len(COLORS)) % len(MARKERS)])

    def __getitem__(self, key: str) -> Style:
        return self._styles.get(key, Style(OTHER, "o"))

    def __len__(self) -> int:
        return len(self._styles)


def contrast(color: str, background: str) -> float:
    """The WCAG 2.x contrast ratio of two #rrggbb colours."""
    def luminance(hex_color: str) -> float:
        channels = [int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(color), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)
