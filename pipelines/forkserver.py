"""The process's fork server: worker processes forked from a fresh interpreter that imported their modules once.

Python keeps one fork server per process ("forkserver" start method), started by the first pool or process
that uses it and importing, then, the modules named so far. So every user names its modules when its own
module is imported (`preload`), before any of them can start the server, and takes the context from here:
each then finds its modules imported, whoever started the server first.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing
import multiprocessing.forkserver
from multiprocessing.context import BaseContext

_PRELOAD: set[str] = set()


def preload(*modules: str) -> None:
    """Have the fork server import `modules` when it starts (call at import time)."""
    _PRELOAD.update(modules)


def context() -> BaseContext:
    """multiprocessing's "forkserver" context, importing every module named with `preload`."""
    _stopped_at_exit()
    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload(sorted(_PRELOAD))
    return forkserver


@functools.cache
def _stopped_at_exit() -> None:
    """Stop the server when this process exits, and wait for it: Python leaves it to end on its own, unwaited,
    and the CPU time of the server and of every worker it forked (which it waits for) would then count for no
    one (`time make atlas`, make bench's CPU figures)."""
    server = multiprocessing.forkserver._forkserver
    stop = getattr(server, "_stop", None)  # CPython's own (its tests stop the server with it)
    if stop is not None:
        atexit.register(stop)
