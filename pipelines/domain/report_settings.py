"""report.toml's report-wide settings, typed, with their defaults: the one home of both.

pipelines/ingest/report_config.py parses report.toml (a key left out takes the default named here) and the
stg_report_settings staging table keeps the result as one row. Everything after staging (the marts, the atlas,
publish, the estimate command) reads that row once through ReportSettings.from_row, so no reader restates a
setting's type or default.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date
from typing import Mapping

from pipelines.domain.offers import HEADLINE_DEFAULT
from pipelines.domain.pricing import DEFAULT_BASELINE_PRICING, DEFAULT_PRICING_MODELS, DEFAULT_STALE_AFTER_DAYS

DEFAULT_AUTHOR = "cost-to-train pipeline"
DEFAULT_RUNS_PER_MONTH = (1, 100, 1000)


@dataclass(frozen=True)
class ReportSettings:
    title: str = ""  # report.toml must give one (parse_report_config refuses a file without)
    subtitle: str = ""
    author: str = DEFAULT_AUTHOR
    benchmarks: tuple[str, ...] = ()
    price_date: date | None = None  # None: the newest on-demand snapshot (metrics/price_dates.py)
    regions: Mapping[str, str] = field(default_factory=dict)  # provider -> the region bought in
    config_path: str = ""
    pricing_models: tuple[str, ...] = DEFAULT_PRICING_MODELS  # the pricing options shown, in order
    baseline_pricing: str = DEFAULT_BASELINE_PRICING  # the option savings are measured against
    discounts: tuple[dict, ...] = ()  # {provider, instance_type (None: all), pricing_model, percent}
    runs_per_month: tuple[int, ...] = DEFAULT_RUNS_PER_MONTH  # the break-even table's columns
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    exclude_offer_kinds: tuple[str, ...] = ()
    headline_offer_kinds: tuple[str, ...] = HEADLINE_DEFAULT  # the kinds "cheapest" and "fastest" consider
    workloads: tuple[dict, ...] = ()  # {name, title, samples, runs_per_month, description}

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
