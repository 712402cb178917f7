"""Which offer is cheapest and which is fastest: one function and one tie rule for the report's answer page, its
chapters, its "what changed" and the atlas, so that the same offers give the same answer everywhere.

    cheapest  the least cost; among equal costs the shorter time, then the surer price (offer kind: list,
              commitment, spot, quote, marketplace, auction: domain/offers.RANK), then the pricing option's
              order (report.toml pricing_models), then provider, instance type and region in alphabetical order
    fastest   the least time; among equal times the cheapest by the rule above. Offers often share one time
              (they stand for the same measured result), so `tied` counts the offers with that time: the
              report says "tie" rather than name one of them as the fastest.

Rows whose figure is unknown are never picked. Pure polars.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from pipelines.domain.offers import LIST, in_headline, rank_expr

COST = "cost_to_train_usd"
TIME = "time_to_train_minutes"
TIED = "tied"
# the columns the rule reads (a frame without some reads them as equal)
COLUMNS = (COST, TIME, "offer_kind", "option_position", "provider", "instance_type", "region")


def order(by: Literal["cost", "time"], cost: str = COST, time: str = TIME) -> list[pl.Expr]:
    """The sort keys of the rule (module docstring): the first row in this order is the pick."""
    first = [pl.col(cost), pl.col(time)] if by == "cost" else [pl.col(time), pl.col(cost)]
    rest = [rank_expr("offer_kind"), pl.col("option_position"), pl.col("provider"), pl.col("instance_type"),
            pl.col("region")]
    return first + rest


_DEFAULTS = {"offer_kind": pl.lit(LIST), "option_position": pl.lit(0, pl.Int64), "region": pl.lit(""),
             "provider": pl.lit(""), "instance_type": pl.lit("")}


def _missing(rows: pl.DataFrame) -> list[str]:
    """The columns the rule reads that a frame lacks (a list price, one option, no region): read as equal."""
    return [name for name in _DEFAULTS if name not in rows.columns]


def _with_tie_columns(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.with_columns([_DEFAULTS[name].alias(name) for name in _missing(rows)])


def pick(rows: pl.DataFrame, group: list[str], by: Literal["cost", "time"], cost: str = COST,
         time: str = TIME) -> pl.DataFrame:
    """One row per `group`: the cheapest (by="cost") or the fastest (by="time") of `rows`, with `tied`, the
    number of rows of the group that share its cost (or time)."""
    measure = cost if by == "cost" else time
    known = _with_tie_columns(rows).filter(pl.col(measure).is_not_null())
    if not group:
        known = known.with_columns(pl.lit(0).alias("_all"))
    keys = group or ["_all"]
    tied = (pl.col(measure) == pl.col(measure).min()).sum().over(keys).cast(pl.Int64).alias(TIED)
    picked = (known.with_columns(tied)
              .sort([*keys, *order(by, cost, time)], nulls_last=True, maintain_order=True)
              .group_by(keys, maintain_order=True).first())
    return picked.drop(*_missing(rows), *([] if group else ["_all"]))


def first_in_order(rows: pl.DataFrame, by: Literal["cost", "time"], cost: str = COST, time: str = TIME) -> pl.DataFrame:
    """`rows` sorted by the rule (the pick first), for a list ranked the same way as the pick."""
    return (_with_tie_columns(rows).sort(order(by, cost, time), nulls_last=True, maintain_order=True)
            .drop(*_missing(rows)))


def _counting(group: list[str]) -> pl.Expr:
    """1, 2, 3, ... down each group of a sorted frame (down the whole frame without a group)."""
    count = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
    return count.over(group) if group else count


def with_rank(rows: pl.DataFrame, group: list[str], by: Literal["cost", "time"], name: str,
              headline_kinds: tuple[str, ...] | list[str] | None = None, cost: str = COST,
              time: str = TIME, shared: bool = False) -> pl.DataFrame:
    """`rows` with `name`: 1 for the pick of each `group`, then 2, 3, ... in the rule's order (no two rows share a
    rank: the rule breaks every tie). Offers not in the headline (domain/offers.in_headline over `headline_kinds`:
    an auction's bid, a host's listing, a stale spot price) rank after every other, so they are never first; null
    where the figure is unknown. `shared`: rows of equal figure share the best of their ranks (1, 1, 1, 4: the
    atlas's one result submitted from three folders)."""
    measure = cost if by == "cost" else time
    indexed = _with_tie_columns(rows.drop(name, strict=False)).with_row_index("_row")
    market = ~in_headline(headline_kinds, indexed.columns) if headline_kinds else pl.lit(False)
    ranked = (indexed.filter(pl.col(measure).is_not_null())
              .sort([*group, market, *order(by, cost, time)], nulls_last=True, maintain_order=True)
              .with_columns(_counting(group).alias(name), market.alias("_market")))
    if shared:
        ranked = ranked.with_columns(pl.col(name).min().over([*group, "_market", measure]))
    ranked = ranked.select("_row", name)
    return (indexed.join(ranked, on="_row", how="left", maintain_order="left")
            .drop("_row", *_missing(rows)))
