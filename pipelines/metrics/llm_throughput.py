"""Achieved model FLOP/s per accelerator of every closed-division MLPerf LLM result (the llm_throughput mart).

    tokens              = samples_to_converge x the benchmark's tokens per sequence (domain.llm)
    model FLOPs         = 6·N·tokens (LoRA: 4·N·tokens), with or without the attention term (domain.llm)
    FLOP/s/accelerator  = model FLOPs / (time to train in s x accelerators)
    accelerator-hours   = time to train in h x accelerators

This is measured throughput, at the precision the submitter chose (FP8 for most recent NVIDIA results),
tuned by the submitter, over a short run that starts from a checkpoint (GPT-3) or a pretrained base
(LoRA): what a described model is priced from (metrics/model_estimates.py), not peak FLOP/s.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from pipelines.domain.llm import LLM_BENCHMARKS, benchmark_flops

COLUMNS = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8, "kind": pl.Utf8,
    "benchmark_parameters": pl.Float64, "accelerator_model_name": pl.Utf8, "accelerator_model": pl.Utf8,
    "accelerators": pl.Int64, "time_to_train_minutes": pl.Float64, "samples_to_converge": pl.Float64,
    "tokens": pl.Float64, "model_flops": pl.Float64, "model_flops_with_attention": pl.Float64,
    "flops_per_accelerator_s": pl.Float64, "flops_with_attention_per_accelerator_s": pl.Float64,
    "accelerator_hours": pl.Float64, "file": pl.Utf8, "line": pl.Utf8,
}


def llm_throughput(results: pl.DataFrame, systems: pl.DataFrame,
                   cloud_model: Callable[[str | None, str], str | None]) -> pl.DataFrame:
    """One row per closed-division result of an LLM benchmark with a time, a sample count and an accelerator
    count (stg_results; a result tree's division, accelerator and count come from its systems JSON), priced
    as the accelerator model instances.csv sells: cloud_model(accelerator name, system), the accelerator
    catalog's cloud_model (null: no cloud sells it)."""
    from_json = systems.select(
        "system", pl.col("division").alias("json_division"),
        pl.col("accelerator_model_name").alias("json_accelerator"), pl.col("accelerators_total").alias("json_count"))
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
        flops = benchmark_flops(bench.name, r["samples_to_converge"], with_attention=False)
        with_attention = benchmark_flops(bench.name, r["samples_to_converge"], with_attention=True)
        out.append({
            "round": r["round"], "submitter": r["submitter"], "system": r["system"], "benchmark": bench.name,
            "kind": bench.kind, "benchmark_parameters": bench.parameters,
            "accelerator_model_name": r["accelerator_model_name"],
            "accelerator_model": cloud_model(r["accelerator_model_name"], r["system"]),
            "accelerators": r["accelerators"], "time_to_train_minutes": r["time_to_train_minutes"],
            "samples_to_converge": r["samples_to_converge"],
            "tokens": r["samples_to_converge"] * bench.tokens_per_sample,
            "model_flops": flops, "model_flops_with_attention": with_attention,
            "flops_per_accelerator_s": flops / (seconds * r["accelerators"]),
            "flops_with_attention_per_accelerator_s": with_attention / (seconds * r["accelerators"]),
            "accelerator_hours": seconds / 3600.0 * r["accelerators"],
            "file": r["file"], "line": r["line"],
        })
    return pl.DataFrame(out, schema=COLUMNS).sort("benchmark", "accelerator_model", "accelerators", "system", "round",
                                                 nulls_last=True)
