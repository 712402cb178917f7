"""The measured speed a described model is priced from on one accelerator model: its basis.

From the llm_throughput mart (achieved model FLOP/s per accelerator of every closed-division MLPerf LLM result,
turned to BF16 by the precision it ran at, domain/precision.py):

1. Architecture: the results of the model's kind (pretraining or LoRA) and architecture (dense, or a mixture of
   experts); with none of its architecture on the accelerator, those of the other, said in the basis's note.
2. Benchmarks by size: one whose active parameters are within 10% of the model's (the nearest by
   |ln N/N_b| + |ln S/S_b|, S the sequence length), else the nearest smaller and the nearest larger, weighted by
   where the model's ln N lies between theirs; with the model beyond every benchmark, the nearest one.
3. Scale, per benchmark: a curve through all its results on the accelerator, ln FLOP/s = c + b x ln accelerators
   (least squares; b between -0.5 and 0: per-accelerator speed may fall with scale, never rise), read at the
   model's cluster size held within the scales measured: no extrapolation beyond the evidence, a production run's
   scale is the calibration's to answer (metrics/model_calibration.py). One scale: its mean.
4. The basis speed is the weighted geometric mean of the benchmarks' curve values. Its spread: the root mean square
   of the results' log distances from their curves, and, where the model's cluster size lies beyond the scales
   measured, the results' own spread across scales (the standard deviation of their ln FLOP/s) on top, in
   quadrature: read beyond the evidence, the figure is as uncertain as the results differ. One result at one scale:
   no spread, said so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from pipelines.domain.llm import DENSE, MOE, DescribedModel

SAME_SIZE = 0.1  # |ln N/N_b| under this: the benchmark is the model's size
MAX_FALL = 0.5  # the steepest curve: per-accelerator speed x accelerators^-0.5
ARCHITECTURE_WORDS = {DENSE: "dense", MOE: "mixture-of-experts"}


@dataclass(frozen=True)
class Basis:
    accelerator_model: str
    benchmarks: tuple[str, ...]
    weights: tuple[float, ...]
    results: tuple[str, ...]  # "v5.1/hpf_n16 llama31_8b on 128 (fp8)"
    flops_bf16: float  # achieved model FLOP/s per accelerator at BF16, the model's way of counting attention
    spread: float  # in ln (module docstring, 4)
    note: str = ""

    @property
    def label(self) -> str:
        """"llama31_8b" or "llama31_8b 45% + llama31_405b 55%"."""
        if len(self.benchmarks) == 1:
            return self.benchmarks[0]
        return " + ".join(f"{b} {w:.0%}" for b, w in zip(self.benchmarks, self.weights))


def flops_column(model: DescribedModel) -> str:
    """The throughput column that counts FLOPs as the model's do (attention on both sides, or on neither)."""
    return "bf16_flops_with_attention_per_accelerator_s" if model.counts_attention else "bf16_flops_per_accelerator_s"


def curve(accelerators: list[int], flops: list[float], at: int) -> tuple[float, float]:
    """(FLOP/s read off the scaling curve at `at` accelerators held within the measured scales, its spread in ln:
    module docstring, 3-4)."""
    x = np.log(np.asarray(accelerators, dtype=float))
    y = np.log(np.asarray(flops, dtype=float))
    slope = 0.0
    if len(set(x)) > 1:
        slope = float(np.clip(np.polyfit(x, y, 1)[0], -MAX_FALL, 0.0))
    intercept = float(np.mean(y - slope * x))
    where = min(max(math.log(at), float(x.min())), float(x.max()))
    spread = float(np.mean((y - (intercept + slope * x)) ** 2))
    if not x.min() <= math.log(at) <= x.max():
        spread += float(np.var(y))
    return math.exp(intercept + slope * where), math.sqrt(spread)


def _benchmarks(model: DescribedModel, sizes: pl.DataFrame) -> list[tuple[str, float]]:
    """(benchmark, weight) by size (module docstring, 2). `sizes`: benchmark, benchmark_parameters and
    benchmark_sequence_length."""
    rows = sizes.with_columns(
        (pl.col("benchmark_parameters").log() - math.log(model.parameters)).alias("size"),
        ((pl.col("benchmark_parameters").log() - math.log(model.parameters)).abs()
         + (pl.col("benchmark_sequence_length").cast(pl.Float64).log() - math.log(model.sequence_length)).abs())
        .alias("distance")).sort("distance", "benchmark")
    same = rows.filter(pl.col("size").abs() < SAME_SIZE)
    if same.height:
        return [(same["benchmark"][0], 1.0)]
    smaller, larger = rows.filter(pl.col("size") < 0), rows.filter(pl.col("size") > 0)
    if not smaller.height or not larger.height:
        return [(rows["benchmark"][0], 1.0)]
    low, high = smaller.row(0, named=True), larger.row(0, named=True)
    weight = -low["size"] / (high["size"] - low["size"])  # where ln N lies between theirs
    return [(low["benchmark"], 1.0 - weight), (high["benchmark"], weight)]


def _same_size(model: DescribedModel, rows: pl.DataFrame) -> set[str]:
    return set(rows.filter((pl.col("benchmark_parameters").log() - math.log(model.parameters)).abs() < SAME_SIZE)
               ["benchmark"].to_list())


def basis(model: DescribedModel, throughput: pl.DataFrame, accelerator_model: str, accelerators: int) -> Basis | None:
    """The model's basis on one accelerator model at a cluster size (module docstring), or None when the
    accelerator has no LLM result of the model's kind."""
    mine = throughput.filter((pl.col("accelerator_model") == accelerator_model) & (pl.col("kind") == model.kind))
    if mine.is_empty():
        return None
    note = ""
    alike = mine.filter(pl.col("architecture") == model.architecture)
    if alike.is_empty():
        other = DENSE if model.architecture == MOE else MOE
        note = (f"no {ARCHITECTURE_WORDS[model.architecture]} result on {accelerator_model}: priced from "
                f"{ARCHITECTURE_WORDS[other]} results, by its active parameters")
        alike = mine
    picks = _benchmarks(model, alike.select("benchmark", "benchmark_parameters", "benchmark_sequence_length").unique())
    log_flops, spread, results = 0.0, 0.0, []
    for benchmark, weight in picks:
        rows = alike.filter(pl.col("benchmark") == benchmark).sort("accelerators", "round", "system")
        value, off = curve(rows["accelerators"].to_list(), rows[flops_column(model)].to_list(), accelerators)
        log_flops += weight * math.log(value)
        spread += weight * off
        results += [f"{r['round']}/{r['system']} {benchmark} on {r['accelerators']:,} ({r['precision']})"
                    for r in rows.iter_rows(named=True)]
    if len(picks) == 1 and picks[0][0] not in _same_size(model, alike):
        size = alike.filter(pl.col("benchmark") == picks[0][0])["benchmark_parameters"][0]
        note = "; ".join(filter(None, [note, f"no benchmark {'as large' if size < model.parameters else 'as small'} "
                                             f"on {accelerator_model}: the nearest, {size / 1e9:,.3g}B parameters"]))
    if len(results) == 1:
        note = "; ".join(filter(None, [note, "one result: its speed is one figure"]))
    return Basis(accelerator_model, tuple(b for b, _ in picks), tuple(w for _, w in picks), tuple(results),
                 math.exp(log_flops), spread, note)
