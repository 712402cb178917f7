"""The process's fork server: worker processes forked from a fresh interpreter that imported their modules once.

Python keeps one fork server per process ("forkserver" start method), started by the first pool or process
that uses it and importing, then, the modules named so far. So every user names its modules when its own
module is imported (`preload`), before any of them can start the server, and takes the context from here:
each then finds its modules imported, whoever started the server first.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

_PRELOAD: set[str] = set()


def preload(*modules: str) -> None:
    """Have the fork server import `modules` when it starts (call at import time)."""
    _PRELOAD.update(modules)


def context() -> BaseContext:
    """multiprocessing's "forkserver" context, importing every module named with `preload`."""
    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload(sorted(_PRELOAD))
    return forkserver
