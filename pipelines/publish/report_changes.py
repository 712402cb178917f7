"""What the last price snapshot changed: the sentence each benchmark gets ("since ...") and the
report's "What changed" chapter (price changes, and what they do to cost and ranking)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from pipelines.domain.pricing import KEY
from pipelines.domain import units as fmt
from pipelines.publish import labels
from pipelines.publish.labels import instance_of as _label
from pipelines.publish.numbering import Numbering
from pipelines.publish.records import Cell, Column, Heading, Row, Table

MAX_OTHER_CHANGES = 5  # price changes of instances outside the comparisons named in the text
FIRST_SNAPSHOT = "first price snapshot: nothing to compare with"
# what `since` says when nothing about the cheapest offer moved
UNMOVED = (FIRST_SNAPSHOT, "no measured result", "unchanged", "no price on the previous snapshot")


def _key(row: dict) -> tuple:
    return tuple(row[k] for k in KEY)


def since(rows: list[dict], changes: list[dict], previous_date: date | None) -> str:
    """One sentence: what the last price snapshot changed about a benchmark's cheapest instance and
    about the savings the summary shows (the cheapest's against the baseline's cost).

    `rows` are the benchmark's cost_to_train rows (cheapest first), `changes` its cost_changes rows.
    """
    if previous_date is None:
        return FIRST_SNAPSHOT
    cheapest = next((r for r in rows if r["cost_rank"] == 1), None)
    if cheapest is None:
        return "no measured result"
    by_key = {_key(c): c for c in changes}
    now = by_key.get(_key(cheapest))
    was = next((c for c in changes if c["previous_rank"] == 1), None)
    savings = _savings_moved(rows, cheapest, was, by_key)
    if was and _key(was) != _key(cheapest):
        text = f"new cheapest; was {_label(was)} ({fmt.usd(was['previous_cost_usd'])})"
        if now and now["previous_cost_usd"] is not None:
            text += f", when {_label(cheapest)} cost {fmt.usd(now['previous_cost_usd'])}"
    elif now and now["cost_change_pct"] is not None and abs(now["cost_change_pct"]) > 1e-9:
        text = (f"same cheapest; its cost {fmt.rose_fell(now['cost_change_pct'])} "
                f"({fmt.usd(now['previous_cost_usd'])} → {fmt.usd(now['current_cost_usd'])})")
    elif now and now["previous_cost_usd"] is None:
        return "no price on the previous snapshot"
    elif savings:
        text = f"same cheapest at the same cost ({fmt.usd(cheapest['cost_to_train_usd'])})"
    else:
        return "unchanged"
    return f"{text}; {savings}" if savings else text


def _savings_moved(rows: list[dict], cheapest: dict, was: dict | None, by_key: dict) -> str | None:
    """"savings +63.8% → +51.7%, because the baseline AWS p3.16xlarge's price fell 25.0% (...)" when
    the savings shown moved; None when they did not or cannot be compared."""
    baseline = next((r for r in rows if r["is_baseline"]), None)
    if baseline is None or cheapest["is_baseline"] or cheapest["savings_pct"] is None or was is None:
        return None
    base = by_key.get(_key(baseline))
    if base is None or was["previous_savings_pct"] is None:
        return None
    before = fmt.savings(was["previous_savings_pct"])
    after = fmt.savings(cheapest["savings_pct"])
    if before == after:
        return None
    text = f"savings {before} → {after}"
    if base["cost_change_pct"] is not None and abs(base["cost_change_pct"]) > 1e-9:
        text += (f", because the baseline {_label(baseline)}'s price {fmt.rose_fell(base['cost_change_pct'])} "
                 f"({fmt.usd_hour(base['previous_usd_per_hour'])} → {fmt.usd_hour(base['current_usd_per_hour'])} per hour)")
    return text


@dataclass(frozen=True)
class PriceMove:
    """A compared instance whose price differs between the two snapshots."""

    instance: str
    change: str
    previous: str
    current: str


@dataclass(frozen=True)
class Changes:
    heading: Heading
    moves: tuple[PriceMove, ...]  # also named in the summary
    prices: Table | None
    costs: Table | None
    new: tuple[str, ...]  # compared instances first priced on the price date
    others_changed: int  # priced instances outside the comparisons
    others_new: int
    others_named: tuple[str, ...]  # named when few


def _changed(price_changes: pl.DataFrame) -> pl.DataFrame:
    """Instances priced on both snapshots whose price differs, biggest cut first."""
    return (price_changes.filter(pl.col("previous_as_of").is_not_null() & (pl.col("change_pct").abs() > 1e-9))
            .sort("change_pct", "provider", "region", "instance_type"))


def _new(price_changes: pl.DataFrame, price_date: date) -> pl.DataFrame:
    """Instances first priced on the report's price date."""
    return price_changes.filter(pl.col("previous_as_of").is_null() & (pl.col("current_as_of") == price_date))


