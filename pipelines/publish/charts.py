"""Every chart of the report and the atlas, one function per kind, in one style.

    bar_chart            cost or savings per instance (horizontal bars with the table's figures)
    pareto_chart         time against cost to train, the Pareto front joined by a staircase
    price_history_chart  hourly price over the price snapshots, one step line per instance
    trend_chart          cheapest cost to train per MLPerf round: one small panel per benchmark model
    emissions_chart      cost to train against emissions per run, measured and estimated energy told apart
    savings_dot_chart    the answer page's savings against the baseline, per benchmark: the cheapest offer
                         over every pricing option and the cheapest on demand, on one scale

Each returns inline SVG (pipelines/publish/svg.py); labels stay text, so they are searchable in
the PDF. An instance (report) or accelerator model (atlas) has one colour and marker in every figure
(pipelines/publish/palette.py). Every bar and point carries its row's details as an SVG <title>: the
web edition shows them on hover, screen readers read them; the PDF's charts stay static vectors.
Point labels are placed by adjustText, inside the axes, with a leader line when moved; legends sit
outside the plot, below it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

from adjustText import adjust_text  # noqa: E402

from pipelines.publish.palette import Style  # noqa: E402
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

BAR = "#0072B2"
FRONT_EDGE = "#1d2330"  # the ring around a point on the Pareto front, and its staircase
NEUTRAL = "#6b6b6b"  # legend markers that stand for a drawing style (filled, hollow), not a colour
LINESTYLES = ["-", "--", "-.", ":"]
WIDTH_IN = 5.2
WIDE_IN = 7.0  # the atlas's small multiples: the PDF's full text width


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str  # the formatted figure, the same string the table shows
    kind: str = "normal"  # normal | baseline | best
    color: str = BAR  # the instance's colour (palette.py)
    tip: str = ""  # the row's details, shown on hover


class Tips:
    """The hover texts of a figure's artists: an artist gets the gid `tip-<n>` and svg.figure_svg writes
    text n as the <title> of its element; a scatter of several points gets `tips-<n>` and each of its
    points (an SVG <use>, in order) gets its own text of group n."""

    def __init__(self):
        self.texts: list[str] = []
        self.groups: list[list[str]] = []

    def gid(self, text: str) -> str | None:
        if not text:
            return None
        self.texts.append(text)
        return f"tip-{len(self.texts) - 1}"

    def group(self, texts: list[str]) -> str:
        self.groups.append(texts)
        return f"tips-{len(self.groups) - 1}"


def _scatter(ax, points: list, xy, tips: Tips, **style) -> None:
    """One scatter of `points` (all in one style), each point with its own hover text (`point.tip`):
    one artist, not one per point, keeps a chart of hundreds of results quick to draw. A point without
    finite coordinates is left out here, as matplotlib would, so every drawn point gets its own text."""
    points = [p for p in points if all(math.isfinite(v) for v in xy(p))]
    ax.scatter([xy(p)[0] for p in points], [xy(p)[1] for p in points], gid=tips.group([p.tip for p in points]), **style)


# Dollar ticks on a log axis: decades need no cents, except below one dollar.
_LOG_USD = FuncFormatter(lambda value, _pos: f"${value:,.0f}" if value >= 1 else f"${value:,.2f}")


def _compact_usd(value: float, _pos=None) -> str:
    """$950, $1.2k, $35k, $1.2M: short ticks for the small panels."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"${value / scale:,.3g}{suffix}"
    return f"${value:,.3g}" if value >= 1 else f"${value:.2f}"


def _usd_axis(axis) -> None:
    """Dollar ticks, with cents only when the ticks are less than a dollar apart."""
    def label(value, _pos):
        ticks = axis.get_majorticklocs()
        step = min((abs(b - a) for a, b in zip(ticks, ticks[1:])), default=1.0)
        return f"${value:,.2f}" if step < 1 else f"${value:,.0f}"
    axis.set_major_formatter(FuncFormatter(label))


