"""A described model's budget on every offer: accelerator-hours, wall-clock time and cost, with a range, and MLPerf's
own speed beside it as the optimistic bound.

On each accelerator model with an MLPerf LLM result:
  1. the basis (metrics/llm_basis.py): MLPerf's achieved model FLOP/s per accelerator at BF16, for the model's
     architecture, size and cluster size, turned to the model's precision (domain/precision.py);
  2. MLPerf-speed accelerator-hours = model FLOPs / that FLOP/s / 3,600 (the optimistic bound: mlperf_* columns);
  3. the budget = MLPerf-speed hours x the calibration's correction, and its range (metrics/model_calibration.py);
  4. an accelerator is never estimated slower than its predecessor (PREDECESSOR) for the same model unless its results
     on a benchmark of the basis are slower than the predecessor's on the same benchmark, at the model's scale: that
     measurement is then named; otherwise it takes the predecessor's figure, and says so.
On an offer of k accelerators per instance at p USD per instance-hour, for a cluster of `accelerators`:
  instances = ceil(accelerators / k); hours = GPU-hours / (instances x k); cost = GPU-hours / k x p.
A cluster of several instances is built of nodes of at least MIN_NODE_ACCELERATORS accelerators, as MLPerf's
multi-node LLM results are (8-GPU HGX nodes, the 4-GPU trays of GB200 and GB300): 1,024 one-GPU VMs are not a
training cluster. MLPerf measured its multi-node results on InfiniBand-class fabrics: an offer of several instances
whose provider states no fabric for it (instances.csv fabric) is priced but marked cluster_proven = false ("fabric
not stated: multi-node speed unproven") and never headlines (metrics/model_picks.py).
With deadline_days, the cluster is the smallest of 8 x 2^i accelerators (up to `accelerators`, if given) whose budget
finishes within the deadline, else the largest tried.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from pipelines.domain.llm import DescribedModel
from pipelines.domain.precision import speedup
from pipelines.metrics.llm_basis import Basis, basis, curve, flops_column
from pipelines.metrics.model_calibration import Calibration

MIN_NODE_ACCELERATORS = 4  # the smallest node of a multi-instance cluster (module docstring)
CLUSTER_SIZES = tuple(8 * 2 ** i for i in range(14))  # 8 .. 65,536 accelerators: the sizes a deadline tries
NO_FABRIC = "fabric not stated: multi-node speed unproven"
# The generation each accelerator succeeds (same vendor, same form): a successor is never priced slower without a
# measurement that says so (module docstring, 4).
PREDECESSOR = {"H200-SXM-141GB": "H100-SXM-80GB", "B200-SXM-180GB": "H200-SXM-141GB", "GB200": "B200-SXM-180GB",
               "B300-SXM-270GB": "B200-SXM-180GB", "GB300": "GB200", "H200-NVL-141GB": "H100-NVL-94GB",
               "MI355X": "MI300X"}

ESTIMATE_COLUMNS = {
    "model": pl.Utf8, "provider": pl.Utf8, "region": pl.Utf8, "instance_type": pl.Utf8, "accelerator_model": pl.Utf8,
    "instance_accelerators": pl.Int64, "instances": pl.Int64, "accelerators": pl.Int64, "pricing_option": pl.Utf8,
    "offer_kind": pl.Utf8, "usd_per_hour": pl.Float64, "as_of": pl.Date, "price_age_days": pl.Int64,
    "stale": pl.Boolean, "certainty": pl.Utf8, "fabric": pl.Utf8, "cluster_proven": pl.Boolean, "precision": pl.Utf8,
    "basis_benchmark": pl.Utf8, "basis_results": pl.Utf8, "basis_note": pl.Utf8, "calibrated": pl.Boolean,
    "gpu_hours_low": pl.Float64, "gpu_hours": pl.Float64, "gpu_hours_high": pl.Float64, "hours": pl.Float64,
    "cost_usd_low": pl.Float64, "cost_usd": pl.Float64, "cost_usd_high": pl.Float64, "mlperf_gpu_hours": pl.Float64,
    "mlperf_hours": pl.Float64, "mlperf_cost_usd": pl.Float64, "meets_deadline": pl.Boolean,
}
NOT_PRICED_COLUMNS = {"model": pl.Utf8, "accelerator_model": pl.Utf8, "offers": pl.Int64, "reason": pl.Utf8}


@dataclass(frozen=True)
class Estimate:
    """A model's accelerator-hours on one accelerator model at one cluster size."""

    accelerators: int
    basis: Basis
    mlperf_gpu_hours: float
    gpu_hours_low: float
    gpu_hours: float
    gpu_hours_high: float
    note: str  # the basis's, and the predecessor rule's

    def scaled(self, hours: float, note: str) -> "Estimate":
        """The same estimate at other MLPerf-speed hours (the predecessor's), its range kept in proportion."""
        ratio = hours / self.mlperf_gpu_hours
        return Estimate(self.accelerators, self.basis, hours, self.gpu_hours_low * ratio, self.gpu_hours * ratio,
                        self.gpu_hours_high * ratio, "; ".join(filter(None, [self.note, note])))