PRICE_COLUMNS = (Column("Instance", header=True), Column("Region"), Column("Before", numeric=True),
                 Column("Now", numeric=True), Column("Change", numeric=True))
COST_COLUMNS = (Column("Comparison and benchmark"), Column("Instance", header=True), Column("Before", numeric=True),
                Column("Now", numeric=True), Column("Change", numeric=True), Column("Rank", numeric=True))


def changes_chapter(number: int, *, cost: pl.DataFrame, cost_changes: pl.DataFrame, price_changes: pl.DataFrame,
                    comparison_titles: dict[str, str], price_date: date, previous_date: date | None,
                    numbering: Numbering) -> Changes:
    """The report lists the price changes of the instances it compares; those of other priced
    instances are counted (and named when few): a big price list must not turn the summary and
    this chapter into pages of instances nobody compared. data/price_changes.csv has them all."""
    compared = cost.select(KEY).unique()
    in_report = price_changes.join(compared, on=KEY, how="semi")
    elsewhere = price_changes.join(compared, on=KEY, how="anti")
    changed = _changed(in_report).to_dicts()
    other_changed = _changed(elsewhere)
    moved_costs = cost_changes.filter(
        pl.col("cost_change_pct").is_not_null() & (pl.col("cost_change_pct").abs() > 1e-9)
        | (pl.col("previous_rank") != pl.col("current_rank"))
    ).to_dicts()
    previous = fmt.day(previous_date) if previous_date else None
    return Changes(
        heading=Heading(str(number), f"What changed since {previous or 'the previous snapshot'}", "changes",
                        running=f"{number} What changed"),
        moves=tuple(PriceMove(_label(r), fmt.pct(r["change_pct"]), fmt.usd_hour(r["previous_usd_per_hour"]),
                              fmt.usd_hour(r["current_usd_per_hour"])) for r in changed),
        prices=price_table(numbering.table(), changed, previous) if changed else None,
        costs=cost_change_table(numbering.table(), moved_costs, comparison_titles) if changed and moved_costs else None,
        new=tuple(_label(r) for r in _new(in_report, price_date).iter_rows(named=True)) if previous_date else (),
        others_changed=other_changed.height,
        others_new=_new(elsewhere, price_date).height if previous_date else 0,
        others_named=tuple(f"{_label(r)} {fmt.pct(r['change_pct'])}" for r in other_changed.iter_rows(named=True))
        if other_changed.height <= MAX_OTHER_CHANGES else (),
    )


def price_table(number: int, changed: list[dict], previous: str) -> Table:
    return Table(number, f"Price changes since {previous}", PRICE_COLUMNS, tuple(
        Row((Cell(_label(r)), Cell(r["region"]),
             Cell(fmt.usd_hour(r["previous_usd_per_hour"]), sort=r["previous_usd_per_hour"], subs=(fmt.day(r["previous_as_of"]),)),
             Cell(fmt.usd_hour(r["current_usd_per_hour"]), sort=r["current_usd_per_hour"], subs=(fmt.day(r["current_as_of"]),)),
             Cell(fmt.pct(r["change_pct"]), sort=r["change_pct"])), facets=(("Provider", labels.provider(r["provider"])),))
        for r in changed), csv="price_changes")


def cost_change_table(number: int, moved: list[dict], comparison_titles: dict[str, str]) -> Table:
    def rank(r: dict) -> str:
        same = r["previous_rank"] == r["current_rank"]
        return f"{r['current_rank']} (same)" if same else f"{r['previous_rank']} → {r['current_rank']}"

    return Table(number, "Cost to train and rank before and after the price changes", COST_COLUMNS, tuple(
        Row((Cell(labels.short_benchmark(r["benchmark"]), subs=(comparison_titles.get(r["comparison"], r["comparison"]),)),
             Cell(_label(r)),
             Cell(fmt.usd(r["previous_cost_usd"]), sort=r["previous_cost_usd"]),
             Cell(fmt.usd(r["current_cost_usd"]), sort=r["current_cost_usd"]),
             Cell(fmt.pct(r["cost_change_pct"]), sort=r["cost_change_pct"]),
             Cell(rank(r), sort=r["current_rank"])),
            facets=(("Provider", labels.provider(r["provider"])), ("Benchmark", labels.short_benchmark(r["benchmark"]))))
        for r in moved), css="cost-changes", csv="cost_changes")