def bar_chart(bars: list[Bar], xlabel: str, chart_id: str, alt: str, missing_text: str = "no result",
              signed: bool = False, dollars: bool = True) -> str:
    """Horizontal bars, one per instance in its own colour, with the table's figure written beside each
    bar; the baseline's bar is hatched and its name and the cheapest's are bold.

    `dollars` labels the axis in USD (cost); `signed` draws a diverging chart (savings). Every figure is written right of its bar's end, or
    right of zero for a negative bar, where its row is free ("1.27× the baseline's cost" is too long to
    sit between a bar and the instance names), and the axis is widened until every figure fits.
    """
    height = 0.36 * len(bars) + 0.8
    fig, ax = plt.subplots(figsize=(WIDTH_IN, height))
    tips = Tips()
    rows = bars[::-1]
    values = [b.value if b.value is not None else 0.0 for b in rows]
    for y, (bar, value) in enumerate(zip(rows, values)):
        ax.barh(y, value, color=bar.color, height=0.62, zorder=2, gid=tips.gid(bar.tip),
                hatch="////" if bar.kind == "baseline" else None, edgecolor="#ffffff" if bar.kind == "baseline" else None,
                linewidth=0)
    ax.set_yticks(range(len(rows)), [b.label for b in rows])
    for tick, bar in zip(ax.get_yticklabels(), rows):
        if bar.kind in ("baseline", "best"):
            tick.set_fontweight("bold")
    low = min([0.0] + values)
    high = max([0.0] + values)
    span = (high - low) or 1.0
    pad = span * 0.02
    texts = []
    for y, (bar, value) in enumerate(zip(rows, values)):
        missing = bar.value is None
        texts.append(ax.text(max(value, 0.0) + pad, y, missing_text if missing else bar.text, va="center", ha="left",
                             color="#5E5E5E" if missing else "#222222", style="italic" if missing else "normal"))
    left = low - span * 0.04 if low < 0 else 0.0
    ax.set_xlim(left, _room_for(ax, fig, texts, left, high + span * 0.04))
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_locator(MaxNLocator(6))
    if dollars and not signed:
        _usd_axis(ax.xaxis)
    ax.grid(axis="x", zorder=0)
    ax.axvline(0, color="#333333", linewidth=0.8, zorder=3)
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)
    return figure_svg(fig, chart_id, alt, tips.texts)


def _room_for(ax, fig, texts, left: float, right: float) -> float:
    """The right end of the x axis at which every text (left-aligned at its x) ends inside the axes."""
    renderer = fig.canvas.get_renderer()
    width_px = ax.get_window_extent(renderer).width
    for text in texts:
        share = min(0.9, (text.get_window_extent(renderer).width + 6) / width_px)  # of the axes' width
        x = text.get_position()[0]
        right = max(right, (x - share * left) / (1 - share))  # x + share * (right - left) <= right
    return right


@dataclass(frozen=True)
class Point:
    label: str  # "" leaves the point unlabelled
    minutes: float
    usd: float
    on_front: bool
    style: Style = Style(BAR, "o")  # the instance's or accelerator's colour and marker
    tip: str = ""  # the row's details, shown on hover
    key: str = ""  # the legend entry the style stands for ("" when labels name the points)
    hollow: bool = False  # drawn as an outline: an open-division result on a chart of both divisions


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


def _covered(box: Bbox, others: list[Bbox]) -> float:
    """The area of `box` that the other boxes cover (counted once per box)."""
    return sum(max(0.0, min(box.x1, o.x1) - max(box.x0, o.x0)) * max(0.0, min(box.y1, o.y1) - max(box.y0, o.y0))
               for o in others)


def _padded(box: Bbox, dx: float = 4.0, dy: float = 1.5) -> Bbox:
    return Bbox.from_extents(box.x0 - dx, box.y0 - dy, box.x1 + dx, box.y1 + dy)


