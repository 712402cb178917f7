"""Board power (TDP) per accelerator model: the board_power_* columns of the accelerator catalog.

The energy estimate for results without power logs (metrics/energy.py) multiplies accelerators,
board power and time to train. The figures sit in the accelerator catalog (raw/accelerators.csv)
next to the names they belong to:

    board_power_w        maximum board power (TDP / TBP) of one accelerator in watts, from the
                         vendor's datasheet; for a configurable range the upper value (the estimate
                         is an upper bound); empty where no vendor figure is known (Cloud TPUs:
                         Google publishes none), and such results get no estimate
    board_power_source   the document the figure comes from
    board_power_as_of    the date the figure was read from that document

A model may have several catalog rows (one per way of recognizing it); their figures must agree.
A data set's own catalog without these columns (written before they existed) takes the board
power of the project's catalog (defs/prices/staging.py): public facts, the same for every data set.
"""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import Column, read_csv_table

# More than this for one accelerator board is a typo (the largest boards today draw 1.4 kW).
MAX_BOARD_WATTS = 5_000.0


def _check(path: Path):
    def check(record: dict, line: int) -> None:
        watts, source, as_of = record["board_power_w"], record["board_power_source"], record["board_power_as_of"]
        if watts is None:
            if source or as_of:
                raise InputError(path, f"{line} column board_power_w", "is empty but the row names a source or date")
            return
        if watts > MAX_BOARD_WATTS:
            raise InputError(path, f"{line} column board_power_w",
                             f"{watts:g} W is absurd for one accelerator (more than {MAX_BOARD_WATTS:,.0f} W)")
        for column in ("board_power_source", "board_power_as_of"):
            if record[column] is None:
                raise InputError(path, f"{line} column {column}", "is empty; a board power needs its source and date")
    return check


def has_board_power(path: Path) -> bool:
    """True when the catalog's header has the board_power_w column (an unreadable file: the reader says why)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError):
        return True
    return "board_power_w" in (name.strip() for name in header)


def read_board_power(path: Path) -> pl.DataFrame:
    """One row per catalog model: model, board_power_w (null: unknown), board_power_source,
    board_power_as_of."""
    frame = read_csv_table(path, [
        Column("model"), Column("board_power_w", "float", required=False, positive=True),
        Column("board_power_source", required=False), Column("board_power_as_of", "date", required=False),
    ], _check(path))
    columns = ["model", "board_power_w", "board_power_source", "board_power_as_of"]
    conflicting = (frame.group_by("model", maintain_order=True)
                   .agg(pl.col("board_power_w").n_unique().alias("figures"), pl.col("line").last())
                   .filter(pl.col("figures") > 1))
    if conflicting.height:
        row = conflicting.row(0, named=True)
        raise InputError(path, f"{row['line']} column board_power_w",
                         f"model {row['model']!r} has another board power on an earlier line")
    return frame.select(columns).unique("model", keep="first", maintain_order=True)
