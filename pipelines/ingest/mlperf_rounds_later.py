"""Scoring rules of the later rounds that mlperf_logs does not check itself.

mlperf_rules lists every round from v0.7 to v5.1 (benchmarks, required runs, targets); checked
against the official result summarizer of mlperf-logging 4.1.68 on published v2.0 ... v5.1
submitter folders, our scores agree to 1e-6 minutes, scaling.json included (see
tests/test_atlas_official.py). The one rule left open there is Stable Diffusion (v3.1 on), whose
quality target is on two metrics logged on separate lines: mlperf_rules gives it ``target=None``
and mlperf_logs drops such runs with "not checked by this parser". This module checks it.

Stable Diffusion target (compliance_checker/training_<round>/closed_stable_diffusion.yaml): the
``eval_accuracy`` lines carrying ``metadata.metric`` ("FID" or "CLIP") are grouped by evaluation,
``metadata.step_num`` in v3.1 and ``metadata.samples_count`` from v4.0 on; a run reaches the
target when one evaluation has 0 <= FID <= 90 and 0.15 <= CLIP <= 1.0. The evaluations may be
logged after run_stop (computed offline): only run_start and run_stop set the time.
"""

from __future__ import annotations

import json
from pathlib import Path

from pipelines.ingest.mlperf_logs import TOKEN, RunResult, parse_result_file
from pipelines.ingest.mlperf_rules import BenchmarkRule, round_key

FID_MAX = 90.0
CLIP_MIN, CLIP_MAX = 0.15, 1.0


def evaluation_key(round_: str) -> str:
    """The metadata field that groups one evaluation's FID and CLIP lines."""
    return "step_num" if round_key(round_) < (4, 0) else "samples_count"


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def stable_diffusion_reached(path: Path, round_: str) -> bool:
    """True when one evaluation in the log has FID <= 90 and CLIP >= 0.15 (see module docstring)."""
    group_by = evaluation_key(round_)
    evaluations: dict[object, dict[str, float]] = {}
    with open(path, encoding="latin-1") as lines:
        for line in lines:
            if '"eval_accuracy"' not in line or TOKEN not in line:
                continue
            try:
                record = json.loads(line[line.rfind(TOKEN) + len(TOKEN):])
            except (ValueError, RecursionError):
                continue
            if not isinstance(record, dict) or record.get("key") != "eval_accuracy":
                continue
            metadata = record.get("metadata")
            if not isinstance(metadata, dict) or "metric" not in metadata:
                continue
            value = _number(record.get("value"))
            if value is not None:
                group = json.dumps(metadata.get(group_by), sort_keys=True)
                evaluations.setdefault(group, {})[str(metadata["metric"])] = value
    return any(
        "FID" in e and "CLIP" in e and 0.0 <= e["FID"] <= FID_MAX and CLIP_MIN <= e["CLIP"] <= CLIP_MAX
        for e in evaluations.values()
    )


def _unchecked_reason(rule: BenchmarkRule) -> str:
    # the reason mlperf_logs gives when everything but the (unmodelled) target passed
    return f"quality target of {rule.benchmark} {rule.round} is not checked by this parser"


TARGET_CHECKS = {"stable_diffusion": stable_diffusion_reached}


def parse_result(path: Path, rule: BenchmarkRule) -> RunResult:
    """mlperf_logs.parse_result_file, plus the target checks mlperf_rules leaves open."""
    result = parse_result_file(path, rule)
    check = TARGET_CHECKS.get(rule.benchmark)
    if check is None or rule.target is not None or result.reason != _unchecked_reason(rule):
        return result
    if check(path, rule.round):
        return RunResult(result.path, result.minutes, None)
    return RunResult(result.path, result.minutes,
                     f"quality target not reached (needs one evaluation with FID <= {FID_MAX:g} and CLIP >= {CLIP_MIN:g})")