def _label_points(ax, fig, points: list[Point], fontsize: float) -> None:
    """Each labelled point's name beside it: adjustText moves the labels off each other and off the
    points; a last pass moves any label still overlapping one before it, a point, or the axes' edge up
    or down to the nearest free line, so none sits on another, on a point or on a tick label; a leader line joins a label
    that ended away from its point."""
    labelled = [p for p in points if p.label]
    if not labelled:
        return
    texts = [ax.text(p.minutes, p.usd, p.label, fontsize=fontsize, color="#222222", ha="left", va="bottom")
             for p in labelled]
    adjust_text(texts, x=[p.minutes for p in points], y=[p.usd for p in points], ax=ax, ensure_inside_axes=True,
                expand=(1.15, 1.4), iter_lim=120)  # a count, not adjustText's default 1 s: the same bytes every build
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    to_data = ax.transData.inverted()
    marks = [Bbox.from_bounds(x - 5, y - 5, 10, 10)
             for x, y in ax.transData.transform([(p.minutes, p.usd) for p in points])]
    placed = []
    for text, point in zip(texts, labelled):
        box = text.get_window_extent(renderer)
        px = ax.transData.transform((point.minutes, point.usd))[0]
        step = box.height * 1.15
        # where it is, then left of the point, right of it, centred on it, pulled inside the axes; then a
        # line up or down at a time, nearest first
        across = (0.0, px - 6 - box.x1, px + 6 - box.x0, px - (box.x0 + box.x1) / 2,
                  max(frame.x0 + 2 - box.x0, 0.0) + min(frame.x1 - 2 - box.x1, 0.0))
        shifts = sorted(((dx, k * step) for k in range(-30, 31) for dx in across),
                        key=lambda s: (abs(s[1]) + (0 if s[0] == 0 else step * 0.5), across.index(s[0]), s[1] > 0))
        inside = [(dx, dy, box.translated(dx, dy)) for dx, dy in shifts]
        inside = [c for c in inside if frame.x0 <= c[2].x0 and c[2].x1 <= frame.x1
                  and frame.y0 <= c[2].y0 and c[2].y1 <= frame.y1]
        # the first free place; on a crowded chart with none free, the place inside the axes that covers
        # the least of the other labels and points (never the tick labels outside the axes)
        others = placed + marks
        # a few pixels of room around each label: a browser's font runs a little wider than matplotlib measures
        free = next((c for c in inside if not any(_padded(c[2]).overlaps(o) for o in others)), None)
        dx, dy, moved = free or min(inside, key=lambda c: _covered(c[2], others), default=(0.0, 0.0, box))
        if dx or dy:
            x, y = ax.transData.transform(text.get_position())
            text.set_position(to_data.transform((x + dx, y + dy)))
        placed.append(moved)
    for point, box in zip(labelled, placed):
        px, py = ax.transData.transform((point.minutes, point.usd))
        nx, ny = min(max(px, box.x0), box.x1), min(max(py, box.y0), box.y1)  # the box's nearest point
        if (nx - px) ** 2 + (ny - py) ** 2 > 7 ** 2:
            (x0, y0), (x1, y1) = to_data.transform([(px, py), (nx, ny)])
            ax.plot([x0, x1], [y0, y1], color="#777777", linewidth=0.5, zorder=1)


