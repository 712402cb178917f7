"""report.toml's report-wide settings, typed, with their defaults: the one home of both.

Each setting is declared ONCE, below, as a field of ReportSettings: its type and default, its column type in the
stg_report_settings table and what it means. Everything else derives from that declaration:

- pipelines/ingest/report_config.py parses report.toml (a key left out takes the default named here);
- the stg_report_settings staging table keeps the parsed settings as one row: its columns, their types
  (TABLE_SCHEMA) and its row (table_row) are these fields (pipelines/defs/report/staging.py,
  sql/staging/stg_report_settings.sql);
- the table's column meanings are these fields' (DOCS, read by pipelines/domain/columns.py);
- everything after staging (the marts, the atlas, publish, the estimate command) reads that row once through
  ReportSettings.from_row, so no reader restates a setting's type or default.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Any, Mapping

import polars as pl

from pipelines.domain.offers import DEFAULT_SPOT_STALE_AFTER_DAYS, HEADLINE_DEFAULT
from pipelines.domain.pricing import DEFAULT_BASELINE_PRICING, DEFAULT_PRICING_MODELS, DEFAULT_STALE_AFTER_DAYS

DEFAULT_AUTHOR = "cost-to-train pipeline"
DEFAULT_RUNS_PER_MONTH = (1, 100, 1000)

_REGION = pl.Struct({"provider": pl.Utf8, "region": pl.Utf8})
_DISCOUNT = pl.Struct({"provider": pl.Utf8, "instance_type": pl.Utf8, "pricing_model": pl.Utf8, "percent": pl.Float64})
_WORKLOAD = pl.Struct({"name": pl.Utf8, "title": pl.Utf8, "samples": pl.Float64, "runs_per_month": pl.Int64,
                       "description": pl.Utf8})


def setting(default: Any, dtype: pl.DataType, doc: str, factory: bool = False) -> Any:
    """A setting: its default, its column type in stg_report_settings and its meaning (the column's doc)."""
    meta = {"dtype": dtype, "doc": doc}
    return field(default_factory=default, metadata=meta) if factory else field(default=default, metadata=meta)


@dataclass(frozen=True)
class ReportSettings:
    title: str = setting("", pl.Utf8, "the report's title (report.toml)")  # report.toml must give one
    subtitle: str = setting("", pl.Utf8, "the report's subtitle (report.toml)")
    author: str = setting(DEFAULT_AUTHOR, pl.Utf8, "the report's author (report.toml)")
    benchmarks: tuple[str, ...] = setting((), pl.List(pl.Utf8), "the benchmarks the report covers, in order (report.toml)")
    price_date: date | None = setting(None, pl.Date, "report.toml's price_date; empty: the newest on-demand snapshot "
                                                     "of a compared instance (metrics/price_dates.py)")
    regions: Mapping[str, str] = setting(dict, pl.List(_REGION), "the region bought in per provider (report.toml "
                                                                 "[regions]); the atlas prices in the same regions",
                                         factory=True)
    config_path: str = setting("", pl.Utf8, "where in report.toml the row comes from")
    pricing_models: tuple[str, ...] = setting(DEFAULT_PRICING_MODELS, pl.List(pl.Utf8),
                                              "the pricing options the report shows, in order (report.toml)")
    baseline_pricing: str = setting(DEFAULT_BASELINE_PRICING, pl.Utf8, "the pricing option savings are measured against")
    discounts: tuple[dict, ...] = setting((), pl.List(_DISCOUNT), "the user's negotiated discounts: provider, instance "
                                                                  "(empty: all), pricing model and percent off its "
                                                                  "list price")
    runs_per_month: tuple[int, ...] = setting(DEFAULT_RUNS_PER_MONTH, pl.List(pl.Int64),
                                              "the break-even table's numbers of training runs a month")
    stale_after_days: int = setting(DEFAULT_STALE_AFTER_DAYS, pl.Int64, "a price older than this many days at the "
                                                                        "price date is marked stale")
    spot_stale_after_days: int = setting(DEFAULT_SPOT_STALE_AFTER_DAYS, pl.Int64,
                                         "a spot price older than this many days at the price date is no current "
                                         "price: marked stale, and never the answer's cheapest or fastest")
    exclude_offer_kinds: tuple[str, ...] = setting((), pl.List(pl.Utf8), "kinds of offer report.toml leaves out of "
                                                                         "the report and the atlas")
    headline_offer_kinds: tuple[str, ...] = setting(HEADLINE_DEFAULT, pl.List(pl.Utf8),
                                                    "the offer kinds the answer's cheapest and fastest consider "
                                                    "(report.toml)")
    workloads: tuple[dict, ...] = setting((), pl.List(_WORKLOAD), "the team's own workloads (report.toml [workloads]): "
                                                                  "name, title, samples per training run, runs a month "
                                                                  "and description")

    @classmethod
    def from_row(cls, row: Mapping) -> ReportSettings:
        """stg_report_settings' row (the table stores regions as {provider, region} structs); a setting the row
        lacks or holds as null takes its default."""
        given = {f.name: row[f.name] for f in fields(cls) if row.get(f.name) is not None}
        for name, value in given.items():
            if isinstance(value, list):
                given[name] = tuple(value)
        regions = given.get("regions", {})
        if not isinstance(regions, Mapping):
            given["regions"] = {r["provider"]: r["region"] for r in regions}
        return cls(**given)

    @property
    def priced_options(self) -> tuple[str, ...]:
        """pricing_models with on_demand always among them: the exports' rows and the break-even's reference."""
        return self.pricing_models + (() if "on_demand" in self.pricing_models else ("on_demand",))


SETTINGS = tuple(f.name for f in fields(ReportSettings))
TABLE_SCHEMA: dict[str, pl.DataType] = {f.name: f.metadata["dtype"] for f in fields(ReportSettings)}
DOCS: dict[str, str] = {f.name: f.metadata["doc"] for f in fields(ReportSettings)}


def _cell(value: Any) -> Any:
    """A setting's value as the table holds it: a mapping as {provider, region} structs (the regions), a record
    (a discount, a workload) as its fields, a tuple as a list."""
    if isinstance(value, Mapping):
        return [{"provider": k, "region": v} for k, v in sorted(value.items())]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (tuple, list)):
        return [_cell(v) for v in value]
    return value


def table_row(source: Any, **given: Any) -> pl.DataFrame:
    """stg_report_settings' one row: every setting, read off `source` (the parsed report.toml: an attribute per
    setting, or a mapping), `given` first; a setting neither has takes its default."""
    defaults = ReportSettings()
    values = {}
    for name in SETTINGS:
        if name in given:
            value = given[name]
        elif isinstance(source, Mapping):
            value = source.get(name, getattr(defaults, name))
        else:
            value = getattr(source, name, getattr(defaults, name))
        values[name] = _cell(value)
    return pl.DataFrame([values], schema=TABLE_SCHEMA)
