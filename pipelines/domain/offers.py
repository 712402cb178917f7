"""What a price is (`offer_kind`): one vocabulary for the price book, the report, the atlas and report.toml.

A price says who set it and how it is paid; together they make its offer kind:

    list         a provider's published on-demand rate
    spot         a provider's published interruptible rate
    commitment   a provider's published rate for a 1- or 3-year term (reserved, savings plan, committed use)
    quote        a price a user was quoted (a row of a normalized price file that says so)
    marketplace  a host's own listing, or another cloud's offer resold, through an aggregator (Vast.ai, Lium, Prime
                 Intellect, Shadeform, RunPod community pods)
    auction      a market's minimum or last bid (Mithril): no rate anyone can count on

A price file says only who set the price (`SELLERS`: list, quote, marketplace, auction); the pricing model
makes a list price a spot or commitment one (`offer_kind_expr`). An auction's or a marketplace's price is not
held for anyone, so the headline answer ("cheapest", "cheapest on demand") leaves them out by default
(`HEADLINE_DEFAULT`, report.toml `headline_offer_kinds`) and shows them apart, labelled; an auction's price is
never more than approximate (`AT_BEST_APPROXIMATE`).

Whether an offer may headline is ONE expression, `in_headline`, for the answer page, the chapters' picks and
ranks, the atlas's picks, the described models' picks and the estimate command:

    in the headline = its kind is one of report.toml's headline_offer_kinds
                      and it is not a stale spot price

A spot price is a moment's auction of spare capacity: older than report.toml spot_stale_after_days (default 7)
at the price date it is no current price (`stale`, pipelines/metrics/price_age.py, where the age rule lives). It
ranks after every headline offer, as an auction's or a marketplace's does, and stays in the tables with its age,
labelled (`stale_spot`). The answer page's market column holds the kinds the headline leaves out
(`in_market`); a stale spot price is not one of them, so it headlines nowhere.
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from pipelines.domain.pricing import pricing_model_of

LIST, SPOT, COMMITMENT, QUOTE, MARKETPLACE, AUCTION = "list", "spot", "commitment", "quote", "marketplace", "auction"

# Each kind in one plain sentence, as the answer page, the tables' tags and the methodology say it.
MEANING = {
    LIST: "list: the provider's published on-demand rate",
    SPOT: "spot: the provider's published interruptible rate; the instance can be taken back",
    COMMITMENT: "commitment: the provider's published rate for a 1- or 3-year term, billed every hour of it",
    QUOTE: "quote: a price a provider quoted to you, not published",
    MARKETPLACE: "marketplace: a host's own listing, or another cloud's offer resold, through an aggregator; machines "
                 "and prices vary by host",
    AUCTION: "auction: the lowest bid the market accepts now; capacity and price are not held",
}
OFFER_KINDS = tuple(MEANING)
# what a price file may say of who set a price (the rest follows from its pricing model)
SELLERS = (LIST, QUOTE, MARKETPLACE, AUCTION)
# earlier spellings a price file may still use: RunPod's community pods are hosts' listings
SELLER_ALIASES = {"community": MARKETPLACE}
# the kinds the headline answer compares unless report.toml says otherwise: prices one can buy at
HEADLINE_DEFAULT = (LIST, SPOT, COMMITMENT, QUOTE)
# the kinds shown apart on the answer page, never as "cheapest" unless report.toml asks for them
MARKET_KINDS = (AUCTION, MARKETPLACE)
# report.toml spot_stale_after_days: a spot price older than this at the price date is no current price
DEFAULT_SPOT_STALE_AFTER_DAYS = 7
AT_BEST_APPROXIMATE = (AUCTION,)
# tie rule among offers of one cost: the surer price first (a published rate before a market's)
RANK = {kind: position for position, kind in enumerate((LIST, COMMITMENT, SPOT, QUOTE, MARKETPLACE, AUCTION))}

_COMMITMENT_MODELS = ("reserved", "savings_plan", "committed_use")


def seller(text: str | None) -> str | None:
    """A price file's offer_kind cell as a seller kind (an alias read as its kind); None when not one."""
    value = SELLER_ALIASES.get(text or LIST, text or LIST)
    return value if value in SELLERS else None


