"""MLPerf Training scoring rules per round, as data.

Why data and not code: the rules change from round to round (BERT's target moved from 0.712 to
0.720 in v1.0, SSD became RetinaNet-based with target 0.340 in v2.0, benchmarks come and go), and a
reader checking the report's methodology should find every number in one table.

Sources (facts only, read from mlperf-logging 4.1.68): the benchmarks of each round
(`benchmark_meta._ALL_ALLOWED_BENCHMARKS`), the result files each benchmark needs
(`benchmark_meta._ALL_RESULT_FILE_COUNTS`), the quality targets (`eval_accuracy`
`ATLEAST_ONE_CHECK` in `compliance_checker/training_<round>/closed_<benchmark>.yaml`), and the
olympic-scoring allowance (`result_summarizer`: at most 1 failed run, 4 for unet3d; the same number
is dropped from each end of the sorted times).

Benchmarks whose target the result summarizer checks with state we do not model (stable_diffusion:
FID and CLIP logged on separate lines) are listed with ``target=None``: their runs are dropped with
that reason instead of being scored wrongly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipelines.errors import InputError


@dataclass(frozen=True)
class Target:
    """The quality a run must reach, as the official compliance checker tests it.

    higher_is_better: accuracy-like metrics need ``threshold <= value < ceiling``; loss-like
    metrics (WER, perplexity) need ``0 < value <= threshold``. ``components`` replaces the single
    value for metrics logged as a dict (Mask R-CNN logs {"BBOX": .., "SEGM": ..}); ``large_batch``
    is (min global batch size, threshold) where a round allows a lower target for huge batches.
    """

    threshold: float
    higher_is_better: bool = True
    ceiling: float | None = 1.0
    components: tuple[tuple[str, float], ...] = ()
    large_batch: tuple[int, float] | None = None

    def threshold_for(self, global_batch_size: float | None) -> float:
        if self.large_batch and global_batch_size is not None and global_batch_size >= self.large_batch[0]:
            return self.large_batch[1]
        return self.threshold

    def reached(self, value: object, global_batch_size: float | None = None) -> bool:
        """True when one logged eval_accuracy value meets the target; never raises."""
        if self.components:
            if not isinstance(value, dict):
                return False
            return all(_above(value.get(name), low, self.ceiling) for name, low in self.components)
        if self.higher_is_better:
            return _above(value, self.threshold_for(global_batch_size), self.ceiling)
        return _is_number(value) and 0.0 < value <= self.threshold  # type: ignore[operator]

    def describe(self) -> str:
        if self.components:
            return " and ".join(f"{name} >= {low}" for name, low in self.components)
        sign = ">=" if self.higher_is_better else "<="
        return f"eval_accuracy {sign} {self.threshold}"


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _above(value: object, low: float, ceiling: float | None) -> bool:
    return _is_number(value) and value >= low and (ceiling is None or value < ceiling)  # type: ignore[operator]


# How the parser derives samples trained (see mlperf_logs for the exact method):
EPOCHS = "epochs"  # train_samples (the dataset size) x epoch_num of the eval that reached the target
LOGGED = "logged_samples"  # train_samples logged after run_start (samples actually trained)
LOGGED_OR_EVAL = "logged_samples_or_eval_epoch"  # as LOGGED, else eval epoch_num (counts samples)


@dataclass(frozen=True)
class BenchmarkRule:
    round: str
    benchmark: str
    target: Target | None
    runs_required: int
    max_failures: int  # failed runs allowed; also how many times are dropped at each end
    samples_basis: str | None = None


_RUNS = {
    "bert": 10, "dlrm": 5, "dlrm_dcnv2": 10, "gnmt": 10, "gpt3": 3, "maskrcnn": 5, "minigo": 10,
    "resnet": 5, "ssd": 5, "retinanet": 5, "stable_diffusion": 10, "transformer": 10, "ncf": 10,
    "rnnt": 10, "unet3d": 40, "gnn": 10, "rgat": 10, "llama2_70b_lora": 10, "llama31_405b": 3,
    "llama31_8b": 10, "flux1": 10,
}

_MASKRCNN = Target(0.377, components=(("BBOX", 0.377), ("SEGM", 0.339)))
_BASE = {  # v1.0 targets; later rounds override what changed
    "bert": Target(0.720),
    "dlrm": Target(0.8025),
    "maskrcnn": _MASKRCNN,
    "minigo": Target(0.5),
    "resnet": Target(0.759),
    "ssd": Target(0.230),
    "rnnt": Target(0.058, higher_is_better=False),
    "unet3d": Target(0.908, ceiling=None),
    "dlrm_dcnv2": Target(0.80275, ceiling=None),
    "gpt3": Target(2.69, higher_is_better=False),
    "stable_diffusion": None,
    "llama2_70b_lora": Target(0.925, higher_is_better=False),
    "gnn": Target(0.72),
    "retinanet": Target(0.340),
    "rgat": Target(0.72),
    "llama31_405b": Target(5.6, higher_is_better=False),
    "llama31_8b": Target(3.3, higher_is_better=False),
    "flux1": Target(0.586, higher_is_better=False),
}
_V07 = {
    "bert": Target(0.712, large_batch=(8192, 0.706)),
    "gnmt": Target(0.240),
    "transformer": Target(0.250),
}
_SSD_V2 = {"ssd": Target(0.340)}

_ROUND_BENCHMARKS: dict[str, tuple[tuple[str, ...], dict[str, Target | None]]] = {
    "v0.7": (("bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"), _V07),
    "v1.0": (("bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"), {}),
    "v1.1": (("bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"), {}),
    "v2.0": (("bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"), _SSD_V2),
    "v2.1": (("bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"), _SSD_V2),
    "v3.0": (("bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "ssd", "rnnt", "unet3d"), _SSD_V2),
    "v3.1": (("bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "ssd", "rnnt", "unet3d",
              "stable_diffusion"), _SSD_V2),
    "v4.0": (("bert", "dlrm_dcnv2", "gpt3", "resnet", "ssd", "unet3d", "stable_diffusion",
              "llama2_70b_lora", "gnn"), _SSD_V2),
    "v4.1": (("bert", "dlrm_dcnv2", "gpt3", "ssd", "stable_diffusion", "llama2_70b_lora", "gnn"),
             _SSD_V2),
    "v5.0": (("bert", "dlrm_dcnv2", "retinanet", "stable_diffusion", "llama2_70b_lora", "rgat",
              "llama31_405b"), {}),
    "v5.1": (("llama31_8b", "dlrm_dcnv2", "retinanet", "flux1", "llama2_70b_lora", "rgat",
              "llama31_405b"), {}),
}

_SAMPLES_BASIS = {"resnet": EPOCHS, "bert": LOGGED_OR_EVAL, "dlrm": LOGGED}


def _samples_basis(round_: str, benchmark: str) -> str | None:
    basis = _SAMPLES_BASIS.get(benchmark)
    # In v0.7 BERT's eval epoch_num counted eval blocks, not samples (Google's logs show 6, 7).
    if benchmark == "bert" and round_ == "v0.7":
        return LOGGED
    return basis


def _build() -> dict[str, dict[str, BenchmarkRule]]:
    rules: dict[str, dict[str, BenchmarkRule]] = {}
    for round_, (benchmarks, overrides) in _ROUND_BENCHMARKS.items():
        rules[round_] = {
            b: BenchmarkRule(
                round=round_,
                benchmark=b,
                target=overrides.get(b, _BASE.get(b)),
                runs_required=_RUNS[b],
                max_failures=4 if b == "unet3d" else 1,
                samples_basis=_samples_basis(round_, b),
            )
            for b in benchmarks
        }
    return rules


RULES: dict[str, dict[str, BenchmarkRule]] = _build()

# Folder names the official summarizer maps to benchmark names.
BENCHMARK_ALIASES = {"mask": "maskrcnn"}

_ROUND_RE = re.compile(r"^(?:training_results_)?v?(\d+)\.(\d+)(?:\.0)?$")


def normalize_round(text: str, path: str | Path | None = None) -> str:
    """'v1.0', '1.0', '1.0.0' or 'training_results_v1.0' -> 'v1.0'; unknown -> InputError."""
    match = _ROUND_RE.match(str(text).strip())
    round_ = f"v{match.group(1)}.{match.group(2)}" if match else None
    if round_ not in RULES:
        known = ", ".join(RULES)
        raise InputError(path or text, None, f"unknown MLPerf Training round {text!r} (known: {known})")
    return round_


def round_key(round_: str) -> tuple[int, int]:
    """'v4.1' -> (4, 1): the one sort key of MLPerf rounds (v0.7 < v1.0 < ... < v5.1, v10.0 after v9.0)."""
    match = _ROUND_RE.match(str(round_).strip())
    if match is None:
        raise ValueError(f"not an MLPerf round: {round_!r}")
    return int(match.group(1)), int(match.group(2))


def round_order(round_: pl.Expr) -> pl.Expr:
    """round_key as a polars expression: an integer that sorts rounds in order (major x 1000 + minor)."""
    parts = round_.str.extract_groups(r"^(?:training_results_)?v?(\d+)\.(\d+)")
    return parts.struct.field("1").cast(pl.Int64) * 1000 + parts.struct.field("2").cast(pl.Int64)


def official_ruleset(round_: str) -> str:
    """'v1.0' -> '1.0.0', the ruleset argument of the official result summarizer."""
    return normalize_round(round_)[1:] + ".0"


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
