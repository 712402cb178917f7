"""MLPerf Training scoring rules per round, read from the official mlperf-logging package.

Why from the package and not by hand: the rules change from round to round (BERT's target moved
from 0.712 to 0.720 in v1.0, SSD became RetinaNet-based in v2.0, benchmarks come and go), and the
official result summarizer applies the package's data; copying it by hand drifts.

Read at run time from mlperf-logging (4.1.68):
- the rounds: those whose compliance rules the package ships (``training_<X.Y.0>/``), from v0.7
  (v0.6 logs are in another format);
- the benchmarks of each round (``benchmark_meta.get_allowed_benchmarks``) and the result files
  each benchmark needs under the written rules (``get_result_file_counts``);
- the quality targets: the ``ATLEAST_ONE_CHECK`` of the closed-division rules of the benchmark
  (domain.rule_files; ``target.describe()`` gives it as text).
Written in the summarizer's code, so here: at most 1 failed run, 4 for unet3d, which is also how
many times are dropped from each end of the sorted times; the folder alias ``mask`` = maskrcnn.

And the names: every benchmark of every round, the model behind a benchmark name in a round
(``benchmark_model``, ``MODEL_NAMES``) and the name a result counts for in the report
(``report_benchmark``). Rounds themselves are parsed in domain.rounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import polars as pl
from mlperf_logging.benchmark_meta import get_allowed_benchmarks, get_result_file_counts

from pipelines.domain.errors import InputError
from pipelines.domain.rounds import round_key, round_name
from pipelines.domain.rule_files import RULES_PACKAGE, quality_target

# How the parser derives samples trained (see ingest/mlperf/logs.py for the exact method):
EPOCHS = "epochs"  # train_samples (the dataset size) x epoch_num of the eval that reached the target
LOGGED = "logged_samples"  # train_samples logged after run_start (samples actually trained)
LOGGED_OR_EVAL = "logged_samples_or_eval_epoch"  # as LOGGED, else eval epoch_num (counts samples)
_SAMPLES_BASIS = {"resnet": EPOCHS, "bert": LOGGED_OR_EVAL, "dlrm": LOGGED}

_FIRST_ROUND = (0, 7)
_RULESET_FOLDER = re.compile(r"^training_(\d+)\.(\d+)\.0$")


@dataclass(frozen=True)
class Target:
    """A quality target as the official checker tests it: an expression on one logged key."""

    key: str
    expression: str

    def describe(self) -> str:
        """The checker's expression, readable: v['value']['FID'] -> FID, v['value'] -> the key,
        s['global_batch_size'] (a value logged earlier) -> global_batch_size."""
        text = re.sub(r"[vs]\['value'\]\['(\w+)'\]|s\['(\w+)'\]", lambda m: m.group(1) or m.group(2),
                      self.expression.strip())
        return text.replace("v['value']", self.key.removeprefix("aggregated_"))


@dataclass(frozen=True)
class BenchmarkRule:
    round: str
    benchmark: str
    runs_required: int
    max_failures: int  # failed runs allowed; also how many times are dropped at each end
    samples_basis: str | None = None

    @property
    def ruleset(self) -> str:
        """'v1.0' -> '1.0.0', the ruleset name of the official tools."""
        return self.round[1:] + ".0"

    @property
    def target(self) -> Target | None:
        found = quality_target(self.ruleset, self.benchmark)
        return Target(*found) if found else None


def _rounds() -> list[str]:
    found = []
    for entry in resources.files(RULES_PACKAGE).iterdir():
        match = _RULESET_FOLDER.match(entry.name)
        if match and (int(match.group(1)), int(match.group(2))) >= _FIRST_ROUND:
            found.append((int(match.group(1)), int(match.group(2))))
    return [f"v{major}.{minor}" for major, minor in sorted(found)]


def _samples_basis(round_: str, benchmark: str) -> str | None:
    # In v0.7 BERT's eval epoch_num counted eval blocks, not samples (Google's logs show 6, 7).
    if benchmark == "bert" and round_ == "v0.7":
        return LOGGED
    return _SAMPLES_BASIS.get(benchmark)


def _build() -> dict[str, dict[str, BenchmarkRule]]:
    counts = get_result_file_counts("training")
    rules: dict[str, dict[str, BenchmarkRule]] = {}
    for round_ in _rounds():
        benchmarks = dict.fromkeys(get_allowed_benchmarks("training", round_[1:] + ".0"))  # v4.0 lists one twice
        rules[round_] = {
            b: BenchmarkRule(round_, b, runs_required=counts[b], max_failures=4 if b == "unet3d" else 1,
                             samples_basis=_samples_basis(round_, b))
            for b in benchmarks
        }
    return rules


RULES: dict[str, dict[str, BenchmarkRule]] = _build()

# Every benchmark name of every round: the names a report, a mapping or a throughput row may use.
MLPERF_BENCHMARKS: tuple[str, ...] = tuple(sorted({b for rules in RULES.values() for b in rules}))

# closed first wherever divisions are listed
DIVISION_ORDER = pl.col("division").replace_strict({"closed": 0, "open": 1}, default=2, return_dtype=pl.Int8)

# Folder names the official summarizer maps to benchmark names.
BENCHMARK_ALIASES = {"mask": "maskrcnn"}


def normalize_round(text: str, path: str | Path | None = None) -> str:
    """'v1.0', '1.0', '1.0.0' or 'training_results_v1.0' -> 'v1.0'; unknown -> InputError."""
    round_ = round_name(text)
    if round_ not in RULES:
        known = ", ".join(RULES)
        raise InputError(path or text, None, f"unknown MLPerf Training round {text!r} (known: {known})")
    return round_


def official_ruleset(round_: str) -> str:
    """'v1.0' -> '1.0.0', the ruleset argument of the official result summarizer."""
    return normalize_round(round_)[1:] + ".0"


def benchmark_name(folder_name: str, round_: str) -> str | None:
    """The benchmark a folder name stands for in a round (the summarizer's aliases), or None."""
    name = BENCHMARK_ALIASES.get(folder_name, folder_name)
    return name if name in RULES[round_] else None


def benchmark_rule(round_: str, benchmark: str, path: str | Path | None = None) -> BenchmarkRule:
    """The rule for one benchmark of one round; a benchmark the round lacks -> InputError."""
    rules = RULES[normalize_round(round_, path)]
    name = BENCHMARK_ALIASES.get(benchmark, benchmark)
    if name not in rules:
        raise InputError(
            path or benchmark, None,
            f"benchmark {benchmark!r} is not part of MLPerf Training {normalize_round(round_)} "
            f"(it has: {', '.join(rules)})",
        )
    return rules[name]


# Benchmarks whose samples_to_converge the tool reports in samples already, and the first round it does.
_SAMPLES_SINCE = {"bert": "v1.0", "stable_diffusion": "v4.0", "llama2_70b_lora": "v4.0", "llama31_405b": "v5.0",
                  "llama31_8b": "v5.1", "flux1": "v5.1", "deepseekv3_671b": "v6.0", "gpt_oss_20b": "v6.0"}
# GPT-3 logs its samples_count in TOKENS (checked for every bundled result: 1,207,959,552 = 288 steps x GBS 2048 x
# 2,048 tokens; 1,308,622,848 = 208 x 3,072 x 2,048; 1,231,110,144 = 207 x 2,904 x 2,048: a whole number of
# steps only when divided by the sequence length too; and NVIDIA's v3.1 Eos log states step 1,211,105,280 at
# 5.15 M tokens/s over 235 s). The other LLM benchmarks log sequences (llama31_405b 276,480 = 240 x GBS 1,152;
# v6.0 deepseekv3_671b 737,280 = 45 x GBS 16,384, gpt_oss_20b 294,912 = 4,608 x GBS 64).
# benchmark -> (first round, tokens per training sample): samples = value / tokens per sample.
_TOKENS_SINCE = {"gpt3": ("v3.0", 2048)}
# Benchmarks logged in epochs: training samples per epoch, and the rounds whose model and data it is.
# RetinaNet: the MLPerf OpenImages subset, 1,170,301 training images (mlcommons/training
# single_stage_detector/README.md); R-GAT: IGBH-full's training split, 94,605,581 nodes, and DLRM-DCNv2:
# Criteo 1TB multi-hot, 4,195,197,692 samples (the train_samples of the v5.0 NVIDIA logs of both);
# ResNet-50: ImageNet-1k, 1,281,167 images.
_EPOCH_SAMPLES = {
    "retinanet": ("v5.0", 1_170_301), "ssd": ("v2.0", 1_170_301), "rgat": ("v5.0", 94_605_581),
    "gnn": ("v4.0", 94_605_581), "dlrm_dcnv2": ("v3.0", 4_195_197_692), "resnet": ("v0.7", 1_281_167),
}


def training_samples(round_: str, benchmark: str, value: float | None, global_batch_size: int | None) -> float | None:
    """The official summarizer's samples_to_converge (samples or epochs, by benchmark and round) as
    training samples: epochs times the training-set size, GPT-3's tokens over its 2,048-token sequences;
    None where the unit is not known (U-Net3D, Stable Diffusion v3.1 which logged steps, SSD-ResNet34, ...). A figure in samples below
    one global batch is not samples: NVIDIA's v1.0-v1.1 BERT logs give epoch_num 1 at every eval, and
    the tool prints 1.0."""
    if value is None:
        return None
    if benchmark in _SAMPLES_SINCE:
        if global_batch_size is not None and value < global_batch_size:
            return None
        return value if round_key(round_) >= round_key(_SAMPLES_SINCE[benchmark]) else None
    if benchmark in _TOKENS_SINCE:
        since, tokens_per_sample = _TOKENS_SINCE[benchmark]
        return value / tokens_per_sample if round_key(round_) >= round_key(since) else None
    if benchmark in _EPOCH_SAMPLES:
        since, per_epoch = _EPOCH_SAMPLES[benchmark]
        return value * per_epoch if round_key(round_) >= round_key(since) else None
    return None


# (benchmark, first round it applies to) -> model key; the newest matching entry wins.
_MODEL_BY_ROUND = {
    "ssd": [("v0.7", "ssd-resnet34"), ("v2.0", "retinanet")],
}
MODEL_NAMES = {
    "resnet": "ResNet-50 (ImageNet)", "bert": "BERT-Large (Wikipedia)", "dlrm": "DLRM (Criteo 1TB)",
    "dlrm-dcnv2": "DLRM-DCNv2 (Criteo 4TB multi-hot)", "maskrcnn": "Mask R-CNN (COCO)",
    "minigo": "MiniGo", "ssd-resnet34": "SSD-ResNet34 (COCO)", "retinanet": "RetinaNet (OpenImages)",
    "rnnt": "RNN-T (LibriSpeech)", "unet3d": "3D U-Net (KiTS19)", "gnmt": "GNMT", "transformer": "Transformer",
    "gpt3": "GPT-3 175B", "stable-diffusion": "Stable Diffusion", "llama2-70b-lora": "Llama 2 70B LoRA",
    "gnn": "GNN (R-GAT, v4.x)", "rgat": "R-GAT (IGBH)", "llama31-405b": "Llama 3.1 405B",
    "llama31-8b": "Llama 3.1 8B", "flux1": "FLUX.1", "deepseekv3-671b": "DeepSeek-V3 671B (mixture of experts)",
    "gpt-oss-20b": "GPT-OSS 20B (mixture of experts)",
}


def benchmark_model(round_: str, benchmark: str) -> str:
    """The model behind a benchmark name in a round: only equal keys are comparable."""
    key = benchmark.replace("_", "-")
    for since, model in _MODEL_BY_ROUND.get(benchmark, []):
        if round_key(round_) >= round_key(since):
            key = model
    return key


# The report's benchmark names: a result counts for the current name of the same model under the
# same rules. (old name, first round, last round) -> the name v5.0 gave it.
_REPORT_RENAMES = {
    "ssd": ("v2.0", "v4.1", "retinanet"),  # RetinaNet from v2.0; before v2.0 ssd is SSD-ResNet34: kept
    "gnn": ("v4.0", "v4.1", "rgat"),       # R-GAT on IGBH, renamed rgat in v5.0
}


def report_benchmark(round_: str | None, benchmark: str) -> str:
    """The benchmark a result counts for in the report: v2.0-v4.1 ``ssd`` is ``retinanet`` and
    v4.0-v4.1 ``gnn`` is ``rgat`` (the names v5.0 gave the same models); any other name, a round
    outside those ranges or an unknown round keeps its name. The atlas keeps the rounds' own names
    (``benchmark_model``)."""
    rename = _REPORT_RENAMES.get(benchmark)
    if rename is None or round_ is None:
        return benchmark
    first, last, new = rename
    try:
        key = round_key(round_)
    except ValueError:
        return benchmark
    return new if round_key(first) <= key <= round_key(last) else benchmark

