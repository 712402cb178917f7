"""The atlas's chart cache: a chart is drawn once per content and served from disk after that."""

from pipelines.publish import charts
from pipelines.publish.chart_cache import NO_CACHE, ChartCache
from pipelines.publish.palette import Palette

STYLE = Palette(["A100-SXM-40GB", "H100-SXM-80GB"])


def _points(usd: float) -> list[charts.Point]:
    return [charts.Point("a", 30.0, usd, True, STYLE["A100-SXM-40GB"], "a tip", "A100-SXM-40GB"),
            charts.Point("b", 12.0, 40.0, True, STYLE["H100-SXM-80GB"], "b tip", "H100-SXM-80GB")]


def test_a_chart_is_drawn_once_and_served_as_drawn(tmp_path):
    first = ChartCache(tmp_path)
    svg = first.svg(charts.pareto_chart, _points(20.0), "fig-1", "alt text")
    assert svg == charts.pareto_chart(_points(20.0), "fig-1", "alt text")  # the cache returns what drawing gives
    assert first.drawn == 1 and len(list(tmp_path.glob("*.svg"))) == 1

    later = ChartCache(tmp_path)  # the next build: same content, nothing drawn
    assert later.svg(charts.pareto_chart, _points(20.0), "fig-1", "alt text") == svg
    assert later.drawn == 0


def test_what_a_chart_shows_is_its_key_and_prune_keeps_the_last_build(tmp_path):
    before = ChartCache(tmp_path).svg(charts.pareto_chart, _points(20.0), "fig-1", "alt text")
    build = ChartCache(tmp_path)
    moved = build.svg(charts.pareto_chart, _points(18.0), "fig-1", "alt text")  # one price changed
    assert build.drawn == 1 and moved != before
    build.svg(charts.pareto_chart, _points(20.0), "fig-2", "alt text")  # same points, another figure number
    assert build.drawn == 2
    assert build.prune() == 1  # the first build's chart, not served by this one
    assert len(list(tmp_path.glob("*.svg"))) == 2


def test_the_drawing_code_is_part_of_the_key(tmp_path):
    cache = ChartCache(tmp_path)
    key = cache.chart_key(charts.pareto_chart, (_points(20.0), "fig-1", "alt"))
    cache.version = "another version of charts.py"
    assert cache.chart_key(charts.pareto_chart, (_points(20.0), "fig-1", "alt")) != key
    assert cache.chart_key(charts.trend_chart, (_points(20.0), "fig-1", "alt")) != key


def test_without_a_folder_every_chart_is_drawn():
    assert NO_CACHE.folder is None
    before = NO_CACHE.drawn
    NO_CACHE.svg(charts.pareto_chart, _points(20.0), "fig-1", "alt")
    assert NO_CACHE.drawn == before + 1 and NO_CACHE.prune() == 0
