"""A described model's answer, picked once (the model_picks mart): the answer page, the model's chapter and the
estimate command read these rows, so "cheapest" and "fastest" name the same offer everywhere.

Per model, by the report's one rule (domain/best.py):
    cheapest            the least cost among the offers that may headline: in the headline (domain/offers.in_headline:
                        report.toml's headline kinds, no stale spot price) and a cluster that can train (one instance,
                        or several with a fabric their provider states: model_estimates.cluster_proven)
    cheapest_on_demand  the same among on-demand prices
    fastest             the least wall-clock time among the same offers (equal times: the cheapest; `tied` counts them)
    market              the cheapest auction or marketplace offer (domain/offers.in_market) of a proven cluster, shown
                        only when cheaper than `cheapest`
`ranked` orders every offer the same way for the tables: the offers that may headline first, then the rest.
"""

from __future__ import annotations

import polars as pl

from pipelines.domain.best import pick, with_rank
from pipelines.domain.offers import OFFER_KINDS, in_headline, in_market
from pipelines.metrics.model_estimates import ESTIMATE_COLUMNS

PICKS = ("cheapest", "cheapest_on_demand", "fastest", "market")
PICK_COLUMNS = {"pick": pl.Utf8, **ESTIMATE_COLUMNS, "tied": pl.Int64}
_COST, _TIME = "cost_usd", "hours"


def may_headline(estimates: pl.DataFrame, headline_kinds: tuple[str, ...]) -> pl.Expr:
    """Whether an estimate may be a model's headline (module docstring)."""
    return in_headline(headline_kinds, estimates.columns) & pl.col("cluster_proven").fill_null(False)


def model_picks(estimates: pl.DataFrame, headline_kinds: tuple[str, ...]) -> pl.DataFrame:
    """One row per model and pick that has an offer (PICK_COLUMNS)."""
    if estimates.is_empty():
        return pl.DataFrame(schema=PICK_COLUMNS)
    eligible = estimates.filter(may_headline(estimates, headline_kinds))
    market = estimates.filter(in_market(headline_kinds, estimates.columns) & pl.col("cluster_proven").fill_null(False))
    frames = [
        pick(eligible, ["model"], "cost", cost=_COST, time=_TIME).with_columns(pl.lit("cheapest").alias("pick")),
        pick(eligible.filter(pl.col("pricing_option") == "on_demand"), ["model"], "cost", cost=_COST, time=_TIME)
        .with_columns(pl.lit("cheapest_on_demand").alias("pick")),
        pick(eligible, ["model"], "time", cost=_COST, time=_TIME).with_columns(pl.lit("fastest").alias("pick")),
    ]
    cheapest = frames[0].select("model", pl.col(_COST).alias("_best"))
    frames.append(pick(market, ["model"], "cost", cost=_COST, time=_TIME)
                  .join(cheapest, on="model", how="left")
                  .filter(pl.col("_best").is_null() | (pl.col(_COST) < pl.col("_best"))).drop("_best")
                  .with_columns(pl.lit("market").alias("pick")))
    order = {name: i for i, name in enumerate(PICKS)}
    return (pl.concat([f.select(list(PICK_COLUMNS)).cast(PICK_COLUMNS) for f in frames])
            .sort(pl.col("model"), pl.col("pick").replace_strict(order, return_dtype=pl.Int64)))


def ranked(estimates: pl.DataFrame, headline_kinds: tuple[str, ...]) -> pl.DataFrame:
    """Every estimate, cheapest first by the one rule within each model: the offers that may headline before the
    others (an auction's or marketplace's price, a stale spot price, a cluster without a stated fabric)."""
    if estimates.is_empty():
        return estimates
    flagged = estimates.with_columns(may_headline(estimates, headline_kinds).alias("_may"))
    order = with_rank(flagged, ["model", "_may"], "cost", "_rank", OFFER_KINDS, cost=_COST, time=_TIME)
    return order.sort("model", pl.col("_may").not_(), "_rank", nulls_last=True).drop("_may", "_rank")
