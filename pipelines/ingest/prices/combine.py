"""One price per (provider, region, instance_type, pricing option, as_of): duplicates collapse,
conflicts fail.

Provider files repeat rows (Azure lists a size under two meters, a snapshot copied under another
name is read twice), so identical prices for a key are one price. Two *different* prices for the
same key and date cannot both be true, and picking one silently would publish a number nobody
chose: that is an InputError listing every conflicting row (file:line and price).

"Identical" means equal to within PRICE_TOLERANCE (half a micro-dollar): a GCP price composed
from unit prices carries float noise that must not count as a different price.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError

from pipelines.domain.pricing import PRICE_OPTION

KEY = ["provider", "region", "instance_type", *PRICE_OPTION, "as_of"]
PRICE_TOLERANCE = 5e-7
_SHOWN_CONFLICTS = 5


def collapse_duplicates(
    prices: pl.DataFrame, root: Path, key: list[str] = KEY, value: str = "usd_per_hour"
) -> pl.DataFrame:
    """The first row (in input order) of each key; InputError if a key has different values.

    `root` is the folder the `file` column is relative to, so the error names a real path.
    The defaults are the price frame's; GCP unit prices use their own key and value column.
    """
    if prices.is_empty():
        return prices
    ordered = prices.with_row_index("_order")
    spread = ordered.group_by(key).agg((pl.col(value).max() - pl.col(value).min()).alias("_spread"))
    bad = spread.filter(pl.col("_spread") > PRICE_TOLERANCE).select(key)
    if bad.height:
        rows = ordered.join(bad, on=key, how="semi", nulls_equal=True).sort("_order")
        raise _conflict_error(rows, bad.height, root, key, value)
    return (
        ordered.sort("_order")
        .unique(subset=key, keep="first", maintain_order=True)
        .drop("_order")
    )


def _conflict_error(rows: pl.DataFrame, n_keys: int, root: Path, key: list[str], value: str) -> InputError:
    parts = []
    for values, group in rows.group_by(key, maintain_order=True):
        listed = "; ".join(f"{r['file']}:{r['line']} {r[value]!r}" for r in group.iter_rows(named=True))
        named = " ".join(str(v) for v in values[:-1] if v is not None)
        parts.append(f"{named} on {values[-1]}: {listed}")
        if len(parts) == _SHOWN_CONFLICTS:
            break
    more = f" (and {n_keys - _SHOWN_CONFLICTS} more)" if n_keys > _SHOWN_CONFLICTS else ""
    last = rows.row(rows.height - 1, named=True)
    return InputError(
        root / last["file"], last["line"],
        f"conflicting prices for the same instance and date: {' | '.join(parts)}{more}",
    )
