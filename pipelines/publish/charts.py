"""Charts as vector SVG from matplotlib, made repeatable, accessible and with searchable text.

`svg.fonttype = 'none'` keeps labels as text (searchable in the PDF, readable by screen
readers); a fixed `svg.hashsalt` and no date metadata give the same bytes for the same data.
Every chart gets a `<title>` (its alt text: WeasyPrint writes it as the /Alt of the tagged PDF's
Figure, browsers use it as the accessible name) and ids prefixed with the chart's own id, so
several charts inlined in one HTML page never share an id.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from datetime import date
from html import escape

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

plt.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "cost-to-train",
    "text.parse_math": False,  # names from input files are text: "$5 and $6" must not become TeX
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#555555",
    "axes.labelcolor": "#222222",
    "xtick.color": "#444444",
    "ytick.color": "#444444",
    "axes.titlesize": 10,
    "axes.grid": False,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
})

# Okabe-Ito: distinguishable with the common colour-vision deficiencies and in greyscale print.
BAR = "#0072B2"
BASELINE = "#8c8c8c"
BEST = "#009E73"
WORSE = "#D55E00"
FRONT = "#D55E00"
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8c6d31"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", "-.", ":"]
WIDTH_IN = 5.2


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str  # the formatted figure, the same string the table shows
    kind: str = "normal"  # normal | baseline | best


def _svg(fig, chart_id: str, alt: str) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
                bbox_inches="tight", pad_inches=0.05)
    plt.close(fig)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]  # drop the XML prolog and doctype: the SVG is inlined in HTML
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, count=1, flags=re.S)
    # matplotlib's `*{stroke-linejoin: round; ...}` would style the whole HTML page: drop it
    svg = re.sub(r"\s*<defs>\s*<style[^>]*>.*?</style>\s*</defs>", "", svg, count=1, flags=re.S)
    # Scale with the page: keep the viewBox, let CSS set the size.
    svg = re.sub(r'<svg([^>]*?) width="[^"]+" height="[^"]+"', r'<svg\1', svg, count=1)
    # One namespace of ids per chart: matplotlib numbers its ids from 1 in every figure.
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{chart_id}-\1"', svg)
    svg = svg.replace("url(#", f"url(#{chart_id}-").replace('href="#', f'href="#{chart_id}-')
    head_end = svg.index(">") + 1
    head = svg[:head_end].replace("<svg", f'<svg id="{chart_id}" class="chart-svg" role="img" '
                                          f'aria-labelledby="{chart_id}-title"', 1)
    return f'{head}\n <title id="{chart_id}-title">{escape(alt, quote=True)}</title>{svg[head_end:]}'


def _usd_axis(axis) -> None:
    """Dollar ticks, with cents only when the ticks are less than a dollar apart."""
    def label(value, _pos):
        ticks = axis.get_majorticklocs()
        step = min((abs(b - a) for a, b in zip(ticks, ticks[1:])), default=1.0)
        return f"${value:,.2f}" if step < 1 else f"${value:,.0f}"
    axis.set_major_formatter(FuncFormatter(label))


def bar_chart(bars: list[Bar], xlabel: str, chart_id: str, alt: str, missing_text: str = "no result",
              signed: bool = False) -> str:
    """Horizontal bars, one per instance, with the table's figure written at the end of each bar.

    `signed` draws a diverging chart (savings): positive bars green, negative vermilion, each
    figure written outside its bar's end on the side of its sign.
    """
    height = 0.36 * len(bars) + 0.8
    fig, ax = plt.subplots(figsize=(WIDTH_IN, height))
    rows = bars[::-1]
    labels = [b.label for b in rows]
    values = [b.value if b.value is not None else 0.0 for b in rows]
    if signed:
        colors = [BEST if v >= 0 else WORSE for v in values]
    else:
        colors = [{"baseline": BASELINE, "best": BEST}.get(b.kind, BAR) for b in rows]
    ax.barh(range(len(rows)), values, color=colors, height=0.62, zorder=2)
    ax.set_yticks(range(len(rows)), labels)
    for tick, bar in zip(ax.get_yticklabels(), rows):
        if bar.kind in ("baseline", "best") and not signed:
            tick.set_fontweight("bold")
    low = min([0.0] + values)
    high = max([0.0] + values)
    span = (high - low) or 1.0
    pad = span * 0.02
    for y, bar in enumerate(rows):
        if bar.value is None:
            ax.text(pad, y, missing_text, va="center", ha="left", color="#666666", style="italic")
        elif bar.value >= 0:
            ax.text(bar.value + pad, y, bar.text, va="center", ha="left", color="#222222")
        else:
            ax.text(bar.value - pad, y, bar.text, va="center", ha="right", color="#222222")
    left = low - span * (0.22 if low < 0 else 0.0)
    right = high + span * (0.2 if high > 0 else 0.04)
    ax.set_xlim(left, right)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_locator(MaxNLocator(6))
    if not signed:
        _usd_axis(ax.xaxis)
    ax.grid(axis="x", zorder=0)
    ax.axvline(0, color="#333333", linewidth=0.8, zorder=3)
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)
    return _svg(fig, chart_id, alt)


def _place_labels(ax, fig, points: list[tuple[str, float, float]], fontsize: float) -> None:
    """Write each point's label beside it, moving labels down (with a leader line) so none overlap.

    Greedy in display coordinates: labels are placed top to bottom; a label whose box would
    overlap one already placed moves down by one line height until it is free.
    """
    to_px = ax.transData.transform
    char_w = fontsize * 0.62 * fig.dpi / 72
    line_h = fontsize * 1.35 * fig.dpi / 72
    placed: list[tuple[float, float, float, float]] = []
    x_max_px = ax.bbox.x1
    order = sorted(range(len(points)), key=lambda i: (-to_px((points[i][1], points[i][2]))[1], points[i][1]))
    for i in order:
        label, x, y = points[i]
        if not label:
            continue
        px, py = to_px((x, y))
        width = char_w * len(label)
        left_side = px + 8 + width > x_max_px + 40  # no room on the right: write it on the left
        x0 = px - 8 - width if left_side else px + 8
        ty = py + 3
        for _ in range(40):
            box = (x0, ty - line_h / 2, x0 + width, ty + line_h / 2)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
                break
            ty -= line_h
        placed.append(box)
        dx, dy = (x0 - px) * 72 / fig.dpi, (ty - py) * 72 / fig.dpi
        moved = abs(ty - (py + 3)) > 1
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=fontsize,
                    ha="left", va="center", color="#222222",
                    arrowprops={"arrowstyle": "-", "color": "#999999", "linewidth": 0.5,
                                "shrinkA": 0, "shrinkB": 3} if moved else None)


def pareto_chart(points: list[tuple[str, float, float, bool]], xlabel: str, ylabel: str,
                 chart_id: str, alt: str) -> str:
    """Time to train against cost to train; the Pareto front joined by a staircase.

    Down and to the left is better; the staircase is the boundary no instance crosses: every
    point above and to the right of it is beaten on both time and cost by a point on it.
    """
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.6))
    others = [(x, y) for _, x, y, f in points if not f]
    front = sorted((x, y) for _, x, y, f in points if f)
    if others:
        ax.scatter([p[0] for p in others], [p[1] for p in others], color=BAR, s=26, zorder=3,
                   label="matched or beaten on both")
    ax.scatter([p[0] for p in front], [p[1] for p in front], color=FRONT, marker="D", s=30, zorder=4,
               label="Pareto front")
    if len(front) > 1:
        xs, ys = [front[0][0]], [front[0][1]]
        for x, y in front[1:]:
            xs += [x, x]
            ys += [ys[-1], y]
        ax.plot(xs, ys, color=FRONT, linewidth=1, linestyle="--", zorder=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _usd_axis(ax.yaxis)
    xs_all = [p[1] for p in points]
    ys_all = [p[2] for p in points]
    x_span = (max(xs_all) - min(xs_all)) or max(xs_all) or 1.0
    y_span = (max(ys_all) - min(ys_all)) or max(ys_all) or 1.0
    ax.set_xlim(max(0.0, min(xs_all) - x_span * 0.1), max(xs_all) + x_span * 0.45)
    ax.set_ylim(max(0.0, min(ys_all) - y_span * 0.25), max(ys_all) + y_span * 0.15)
    ax.grid(True, zorder=0)
    ax.legend(loc="lower right", frameon=False, fontsize=8.5)
    _place_labels(ax, fig, [(p[0], p[1], p[2]) for p in points], fontsize=8.5)
    return _svg(fig, chart_id, alt)


def price_history_chart(series: dict[str, list[tuple[date, float]]], ylabel: str, chart_id: str, alt: str,
                        until: date | None = None) -> str:
    """Step lines of hourly price over the snapshot dates, one per instance, told apart by colour,
    marker and line style (legible in greyscale print too); the legend sits below the plot.

    Markers sit on the snapshots; each line goes on to `until` (the report's price date), since a
    price stays in force until a newer snapshot replaces it.
    """
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.0 + 0.2 * ((len(series) + 1) // 2)))
    for i, (label, points) in enumerate(series.items()):
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        color = SERIES[i % len(SERIES)]
        line_xs, line_ys = (xs + [until], ys + [ys[-1]]) if points and until and until > xs[-1] else (xs, ys)
        ax.plot(line_xs, line_ys, drawstyle="steps-post", color=color, linewidth=1.3,
                linestyle=LINESTYLES[(i // len(SERIES)) % len(LINESTYLES)],
                marker=MARKERS[i % len(MARKERS)], markersize=4, markevery=list(range(len(xs))), label=label)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    _usd_axis(ax.yaxis)
    ax.margins(x=0.04)
    ax.xaxis.set_major_locator(mdates.AutoDateLocator(minticks=3, maxticks=8))
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m"))
    ax.grid(axis="y", zorder=0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False, fontsize=8.5)
    return _svg(fig, chart_id, alt)
