"""Names a user types (systems, benchmarks, workloads, instances) checked against the names the
data set knows: an unknown name is an error that says which names are valid and, for a near miss,
which one was probably meant."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

SHOWN = 12  # names listed in a message; the rest are counted


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """"; did you mean 'y'?" for the nearest known name of a near miss, else ""."""
    close = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_name(kind: str, name: str, known: Iterable[str]) -> str | None:
    """None when `name` is known, else "unknown <kind> 'x'; did you mean 'y'? (known <kind>s: a, b, ...)"."""
    names = sorted(set(known))
    if name in names:
        return None
    hint = did_you_mean(name, names)
    listed = ", ".join(names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")
    return f"unknown {kind} {name!r}{hint} (known {kind}s: {listed or 'none'})"