def pareto_chart(points: list[Point], chart_id: str, alt: str) -> str:
    """Time to train against cost to train; the Pareto front ringed and joined by a staircase.

    Down and to the left is better; the staircase is the boundary no point crosses: every point
    above and to the right of it is beaten on both time and cost by a point on it. An axis whose
    values span more than a decade (MLPerf results from 8 to 8,000 accelerators) is logarithmic.
    Points keep their instance's (or accelerator's) colour and marker; where they stand for a `key`
    (an accelerator model), a legend below the plot names them. Hollow points (open-division results
    beside closed ones) get their own legend entries; the front is drawn through the points marked on it.
    """
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.6))
    tips = Tips()
    front = sorted((p for p in points if p.on_front), key=lambda p: (p.minutes, p.usd))
    groups: dict[tuple, list[Point]] = {}
    for p in points:
        groups.setdefault((p.style, p.on_front, p.hollow), []).append(p)
    for (style, on_front, hollow), members in groups.items():
        face = {"facecolors": "none"} if hollow else {"color": style.color}
        _scatter(ax, members, lambda p: (p.minutes, p.usd), tips, **face, marker=style.marker,
                 s=42 if on_front else 26, edgecolors=FRONT_EDGE if on_front else style.color if hollow else "none",
                 linewidths=1.3 if on_front or hollow else 0, zorder=4 if on_front else 3)
    if len(front) > 1:
        xs, ys = [front[0].minutes], [front[0].usd]
        for p in front[1:]:
            xs += [p.minutes, p.minutes]
            ys += [ys[-1], p.usd]
        ax.plot(xs, ys, color=FRONT_EDGE, linewidth=0.9, linestyle="--", zorder=2)
    x_log = _scale(ax, "x", [p.minutes for p in points], log_room=(1.4, 2.2), linear_room=(0.1, 0.35),
                   ticks=FuncFormatter(lambda value, _pos: f"{value:,.10g}"))
    y_log = _scale(ax, "y", [p.usd for p in points], log_room=(1.6, 1.8), linear_room=(0.25, 0.2), ticks=None)
    ax.set_xlabel("Time to train (minutes" + (", log scale)" if x_log else ")"))
    ax.set_ylabel("Cost to train (USD" + (", log scale)" if y_log else ")"))
    ax.grid(True, which="major", zorder=0)
    handles = [Line2D([], [], color="none", marker="o", markerfacecolor="#ffffff", markeredgecolor=FRONT_EDGE,
                      markeredgewidth=1.3, linestyle="--", label="Pareto front (ringed)")]
    keys = dict.fromkeys(p.key for p in points if p.key)
    styles = {p.key: p.style for p in points if p.key}
    handles += [Line2D([], [], color=styles[k].color, marker=styles[k].marker, linestyle="none", label=k) for k in keys]
    if any(p.hollow for p in points):
        # in a neutral grey: the accelerator entries own the colours
        handles += [Line2D([], [], color="none", marker="o", markerfacecolor=NEUTRAL, markeredgecolor=NEUTRAL,
                           linestyle="none", label="closed division (filled)"),
                    Line2D([], [], color="none", marker="o", markerfacecolor="none", markeredgecolor=NEUTRAL,
                           markeredgewidth=1.2, linestyle="none", label="open division (hollow)")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=min(3, len(handles)),
              frameon=False, fontsize=7.5, handletextpad=0.3, columnspacing=1.2)
    fig.tight_layout()
    _label_points(ax, fig, points, fontsize=8 if sum(bool(p.label) for p in points) <= 8 else 7)
    return figure_svg(fig, chart_id, alt, tips.texts, tips.groups, laid_out=True)


