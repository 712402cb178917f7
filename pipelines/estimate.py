"""`python -m pipelines.cli estimate`: a described model's ten cheapest offers, from the built warehouse.

It reads what the report's model marts read (llm_throughput, priced_offers, stg_published_runs, stg_instances; the
warehouse opened read-only: `model_inputs`) and computes with the report's functions (metrics/model_estimates.py,
metrics/model_picks.py), so a model described here and in report.toml gets the same figures and the same order.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from pipelines.domain.errors import InputError
from pipelines.domain.llm import ATTENTIONS, GQA, KINDS, MLA, DescribedModel
from pipelines.domain.precision import DEFAULT as DEFAULT_PRECISION, PRECISIONS, normalize
from pipelines.domain.units import gpu_hours, usd, wall_clock

SHOWN = ["provider", "region", "instance_type", "pricing_option", "offer_kind", "usd_per_hour", "as_of",
         "price_age_days", "certainty", "instances", "accelerators", "accelerator_model", "gpu_hours_low", "gpu_hours",
         "gpu_hours_high", "hours", "cost_usd_low", "cost_usd", "cost_usd_high", "mlperf_gpu_hours", "mlperf_cost_usd",
         "cluster_proven", "basis_benchmark", "basis_results", "basis_note"]
TOP = 10


def described(parameters: float, tokens: float, sequence_length: int, accelerators: int | None = None,
              deadline_days: float | None = None, kind: str = "pretrain", layers: int | None = None,
              hidden_size: int | None = None, precision: str = DEFAULT_PRECISION,
              total_parameters: float | None = None, attention: str = GQA, qk_width: int | None = None,
              v_width: int | None = None, flops_per_token: float | None = None) -> DescribedModel:
    """The command line's model, checked as report.toml's [models] are (one line naming the option)."""
    for option, value in (("--parameters", parameters), ("--tokens", tokens), ("--sequence-length", sequence_length),
                          ("--accelerators", accelerators), ("--deadline-days", deadline_days),
                          ("--layers", layers), ("--hidden-size", hidden_size),
                          ("--total-parameters", total_parameters), ("--qk-width", qk_width), ("--v-width", v_width),
                          ("--flops-per-token", flops_per_token)):
        if value is not None and not value > 0:
            raise InputError("estimate", option, f"{value!r} must be positive")
    if kind not in KINDS:
        raise InputError("estimate", "--kind", f"{kind!r} must be one of {', '.join(KINDS)}")
    if normalize(precision) not in PRECISIONS:
        raise InputError("estimate", "--precision", f"{precision!r} must be one of {', '.join(PRECISIONS)}")
    if attention not in ATTENTIONS:
        raise InputError("estimate", "--attention", f"{attention!r} must be one of {', '.join(ATTENTIONS)}")
    if attention == MLA and (qk_width is None or v_width is None):
        raise InputError("estimate", "--qk-width", "multi-head latent attention needs --qk-width and --v-width")
    if total_parameters is not None and total_parameters < parameters:
        raise InputError("estimate", "--total-parameters", "is below --parameters (the active ones)")
    if accelerators is None and deadline_days is None:
        accelerators = 1024
    if layers is None and (hidden_size is not None or qk_width is not None):
        raise InputError("estimate", "--layers", "the attention FLOPs need the number of layers")
    if layers is not None and hidden_size is None and (qk_width is None or v_width is None):
        raise InputError("estimate", "--hidden-size", "layers and hidden size go together (the attention FLOPs)")
    return DescribedModel("estimate", "estimate", parameters, tokens, sequence_length, kind, layers, hidden_size,
                          accelerators, deadline_days, normalize(precision), "", total_parameters, attention, qk_width,
                          v_width, flops_per_token)


def model_inputs(conn):
    """What a described model is priced from, as the warehouse holds it: (llm_throughput, priced_offers, the
    calibration fitted on stg_published_runs, stg_instances' fabrics). The report's model marts read the same."""
    from pipelines.metrics.model_calibration import calibrate
    from pipelines.warehouse import read_table

    throughput = read_table(conn, "llm_throughput")
    calibration, _ = calibrate(read_table(conn, "stg_published_runs"), throughput)
    fabrics = read_table(conn, "stg_instances").select("provider", "instance_type", "fabric")
    return throughput, read_table(conn, "priced_offers"), calibration, fabrics


def estimate_offers(warehouse: Path, model: DescribedModel):
    """(every offer's estimate for the model in the report's order: metrics/model_picks.ranked, the calibration) from
    the warehouse opened read-only."""
    import duckdb
    import polars as pl

    from pipelines.domain.report_settings import ReportSettings
    from pipelines.metrics.model_estimates import model_estimates
    from pipelines.metrics.model_picks import ranked
    from pipelines.warehouse import connect, read_table

    if not warehouse.exists():
        raise InputError(warehouse, None, "is missing: build the warehouse first (make report)")
    with connect(warehouse, read_only=True) as conn:
        try:
            throughput, offers, calibration, fabrics = model_inputs(conn)
        except (duckdb.CatalogException, duckdb.BinderException, KeyError, pl.exceptions.ColumnNotFoundError):
            raise InputError(warehouse, None, "has no model inputs of this version (llm_throughput, priced_offers, "
                                              "stg_published_runs): run make report again") from None
        try:  # report.toml's headline kinds, as the report ranks by them (a warehouse without them: the default)
            settings = ReportSettings.from_row(read_table(conn, "stg_report_settings").row(0, named=True))
        except (duckdb.CatalogException, duckdb.BinderException):
            settings = ReportSettings()
    estimates = model_estimates(model, throughput, offers, calibration, fabrics)
    return ranked(estimates, settings.headline_offer_kinds), calibration


def _age(r: dict) -> str:
    days = r.get("price_age_days")
    return "age ?" if days is None else f"{days:,} d old"


def _offer_line(r: dict) -> list[str]:
    return [
        f"{r['provider']}/{r['instance_type']}@{r['region']}", f"{r['instances']:,} x {r['instance_accelerators']:,}",
        r["pricing_option"], r["offer_kind"] or "list",
        f"{_age(r)}{', ' + r['certainty'] if r.get('certainty') else ''}",
        f"{gpu_hours(r['gpu_hours'])} ({gpu_hours(r['gpu_hours_low'])}-{gpu_hours(r['gpu_hours_high'])})",
        wall_clock(r["hours"]),
        f"{usd(r['cost_usd'], 0)} ({usd(r['cost_usd_low'], 0)}-{usd(r['cost_usd_high'], 0)})",
        usd(r["mlperf_cost_usd"], 0),
    ]


HEADER = ["offer", "instances x GPUs", "option", "kind", "price", "GPU-hours budget (range)", "time", "cost budget (range)",
          "at MLPerf speed"]


def render(frame, calibration, fmt: str, top: int = TOP) -> str:
    """The first `top` offers as a table (with what the figures include and rest on), CSV or JSON."""
    rows = frame.head(top).select(SHOWN)
    if fmt == "json":
        return json.dumps(rows.to_dicts(), indent=1, default=str)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(SHOWN)
        writer.writerows(rows.iter_rows())
        return out.getvalue()
    if not rows.height:
        return "no offer: no accelerator of the price book has an MLPerf LLM result of this kind\n"
    cells = [HEADER] + [_offer_line(r) for r in frame.head(top).iter_rows(named=True)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(HEADER))]
    lines = ["  ".join(c.ljust(w) if i < 5 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in cells]
    lines.append("")
    lines.append(_what_it_includes(calibration))
    for accelerator, group in rows.group_by("accelerator_model", maintain_order=True):
        r = group.row(0, named=True)
        lines.append(f"basis on {accelerator[0]} ({r['basis_benchmark']}): {r['basis_results']}"
                     + (f"; {r['basis_note']}" if r["basis_note"] else ""))
    unproven = rows.filter(~rows["cluster_proven"])
    if unproven.height:
        lines.append(f"{unproven.height} offer(s) of several instances whose provider states no fabric: multi-node "
                     "speed unproven, never the headline")
    return "\n".join(lines) + "\n"


def _what_it_includes(calibration) -> str:
    if not calibration.calibrated:
        return ("budget: MLPerf's measured speed at the model's precision, NOT CALIBRATED (fewer than 3 published runs "
                "to compare with): the range is the MLPerf results' own spread")
    return (f"budget: MLPerf's measured speed at the model's precision x {calibration.factor:.2f}, the correction "
            f"fitted on {calibration.runs} published production runs (restarts, evaluation, checkpoints included); "
            f"range: 90% of a new run (their spread {calibration.sigma:.2f} in ln) and the MLPerf results' own; "
            "'at MLPerf speed' is the optimistic bound")
