"""Charts drawn once per content: the report's and the atlas's SVG charts kept on disk under a key of what
they show.

Drawing is most of the report's HTML build (57 charts for the bundled data, about 10 s in matplotlib)
and of the atlas web edition's (about 85 charts at a third of a second each). A chart is a pure function of its arguments and of the drawing code, so its SVG is kept
under the SHA-256 of both: a price change redraws only the charts whose points moved, a new round
only its own charts (and the trend chart), an unchanged atlas none. Any edit to the chart code, the
palette, matplotlib or adjustText changes every key. `prune` keeps the folder to the charts of the
last build, so it does not grow with every price snapshot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from pipelines.publish import charts, palette, svg
from pipelines.publish.store import prune, write_atomic

_CODE = (charts, svg, palette)  # the modules whose code decides how a chart looks


def code_version() -> str:
    """What changes every key when the drawing changes: the chart modules' source and the libraries' versions."""
    digest = hashlib.sha256()
    for module in _CODE:
        digest.update(Path(module.__file__).read_bytes())
    for package in ("matplotlib", "adjustText"):
        digest.update(f"{package}=={metadata.version(package)}".encode())
    return digest.hexdigest()


class ChartCache:
    """`draw(*args)` through a folder of SVG files (None: no folder, every chart is drawn)."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.version = code_version() if folder is not None else ""
        self.used: set[str] = set()
        self.drawn = 0  # charts drawn by this cache (the rest came from the folder)

    def key(self, draw: Callable[..., str], args: tuple, kwargs: dict | None = None) -> str:
        # repr of the arguments: dataclasses, floats (shortest round-trip repr), strings, tuples
        named = f"\n{sorted(kwargs.items())!r}" if kwargs else ""
        return hashlib.sha256(f"{self.version}\n{draw.__qualname__}\n{args!r}{named}".encode()).hexdigest()

    def svg(self, draw: Callable[..., str], *args, **kwargs) -> str:
        if self.folder is None:
            self.drawn += 1
            return draw(*args, **kwargs)
        name = self.key(draw, args, kwargs) + ".svg"
        self.used.add(name)
        path = self.folder / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
        drawn = draw(*args, **kwargs)
        self.drawn += 1
        write_atomic(path, drawn.encode("utf-8"))  # whole files only: a killed build never leaves half a chart
        return drawn

    def prune(self) -> int:
        """Removes the charts this cache did not serve; returns how many."""
        return len(prune(self.folder, self.used))


NO_CACHE = ChartCache(None)
