"""Numeric precision of LLM training, and how much faster a lower one runs: an MLPerf result's throughput is measured
at the precision its submitter chose (FP8 for most NVIDIA results on Hopper, NVFP4 for many on Blackwell, FP8 for
AMD's), a model trains at its own (BF16 unless said), so the estimate turns one into the other.

    throughput at the model's precision = measured throughput / speedup(result's precision) x speedup(model's)

Speedups are relative to BF16 and per accelerator generation, from NVIDIA's own recipes run at two precisions on the
same model, GPU count and software release (public figures, read 2026-12-07; data/llm_throughput.csv names the
factor each result took):
- FP8 over BF16 on H100: 1.45, the median of 50 pairs of NVIDIA's DGX Cloud Benchmarking recipes for NeMo
  (github.com/NVIDIA/dgxc-benchmarking, releases v24.11.1-v25.05.04; range 1.15-1.61; Llama 3.1 405B 1.59, 70B 1.46,
  8B 1.31); NVIDIA's Megatron-Bridge performance guide says "typically 1.2-1.5x".
- FP8 over BF16 on GB200: 1.44 (15 pairs of the same recipes, 1.26-1.53), taken for every Blackwell part (B200, B300,
  GB300: no pair published for them).
- NVFP4 over FP8: 1.33 on GB200 and 1.36 on GB300 (9 pairs each, Megatron-Bridge's performance summary,
  github.com/NVIDIA-NeMo/Megatron-Bridge docs/performance-summary*.md @4ab94dfa), so FP4 over BF16 1.44 x 1.33 =
  1.92 on B200 and GB200, 1.44 x 1.36 = 1.96 on B300 and GB300.
- AMD Instinct: no pair published; Hopper's 1.45 is assumed for FP8 and Blackwell's 1.92 for FP4.
- Hopper has no FP4: a model stated in FP4 on it is priced at FP8. An accelerator of no known generation (Cloud
  TPU, Gaudi) takes every precision at 1.0: its results are used as measured (Cloud TPU's GPT-3 ran int8 matrix
  multiplies).
"""

from __future__ import annotations

BF16, FP8, FP4, INT8 = "bf16", "fp8", "fp4", "int8"
PRECISIONS = (BF16, FP8, FP4)  # what a described model may train in
RESULT_PRECISIONS = (*PRECISIONS, INT8)  # and an MLPerf result
DEFAULT = BF16  # a described model's precision unless it says

# how logs, configurations and users spell them
_ALIASES = {"bf16": BF16, "bfloat16": BF16, "fp16": BF16, "float16": BF16,
            "fp8": FP8, "mxfp8": FP8, "e4m3": FP8, "fp8_hybrid": FP8, "hybrid": FP8,
            "fp4": FP4, "nvfp4": FP4, "mxfp4": FP4, "e2m1": FP4, "int8": INT8}

HOPPER, BLACKWELL, BLACKWELL_ULTRA, CDNA = "Hopper", "Blackwell", "Blackwell Ultra", "AMD Instinct"
GENERATION = {
    "H100-SXM-80GB": HOPPER, "H100-NVL-94GB": HOPPER, "H100-PCIe-80GB": HOPPER, "H200-SXM-141GB": HOPPER,
    "H200-NVL-141GB": HOPPER, "B200-SXM-180GB": BLACKWELL, "GB200": BLACKWELL, "B300-SXM-270GB": BLACKWELL_ULTRA,
    "GB300": BLACKWELL_ULTRA, "MI300X": CDNA, "MI355X": CDNA,
}
SPEEDUP = {  # over BF16 (module docstring)
    HOPPER: {BF16: 1.0, FP8: 1.45},
    BLACKWELL: {BF16: 1.0, FP8: 1.44, FP4: 1.44 * 1.33},
    BLACKWELL_ULTRA: {BF16: 1.0, FP8: 1.44, FP4: 1.44 * 1.36},
    CDNA: {BF16: 1.0, FP8: 1.45, FP4: 1.44 * 1.33},
}


def normalize(text: str | None) -> str | None:
    """'bfloat16', 'mxfp8', 'NVFP4' -> bf16, fp8, fp4; None for no text or one not known."""
    return _ALIASES.get(text.strip().lower()) if text and text.strip() else None


def speedup(accelerator_model: str | None, precision: str | None) -> float:
    """How much faster than BF16 `precision` trains on the accelerator (module docstring); 1.0 where not known."""
    table = SPEEDUP.get(GENERATION.get(accelerator_model or ""))
    if table is None or precision is None:
        return 1.0
    if precision not in table:  # Hopper has no FP4: at FP8
        precision = FP8
    return table[precision]
