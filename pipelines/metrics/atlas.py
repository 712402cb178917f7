"""The atlas's figures: every scored MLPerf result priced on every cloud instance with the same
accelerator, scale-aware. Pure polars, frames in and frames out.

A result that needs more than one instance is priced on every offer with its accelerator; where the
instance catalog states no inter-node fabric for the offer (the public catalogs never do), the pair is
flagged (cluster_flag), since a cluster of such machines may not be sold.

For a result on N nodes of k accelerators (A = N x k accelerators) and an instance with c
accelerators billed at P USD per hour (a Cloud TPU is billed per chip: c = 1):

    instances needed        = ceil(A / c)
    cost to train (USD)     = instances needed x P x time to train (hours)
    accelerator-hours       = A x time to train (hours)
    USD per accelerator-hour = cost to train / accelerator-hours   (above P / c when the last
                              instance is not full: idle accelerators are paid for too)

Comparable: results of the same round, the same benchmark model (domain.mlperf.benchmark_model) and the
same division. Rankings, "cheapest per accelerator model", "fastest" and the Pareto front are
computed within (round, benchmark_model, division), closed before open: an open-division result
may change the model or the training recipe, so it never outranks a closed one. An entry of
unknown division (its systems JSON has none and its name does not say: mlperf.gaps) is priced but
ranked against neither division: its rank and tags are empty. The trend follows the closed
division only. Across rounds, the quality target or the rules can change: the trend
table says where.

Energy and emissions of a row (metrics/energy.py, docs/energy_and_carbon.md): the entry's energy
per training run, measured from its power logs where it has one, else accelerators x board power x
time to train (energy_basis says which); emissions = kWh x PUE x grid intensity of the instance's
region (location-based). Entries with measured energy are ranked by it (energy_rank) within the
same group as the cost.

Price basis of a row: "same cloud" when the result was measured on that provider's cloud
(systems JSON status says cloud and the submitter is the provider), otherwise the cost is an
estimate: a result measured on premises (or on another cloud) priced at this cloud's rates.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.domain.best import first_in_order, pick, with_rank
from pipelines.domain.offers import HEADLINE_DEFAULT, LIST, in_headline
from pipelines.domain.columns import MEASURED
from pipelines.domain.errors import InputError
from pipelines.domain.mlperf import DIVISION_ORDER
from pipelines.domain.pricing import OPTION_PRICE_COLUMNS, on_demand
from pipelines.domain.rounds import round_order
from pipelines.metrics.cost import hours_to_train, pareto_front, run_cost
from pipelines.metrics.energy import energy_and_emissions
from pipelines.metrics.price_changes import prices_in_force
from pipelines.metrics.price_dates import price_dates
from pipelines.metrics.pricing_options import choose_options

GROUP = ["round", "benchmark_model", "division"]

# Submitters that are the cloud provider itself (a cloud result of theirs ran on that cloud).
_PROVIDER_SUBMITTERS = {"gcp": ("google",), "azure": ("azure", "microsoft"), "aws": ("amazon", "aws")}


def atlas_price_date(prices: pl.DataFrame, instances: pl.DataFrame, cloud_models: list[str],
                     exclude_offer_kinds: list[str] | None = None) -> date:
    """The atlas's price date, by the report's rule (metrics/price_dates.py) over the atlas's instance
    set: the instances it can price a result on, those whose accelerator (instances.accelerator_model)
    is a cloud model of a scored system (`cloud_models`). An instance no result needs (a newer
    accelerator than the corpus holds) does not move the date. Without a priced instance in that set,
    every instance of the catalog. `prices`: the price book (stg_prices)."""
    used = instances.filter(pl.col("accelerator_model").is_in(cloud_models))
    dates = price_dates(prices, used, exclude_offer_kinds)
    if dates.price_date is None:
        dates = price_dates(prices, instances, exclude_offer_kinds)
    if dates.price_date is None:
        raise InputError("prices/", None, "holds no on-demand price for any instance of instances.csv")
    return dates.price_date


def atlas_price_history(history: pl.DataFrame, regions: dict[str, str], price_date: date) -> pl.DataFrame:
    """The on-demand price history of each instance in the one region the atlas prices it in.

    That region is the provider's region of report.toml ([regions]: where the team buys) when the
    instance has a price in force there at price_date; an instance not sold there (Cloud TPUs live
    in a few regions) is priced in the region where it is cheapest at price_date (ties: by name).
    `history` is the price book's on-demand rows (stg_prices); the price in force is decided by
    price_changes.prices_in_force, the one rule.
    """
    in_force = prices_in_force(history, price_date).with_columns(
        (pl.col("region") == pl.col("provider").replace_strict(regions, default=None)).fill_null(False)
        .alias("_preferred"))
    chosen = (in_force.sort(["_preferred", "usd_per_hour", "region"], descending=[True, False, False])
              .group_by("provider", "instance_type", maintain_order=True).first()
              .select("provider", "instance_type", "region"))
    return (history.join(chosen, on=["provider", "instance_type", "region"], how="semi")
            .sort("provider", "instance_type", "as_of"))


def measured_on(submitter: pl.Expr, status_class: pl.Expr) -> pl.Expr:
    """The provider a cloud result ran on, when the submitter is that provider; else null."""
    lowered = submitter.str.to_lowercase()
    expr = pl.lit(None, dtype=pl.Utf8)
    for provider, words in _PROVIDER_SUBMITTERS.items():
        hit = pl.any_horizontal(lowered.str.contains(word, literal=True) for word in words)
        expr = pl.when((status_class == "cloud") & hit).then(pl.lit(provider)).otherwise(expr)
    return expr


def entries(scores: pl.DataFrame, systems: pl.DataFrame, offered: list[str] | None = None) -> pl.DataFrame:
    """One row per scored benchmark with its system facts and why it cannot be priced (if so).

    `systems` carries the catalog's columns: accelerator_model, cloud_model, assumption. `offered`: the
    cloud models some priced instance carries (None: not checked); an entry whose cloud model no offer
    of the price book carries is not priced, and says that no catalog sells it.
    """
    facts = systems.select(
        "round", "folder", "system", "system_name", "division", "status", "status_class",
        "number_of_nodes", "accelerators_per_node", "accelerators_total", "accelerator_model_name",
        "accelerator_model", "cloud_model", "assumption", pl.col("problem").alias("system_problem"),
    )
    # the scores carry the division the summarizer scored under (from the same systems JSON)
    facts = facts.drop([c for c in ("division",) if c in scores.columns])
    out = scores.join(facts, on=["round", "folder", "system"], how="left")
    why = (
        pl.when(pl.col("time_to_train_minutes").is_null()).then(pl.lit("not scored: ") + pl.col("reason").fill_null("?"))
        .when(pl.col("status_class").is_null() & pl.col("system_problem").is_null())
        .then(pl.lit("no systems JSON named after the system folder"))
        .when(pl.col("system_problem").is_not_null()).then(pl.col("system_problem"))
        .when(pl.col("number_of_nodes").is_null())
        .then(pl.lit("node count unknown: the systems JSON has no number_of_nodes and the system name does not state it"))
        .when(pl.col("accelerators_total").fill_null(0) == 0).then(pl.lit("no accelerators in the systems JSON"))
        .when(pl.col("accelerator_model").is_null())
        .then(pl.lit("accelerator not in the catalog: ") + pl.col("accelerator_model_name").fill_null("?"))
        .when(pl.col("cloud_model").is_null())
        .then(pl.lit("no price list or catalog in the price book sells ") + pl.col("accelerator_model"))
        .when(pl.lit(offered is not None) & ~pl.col("cloud_model").is_in(list(offered or [])))
        .then(pl.lit("no price list or catalog in the price book sells ") + pl.col("cloud_model"))
        .otherwise(None)
    )
    return out.with_columns(why.alias("not_priced_because"))


def price_results(entries_frame: pl.DataFrame, instances: pl.DataFrame, prices: pl.DataFrame) -> pl.DataFrame:
    """Every priceable entry x every instance of its cloud accelerator, with scale-aware cost.

    `prices`: one price in force per instance (prices_in_force of atlas_price_history).
    """
    offer = instances.select(
        "provider", "instance_type", pl.col("accelerator_model").alias("cloud_model"),
        pl.col("accelerator_count").alias("instance_accelerators"), "billing",
        (pl.col("fabric") if "fabric" in instances.columns else pl.lit(None, pl.Utf8)).alias("fabric"),
    ).join(
        prices.select("provider", "instance_type", "region", "usd_per_hour", pl.col("as_of").alias("price_as_of"),
                      pl.col("certainty").alias("price_certainty"), pl.col("source").alias("price_source"),
                      (pl.col("offer_kind") if "offer_kind" in prices.columns else pl.lit(LIST)).alias("offer_kind")),
        on=["provider", "instance_type"], how="inner",
    )
    hours = hours_to_train()
    needed = (pl.col("accelerators_total") + pl.col("instance_accelerators") - 1) // pl.col("instance_accelerators")
    basis = measured_on(pl.col("submitter"), pl.col("status_class"))
    return (
        entries_frame.filter(pl.col("not_priced_because").is_null())
        .join(offer, on="cloud_model", how="inner")
        .with_columns(needed.cast(pl.Int64).alias("instances_needed"))
        .with_columns(
            run_cost(pl.col("instances_needed") * pl.col("usd_per_hour")).alias("cost_to_train_usd"),
            (pl.col("accelerators_total") * hours).alias("accelerator_hours"),
            (pl.col("instances_needed") * pl.col("instance_accelerators") - pl.col("accelerators_total"))
            .alias("idle_accelerators"),
            basis.alias("measured_on_provider"),
        )
        .with_columns(
            (pl.col("cost_to_train_usd") / pl.col("accelerator_hours")).alias("usd_per_accelerator_hour"),
            pl.when(pl.col("measured_on_provider") == pl.col("provider")).then(pl.lit("same cloud"))
            .when(pl.col("status_class") == "cloud").then(pl.lit("estimate: cloud result priced on another provider"))
            .otherwise(pl.lit("estimate: result not measured in the cloud, priced at cloud rates"))
            .alias("price_basis"),
            # a result on several instances needs them joined by a fabric; where the instance catalog
            # states none (the public catalogs never do), the pair is priced and flagged
            pl.when((pl.col("instances_needed") > 1) & (pl.col("billing") == "instance") & pl.col("fabric").is_null())
            .then(pl.lit("multi-node: no inter-node fabric stated for this offer"))
            .alias("cluster_flag"),
        )
    )


# the score's power columns that the priced rows do not repeat (atlas_scores keeps them)
_SCORE_POWER = ["energy_joules", "official_energy_joules", "energy_runs"]


def with_energy(priced: pl.DataFrame, board_power: pl.DataFrame, intensity: pl.DataFrame, pue: pl.DataFrame,
                utilization: float = 1.0) -> pl.DataFrame:
    """Energy per training run of each priced row's entry and its emissions in the row's region.

    The entry's measured energy (atlas_scores.energy_kwh) wins; its power-log note is kept as
    measured_energy_note. The energy is that of the MLPerf system that trained: an instance with
    the same accelerators is assumed to use the same energy for the same run.
    """
    rows = (priced.drop([c for c in _SCORE_POWER if c in priced.columns])
            .rename({"energy_kwh": "measured_energy_kwh", "energy_note": "measured_energy_note"}, strict=False)
            .with_columns(pl.col("accelerators_total").alias("accelerators")))
    return energy_and_emissions(rows, board_power, intensity, pue, utilization).drop("accelerators")


def rank(priced: pl.DataFrame, headline_kinds: tuple[str, ...] | list[str] = HEADLINE_DEFAULT) -> pl.DataFrame:
    """Cost rank (domain/best.py's one rule, an offer not in the headline after every other: an auction's or a
    marketplace's, a stale spot price), the cheapest per accelerator model (the rank's first of that model, in the
    headline: domain/offers.in_headline), fastest (every pair with the least time: a tie is marked on each) and
    Pareto front within round x model x division; rows ordered by round, model, division (closed first) and rank.
    `priced` carries `stale` (metrics/price_age.with_price_age) where its prices are aged."""
    if priced.is_empty():
        return priced.with_columns(
            pl.lit(None, pl.Int64).alias("cost_rank"), pl.lit(None, pl.Boolean).alias("cheapest_for_accelerator"),
            pl.lit(None, pl.Boolean).alias("fastest"), pl.lit(None, pl.Boolean).alias("on_pareto_front"),
            *([pl.lit(None, pl.Int64).alias("energy_rank")] if "energy_basis" in priced.columns else []))
    cost, time = pl.col("cost_to_train_usd"), pl.col("time_to_train_minutes")
    if "offer_kind" not in priced.columns:  # a price book without the catalogs: list prices
        priced = priced.with_columns(pl.lit(LIST).alias("offer_kind"))
    headline = in_headline(headline_kinds, priced.columns)
    # one result submitted from several folders costs the same on an instance: those rows share a rank
    priced = with_rank(with_rank(priced, GROUP, "cost", "cost_rank", headline_kinds, shared=True),
                       GROUP + ["accelerator_model"], "cost", "_model_rank", headline_kinds)
    return (
        priced.with_columns(
            *([_ranked(energy_rank())] if "energy_basis" in priced.columns else []),
            _ranked(pl.col("cost_rank")),
            _ranked((pl.col("_model_rank") == 1) & headline).alias("cheapest_for_accelerator"),
            _ranked((time == time.min().over(GROUP)).alias("fastest")),
            _ranked(pareto_front(time, cost).over(GROUP).alias("on_pareto_front")),
        )
        .drop("_model_rank")
        .sort("round", "benchmark_model", DIVISION_ORDER, "cost_rank", "provider", "instance_type", "submitter", "system",
              *_tie_breakers(priced))
    )


def _ranked(expr: pl.Expr) -> pl.Expr:
    """A rank or tag only within a known division: an entry of unknown division gets none."""
    return pl.when(pl.col("division").is_not_null()).then(expr)


def _tie_breakers(frame: pl.DataFrame) -> list[str]:
    """The last sort keys of the atlas's rows: tied entries (one system submitted from several folders
    with the same time: v4.0's smc, smc-ac-power and smc-dc-power) come in the same order in every
    build, whatever order the joins and reads gave them: same inputs, same tables and pages."""
    return [c for c in ("folder", "benchmark") if c in frame.columns]


def energy_rank() -> pl.Expr:
    """Rank of the entry's measured energy per training run in its group, 1 the least; null where
    the energy is an estimate or unknown. Dense: an entry has one row per instance it is priced
    on, all with the same energy, and entries with equal energy share a rank."""
    measured = pl.when(pl.col("energy_basis") == MEASURED).then(pl.col("energy_kwh"))
    return measured.rank("dense").over(GROUP).cast(pl.Int64).alias("energy_rank")


def trend(ranked: pl.DataFrame, headline_kinds: tuple[str, ...] | list[str] = HEADLINE_DEFAULT) -> pl.DataFrame:
    """The cheapest closed-division configuration to train each benchmark model in each round (domain/best.py's
    rule, over the offers in the headline: domain/offers.in_headline), and its change since the model's previous
    round (open results may change the recipe) and since its first priced round (the summary's "… less than in
    v1.0")."""
    if ranked.is_empty():
        return pl.DataFrame(schema={"benchmark_model": pl.Utf8, "round": pl.Utf8, "benchmark": pl.Utf8,
                                    "cheapest_cost_usd": pl.Float64, "submitter": pl.Utf8, "system": pl.Utf8,
                                    "provider": pl.Utf8, "instance_type": pl.Utf8, "instances_needed": pl.Int64,
                                    "accelerator_model": pl.Utf8, "time_to_train_minutes": pl.Float64,
                                    "results_priced": pl.UInt32, "change_pct": pl.Float64,
                                    "change_since_first_pct": pl.Float64})
    closed = ranked.filter((pl.col("division") == "closed") & in_headline(headline_kinds, ranked.columns))
    best = (
        first_in_order(closed.sort("submitter", "system", *_tie_breakers(ranked)), "cost")
        .group_by("benchmark_model", "round", maintain_order=True)
        .agg(
            pl.col("benchmark").first(),
            pl.col("cost_to_train_usd").first().alias("cheapest_cost_usd"),
            pl.col("submitter").first(), pl.col("system").first(), pl.col("provider").first(),
            pl.col("instance_type").first(), pl.col("instances_needed").first(),
            pl.col("accelerator_model").first(), pl.col("time_to_train_minutes").first(),
            pl.struct("submitter", "system").n_unique().alias("results_priced"),
        )
        .with_columns(round_order(pl.col("round")).alias("_order"))
        .sort("benchmark_model", "_order")
    )
    return best.with_columns(
        (100.0 * (pl.col("cheapest_cost_usd") / pl.col("cheapest_cost_usd").shift(1).over("benchmark_model") - 1.0))
        .alias("change_pct"),
        (100.0 * (pl.col("cheapest_cost_usd") / pl.col("cheapest_cost_usd").first().over("benchmark_model") - 1.0))
        .alias("change_since_first_pct"),
    ).drop("_order")



# ---- every way people pay -------------------------------------------------------------------------


def atlas_option_prices(prices: pl.DataFrame, chosen_regions: pl.DataFrame, price_date: date,
                        options: list[str]) -> pl.DataFrame:
    """The price in force at `price_date` of each atlas instance under each pricing option other than
    on demand (report.toml's pricing_models: spot, the cheapest 1- and 3-year commitment by default),
    in the one region the atlas prices the instance in (`chosen_regions`: provider, instance_type,
    region). List prices: the report's negotiated discounts are the team's own, not the atlas's."""
    others = [o for o in options if o != "on_demand"]
    rows = (prices.filter(pl.col("pricing_model") != "on_demand")
            .join(chosen_regions.select("provider", "instance_type", "region").unique(),
                  on=["provider", "instance_type", "region"], how="semi"))
    if rows.is_empty() or not others:
        return rows.clear().with_columns(pl.lit(None, pl.Utf8).alias("pricing_option"),
                                         pl.lit(None, pl.Int32).alias("option_position"))
    return choose_options(prices_in_force(rows, price_date), others)


def option_costs(ranked: pl.DataFrame, option_prices: pl.DataFrame) -> pl.DataFrame:
    """Every priced pair under every other pricing option its instance has: the same instances needed
    and time, at that option's effective rate (cost = instances needed x rate x hours). A commitment's
    rate assumes the instances are committed anyway; the report's break-even says when that pays."""
    priced = option_prices.select(
        "provider", "instance_type", *OPTION_PRICE_COLUMNS, "option_position", pl.col("usd_per_hour").alias("_rate"),
        pl.col("as_of").alias("_as_of"), pl.col("certainty").alias("_certainty"), pl.col("source").alias("_source"))
    return (
        ranked.join(priced, on=["provider", "instance_type"], how="inner")
        .with_columns(
            pl.col("_rate").alias("usd_per_hour"), pl.col("_as_of").alias("price_as_of"),
            pl.col("_certainty").alias("price_certainty"), pl.col("_source").alias("price_source"),
            run_cost(pl.col("instances_needed") * pl.col("_rate")).alias("cost_to_train_usd"))
        .with_columns((pl.col("cost_to_train_usd") / pl.col("accelerator_hours")).alias("usd_per_accelerator_hour"))
        .drop("_rate", "_as_of", "_certainty", "_source")
    )


def with_cheapest_option(ranked: pl.DataFrame, options: pl.DataFrame) -> pl.DataFrame:
    """Each on-demand pair with the cheapest way to pay for it among on demand and its other options
    (`options`: option_costs): cheapest_option, cheapest_option_usd_per_hour, cheapest_option_cost_usd.
    Ties follow domain/best.py's rule: on demand, then the option listed first in report.toml."""
    key = ["round", "folder", "system", "benchmark", "provider", "instance_type"]
    # one pair's ways to pay differ only in option and price: the rule's cost, then the option's order decide
    candidates = pl.concat([
        ranked.select(*key, pl.lit("on_demand").alias("cheapest_option"), pl.lit(0).alias("option_position"),
                      pl.col("usd_per_hour").alias("cheapest_option_usd_per_hour"),
                      pl.col("cost_to_train_usd").alias("cheapest_option_cost_usd")),
        options.select(*key, pl.col("pricing_option").alias("cheapest_option"),
                       (pl.col("option_position") + 1).alias("option_position"),
                       pl.col("usd_per_hour").alias("cheapest_option_usd_per_hour"),
                       pl.col("cost_to_train_usd").alias("cheapest_option_cost_usd")),
    ], how="vertical_relaxed").with_columns(pl.lit(0.0).alias("time_to_train_minutes"))
    best = (pick(candidates, key, "cost", cost="cheapest_option_cost_usd")
            .select(*key, "cheapest_option", "cheapest_option_usd_per_hour", "cheapest_option_cost_usd"))
    return ranked.join(best, on=key, how="left")


def instance_prices(instances: pl.DataFrame, prices: pl.DataFrame, price_date: date) -> pl.DataFrame:
    """Every cloud instance of the atlas (atlas_instances) with its on-demand price in force on the price
    date (null where it has none), in the order the atlas's instances appendix lists them."""
    in_force = prices_in_force(on_demand(prices), price_date)
    return instances.join(in_force, on=["provider", "instance_type"], how="left").sort(
        "accelerator_model", "provider", "instance_type", "region", nulls_last=True)
