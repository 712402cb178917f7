"""Names a user types (systems, benchmarks, workloads, instances, providers, pricing options, keys
of report.toml) checked against the names the data set knows: an unknown name is an error that
says which names are valid and, for a near miss, which one was probably meant."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

SHOWN = 12  # names listed in a message; the rest are counted


def nearest(name: object, known: Iterable[str]) -> str | None:
    """The known name a near miss probably meant ('AWS' for 'aws' too), or None."""
    if not isinstance(name, str) or not name:
        return None
    by_folded = {k.lower(): k for k in sorted(set(known), reverse=True)}  # the first in order wins a tie
    close = difflib.get_close_matches(name.lower(), sorted(by_folded), n=1, cutoff=0.75)
    return by_folded[close[0]] if close and by_folded[close[0]] != name else None


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """"; did you mean 'y'?" for the nearest known name of a near miss, else ""."""
    meant = nearest(name, known)
    return f"; did you mean {meant!r}?" if meant else ""


def listed(names: Iterable[str]) -> str:
    """"a, b, c" and, past SHOWN names, "... and 7 more"."""
    names = list(names)
    return ", ".join(names[:SHOWN]) + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def unknown_name(kind: str, name: str, known: Iterable[str]) -> str | None:
    """None when `name` is known, else "unknown <kind> 'x'; did you mean 'y'? (known <kind>s: a, b, ...)"."""
    names = sorted(set(known))
    if name in names:
        return None
    return f"unknown {kind} {name!r}{did_you_mean(name, names)} (known {kind}s: {listed(names) or 'none'})"


def not_one_of(value: object, allowed: Iterable[str]) -> str:
    """"'AWS' is not one of aws, gcp, azure; did you mean 'aws'?": a value outside a fixed list."""
    allowed = list(allowed)
    return f"{value!r} is not one of {', '.join(allowed)}{did_you_mean(value, allowed)}"


# A provider is any lower-case slug: the big three, a public catalog's cloud (lambda, nebius) or one a user adds
# with a quote (coreweave). One rule for instances.csv, mappings.csv, price files and report.toml.
PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9]*$")
WELL_KNOWN_PROVIDERS = ("aws", "gcp", "azure")


def provider_problem(value: object) -> str | None:
    """None for a provider name, else what is wrong with it (and the name probably meant)."""
    if isinstance(value, str) and PROVIDER_NAME.match(value):
        return None
    return (f"provider {value!r} is not a provider name: lower-case letters and digits, such as aws, gcp, azure, a "
            f"public catalog's cloud (lambda, nebius) or one of your own (coreweave)"
            + did_you_mean(value, WELL_KNOWN_PROVIDERS))