def offer_kind_expr(seller_col: str = "offer_kind", model_col: str = "pricing_model") -> pl.Expr:
    """The offer kind of each price row from who set it and its pricing model: a list price paid as spot is a spot
    offer, as a commitment a commitment offer; quotes, marketplace listings and auctions stay what they are."""
    who = pl.col(seller_col).fill_null(LIST).replace(SELLER_ALIASES)
    model = pl.col(model_col).fill_null(pricing_model_of(None))
    return (pl.when(who != LIST).then(who)
            .when(model == "spot").then(pl.lit(SPOT))
            .when(model.is_in(_COMMITMENT_MODELS)).then(pl.lit(COMMITMENT))
            .otherwise(pl.lit(LIST)).alias(seller_col))


def certainty_expr(kind_col: str = "offer_kind", certainty_col: str = "certainty") -> pl.Expr:
    """An auction's price is approximate at best, whatever its file says."""
    return (pl.when(pl.col(kind_col).is_in(AT_BEST_APPROXIMATE)).then(pl.lit("approximate"))
            .otherwise(pl.col(certainty_col)).alias(certainty_col))


def rank_expr(kind_col: str = "offer_kind") -> pl.Expr:
    """The tie rule's order of kinds (RANK), unknown kinds last."""
    return pl.col(kind_col).fill_null(LIST).replace_strict(RANK, default=len(RANK), return_dtype=pl.Int64)


def meaning(kind: str | None) -> str:
    return MEANING.get(kind or LIST, kind or LIST)


def stale_spot(days: int | None) -> str:
    """How the tables label a spot price too old to headline: "spot, 202 days old: not a current price"."""
    return f"spot, {days:,} days old: not a current price" if days is not None else "spot: not a current price"


def _kind(columns) -> pl.Expr:
    return pl.col("offer_kind").fill_null(LIST) if "offer_kind" in columns else pl.lit(LIST)


def in_headline(kinds: Iterable[str] = HEADLINE_DEFAULT, columns: Iterable[str] = ("offer_kind", "stale")) -> pl.Expr:
    """THE test whether an offer may be "cheapest" or "fastest" anywhere (module docstring): its offer kind (null:
    a list price) is one of `kinds` (report.toml headline_offer_kinds), and it is not a spot price marked `stale`
    (older than spot_stale_after_days at the price date: metrics/price_age.with_price_age). `columns`: the frame's
    columns; a frame without `offer_kind` holds list prices, one without `stale` no aged price."""
    columns = set(columns)
    kind = _kind(columns)
    stale = pl.col("stale").fill_null(False) if "stale" in columns else pl.lit(False)
    return kind.is_in(list(kinds)) & ~((kind == SPOT) & stale)


def in_market(kinds: Iterable[str] = HEADLINE_DEFAULT, columns: Iterable[str] = ("offer_kind",)) -> pl.Expr:
    """The answer's market column: offers of a kind the headline leaves out (an auction's bid, a host's listing),
    shown apart and labelled. A stale spot price is in neither: the chapters' tables list it with its age."""
    return ~_kind(set(columns)).is_in(list(kinds))


def headline_rows(rows: list[dict], kinds: Iterable[str] = HEADLINE_DEFAULT) -> list[dict]:
    """The rows (dicts, as the documents hold them) that `in_headline` keeps, in their order."""
    if not rows:
        return []
    names = ("offer_kind", "stale")
    frame = pl.DataFrame([{name: r.get(name) for name in names} for r in rows],
                         schema={"offer_kind": pl.Utf8, "stale": pl.Boolean})
    keep = frame.select(in_headline(kinds, names).alias("keep"))["keep"].to_list()
    return [r for r, kept in zip(rows, keep) if kept]
