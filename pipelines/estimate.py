"""`python -m pipelines.cli estimate`: a described model's ten cheapest offers, from the built warehouse.

It reads the marts the report reads (llm_throughput, priced_offers; the warehouse opened read-only) and
computes with the report's function (metrics/model_estimates.py), so the same model gives the same figures.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from pipelines.domain.errors import InputError
from pipelines.domain.llm import KINDS, DescribedModel
from pipelines.domain.units import gpu_hours, usd, wall_clock

SHOWN = ["provider", "region", "instance_type", "pricing_option", "offer_kind", "usd_per_hour", "instances", "accelerators",
         "gpu_hours_low", "gpu_hours", "gpu_hours_high", "hours", "cost_usd_low", "cost_usd", "cost_usd_high",
         "basis_benchmark", "basis_results"]


def described(parameters: float, tokens: float, sequence_length: int, accelerators: int | None = None,
              deadline_days: float | None = None, kind: str = "pretrain", layers: int | None = None,
              hidden_size: int | None = None) -> DescribedModel:
    """The command line's model, checked as report.toml's [models] are (one line naming the option)."""
    for option, value in (("--parameters", parameters), ("--tokens", tokens), ("--sequence-length", sequence_length),
                          ("--accelerators", accelerators), ("--deadline-days", deadline_days),
                          ("--layers", layers), ("--hidden-size", hidden_size)):
        if value is not None and not value > 0:
            raise InputError("estimate", option, f"{value!r} must be positive")
    if kind not in KINDS:
        raise InputError("estimate", "--kind", f"{kind!r} must be one of {', '.join(KINDS)}")
    if accelerators is None and deadline_days is None:
        accelerators = 1024
    if (layers is None) != (hidden_size is None):
        raise InputError("estimate", "--layers", "layers and hidden size go together (the attention FLOPs)")
    return DescribedModel("estimate", "estimate", parameters, tokens, sequence_length, kind, layers, hidden_size,
                          accelerators, deadline_days)


def estimate_offers(warehouse: Path, model: DescribedModel):
    """Every offer's estimate for the model, cheapest first by the report's one rule (domain/best.py): the kinds of
    offer report.toml's headline considers first, an auction's bid or a host's listing after them (the warehouse
    opened read-only)."""
    import duckdb

    from pipelines.domain.best import with_rank
    from pipelines.domain.report_settings import ReportSettings
    from pipelines.metrics.model_estimates import model_estimates
    from pipelines.warehouse import read_table

    if not warehouse.exists():
        raise InputError(warehouse, None, "is missing: build the warehouse first (make report)")
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        try:
            throughput, offers = read_table(conn, "llm_throughput"), read_table(conn, "priced_offers")
        except duckdb.CatalogException:
            raise InputError(warehouse, None, "has no llm_throughput or priced_offers: run make report again") from None
        try:  # report.toml's headline kinds, as the report ranks by them (a warehouse without them: the default)
            settings = ReportSettings.from_row(read_table(conn, "stg_report_settings").row(0, named=True))
        except (duckdb.CatalogException, duckdb.BinderException):
            settings = ReportSettings()
    estimates = model_estimates(model, throughput, offers)
    ranked = with_rank(estimates, [], "cost", "_rank", list(settings.headline_offer_kinds), cost="cost_usd",
                       time="hours")
    return ranked.sort("_rank", nulls_last=True).drop("_rank")


def render(frame, fmt: str, top: int = 10) -> str:
    rows = frame.head(top).select(SHOWN)
    if fmt == "json":
        return json.dumps(rows.to_dicts(), indent=1)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(SHOWN)
        writer.writerows(rows.iter_rows())
        return out.getvalue()
    lines = [f"{'offer':58} {'option':16} {'GPU-hours (low-high)':26} {'time':>10} {'cost (low-high)':>32}"]
    for r in rows.iter_rows(named=True):
        offer = f"{r['provider']}/{r['instance_type']}@{r['region']} x{r['instances']}"
        hours = f"{gpu_hours(r['gpu_hours'])} ({gpu_hours(r['gpu_hours_low'])}-{gpu_hours(r['gpu_hours_high'])})"
        cost = f"{usd(r['cost_usd'], 0)} ({usd(r['cost_usd_low'], 0)}-{usd(r['cost_usd_high'], 0)})"
        lines.append(f"{offer[:58]:58} {r['pricing_option']:16} {hours:26} {wall_clock(r['hours']):>10} {cost:>32}")
    if rows.height:
        bases = sorted(set(zip(rows["basis_benchmark"], rows["basis_results"])))
        lines.append("")
        lines += [f"basis ({b}): {results}" for b, results in bases]
    else:
        lines.append("no offer: no accelerator of the price book has an MLPerf LLM result of this kind")
    return "\n".join(lines) + "\n"