def price_history_chart(series: dict[str, list[tuple[date, float]]], ylabel: str, chart_id: str, alt: str,
                        until: date | None = None, styles: dict[str, Style] | None = None,
                        tips: dict[str, list[str]] | None = None) -> str:
    """Step lines of hourly price over the snapshot dates, one per instance in its colour and marker
    (legible in greyscale print too); the legend sits below the plot.

    Markers sit on the snapshots (hover: `tips[label][i]`); each line goes on to `until` (the report's
    price date), since a price stays in force until a newer snapshot replaces it.
    """
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.0 + 0.2 * ((len(series) + 1) // 2)))
    hover = Tips()
    for i, (label, points) in enumerate(series.items()):
        style = (styles or {}).get(label) or Style(BAR, "o")
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        line_xs, line_ys = (xs + [until], ys + [ys[-1]]) if points and until and until > xs[-1] else (xs, ys)
        ax.plot(line_xs, line_ys, drawstyle="steps-post", color=style.color, linewidth=1.3,
                linestyle=LINESTYLES[i % len(LINESTYLES)], label=label, marker=style.marker, markersize=4,
                markevery=list(range(len(xs))))
        for j, (x, y) in enumerate(zip(xs, ys)):  # an invisible target per snapshot for its hover text
            text = ((tips or {}).get(label) or [""] * len(xs))[j]
            ax.scatter([x], [y], s=36, color=style.color, alpha=0.0, zorder=5, gid=hover.gid(text))
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    _usd_axis(ax.yaxis)
    ax.margins(x=0.04)
    ax.tick_params(axis="x", pad=7)  # the first date's label clear of the "$0" beside the corner
    ax.xaxis.set_major_locator(mdates.AutoDateLocator(minticks=3, maxticks=8))
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m"))
    ax.grid(axis="y", zorder=0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False, fontsize=8.5)
    return figure_svg(fig, chart_id, alt, hover.texts)


@dataclass(frozen=True)
class TrendPoint:
    round_index: int  # into the chart's rounds
    usd: float
    key: str  # the accelerator model of the round's cheapest configuration
    tip: str = ""


def trend_chart(panels: dict[str, list[TrendPoint]], rounds: list[str], styles: dict[str, Style], chart_id: str,
                alt: str) -> str:
    """Small multiples: one panel per benchmark model with its cheapest cost to train per round (log
    scale, each panel its own range), each point in the colour of that configuration's accelerator;
    one legend of accelerators below. Twenty models in one plot needed twenty colours and a legend
    larger than the plot; a panel each needs neither."""
    n = max(len(panels), 1)
    cols = min(3, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDE_IN, 0.6 + 1.45 * rows), sharex=True, squeeze=False,
                             layout="constrained")
    hover = Tips()
    for i, ax in enumerate(axes.flat):
        if i >= n:
            ax.set_visible(False)
            axes.flat[i - cols].xaxis.set_tick_params(labelbottom=True)  # the panel above shows the rounds
            continue
        title, points = list(panels.items())[i]
        ax.plot([p.round_index for p in points], [p.usd for p in points], color="#9a9a9a", linewidth=0.9, zorder=2)
        groups: dict[Style, list[TrendPoint]] = {}
        for p in points:
            groups.setdefault(styles.get(p.key) or Style(BAR, "o"), []).append(p)
        for style, members in groups.items():
            _scatter(ax, members, lambda p: (p.round_index, p.usd), hover, color=style.color, marker=style.marker,
                     s=22, zorder=3)
        values = [p.usd for p in points]
        ax.set_yscale("log")
        ax.set_ylim(min(values) / 2.2, max(values) * 2.2)
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 3.0), numticks=6))
        ax.yaxis.set_major_formatter(FuncFormatter(_compact_usd))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.tick_params(labelsize=6.5, length=2, pad=1.5)
        ax.tick_params(axis="x", labelrotation=90)  # every panel alike: a whole corpus has a dozen rounds
        ax.set_title(title, fontsize=7.5, loc="left", pad=3)
        ax.grid(True, which="major", axis="y", zorder=0)
    last = axes.flat[0]
    last.set_xticks(range(len(rounds)))
    last.set_xticklabels(rounds, fontsize=6.5)
    last.set_xlim(-0.5, len(rounds) - 0.5)
    keys = dict.fromkeys(p.key for points in panels.values() for p in points)
    handles = [Line2D([], [], color=styles[k].color, marker=styles[k].marker, linestyle="none", label=k)
               for k in keys if k in styles]
    fig.supylabel("Cheapest cost to train (USD, log scale)", fontsize=8)
    fig.legend(handles=handles, loc="outside lower center", ncol=min(4, max(len(handles), 1)), frameon=False,
               fontsize=7, title="Accelerator of the cheapest configuration", title_fontsize=7, handletextpad=0.3)
    return figure_svg(fig, chart_id, alt, hover.texts, hover.groups)


MEASURED = "#009E73"  # Okabe-Ito green: a point whose energy is measured


@dataclass(frozen=True)
class EmissionsPoint:
    label: str  # "" leaves the point unlabelled
    kg_co2e: float
    usd: float
    estimate: bool  # the energy is the board-power estimate, not measured
    tip: str = ""  # the row's details, shown on hover


