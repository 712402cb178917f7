"""MLPerf Training rounds: one parser of round names and one sort key.

A round is written "vX.Y" ("v4.1"); its result repository folder is training_results_vX.Y, and a
ruleset of the official tools is "X.Y.0". round_key is the one order of rounds (v0.7 < v1.0 < ...
< v5.1, v10.0 after v9.0): as a tuple in Python, as an integer (round_order) in polars and SQL.
"""

from __future__ import annotations

import re

import polars as pl

FOLDER_PREFIX = "training_results_"  # a round's result repository: training_results_vX.Y

# "v1.0", "1.0", "1.0.0" or "training_results_v1.0"
_ROUND = re.compile(r"^(?:training_results_)?v?(\d+)\.(\d+)(?:\.0)?$")
_ROUND_FOLDER = re.compile(r"^training_results_(v\d+\.\d+)$")
_ROUND_IN_TEXT = re.compile(r"training_results_(v\d+\.\d+)")
_ROUND_START = r"^(?:training_results_)?v?(\d+)\.(\d+)"


def round_name(text: str) -> str | None:
    """'v1.0', '1.0', '1.0.0' or 'training_results_v1.0' -> 'v1.0'; anything else -> None."""
    match = _ROUND.match(str(text).strip())
    return f"v{match.group(1)}.{match.group(2)}" if match else None


def round_key(round_: str) -> tuple[int, int]:
    """'v4.1' -> (4, 1): the one sort key of MLPerf rounds (v0.7 < v1.0 < ... < v5.1, v10.0 after v9.0)."""
    match = _ROUND.match(str(round_).strip())
    if match is None:
        raise ValueError(f"not an MLPerf round: {round_!r}")
    return int(match.group(1)), int(match.group(2))


def round_order(round_: pl.Expr) -> pl.Expr:
    """round_key as a polars expression: an integer that sorts rounds in order (major x 1000 + minor)."""
    parts = round_.str.extract_groups(_ROUND_START)
    return parts.struct.field("1").cast(pl.Int64) * 1000 + parts.struct.field("2").cast(pl.Int64)


def folder_round(folder_name: str) -> str | None:
    """training_results_v1.0 -> 'v1.0'; a folder not named so -> None."""
    match = _ROUND_FOLDER.match(folder_name)
    return match.group(1) if match else None


def round_in(text: str) -> str | None:
    """The round of the first training_results_vX.Y anywhere in a text (a results URL), or None."""
    match = _ROUND_IN_TEXT.search(text)
    return match.group(1) if match else None


def partition_key(folder_name: str) -> str:
    """training_results_v1.0 -> v1.0: a round folder's partition key (an unsupported round keeps its
    name too)."""
    return folder_name.removeprefix(FOLDER_PREFIX)
