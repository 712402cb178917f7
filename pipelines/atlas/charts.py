"""The atlas's two kinds of chart, drawn with the report's chart style (pipelines/publish/charts)."""

from __future__ import annotations

from matplotlib.ticker import FuncFormatter, NullFormatter

from pipelines.publish import charts
from pipelines.publish.charts import BAR, FRONT, LINESTYLES, MARKERS, SERIES, WIDTH_IN, plt


# Dollar ticks on a log axis: decades need no cents, except below one dollar.
_LOG_USD = FuncFormatter(lambda value, _pos: f"${value:,.0f}" if value >= 1 else f"${value:,.2f}")


def trend_chart(series: dict[str, list[tuple[int, float]]], rounds: list[str], chart_id: str, alt: str) -> str:
    """Cheapest cost to train per round, one line per benchmark model, log scale."""
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.4 + 0.16 * ((len(series) + 2) // 3)))
    for i, (label, points) in enumerate(series.items()):
        ax.plot([p[0] for p in points], [p[1] for p in points], label=label, color=SERIES[i % len(SERIES)],
                marker=MARKERS[i % len(MARKERS)], linestyle=LINESTYLES[i % len(LINESTYLES)], linewidth=1.2, markersize=4)
    ax.set_yscale("log")
    ax.set_xticks(range(len(rounds)))
    ax.set_xticklabels(rounds, rotation=45 if len(rounds) > 6 else 0, fontsize=8)
    ax.set_xlim(-0.3, max(len(rounds) - 0.7, 0.3))
    ax.set_xlabel("MLPerf Training round")
    ax.set_ylabel("cheapest cost to train (USD, log scale)")
    ax.yaxis.set_major_formatter(_LOG_USD)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major", zorder=0)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, frameon=False, fontsize=7.5)
    fig.tight_layout()
    return charts._svg(fig, chart_id, alt)


def scatter_chart(points: list[tuple[str, float, float, bool]], chart_id: str, alt: str) -> str:
    """Time against cost of every priced result; Pareto front labelled and joined by a staircase."""
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.3))
    others = [(x, y) for _, x, y, front in points if not front]
    front = sorted((x, y, label) for label, x, y, on in points if on)
    if others:
        ax.scatter([p[0] for p in others], [p[1] for p in others], color=BAR, s=18, zorder=3, alpha=0.8,
                   label="beaten on both time and cost")
    ax.scatter([p[0] for p in front], [p[1] for p in front], color=FRONT, marker="D", s=26, zorder=4,
               label="Pareto front")
    if len(front) > 1:
        xs, ys = [front[0][0]], [front[0][1]]
        for x, y, _ in front[1:]:
            xs += [x, x]
            ys += [ys[-1], y]
        ax.plot(xs, ys, color=FRONT, linewidth=1, linestyle="--", zorder=2)
    xs_all = [p[1] for p in points]
    ys_all = [p[2] for p in points]
    # A log axis only where the points span more than a decade: a narrower log axis has no ticks.
    x_log = max(xs_all) > 10 * min(xs_all)
    y_log = max(ys_all) > 10 * min(ys_all)
    if x_log:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:,.10g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(min(xs_all) / 1.4, max(xs_all) * 2.6)
    else:
        span = max(xs_all) - min(xs_all) or max(xs_all)
        ax.set_xlim(max(0.0, min(xs_all) - 0.15 * span), max(xs_all) + 0.6 * span)
    if y_log:
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(min(ys_all) / 1.6, max(ys_all) * 1.6)
    else:
        span = max(ys_all) - min(ys_all) or max(ys_all)
        ax.set_ylim(max(0.0, min(ys_all) - 0.25 * span), max(ys_all) + 0.25 * span)
    ax.set_xlabel("time to train (minutes" + (", log scale)" if x_log else ")"))
    ax.set_ylabel("cost to train (USD" + (", log scale)" if y_log else ")"))
    if y_log:
        ax.yaxis.set_major_formatter(_LOG_USD)
    else:
        charts._usd_axis(ax.yaxis)
    ax.grid(True, which="major", zorder=0)
    ax.legend(loc="upper right", frameon=False, fontsize=7.5)
    fig.tight_layout()
    charts._place_labels(ax, fig, [(label, x, y) for x, y, label in front[:12]], fontsize=7)
    return charts._svg(fig, chart_id, alt)