def estimate(model: DescribedModel, throughput: pl.DataFrame, accelerator_model: str, accelerators: int,
             calibration: Calibration) -> Estimate | None:
    """The model's estimate on one accelerator model at a cluster size, or None without an LLM result of its kind."""
    found = basis(model, throughput, accelerator_model, accelerators)
    if found is None:
        return None
    hours = model.training_flops() / (found.flops_bf16 * speedup(accelerator_model, model.precision)) / 3600.0
    low, budget, high = calibration.budget(hours, found.spread)
    return Estimate(accelerators, found, hours, low, budget, high, found.note)


def cluster(model: DescribedModel, throughput: pl.DataFrame, accelerator_model: str,
            calibration: Calibration) -> tuple[Estimate | None, bool]:
    """The estimate at the cluster size priced on one accelerator model and whether it meets the deadline: the
    model's `accelerators`, or with deadline_days the smallest CLUSTER_SIZES (at most `accelerators`) in time."""
    if model.deadline_days is None:
        return estimate(model, throughput, accelerator_model, model.accelerators, calibration), True
    sizes = [s for s in CLUSTER_SIZES if model.accelerators is None or s <= model.accelerators] or [model.accelerators]
    found = None
    for size in sizes:
        found = estimate(model, throughput, accelerator_model, size, calibration)
        if found is None:
            return None, False
        if found.gpu_hours / size <= model.deadline_days * 24.0:
            return found, True
    return found, False


def _measured_slower(model: DescribedModel, throughput: pl.DataFrame, accelerator_model: str, predecessor: str,
                     found: Estimate) -> str | None:
    """The measurement that shows `accelerator_model` slower than its predecessor on a benchmark of its basis: both
    curves read at the model's cluster size held within the scales both measured (at BF16); in words, or None when
    no benchmark of the basis was measured on both at a common scale, or none shows it slower."""
    for benchmark in found.basis.benchmarks:
        both = [throughput.filter((pl.col("accelerator_model") == a) & (pl.col("benchmark") == benchmark))
                for a in (accelerator_model, predecessor)]
        if any(rows.is_empty() for rows in both):
            continue
        low = max(rows["accelerators"].min() for rows in both)
        high = min(rows["accelerators"].max() for rows in both)
        if low > high:
            continue
        at = min(max(found.accelerators, low), high)
        mine, theirs = (curve(rows["accelerators"].to_list(), rows[flops_column(model)].to_list(), at)[0]
                        for rows in both)
        if mine < theirs:
            names = [", ".join(f"{r['round']}/{r['system']}" for r in rows.iter_rows(named=True)) for rows in both]
            return (f"slower than {predecessor} as measured on {benchmark} at {at:,} accelerators: {mine / 1e12:,.0f} "
                    f"against {theirs / 1e12:,.0f} TFLOP/s per accelerator at BF16 ({names[0]} against {names[1]})")
    return None


