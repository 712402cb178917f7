"""Charts drawn once per content: the report's and the atlas's SVG charts kept on disk under a key of what
they show.

Drawing is most of the report's HTML build (57 charts for the bundled data, about 10 s in matplotlib)
and of the atlas web edition's (about 85 charts at a third of a second each). A chart is a pure function of its arguments and of the drawing code, so its SVG is kept
(publish/file_cache.py) under the SHA-256 of both: a price change redraws only the charts whose points moved,
a new round only its own charts (and the trend chart), an unchanged atlas none. The drawing code's part of the key
is the code version of the module that draws (charts.py; pipelines/code_versions.py, as the assets' code versions):
any edit to the chart code or to what it imports (the palette, the SVG writer), or a new package version
(matplotlib, adjustText), changes every key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pipelines.code_versions import code_version_of
from pipelines.publish.file_cache import FileCache

DRAWING = "pipelines.publish.charts"  # the module of the drawing functions served through the cache


class ChartCache(FileCache):
    """`svg(draw, *args)` through a folder of SVG files (None: no folder, every chart is drawn)."""

    def __init__(self, folder: Path | None):
        super().__init__(folder, code_version_of(DRAWING) if folder is not None else "")
        self.drawn = 0  # charts drawn by this cache (the rest came from the folder)

    def chart_key(self, draw: Callable[..., str], args: tuple, kwargs: dict | None = None) -> str:
        # repr of the arguments: dataclasses, floats (shortest round-trip repr), strings, tuples
        named = f"\n{sorted(kwargs.items())!r}" if kwargs else ""
        # a drawing function of another module: that module's code version too
        other = [code_version_of(draw.__module__)] if self.folder is not None and draw.__module__ != DRAWING else []
        return self.key(*other, draw.__qualname__, f"{args!r}{named}")

    def svg(self, draw: Callable[..., str], *args, **kwargs) -> str:
        key = self.chart_key(draw, args, kwargs)
        kept = self.get(key, ".svg")
        if kept is not None:
            return kept.decode("utf-8")
        drawn = draw(*args, **kwargs)
        self.drawn += 1
        self.put(key, ".svg", drawn.encode("utf-8"))
        return drawn


NO_CACHE = ChartCache(None)
