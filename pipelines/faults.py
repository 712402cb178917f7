"""Fault injection for the crash-safety tests: inert unless PIPELINE_KILL_AT is set.

PIPELINE_KILL_AT=<point> makes the process kill itself with SIGKILL when it reaches that point,
the way a power cut or the OOM killer would stop it: no clean-up code runs, no `finally`, no
atexit. The points are named where they are placed:

    table:<name>        sql/<name> ran inside its transaction, before the commit (warehouse.py)
    write:<file name>   half of the file's bytes are in its temporary file (store.write_atomic)
    publish:stored      the build was moved into .store/, no link switched yet (store.py)
    publish:dated       the dated link points at the new report, latest not yet (store.py)

tests/test_crash_safety.py runs the command line with each point and checks what is left.
Nothing else in the project sets the variable; unset, kill_point() only reads the environment.
"""

from __future__ import annotations

import os
import signal

ENV = "PIPELINE_KILL_AT"


def kill_point(name: str) -> None:
    """SIGKILL this process if PIPELINE_KILL_AT names this point (test-only fault injection)."""
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