def emissions_chart(points: list[EmissionsPoint], chart_id: str, alt: str) -> str:
    """Emissions per training run (kg CO2e, location-based) against cost to train.

    Down and to the left is better. A point whose energy is the board-power estimate (an upper
    bound of the accelerators' own energy) is a hollow circle, a measured one a filled diamond, so
    the two read apart in greyscale print too.
    """
    # taller with more labels: the whole market brings points of near cost and emissions, whose labels
    # need lines of their own
    fig, ax = plt.subplots(figsize=(WIDTH_IN, max(3.6, 1.6 + 0.32 * sum(bool(p.label) for p in points))))
    tips = Tips()
    for estimate, marker, face, edge, name in ((False, "D", MEASURED, MEASURED, "measured energy"),
                                               (True, "o", "none", BAR, "estimated energy (board power)")):
        group = [p for p in points if p.estimate == estimate]
        if group:
            _scatter(ax, group, lambda p: (p.kg_co2e, p.usd), tips, marker=marker, s=30, facecolors=face,
                     edgecolors=edge, linewidths=1.2, zorder=3, label=name)
    x_log = _scale(ax, "x", [p.kg_co2e for p in points], log_room=(1.4, 2.2), linear_room=(0.1, 0.35),
                   ticks=FuncFormatter(lambda value, _pos: f"{value:,.10g}"))
    y_log = _scale(ax, "y", [p.usd for p in points], log_room=(1.6, 1.8), linear_room=(0.25, 0.2), ticks=None)
    ax.set_xlabel("Emissions per training run (kg CO\u2082e, location-based" + (", log scale)" if x_log else ")"))
    ax.set_ylabel("Cost to train (USD" + (", log scale)" if y_log else ")"))
    ax.grid(True, which="major", zorder=0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False, fontsize=7.5)
    fig.tight_layout()
    # the label placer reads a Point's x as minutes: here it is the emissions
    placed = [Point(p.label, p.kg_co2e, p.usd, False) for p in points]
    _label_points(ax, fig, placed, fontsize=8 if sum(bool(p.label) for p in points) <= 8 else 7)
    return figure_svg(fig, chart_id, alt, tips.texts, tips.groups, laid_out=True)


@dataclass(frozen=True)
class SavingsRow:
    label: str  # "2.1 ResNet-50"
    any_option: float | None  # savings of the cheapest offer over every pricing option, percent
    on_demand: float | None  # savings of the cheapest on-demand offer, percent
    text: str  # written beside the row: "+88.6% spot", or why there are no dots
    tip: str = ""  # the row's figures, shown on hover


def savings_dot_chart(rows: list[SavingsRow], chart_id: str, alt: str) -> str:
    """One line per benchmark, top to bottom in `rows`' order: a hollow dot at the cheapest on-demand
    offer's savings and a filled one at the cheapest offer's over every pricing option, joined by a
    line (the part of the savings only another way of paying gives); the filled dot's figure beside it.
    Savings are against each comparison's baseline, so one scale serves every benchmark."""
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 0.21 * len(rows) + 0.85))
    tips = Tips()
    ys = list(range(len(rows)))[::-1]
    values = [v for r in rows for v in (r.any_option, r.on_demand) if v is not None]
    low = min([0.0] + values)
    texts = []
    for y, r in zip(ys, rows):
        if r.any_option is not None and r.on_demand is not None:
            ax.plot([r.on_demand, r.any_option], [y, y], color="#9a9a9a", linewidth=1.2, zorder=2)
        if r.on_demand is not None:
            ax.scatter([r.on_demand], [y], s=30, facecolors="#ffffff", edgecolors=BAR, linewidths=1.3, zorder=3)
        if r.any_option is not None:
            ax.scatter([r.any_option], [y], s=34, color=BAR, zorder=4, gid=tips.gid(r.tip))
        x = max([v for v in (r.any_option, r.on_demand) if v is not None], default=max(low, 0.0))
        missing = r.any_option is None
        texts.append(ax.text(x + 2.0, y, r.text, va="center", ha="left", fontsize=8,
                             color="#5E5E5E" if missing else "#222222", style="italic" if missing else "normal"))
    ax.set_yticks(ys, [r.label for r in rows], fontsize=8.5)
    ax.tick_params(axis="y", length=0)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    left = low - 5.0 if low < 0 else -3.0  # a dot at 0% whole, clear of the axis line
    ax.set_xlim(left, _room_for(ax, fig, texts, left, 100.0))
    ax.xaxis.set_major_locator(MaxNLocator(6))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:.0f}%"))
    ax.set_xlabel("Saving against the comparison's baseline (%)", fontsize=9)
    ax.grid(axis="x", zorder=0)
    ax.axvline(0, color="#333333", linewidth=0.8, zorder=1)
    ax.spines["left"].set_visible(False)
    handles = [Line2D([], [], color=BAR, marker="o", linestyle="none", label="cheapest, any pricing option"),
               Line2D([], [], color="none", marker="o", markerfacecolor="#ffffff", markeredgecolor=BAR,
                      markeredgewidth=1.3, linestyle="none", label="cheapest on demand")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.07 - 1.5 / (len(rows) + 4)), ncol=2,
              frameon=False, fontsize=8)
    return figure_svg(fig, chart_id, alt, tips.texts)
