"""Pricing options: the ways of paying for an instance, as the price book and report.toml spell them.

A price row's option is its pricing_model (on_demand, spot, reserved, savings_plan, committed_use), its
term, payment option and offering class (PRICE_OPTION). A pricing option of the report is spelled as
report.toml's `pricing_models` spells it (metrics/pricing_options.py says how each is chosen):

    on_demand          the on-demand list price
    spot               the spot price
    reserved_1y        the cheapest 1-year reserved instance; likewise savings_plan_, committed_use_
    commitment_1y      the cheapest 1-year commitment of any kind the provider sells; likewise _3y

Here also: the instance key of a price, what a month of runs costs under an option (a commitment
bills every hour of the month, 730 h: HOURS_PER_MONTH), and when a price is stale. Which option is
cheapest is computed once, in metrics/pricing_options.py (the cheapest_options mart).
"""

from __future__ import annotations

import math
import re

import polars as pl

PRICING_MODELS = ("on_demand", "spot", "reserved", "savings_plan", "committed_use")
COMMITMENTS = ("reserved", "savings_plan", "committed_use")  # the models that have a term
PAYMENT_OPTIONS = ("no_upfront", "partial_upfront", "all_upfront")
# What tells two prices of one instance apart besides its date: one price per option and date.
PRICE_OPTION = ["pricing_model", "term_years", "payment_option", "offering_class"]
# The columns of the price an instance has under a chosen pricing option.
OPTION_PRICE_COLUMNS = ["pricing_option", *PRICE_OPTION, "upfront_usd", "recurring_usd_per_hour"]
KEY = ["provider", "region", "instance_type"]  # one instance's prices

HOURS_PER_MONTH = 730  # 8,760 h / 12: the month the providers bill a commitment by
DEFAULT_PRICING_MODELS = ("on_demand", "spot", "commitment_1y", "commitment_3y")
DEFAULT_BASELINE_PRICING = "on_demand"
DEFAULT_STALE_AFTER_DAYS = 365  # report.toml stale_after_days: a price older than this is stale
_OPTION = re.compile(r"^(reserved|savings_plan|committed_use|commitment)_([13])y$")
# every spelling parse_option reads, for "did you mean" on a misspelled one
OPTION_SPELLINGS = ("on_demand", "spot") + tuple(f"{kind}_{term}y" for kind in ("commitment", "reserved", "savings_plan",
                                                                              "committed_use") for term in (1, 3))
LIST_PRICE = "list"  # whose_price of a price nobody discounted


def pricing_model_of(model: str | None) -> str:
    """A price's pricing model: a price that names none (a normalized CSV without the column, or the cell empty)
    is an on-demand list price, in the price book, its offer kinds and the report's notes alike."""
    return model or "on_demand"


def parse_option(option: str) -> tuple[tuple[str, ...], int | None] | None:
    """The pricing models and the term an option spelling stands for; None for an unknown spelling."""
    if option in ("on_demand", "spot"):
        return (option,), None
    match = _OPTION.match(option)
    if not match:
        return None
    kind, term = match.group(1), int(match.group(2))
    return (COMMITMENTS if kind == "commitment" else (kind,)), term


def option_label(option: str) -> str:
    """"On demand", "Spot", "1-year commitment", "3-year reserved", "1-year savings plan"..."""
    models, term = parse_option(option) or ((option,), None)
    if term is None:
        return {"on_demand": "On demand", "spot": "Spot"}.get(option, option)
    kind = "commitment" if len(models) > 1 else models[0].replace("_", " ")
    return f"{term}-year {kind}"


def on_demand(history: pl.DataFrame) -> pl.DataFrame:
    """The on-demand list prices of a price history (the rows every other pricing model is compared with)."""
    return history.filter(pl.col("pricing_model") == "on_demand") if "pricing_model" in history.columns else history


def monthly_cost(option: str, usd_per_hour: float, hours_per_run: float, runs: float) -> float:
    """What `runs` training runs a month cost under an option: on demand and spot bill the hours used;
    a commitment bills every hour of the month, and one commitment covers one instance (730 h)."""
    used = runs * hours_per_run
    models, term = parse_option(option) or ((option,), None)
    if term is None:
        return used * usd_per_hour
    return HOURS_PER_MONTH * usd_per_hour * max(1, math.ceil(used / HOURS_PER_MONTH - 1e-12))

