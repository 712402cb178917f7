"""Charts as vector SVG from matplotlib, made repeatable and with searchable text.

`svg.fonttype = 'none'` keeps labels as text (searchable in the PDF, readable by screen
readers); a fixed `svg.hashsalt` and no date metadata give the same bytes for the same data.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

plt.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "cost-to-train",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
})

BAR = "#3b6ea8"
BASELINE = "#9a9a9a"
BEST = "#2a9d5b"
FRONT = "#c0392b"


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str  # the formatted figure, the same string the table shows
    kind: str = "normal"  # normal | baseline | best


def _svg(fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]  # drop the XML prolog and doctype: the SVG is inlined in HTML
    # Scale with the page: keep the viewBox, let CSS set the size.
    svg = re.sub(r'<svg([^>]*?) width="[^"]+" height="[^"]+"', r'<svg\1', svg, count=1)
    return svg


def bar_chart(bars: list[Bar], xlabel: str, missing_text: str = "no result") -> str:
    """Horizontal bars, one per instance, with the figure written at the end of each bar."""
    height = 0.45 * len(bars) + 0.9
    fig, ax = plt.subplots(figsize=(6.4, height))
    labels = [b.label for b in bars][::-1]
    values = [b.value or 0.0 for b in bars][::-1]
    colors = [{"baseline": BASELINE, "best": BEST}.get(b.kind, BAR) for b in bars][::-1]
    ax.barh(labels, values, color=colors, height=0.6)
    top = max(values) if any(values) else 1.0
    for y, bar in enumerate(bars[::-1]):
        if bar.value is None:
            ax.text(0, y, f" {missing_text}", va="center", ha="left", color="#666666", style="italic")
        else:
            ax.text(bar.value + top * 0.01, y, bar.text, va="center", ha="left")
    ax.set_xlim(min(0.0, min(values) * 1.15), top * 1.25)
    ax.set_xlabel(xlabel)
    ax.axvline(0, color="#444444", linewidth=0.6)
    ax.tick_params(axis="y", length=0)
    fig.tight_layout()
    return _svg(fig)


def pareto_chart(points: list[tuple[str, float, float, bool]], xlabel: str, ylabel: str) -> str:
    """Time to train against cost to train; the Pareto front joined by a line."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for label, x, y, front in points:
        ax.scatter([x], [y], color=FRONT if front else BAR, s=28, zorder=3)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
    front = sorted((x, y) for _, x, y, f in points if f)
    if len(front) > 1:
        ax.plot([p[0] for p in front], [p[1] for p in front], color=FRONT, linewidth=1, linestyle="--", zorder=2,
                label="Pareto front")
        ax.legend(loc="upper right", frameon=False)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"${v:,.0f}"))
    ax.margins(x=0.25, y=0.2)
    fig.tight_layout()
    return _svg(fig)


def price_history_chart(series: dict[str, list[tuple]], ylabel: str) -> str:
    """Step lines of hourly price over the snapshot dates, one per instance."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for label, points in series.items():
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        ax.step(xs, ys, where="post", marker="o", markersize=3, label=label)
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"${v:,.0f}"))
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False, fontsize=7)
    fig.autofmt_xdate()
    fig.tight_layout()
    return _svg(fig)