def by_accelerator(model: DescribedModel, throughput: pl.DataFrame, accelerator_models: list[str],
                   calibration: Calibration) -> dict[str, tuple[Estimate, bool]]:
    """Each accelerator model's estimate and deadline verdict, the predecessor rule applied (module docstring, 4)."""
    found = {}
    for accelerator in accelerator_models:
        got, in_time = cluster(model, throughput, accelerator, calibration)
        if got is not None:
            found[accelerator] = (got, in_time)
    for accelerator in sorted(found, key=_generation_order):
        predecessor = PREDECESSOR.get(accelerator)
        if predecessor not in found:
            continue
        mine, theirs = found[accelerator][0], found[predecessor][0]
        if mine.mlperf_gpu_hours <= theirs.mlperf_gpu_hours:
            continue
        shown = _measured_slower(model, throughput, accelerator, predecessor, mine)
        found[accelerator] = ((mine.scaled(mine.mlperf_gpu_hours, shown) if shown else
                               mine.scaled(theirs.mlperf_gpu_hours, f"capped at the {predecessor} figure: no "
                                           f"measurement on the same benchmark shows {accelerator} slower")),
                              found[accelerator][1])
    return found


def _generation_order(accelerator: str) -> int:
    """How many predecessors an accelerator has: a predecessor's figure is settled before its successor's."""
    depth = 0
    while accelerator in PREDECESSOR:
        accelerator, depth = PREDECESSOR[accelerator], depth + 1
    return depth


def model_estimates(model: DescribedModel, throughput: pl.DataFrame, offers: pl.DataFrame,
                    calibration: Calibration, fabrics: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per offer (provider, region, instance_type, pricing_option) whose accelerator model has an LLM result
    (ESTIMATE_COLUMNS). `offers`: priced_offers; `fabrics`: stg_instances' provider, instance_type and fabric."""
    estimates = by_accelerator(model, throughput, offers["accelerator_model"].drop_nulls().unique().sort().to_list(),
                               calibration)
    stated = {} if fabrics is None else {(r["provider"], r["instance_type"]): r["fabric"]
                                         for r in fabrics.iter_rows(named=True) if r["fabric"]}
    out = []
    for o in offers.sort("provider", "region", "instance_type", "pricing_option").iter_rows(named=True):
        if o["accelerator_model"] not in estimates:
            continue
        found, in_time = estimates[o["accelerator_model"]]
        k = o["instance_accelerators"]
        instances = math.ceil(found.accelerators / k)
        if instances > 1 and k < MIN_NODE_ACCELERATORS:
            continue
        fabric = stated.get((o["provider"], o["instance_type"]))
        out.append({
            "model": model.name, "provider": o["provider"], "region": o["region"], "instance_type": o["instance_type"],
            "accelerator_model": o["accelerator_model"], "instance_accelerators": k, "instances": instances,
            "accelerators": instances * k, "pricing_option": o["pricing_option"], "offer_kind": o.get("offer_kind"),
            "usd_per_hour": o["usd_per_hour"], "as_of": o.get("as_of"), "price_age_days": o.get("price_age_days"),
            "stale": o.get("stale"), "certainty": o.get("certainty"), "fabric": fabric,
            "cluster_proven": instances == 1 or fabric is not None, "precision": model.precision,
            "basis_benchmark": found.basis.label, "basis_results": "; ".join(found.basis.results),
            "basis_note": "; ".join(filter(None, [found.note, None if instances == 1 or fabric else NO_FABRIC])),
            "calibrated": calibration.calibrated,
            "gpu_hours_low": found.gpu_hours_low, "gpu_hours": found.gpu_hours, "gpu_hours_high": found.gpu_hours_high,
            "hours": found.gpu_hours / (instances * k),
            "cost_usd_low": found.gpu_hours_low / k * o["usd_per_hour"],
            "cost_usd": found.gpu_hours / k * o["usd_per_hour"],
            "cost_usd_high": found.gpu_hours_high / k * o["usd_per_hour"],
            "mlperf_gpu_hours": found.mlperf_gpu_hours, "mlperf_hours": found.mlperf_gpu_hours / (instances * k),
            "mlperf_cost_usd": found.mlperf_gpu_hours / k * o["usd_per_hour"],
            "meets_deadline": in_time if model.deadline_days else None,
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
