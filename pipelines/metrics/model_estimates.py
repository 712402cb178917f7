"""A described model's accelerator-hours, time and cost on every offer, from MLPerf's measured LLM throughput.

For each accelerator model with an LLM result (the llm_throughput mart), the basis of a model is:
  1. the benchmark of the model's kind (pretrain or lora) nearest in size: least |log(N / N_benchmark)|;
  2. its results on that accelerator at the scale nearest the cluster priced: least |log(a / a_result)|
     (a tie goes to the larger scale, whose per-accelerator throughput is the lower);
  3. per basis result r: accelerator-hours = model FLOPs / (FLOP/s per accelerator of r) / 3600, with the
     attention term on both sides when the model gives layers and hidden_size, on neither otherwise;
     gpu_hours is their median, gpu_hours_low/high their least and greatest.
On an offer of k accelerators per instance at p USD per instance-hour, for a cluster of `accelerators`:
  instances = ceil(accelerators / k); hours = gpu_hours / (instances x k); cost = gpu_hours / k x p.
A cluster of several instances is built of nodes of at least MIN_NODE_ACCELERATORS accelerators, as MLPerf's
multi-node LLM results are (8-GPU HGX nodes, GB200's 4-GPU trays): 1,024 one-GPU VMs are not a training cluster
the measured throughput could stand for, so such offers price a model only where one instance holds it.
With deadline_days, the cluster is the smallest of 8 x 2^i accelerators (up to `accelerators`, if given)
whose median time is within the deadline, else the largest tried.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from pipelines.domain.llm import LLM_BENCHMARKS, DescribedModel, model_flops

MIN_NODE_ACCELERATORS = 4  # the smallest node of a multi-instance cluster (module docstring)
CLUSTER_SIZES = tuple(8 * 2 ** i for i in range(14))  # 8 .. 65,536 accelerators: the sizes a deadline tries

ESTIMATE_COLUMNS = {
    "model": pl.Utf8, "provider": pl.Utf8, "region": pl.Utf8, "instance_type": pl.Utf8, "accelerator_model": pl.Utf8,
    "instance_accelerators": pl.Int64, "instances": pl.Int64, "accelerators": pl.Int64, "pricing_option": pl.Utf8,
    "usd_per_hour": pl.Float64, "basis_benchmark": pl.Utf8, "basis_results": pl.Utf8, "gpu_hours_low": pl.Float64,
    "gpu_hours": pl.Float64, "gpu_hours_high": pl.Float64, "hours": pl.Float64, "cost_usd_low": pl.Float64,
    "cost_usd": pl.Float64, "cost_usd_high": pl.Float64, "basis_accelerators": pl.Int64, "meets_deadline": pl.Boolean, "offer_kind": pl.Utf8,
}
NOT_PRICED_COLUMNS = {"model": pl.Utf8, "accelerator_model": pl.Utf8, "offers": pl.Int64, "reason": pl.Utf8}


@dataclass(frozen=True)
class Basis:
    benchmark: str
    accelerators: int  # the scale of the basis results
    results: tuple[str, ...]  # "round/system (N accelerators)"
    gpu_hours_low: float
    gpu_hours: float
    gpu_hours_high: float


def _flops_column(model: DescribedModel) -> str:
    with_attention = bool(model.layers and model.hidden_size)
    return "flops_with_attention_per_accelerator_s" if with_attention else "flops_per_accelerator_s"


def basis(model: DescribedModel, throughput: pl.DataFrame, accelerator_model: str, accelerators: int) -> Basis | None:
    """The model's accelerator-hours on one accelerator model at a cluster size (module docstring), or None
    when that accelerator has no LLM result of the model's kind."""
    rows = throughput.filter((pl.col("accelerator_model") == accelerator_model) & (pl.col("kind") == model.kind))
    if rows.is_empty():
        return None
    size = rows.select("benchmark", "benchmark_parameters").unique().with_columns(
        (pl.col("benchmark_parameters").log() - math.log(model.parameters)).abs().alias("distance"))
    benchmark = size.sort("distance", "benchmark").row(0, named=True)["benchmark"]
    rows = rows.filter(pl.col("benchmark") == benchmark)
    scales = rows.select("accelerators").unique().with_columns(
        (pl.col("accelerators").cast(pl.Float64).log() - math.log(accelerators)).abs().alias("distance"))
    scale = scales.sort(["distance", "accelerators"], descending=[False, True]).row(0, named=True)["accelerators"]
    rows = rows.filter(pl.col("accelerators") == scale).sort("round", "system")
    flops = model_flops(model, with_attention=bool(model.layers and model.hidden_size))
    hours = (flops / rows[_flops_column(model)] / 3600.0)
    results = tuple(f"{r['round']}/{r['system']} ({r['accelerators']} accelerators)" for r in rows.iter_rows(named=True))
    return Basis(benchmark, scale, results, float(hours.min()), float(hours.median()), float(hours.max()))


