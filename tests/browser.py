"""Debian's chromium through Playwright, offline: a page whose every request but its own file is
blocked and recorded, with its console errors collected. Shared by the browser tests."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# A page's elements that scroll sideways: content wider than the box, and a box that scrolls rather than clips
SIDEWAYS = """() => [...document.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 1
    && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
    .map(e => `${e.tagName}#${e.id}.${e.className} ${e.scrollWidth}>${e.clientWidth}`)"""
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def need_chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (CI installs it with `make system-deps`)")


@dataclass
class Watch:
    """What a page did besides loading its own file: requests (blocked) and console errors."""

    url: str
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@contextmanager
def browser():
    need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


def open_offline(chromium, path: Path, width: int = 1280, scheme: str = "light", tables: bool = True):
    """A new page showing `path` from file://; every other request is aborted and recorded in the
    returned Watch. With `tables`, waits until templates/tables.js has enhanced every table."""
    url = path.resolve().as_uri()
    page = chromium.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    watch = Watch(url)

    def route(r):
        if r.request.url == url:
            r.continue_()
        else:
            watch.blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: watch.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: watch.errors.append(str(e)))
    page.goto(url, wait_until="load")
    if tables:
        page.wait_for_function("document.documentElement.dataset.tables === 'ready'", timeout=60_000)
    return page, watch
