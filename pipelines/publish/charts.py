"""Every chart of the report and the atlas, one function per kind, in one style.

    bar_chart            cost or savings per instance (horizontal bars with the table's figures)
    pareto_chart         time against cost to train, the Pareto front joined by a staircase
    price_history_chart  hourly price over the price snapshots, one step line per instance
    trend_chart          cheapest cost to train per MLPerf round, one line per benchmark model
    emissions_chart      emissions against cost to train, measured and estimated energy told apart

Each returns inline SVG (pipelines/publish/svg.py); labels stay text, so they are searchable in
the PDF. Colours are Okabe-Ito, told apart in greyscale print by marker and line style too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter  # noqa: E402

from pipelines.publish.svg import figure_svg  # noqa: E402

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


# Dollar ticks on a log axis: decades need no cents, except below one dollar.
_LOG_USD = FuncFormatter(lambda value, _pos: f"${value:,.0f}" if value >= 1 else f"${value:,.2f}")


def _usd_axis(axis) -> None:
    """Dollar ticks, with cents only when the ticks are less than a dollar apart."""
    def label(value, _pos):
        ticks = axis.get_majorticklocs()
        step = min((abs(b - a) for a, b in zip(ticks, ticks[1:])), default=1.0)
        return f"${value:,.2f}" if step < 1 else f"${value:,.0f}"
    axis.set_major_formatter(FuncFormatter(label))


def bar_chart(bars: list[Bar], xlabel: str, chart_id: str, alt: str, missing_text: str = "no result",
              signed: bool = False) -> str:
    """Horizontal bars, one per instance, with the table's figure written beside each bar.

    `signed` draws a diverging chart (savings): positive bars green, negative vermilion. Every
    figure is written right of its bar's end, or right of zero for a negative bar, where its row
    is free ("1.27× the baseline's cost" is too long to sit between a bar and the instance names).
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
    texts = []
    for y, (bar, value) in enumerate(zip(rows, values)):
        missing = bar.value is None
        texts.append(ax.text(max(value, 0.0) + pad, y, missing_text if missing else bar.text, va="center", ha="left",
                             color="#666666" if missing else "#222222", style="italic" if missing else "normal"))
    left = low - span * 0.04 if low < 0 else 0.0
    ax.set_xlim(left, _room_for(ax, fig, texts, left, high + span * 0.04))
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_locator(MaxNLocator(6))
    if not signed:
        _usd_axis(ax.xaxis)
    ax.grid(axis="x", zorder=0)
    ax.axvline(0, color="#333333", linewidth=0.8, zorder=3)
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)
    return figure_svg(fig, chart_id, alt)


def _room_for(ax, fig, texts, left: float, right: float) -> float:
    """The right end of the x axis at which every text (left-aligned at its x) ends inside the axes."""
    renderer = fig.canvas.get_renderer()
    width_px = ax.get_window_extent(renderer).width
    for text in texts:
        share = min(0.9, (text.get_window_extent(renderer).width + 6) / width_px)  # of the axes' width
        x = text.get_position()[0]
        right = max(right, (x - share * left) / (1 - share))  # x + share * (right - left) <= right
    return right


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


@dataclass(frozen=True)
class Point:
    label: str  # "" leaves the point unlabelled
    minutes: float
    usd: float
    on_front: bool


def _spans_decades(values: list[float]) -> bool:
    """A log axis only where the values span more than a decade: a narrower log axis has no ticks."""
    return min(values) > 0 and max(values) > 10 * min(values)


def _scale(ax, which: str, values: list[float], log_room: tuple[float, float], linear_room: tuple[float, float],
           ticks: FuncFormatter | None) -> bool:
    """Set the scale and limits of axis `which` ("x" or "y") with room around the points (the room
    on the right is for labels): logarithmic when the values span more than a decade, else linear
    from near zero. `ticks` formats a log axis's ticks; None means dollars. True when logarithmic."""
    axis, set_limits = getattr(ax, f"{which}axis"), getattr(ax, f"set_{which}lim")
    low, high = min(values), max(values)
    if _spans_decades(values):
        getattr(ax, f"set_{which}scale")("log")
        axis.set_major_formatter(ticks or _LOG_USD)
        axis.set_minor_formatter(NullFormatter())
        set_limits(low / log_room[0], high * log_room[1])
        return True
    span = (high - low) or high or 1.0
    set_limits(max(0.0, low - span * linear_room[0]), high + span * linear_room[1])
    if ticks is None:
        _usd_axis(axis)
    return False


