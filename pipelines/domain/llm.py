"""Language models as the estimate sees them: the MLPerf LLM benchmarks and a model a user describes, each with its
architecture (dense or a mixture of experts), its size, its sequence length and its attention, and the FLOPs of
training one.

Model FLOPs per token, for N parameters (the active ones of a mixture of experts, whose tokens each pass through
only their experts):

    pretraining   6·N      (2·N forward; backward 4·N: input gradients 2·N and weight gradients 2·N)
    LoRA          4·N      (the base is frozen: no weight gradients for it; the adapters' 6·N_a, rank-16 adapters on
                            the attention projections of MLPerf's Llama 2 70B, ~65 M, 0.1 % of N, are left out)

plus attention, which the parameter count does not hold: per layer and token, the scores Q·Kᵀ take 2·S·w_qk and
their product with V 2·S·w_v forward, for a sequence of S tokens, a query-key width w_qk (query heads x their
dimension) and a value width w_v; three passes for pretraining (6·S·(w_qk + w_v)), two for LoRA. For multi-head and
grouped-query attention both widths are the hidden size H (grouped-query attention shares keys and values among
query heads, which saves memory, not score FLOPs): 12·L·H·S per token, as NVIDIA's MFU recipe counts it (2.17e16
per 8,192-token sequence of Llama 3.1 405B). Multi-head latent attention (DeepSeek-V3: 128 heads of query-key
dimension 192 and value dimension 128) is 6·S·(24,576 + 16,384) per layer, about 2.9 times 12·H·S. A layer of
local attention over a window of W tokens (GPT-OSS's banded layers) takes min(S, W) for S.

These are model FLOPs, not hardware FLOPs: activation recomputation, padding and communication are left out, so
"achieved model FLOP/s" compares runs of different models.
"""

from __future__ import annotations

from dataclasses import dataclass

PRETRAIN, LORA = "pretrain", "lora"
KINDS = (PRETRAIN, LORA)
DENSE, MOE = "dense", "moe"
MHA, GQA, MLA = "mha", "gqa", "mla"
ATTENTIONS = (MHA, GQA, MLA)


def _passes(kind: str) -> float:
    return 4.0 if kind == LORA else 6.0  # LoRA: forward and input gradients, no weight gradients for the base


def attention_flops_per_token(kind: str, layers: int, qk_width: float, v_width: float, sequence_length: float,
                              windowed_layers: int = 0, window: int = 0) -> float:
    """Attention's FLOPs per token (module docstring): passes x S x (w_qk + w_v) per layer, a windowed layer
    over min(S, window) tokens."""
    per_layer = _passes(kind) * (qk_width + v_width)
    full = layers - windowed_layers
    return per_layer * (full * sequence_length + windowed_layers * min(sequence_length, window))


@dataclass(frozen=True)
class LlmBenchmark:
    name: str
    title: str
    kind: str
    parameters: float  # active per token
    total_parameters: float
    sequence_length: int
    layers: int
    qk_width: int
    v_width: int
    tokens_per_sample: int  # stg_results' samples_to_converge counts sequences of this many tokens
    windowed_layers: int = 0
    window: int = 0

    @property
    def architecture(self) -> str:
        return MOE if self.total_parameters > self.parameters else DENSE

    def flops_per_token(self, with_attention: bool = True) -> float:
        attention = attention_flops_per_token(self.kind, self.layers, self.qk_width, self.v_width,
                                              self.sequence_length, self.windowed_layers, self.window)
        return _passes(self.kind) * self.parameters + (attention if with_attention else 0.0)


