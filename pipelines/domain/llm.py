"""The MLPerf LLM benchmarks as models (size, sequence length, shape) and the FLOPs of training one.

A model of N parameters trained on D tokens costs about 6·N·D FLOPs: 2·N·D forward, 4·N·D backward
(input gradients 2·N·D, weight gradients 2·N·D). With the number of layers L and the hidden size H,
attention over a sequence of S tokens adds 12·L·H·S per token (forward 4·L·H·S: QK^T and
attention x V, each 2·L·H·S; backward twice that). A LoRA fine-tune keeps the base frozen: no weight
gradients for it, so 4·N·D for the base (and 8·L·H·S per token for attention), plus 6·N_a·D for the
adapters, whose N_a (rank-16 adapters on the attention projections of MLPerf's Llama 2 70B: ~65 M,
0.1 % of N) is left out: 0.14 % of the FLOPs.

These are model FLOPs, not hardware FLOPs: activation recomputation, padding and communication are
not counted, so "achieved model FLOP/s" is comparable across runs of different models.
"""

from __future__ import annotations

from dataclasses import dataclass

PRETRAIN, LORA = "pretrain", "lora"
KINDS = (PRETRAIN, LORA)


@dataclass(frozen=True)
class LlmBenchmark:
    name: str
    title: str
    kind: str
    parameters: float
    sequence_length: int
    layers: int
    hidden_size: int
    tokens_per_sample: int  # stg_results' samples_to_converge counts sequences of this many tokens


# Sizes and shapes: GPT-3 175B (Brown et al. 2020, 96 layers x 12,288); Llama 3.1 405B (126 x 16,384) and
# 8B (32 x 4,096) (Llama 3 Herd paper, Table 3); Llama 2 70B (80 x 8,192, the LoRA benchmark's base). Sequence
# lengths as MLPerf trains them: 2,048 for GPT-3, 8,192 for the Llama benchmarks (GovReport packed to 8,192 for
# LoRA). GPT-3's samples are sequences once domain.mlperf.training_samples divided its logged tokens by 2,048.
LLM_BENCHMARKS = {
    b.name: b for b in (
        LlmBenchmark("gpt3", "GPT-3 175B", PRETRAIN, 175e9, 2048, 96, 12288, 2048),
        LlmBenchmark("llama31_405b", "Llama 3.1 405B", PRETRAIN, 405e9, 8192, 126, 16384, 8192),
        LlmBenchmark("llama31_8b", "Llama 3.1 8B", PRETRAIN, 8.03e9, 8192, 32, 4096, 8192),
        LlmBenchmark("llama2_70b_lora", "Llama 2 70B LoRA", LORA, 70e9, 8192, 80, 8192, 8192),
    )
}


@dataclass(frozen=True)
class DescribedModel:
    """A model described by its size and tokens ([models.<name>]), priced from MLPerf's LLM throughput
    (pipelines/metrics/model_estimates.py). parameters: the active parameters of a mixture of experts."""

    name: str
    title: str
    parameters: float
    tokens: float
    sequence_length: int
    kind: str = PRETRAIN
    layers: int | None = None
    hidden_size: int | None = None
    accelerators: int | None = None
    deadline_days: float | None = None
    precision: str | None = None
    description: str = ""


def training_flops(parameters: float, tokens: float, kind: str = PRETRAIN, sequence_length: float | None = None,
                   layers: int | None = None, hidden_size: int | None = None) -> float:
    """Model FLOPs of one training run: (6 or, for LoRA, 4) x N x D, plus the attention term
    (12 or 8) x L x H x S per token when layers and hidden size are given."""
    passes = 4.0 if kind == LORA else 6.0  # LoRA: forward + input gradients, no weight gradients for the base
    flops = passes * parameters * tokens
    if layers and hidden_size and sequence_length:
        flops += 2.0 * passes * layers * hidden_size * sequence_length * tokens
    return flops


def benchmark_flops(benchmark: str, samples: float, with_attention: bool) -> float:
    """Model FLOPs of one MLPerf result of an LLM benchmark that converged in `samples` sequences."""
    b = LLM_BENCHMARKS[benchmark]
    tokens = samples * b.tokens_per_sample
    if with_attention:
        return training_flops(b.parameters, tokens, b.kind, b.sequence_length, b.layers, b.hidden_size)
    return training_flops(b.parameters, tokens, b.kind)


def model_flops(model: DescribedModel, with_attention: bool) -> float:
    """Model FLOPs of a described model's training run (with the attention term when asked and its shape is given)."""
    if with_attention:
        return training_flops(model.parameters, model.tokens, model.kind, model.sequence_length, model.layers,
                              model.hidden_size)
    return training_flops(model.parameters, model.tokens, model.kind)


def described_models(rows: list[dict]) -> list[DescribedModel]:
    """stg_models' rows (report.toml [models]) as DescribedModel: the marts and the report read the same table."""
    fields = DescribedModel.__dataclass_fields__
    return [DescribedModel(**{k: v for k, v in r.items() if k in fields}) for r in rows]