def pareto_chart(points: list[Point], chart_id: str, alt: str) -> str:
    """Time to train against cost to train; the Pareto front joined by a staircase.

    Down and to the left is better; the staircase is the boundary no point crosses: every point
    above and to the right of it is beaten on both time and cost by a point on it. An axis whose
    values span more than a decade (MLPerf results from 8 to 8,000 accelerators) is logarithmic.
    """
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.6))
    others = [p for p in points if not p.on_front]
    front = sorted((p for p in points if p.on_front), key=lambda p: (p.minutes, p.usd))
    if others:
        ax.scatter([p.minutes for p in others], [p.usd for p in others], color=BAR, s=24, zorder=3, alpha=0.85,
                   label="matched or beaten on both")
    ax.scatter([p.minutes for p in front], [p.usd for p in front], color=FRONT, marker="D", s=30, zorder=4,
               label="Pareto front")
    if len(front) > 1:
        xs, ys = [front[0].minutes], [front[0].usd]
        for p in front[1:]:
            xs += [p.minutes, p.minutes]
            ys += [ys[-1], p.usd]
        ax.plot(xs, ys, color=FRONT, linewidth=1, linestyle="--", zorder=2)
    x_log = _scale(ax, "x", [p.minutes for p in points], log_room=(1.4, 2.6), linear_room=(0.1, 0.45),
                   ticks=FuncFormatter(lambda value, _pos: f"{value:,.10g}"))
    y_log = _scale(ax, "y", [p.usd for p in points], log_room=(1.6, 1.6), linear_room=(0.25, 0.15), ticks=None)
    ax.set_xlabel("Time to train (minutes" + (", log scale)" if x_log else ")"))
    ax.set_ylabel("Cost to train (USD" + (", log scale)" if y_log else ")"))
    ax.grid(True, which="major", zorder=0)
    ax.legend(loc="best", frameon=False, fontsize=8)
    fig.tight_layout()
    labelled = [(p.label, p.minutes, p.usd) for p in points if p.label]
    _place_labels(ax, fig, labelled, fontsize=8.5 if len(labelled) <= 8 else 7)
    return figure_svg(fig, chart_id, alt)


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
    return figure_svg(fig, chart_id, alt)


def trend_chart(series: dict[str, list[tuple[int, float]]], rounds: list[str], chart_id: str, alt: str) -> str:
    """Cheapest cost to train per round (x: index into `rounds`), one line per benchmark model, log scale."""
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.4 + 0.16 * ((len(series) + 2) // 3)))
    for i, (label, points) in enumerate(series.items()):
        ax.plot([p[0] for p in points], [p[1] for p in points], label=label, color=SERIES[i % len(SERIES)],
                marker=MARKERS[i % len(MARKERS)], linestyle=LINESTYLES[i % len(LINESTYLES)], linewidth=1.2, markersize=4)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rounds)))
    ax.set_xticklabels(rounds, rotation=45 if len(rounds) > 6 else 0, fontsize=8)
    ax.set_xlim(-0.3, max(len(rounds) - 0.7, 0.3))
    ax.set_xlabel("MLPerf Training round")
    ax.set_ylabel("Cheapest cost to train (USD, log scale)")
    ax.yaxis.set_major_formatter(_LOG_USD)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", zorder=0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, frameon=False, fontsize=7.5)
    fig.tight_layout()
    return figure_svg(fig, chart_id, alt)


@dataclass(frozen=True)
class EmissionsPoint:
    label: str  # "" leaves the point unlabelled
    kg_co2e: float
    usd: float
    estimate: bool  # the energy is the board-power estimate, not measured


def emissions_chart(points: list[EmissionsPoint], chart_id: str, alt: str) -> str:
    """Emissions per training run (kg CO2e, location-based) against cost to train.

    Down and to the left is better. Points whose energy is the board-power estimate (an upper
    bound of the accelerators' own energy) are hollow circles; measured ones filled diamonds.
    """
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.6))
    for estimate, marker, name in ((False, "D", "measured energy"), (True, "o", "estimate (board power)")):
        group = [p for p in points if p.estimate == estimate]
        if group:
            ax.scatter([p.kg_co2e for p in group], [p.usd for p in group], marker=marker, s=28, zorder=3,
                       facecolors=BEST if not estimate else "none", edgecolors=BEST if not estimate else BAR,
                       linewidths=1.2, label=name)
    x_log = _scale(ax, "x", [p.kg_co2e for p in points], log_room=(1.4, 2.6), linear_room=(0.1, 0.45),
                   ticks=FuncFormatter(lambda value, _pos: f"{value:,.10g}"))
    y_log = _scale(ax, "y", [p.usd for p in points], log_room=(1.6, 1.6), linear_room=(0.25, 0.15), ticks=None)
    ax.set_xlabel("Emissions per training run (kg CO₂e, location-based" + (", log scale)" if x_log else ")"))
    ax.set_ylabel("Cost to train (USD" + (", log scale)" if y_log else ")"))
    ax.grid(True, which="major", zorder=0)
    ax.legend(loc="best", frameon=False, fontsize=8)
    fig.tight_layout()
    labelled = [(p.label, p.kg_co2e, p.usd) for p in points if p.label]
    _place_labels(ax, fig, labelled, fontsize=8.5 if len(labelled) <= 8 else 7)
    return figure_svg(fig, chart_id, alt)
