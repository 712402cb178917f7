"""What one MLPerf Training run of each benchmark trains: the model, the data set, the quality target and how
many runs make a score, so that a buyer can carry a benchmark's cost over to a training run of their own.

The quality target and the run count are read from the official rules (the mlperf-logging package's
compliance checker and result-file counts, domain/mlperf.py), newest round first; the model and data set
are the MLCommons Training benchmark table's (public facts, written here once).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.domain.mlperf import RULES, round_key

# benchmark -> (model, data set): MLCommons' Training benchmark suite table
TRAINS = {
    "resnet": ("ResNet-50 v1.5", "ImageNet (ILSVRC 2012)"),
    "bert": ("BERT-Large", "Wikipedia, 2020-01-01 dump"),
    "dlrm": ("DLRM", "Criteo 1TB Click Logs"),
    "dlrm_dcnv2": ("DLRM with DCNv2", "Criteo 4TB multi-hot"),
    "maskrcnn": ("Mask R-CNN", "COCO 2017"),
    "ssd": ("SSD (ResNet-34 to v1.1, RetinaNet from v2.0)", "COCO 2017 to v1.1, OpenImages from v2.0"),
    "retinanet": ("RetinaNet (ResNeXt-50)", "OpenImages (MLPerf subset)"),
    "rnnt": ("RNN-T", "LibriSpeech"),
    "unet3d": ("3D U-Net", "KiTS19"),
    "minigo": ("MiniGo", "self-play (Go, 19x19)"),
    "transformer": ("Transformer (big)", "WMT 2017 English-German"),
    "gnmt": ("GNMT", "WMT 2016 English-German"),
    "gpt3": ("GPT-3 175B (from a checkpoint)", "C4"),
    "llama2_70b_lora": ("Llama 2 70B, LoRA fine-tuning", "SCROLLS GovReport"),
    "stable_diffusion": ("Stable Diffusion v2", "LAION-400M-filtered, evaluated on COCO 2014"),
    "gnn": ("R-GAT", "IGBH-Full"),
    "rgat": ("R-GAT", "IGBH-Full"),
    "llama31_405b": ("Llama 3.1 405B (from a checkpoint)", "C4"),
    "llama31_8b": ("Llama 3.1 8B", "C4"),
    # v5.1 flux1 (MLCommons, "Flux.1 in MLPerf Training", 2025-10; mlcommons/training text_to_image/README.md) and
    # v6.0 (MLCommons, "MLPerf Training v6.0 results", 2026-06, and its GPT-OSS 20B article, 2026-05): two mixtures
    # of experts; DeepSeek-V3 at sequence 4,096, GPT-OSS 20B from random weights at 8,192 with Llama 3.1 8B's C4
    "deepseekv3_671b": ("DeepSeek-V3 671B, a mixture of experts (37B of 671B parameters active)", "C4"),
    "gpt_oss_20b": ("GPT-OSS 20B, a mixture of experts (3.6B of 21B parameters active), from random weights", "C4"),
    "flux1": ("FLUX.1-schnell (text to image, 11.9B parameters)", "CC12M (MLCommons' cleaned subset)"),
}

# what the checker's eval_accuracy key measures for each benchmark (the LLMs log a loss under that name)
METRIC = {"resnet": "top-1 accuracy", "bert": "masked-LM accuracy", "dlrm": "AUC", "dlrm_dcnv2": "AUC",
          "maskrcnn": "box mAP", "ssd": "mAP", "retinanet": "mAP", "rnnt": "word error rate", "unet3d": "mean DICE",
          "gpt3": "log perplexity", "llama2_70b_lora": "eval loss", "gnn": "accuracy", "rgat": "accuracy",
          "llama31_405b": "log perplexity", "llama31_8b": "log perplexity", "transformer": "BLEU", "gnmt": "BLEU",
          "deepseekv3_671b": "log perplexity", "gpt_oss_20b": "log perplexity", "flux1": "validation loss"}


def target_words(benchmark: str, checker_text: str) -> str:
    """The checker's expression as a target: its first bound on each metric (the rest are sanity bounds such as
    "< 1.0"), the logged key named for what it measures: "(eval_accuracy <= 0.925) and eval_accuracy > 0.0" ->
    "eval loss <= 0.925"."""
    kept, metrics = [], set()
    for clause in re.split(r"\s+and\s+", checker_text):
        clause = clause.strip().strip("()").strip()
        metric = re.findall(r"[A-Za-z_]+", clause)
        if metric and metric[0] not in metrics:
            metrics.add(metric[0])
            kept.append(clause)
    return " and ".join(kept).replace("eval_accuracy", METRIC.get(benchmark, "eval_accuracy"))


@dataclass(frozen=True)
class BenchmarkFacts:
    benchmark: str
    model: str
    dataset: str
    target: str  # "eval_accuracy <= 0.925" as the newest round's checker tests it; "" where no rule file has one
    runs: int | None  # the runs a score is made of (the olympic mean drops the fastest and slowest)
    rounds: tuple[str, ...]  # the rounds whose rules list it

    @property
    def one_run(self) -> str:
        """"Llama 2 70B, LoRA fine-tuning on SCROLLS GovReport until eval_accuracy <= 0.925"."""
        return f"{self.model} on {self.dataset}" + (f" until {self.target}" if self.target else "")


def benchmark_facts(benchmark: str) -> BenchmarkFacts:
    """The facts of a benchmark name (a workload's own name: its name, no rule)."""
    rounds = tuple(sorted((r for r, rules in RULES.items() if benchmark in rules), key=round_key))
    newest = RULES[rounds[-1]][benchmark] if rounds else None
    target = next((RULES[r][benchmark].target for r in reversed(rounds) if RULES[r][benchmark].target), None)
    model, dataset = TRAINS.get(benchmark, (benchmark, "not stated"))
    return BenchmarkFacts(benchmark, model, dataset, target_words(benchmark, target.describe()) if target else "",
                          newest.runs_required if newest else None, rounds)