# Sizes and shapes: GPT-3 175B (Brown et al. 2020: 96 layers x 12,288); Llama 3.1 405B (126 x 16,384) and 8B
# (32 x 4,096) (The Llama 3 Herd of Models, Table 3); Llama 2 70B (80 x 8,192, the LoRA benchmark's base);
# DeepSeek-V3 (DeepSeek-V3 Technical Report: 671B parameters, 37B active, 61 layers, 128 heads, query-key head
# dimension 192, value 128); GPT-OSS 20B (OpenAI's gpt-oss model card: 21B parameters, 3.6B active, 24 layers, 64
# query heads of 64, every other layer banded to 128 tokens). Sequence lengths as MLPerf trains them: 2,048 for
# GPT-3, 4,096 for DeepSeek-V3 (its closed rules), 8,192 for the Llama benchmarks (GovReport packed to 8,192 for
# LoRA) and GPT-OSS 20B. GPT-3's samples are sequences once domain.mlperf.training_samples divided its logged tokens
# by 2,048.
LLM_BENCHMARKS = {
    b.name: b for b in (
        LlmBenchmark("gpt3", "GPT-3 175B", PRETRAIN, 175e9, 175e9, 2048, 96, 12288, 12288, 2048),
        LlmBenchmark("llama31_405b", "Llama 3.1 405B", PRETRAIN, 405e9, 405e9, 8192, 126, 16384, 16384, 8192),
        LlmBenchmark("llama31_8b", "Llama 3.1 8B", PRETRAIN, 8.03e9, 8.03e9, 8192, 32, 4096, 4096, 8192),
        LlmBenchmark("llama2_70b_lora", "Llama 2 70B LoRA", LORA, 70e9, 70e9, 8192, 80, 8192, 8192, 8192),
        LlmBenchmark("deepseekv3_671b", "DeepSeek-V3 671B", PRETRAIN, 37e9, 671e9, 4096, 61, 128 * 192, 128 * 128, 4096),
        LlmBenchmark("gpt_oss_20b", "GPT-OSS 20B", PRETRAIN, 3.6e9, 21e9, 8192, 24, 64 * 64, 64 * 64, 8192,
                     windowed_layers=12, window=128),
    )
}


@dataclass(frozen=True)
class DescribedModel:
    """A model described by its size and tokens ([models.<name>], or the estimate command's options), priced from
    MLPerf's LLM throughput (pipelines/metrics/model_estimates.py).

    parameters: the active parameters per token (all of a dense model's); total_parameters: a mixture of experts'
    whole size (None: dense). attention: mha, gqa (both: widths = hidden_size) or mla (qk_width and v_width given).
    flops_per_token: stated, it replaces the computed figure. precision: what the model trains in (bf16 unless
    said; domain/precision.py)."""

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
    total_parameters: float | None = None
    attention: str | None = None
    qk_width: int | None = None
    v_width: int | None = None
    flops_per_token: float | None = None

    @property
    def architecture(self) -> str:
        return MOE if self.total_parameters and self.total_parameters > self.parameters else DENSE

    @property
    def has_attention_shape(self) -> bool:
        return bool(self.layers and (self.hidden_size or (self.qk_width and self.v_width)))

    def attention_flops_per_token(self) -> float:
        """Attention's FLOPs per token from the stated shape; 0 without one (layers and hidden_size, or the widths)."""
        if not self.has_attention_shape:
            return 0.0
        return attention_flops_per_token(self.kind, self.layers, self.qk_width or self.hidden_size,
                                         self.v_width or self.hidden_size, self.sequence_length)

    @property
    def counts_attention(self) -> bool:
        """Whether its FLOPs hold attention (a stated flops_per_token, or a shape): the throughput it is priced from
        then counts attention too, else neither side does."""
        return bool(self.flops_per_token) or self.has_attention_shape

    def training_flops(self) -> float:
        """Model FLOPs of the whole run: tokens x the stated flops_per_token, else x (passes x N + attention)."""
        per_token = self.flops_per_token or (_passes(self.kind) * self.parameters + self.attention_flops_per_token())
        return per_token * self.tokens


def benchmark_flops(benchmark: str, samples: float, with_attention: bool = True) -> float:
    """Model FLOPs of one MLPerf result of an LLM benchmark that converged in `samples` sequences."""
    b = LLM_BENCHMARKS[benchmark]
    return b.flops_per_token(with_attention) * samples * b.tokens_per_sample


def described_models(rows: list[dict]) -> list[DescribedModel]:
    """stg_models' rows (report.toml [models]) as DescribedModel: the marts and the report read the same table."""
    fields = DescribedModel.__dataclass_fields__
    return [DescribedModel(**{k: v for k, v in r.items() if k in fields}) for r in rows]
