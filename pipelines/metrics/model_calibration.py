"""From MLPerf's speed to a production budget: the correction fitted on published training runs, and how well it
holds (the model_calibration mart).

Each published run (published_runs.csv) is estimated as a described model on its accelerator, at its cluster size and
precision (metrics/llm_basis.py, domain/precision.py): E, its accelerator-hours at MLPerf's speed. With P the
accelerator-hours published for the part the estimate covers (pre-training where the authors split it: DeepSeek-V3's
2.664M of 2.788M; published_basis says which):

    correction k   = exp(mean of ln(P / E))       over the n runs estimated (the geometric mean of P / E)
    budget         = E x k
    range          = budget x exp(± sqrt((t x s x sqrt(1 + 1/n))² + spread²))
                     t x s x sqrt(1 + 1/n): the 90% prediction interval of ln(P / E) for a new run (s: the standard
                     deviation of ln(P / E) over the n runs; t: Student's t at 95% with n - 1 degrees of freedom),
                     combined with the basis's own spread (metrics/llm_basis.py)
    leave-one-out  = each run's budget and range with k, s and n from the other runs only: what a buyer would have
                     been told before that run was published; error = budget / P - 1

MLPerf runs are short, tuned and mostly at FP8 or FP4 (turned to the model's precision first); a production run also
pays for restarts after failures, evaluation, checkpoints, data stalls and a cluster that is not always busy, so k
above 1 is expected. k is fitted on H100 runs (the only accelerator with both MLPerf LLM results and published
runs) and applied to every accelerator: an assumption the report states. With fewer than MIN_RUNS runs estimated
the figures are "not calibrated": k = 1 and the range is the basis spread alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from pipelines.domain.llm import PRETRAIN, DescribedModel
from pipelines.domain.precision import speedup
from pipelines.metrics.llm_basis import basis

MIN_RUNS = 3  # a correction and its spread need at least this many runs
LEVEL = 0.95  # Student's t quantile of the range: 90% two-sided
DEFAULT_ACCELERATORS = 1024  # a run whose cluster size is not known

CALIBRATION_COLUMNS = {
    "run": pl.Utf8, "accelerator_model": pl.Utf8, "parameters": pl.Float64, "total_parameters": pl.Float64,
    "tokens": pl.Float64, "precision": pl.Utf8, "accelerators": pl.Int64, "published_gpu_hours": pl.Float64,
    "published_basis": pl.Utf8, "published_source": pl.Utf8, "mlperf_gpu_hours": pl.Float64, "ratio": pl.Float64,
    "estimated_gpu_hours": pl.Float64, "estimated_gpu_hours_low": pl.Float64, "estimated_gpu_hours_high": pl.Float64,
    "error": pl.Float64, "within_range": pl.Boolean, "basis_benchmark": pl.Utf8, "basis_results": pl.Utf8,
    "note": pl.Utf8, "correction": pl.Float64,
}


@dataclass(frozen=True)
class Calibration:
    """The correction from MLPerf's speed to a production budget (module docstring)."""

    factor: float  # k; 1.0 when not calibrated
    sigma: float  # s
    runs: int  # n

    @property
    def calibrated(self) -> bool:
        return self.runs >= MIN_RUNS

    def half_width(self, spread: float) -> float:
        """The range's half-width in ln (module docstring); the spread alone when not calibrated."""
        if not self.calibrated:
            return spread
        from scipy.stats import t as student_t  # imported here: scipy.stats costs every process 0.5 s to import

        t = float(student_t.ppf(LEVEL, self.runs - 1))
        return math.hypot(t * self.sigma * math.sqrt(1 + 1 / self.runs), spread)

    def budget(self, mlperf_hours: float, spread: float) -> tuple[float, float, float]:
        """(low, budget, high) accelerator-hours from MLPerf-speed hours and the basis spread."""
        hours = mlperf_hours * self.factor
        width = math.exp(self.half_width(spread))
        return hours / width, hours, hours * width


NOT_CALIBRATED = Calibration(1.0, 0.0, 0)


def fit(log_ratios: list[float]) -> Calibration:
    """k, s and n from ln(P / E) of the runs estimated."""
    n = len(log_ratios)
    if n < MIN_RUNS:
        return NOT_CALIBRATED
    mean = sum(log_ratios) / n
    sigma = math.sqrt(sum((r - mean) ** 2 for r in log_ratios) / (n - 1))
    return Calibration(math.exp(mean), sigma, n)


def run_model(r: dict) -> DescribedModel:
    """A published run (a stg_published_runs row) as a described model."""
    return DescribedModel(r["run"], r["run"], r["parameters"], r["tokens"], r["sequence_length"], PRETRAIN,
                          r["layers"], r["hidden_size"], r["accelerators"] or DEFAULT_ACCELERATORS,
                          precision=r["precision"], total_parameters=r["total_parameters"],
                          qk_width=r["qk_width"], v_width=r["v_width"])


def mlperf_hours(model: DescribedModel, throughput: pl.DataFrame, accelerator_model: str, accelerators: int):
    """(the model's accelerator-hours at MLPerf's speed on the accelerator, its basis), or None without a basis."""
    found = basis(model, throughput, accelerator_model, accelerators)
    if found is None:
        return None
    flops = found.flops_bf16 * speedup(accelerator_model, model.precision)
    return model.training_flops() / flops / 3600.0, found


def calibrate(published: pl.DataFrame, throughput: pl.DataFrame) -> tuple[Calibration, pl.DataFrame]:
    """The correction over every published run with a basis, and one row per run (CALIBRATION_COLUMNS): its
    MLPerf-speed estimate and its leave-one-out budget and range."""
    estimated = {}
    for r in published.iter_rows(named=True):
        model = run_model(r)
        got = mlperf_hours(model, throughput, r["accelerator_model"], model.accelerators)
        if got is not None:
            estimated[r["run"]] = got
    logs = {run: math.log(r["published_gpu_hours"] / estimated[run][0])
            for r in published.iter_rows(named=True) if (run := r["run"]) in estimated}
    rows = []
    for r in published.iter_rows(named=True):
        row = {k: r.get(k) for k in CALIBRATION_COLUMNS} | {"accelerators": r["accelerators"]}
        if r["run"] not in estimated:
            row["note"] = "; ".join(filter(None, [f"not estimated: {r['accelerator_model']} has no closed-division "
                                                  "MLPerf LLM pretraining result", r["note"]]))
            rows.append(row)
            continue
        hours, found = estimated[r["run"]]
        without = fit([v for run, v in logs.items() if run != r["run"]])
        low, budget, high = without.budget(hours, found.spread)
        rows.append(row | {
            "accelerators": r["accelerators"] or DEFAULT_ACCELERATORS, "mlperf_gpu_hours": hours,
            "ratio": hours / r["published_gpu_hours"], "estimated_gpu_hours": budget, "estimated_gpu_hours_low": low,
            "estimated_gpu_hours_high": high, "error": budget / r["published_gpu_hours"] - 1,
            "within_range": low <= r["published_gpu_hours"] <= high, "basis_benchmark": found.label,
            "basis_results": "; ".join(found.results),
            "note": "; ".join(filter(None, [found.note, r["note"]] + ([] if without.calibrated else
                                                                        ["not calibrated without it"]))),
        })
    calibration = fit(list(logs.values()))
    correction = calibration.factor if calibration.calibrated else None  # k over every run, on each row
    return calibration, pl.DataFrame([r | {"correction": correction} for r in rows], schema=CALIBRATION_COLUMNS)