def cluster(model: DescribedModel, throughput: pl.DataFrame, accelerator_model: str) -> tuple[int, Basis | None, bool]:
    """The cluster size priced on one accelerator model, its basis and whether it meets the deadline: the
    model's `accelerators`, or with deadline_days the smallest CLUSTER_SIZES (at most `accelerators`) in time."""
    if model.deadline_days is None:
        return model.accelerators, basis(model, throughput, accelerator_model, model.accelerators), True
    sizes = [s for s in CLUSTER_SIZES if model.accelerators is None or s <= model.accelerators] or [model.accelerators]
    found = None
    for size in sizes:
        found = basis(model, throughput, accelerator_model, size)
        if found is None:
            return size, None, False
        if found.gpu_hours / size <= model.deadline_days * 24.0:
            return size, found, True
    return sizes[-1], found, False


def model_estimates(model: DescribedModel, throughput: pl.DataFrame, offers: pl.DataFrame) -> pl.DataFrame:
    """One row per offer (provider, region, instance_type, pricing_option) whose accelerator model has an LLM
    result: the model's accelerator-hours, time and cost there (ESTIMATE_COLUMNS). `offers`: priced offers with
    accelerator_model, instance_accelerators, pricing_option and usd_per_hour."""
    out = []
    by_accelerator = {}
    for accelerator_model in offers["accelerator_model"].drop_nulls().unique().sort():
        by_accelerator[accelerator_model] = cluster(model, throughput, accelerator_model)
    for o in offers.sort("provider", "region", "instance_type", "pricing_option").iter_rows(named=True):
        size, found, in_time = by_accelerator.get(o["accelerator_model"], (None, None, False))
        if found is None:
            continue
        k = o["instance_accelerators"]
        instances = math.ceil(size / k)
        if instances > 1 and k < MIN_NODE_ACCELERATORS:
            continue
        out.append({
            "model": model.name, "provider": o["provider"], "region": o["region"], "instance_type": o["instance_type"],
            "accelerator_model": o["accelerator_model"], "instance_accelerators": k, "instances": instances,
            "accelerators": instances * k, "pricing_option": o["pricing_option"], "usd_per_hour": o["usd_per_hour"],
            "basis_benchmark": found.benchmark, "basis_results": "; ".join(found.results),
            "gpu_hours_low": found.gpu_hours_low, "gpu_hours": found.gpu_hours, "gpu_hours_high": found.gpu_hours_high,
            "hours": found.gpu_hours / (instances * k),
            "cost_usd_low": found.gpu_hours_low / k * o["usd_per_hour"],
            "cost_usd": found.gpu_hours / k * o["usd_per_hour"],
            "cost_usd_high": found.gpu_hours_high / k * o["usd_per_hour"],
            "basis_accelerators": found.accelerators, "meets_deadline": in_time if model.deadline_days else None,
            "offer_kind": o.get("offer_kind"),
        })
    return pl.DataFrame(out, schema=ESTIMATE_COLUMNS).sort("cost_usd", "provider", "region", "instance_type",
                                                         "pricing_option")


def not_priced(model: DescribedModel, throughput: pl.DataFrame, offers: pl.DataFrame) -> pl.DataFrame:
    """The accelerator models of the offers that have no MLPerf LLM result of the model's kind, and why."""
    measured = set(throughput.filter(pl.col("kind") == model.kind)["accelerator_model"].drop_nulls().to_list())
    any_kind = set(throughput["accelerator_model"].drop_nulls().to_list())
    counts = offers.filter(pl.col("accelerator_model").is_not_null()).group_by("accelerator_model").len("offers")
    rows = []
    for r in counts.sort("accelerator_model").iter_rows(named=True):
        if r["accelerator_model"] in measured:
            continue
        reason = (f"no closed-division MLPerf {model.kind} LLM result on this accelerator (it has other LLM results)"
                  if r["accelerator_model"] in any_kind else "no closed-division MLPerf LLM result on this accelerator")
        rows.append({"model": model.name, "accelerator_model": r["accelerator_model"], "offers": r["offers"],
                     "reason": reason})
    return pl.DataFrame(rows, schema=NOT_PRICED_COLUMNS)


def llm_benchmark_of(name: str) -> str:
    """The title of an LLM benchmark (for the report)."""
    return LLM_BENCHMARKS[name].title
