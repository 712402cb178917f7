"""Achieved model FLOP/s per accelerator of every closed-division MLPerf LLM result (the llm_throughput mart).

    tokens              = samples_to_converge x the benchmark's tokens per sequence (domain.llm)
    model FLOPs         = tokens x FLOPs per token (domain.llm: 6·N or LoRA's 4·N, with or without attention)
    FLOP/s/accelerator  = model FLOPs / (time to train in s x accelerators)
    at BF16             = FLOP/s/accelerator / speedup(accelerator, the result's precision)   (domain/precision.py)
    accelerator-hours   = time to train in h x accelerators

This is measured throughput, tuned by the submitter, over a short run that starts from a checkpoint (GPT-3, Llama 3.1
405B) or a pretrained base (LoRA), at the precision the submitter chose: each result carries it, read from its log
where the log says, else from the submission's configuration (mlperf_precision.csv says which and where), else the
assumption of ASSUMED (stated in the report's method). It is what a described model is priced from
(metrics/llm_basis.py), not peak FLOP/s.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from pipelines.domain.llm import LLM_BENCHMARKS, benchmark_flops
from pipelines.domain.precision import BF16, FP8, speedup

# A result whose precision no log or configuration read states: FP8, the precision of every NVIDIA and AMD LLM
# pretraining result whose precision was read (mlperf_precision.csv: v4.1 GPT-3 through v6.0); Cloud TPU's
# GPT-3 results (MaxText) at BF16.
ASSUMED = FP8
ASSUMED_BY_ACCELERATOR = {"TPU-v5p": BF16, "TPU-v6e": BF16, "TPU-v5e": BF16}
ASSUMPTION = "assumed"

COLUMNS = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8, "kind": pl.Utf8,
    "architecture": pl.Utf8, "benchmark_parameters": pl.Float64, "benchmark_sequence_length": pl.Int64,
    "accelerator_model_name": pl.Utf8, "accelerator_model": pl.Utf8, "accelerators": pl.Int64,
    "time_to_train_minutes": pl.Float64, "samples_to_converge": pl.Float64, "tokens": pl.Float64,
    "model_flops": pl.Float64, "model_flops_with_attention": pl.Float64, "flops_per_accelerator_s": pl.Float64,
    "flops_with_attention_per_accelerator_s": pl.Float64, "precision": pl.Utf8, "precision_evidence": pl.Utf8,
    "speedup": pl.Float64, "bf16_flops_per_accelerator_s": pl.Float64,
    "bf16_flops_with_attention_per_accelerator_s": pl.Float64, "accelerator_hours": pl.Float64,
    "file": pl.Utf8, "line": pl.Utf8,
}


def llm_throughput(results: pl.DataFrame, systems: pl.DataFrame,
                   cloud_model: Callable[[str | None, str], str | None],
                   precisions: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per closed-division result of an LLM benchmark with a time, a sample count and an accelerator count
    (stg_results; a result tree's division, accelerator and count come from its systems JSON), priced as the
    accelerator model instances.csv sells: cloud_model(accelerator name, system), the accelerator catalog's
    cloud_model (null: no cloud sells it). `precisions`: stg_mlperf_precision (round, system, benchmark, precision,
    evidence)."""
    from_json = systems.select(
        "system", pl.col("division").alias("json_division"),
        pl.col("accelerator_model_name").alias("json_accelerator"), pl.col("accelerators_total").alias("json_count"))
    stated = {} if precisions is None else {
        (r["round"], r["system"], r["benchmark"]): (r["precision"], r["evidence"]) for r in precisions.iter_rows(named=True)}
    rows = (
        results.filter(pl.col("benchmark").is_in(list(LLM_BENCHMARKS)) & pl.col("samples_to_converge").is_not_null())
        .join(from_json, on="system", how="left")
        .with_columns(
            pl.coalesce("division", "json_division").alias("division"),
            pl.coalesce("accelerator_model_name", "json_accelerator").alias("accelerator_model_name"),
            pl.coalesce(pl.col("accelerators_count").cast(pl.Int64), "json_count").alias("accelerators"),
        )
        .filter((pl.col("division") == "closed") & pl.col("accelerators").is_not_null())
    )
    out = []
    for r in rows.iter_rows(named=True):
        bench = LLM_BENCHMARKS[r["benchmark"]]
        seconds = r["time_to_train_minutes"] * 60.0
        accelerator = cloud_model(r["accelerator_model_name"], r["system"])
        precision, evidence = stated.get((r["round"], r["system"], r["benchmark"]),
                                         (ASSUMED_BY_ACCELERATOR.get(accelerator or "", ASSUMED), ASSUMPTION))
        factor = speedup(accelerator, precision)
        flops = benchmark_flops(bench.name, r["samples_to_converge"], with_attention=False)
        with_attention = benchmark_flops(bench.name, r["samples_to_converge"], with_attention=True)
        per_second = flops / (seconds * r["accelerators"])
        with_attention_per_second = with_attention / (seconds * r["accelerators"])
        out.append({
            "round": r["round"], "submitter": r["submitter"], "system": r["system"], "benchmark": bench.name,
            "kind": bench.kind, "architecture": bench.architecture, "benchmark_parameters": bench.parameters,
            "benchmark_sequence_length": bench.sequence_length, "accelerator_model_name": r["accelerator_model_name"],
            "accelerator_model": accelerator, "accelerators": r["accelerators"],
            "time_to_train_minutes": r["time_to_train_minutes"], "samples_to_converge": r["samples_to_converge"],
            "tokens": r["samples_to_converge"] * bench.tokens_per_sample,
            "model_flops": flops, "model_flops_with_attention": with_attention,
            "flops_per_accelerator_s": per_second, "flops_with_attention_per_accelerator_s": with_attention_per_second,
            "precision": precision, "precision_evidence": evidence, "speedup": factor,
            "bf16_flops_per_accelerator_s": per_second / factor,
            "bf16_flops_with_attention_per_accelerator_s": with_attention_per_second / factor,
            "accelerator_hours": seconds / 3600.0 * r["accelerators"],
            "file": r["file"], "line": r["line"],
        })
    return pl.DataFrame(out, schema=COLUMNS).sort("benchmark", "accelerator_model", "accelerators", "system", "round",
                                                 nulls_last=True)
