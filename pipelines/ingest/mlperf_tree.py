"""Walk MLPerf Training result trees in the official layout and score every benchmark.

Layout (as MLCommons publishes it and the official result summarizer reads it)::

    training_results_v1.0/<Submitter>/systems/<system>.json
    training_results_v1.0/<Submitter>/results/<system>/<benchmark>/result_<N>.txt

A root may be a round folder (its children that hold ``results/`` are submitters) or one submitter
folder. The round comes from the explicit argument, else from the folder name
(``training_results_v1.0`` -> ``v1.0``). Only ``result_*.txt`` directly inside a benchmark folder
count; other files and nested folders (power/, logs copied twice, READMEs) are ignored, as the
official summarizer's ``glob("<benchmark>/result_*.txt")`` ignores them.

Score (MLPerf Training rules, as mlperf-logging's result summarizer computes it): sort the scored
runs' times; with k = allowed failures (1; 4 for unet3d) and f failed runs (f <= k), drop the k
fastest and the k - f slowest (each failed run counts as one of the dropped slowest) and average
the rest. More failures than allowed, or fewer result files than the round requires, leave the
benchmark without a score, with the reason. (The official summarizer does not check the file
count; the rules do, so we do.) A ``scaling.json`` in the benchmark folder (a review-committee
decision published with some results) multiplies the score by its ``scaling_factor``, as the
official summarizer does. Beware: the official tool itself writes scaling.json into the folder it
scores, so never point it at the raw tree this module reads.

Files are parsed one at a time and only one small row per file is kept: memory does not grow with
the size of the logs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.mlperf_logs import RunResult, parse_result_file
from pipelines.ingest.mlperf_rules import BenchmarkRule, benchmark_rule, normalize_round

RUNS_SCHEMA = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
    "run_file": pl.Utf8, "minutes": pl.Float64, "status": pl.Utf8, "reason": pl.Utf8,
    "samples_per_second": pl.Float64,
}
SCORES_SCHEMA = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
    "runs": pl.Int64, "dropped_runs": pl.Int64, "time_to_train_minutes": pl.Float64,
    "reason": pl.Utf8, "samples_per_second": pl.Float64,
}

_RESULT_FILE = re.compile(r"^result_.*\.txt$")
_ROUND_FOLDER = re.compile(r"^training_results_(v\d+\.\d+)$")


def olympic_mean(times: list[float], failures: int, max_failures: int) -> float | None:
    """Mean after dropping the ``max_failures`` fastest and ``max_failures - failures`` slowest.

    None when more runs failed than allowed or nothing is left to average.
    """
    if failures > max_failures:
        return None
    ordered = sorted(times)
    kept = ordered[max_failures: len(ordered) - (max_failures - failures)]
    return sum(kept) / len(kept) if kept else None


def score_benchmark(rule: BenchmarkRule, runs: list[RunResult]) -> tuple[float | None, str | None]:
    """(olympic-mean minutes, None) or (None, why the benchmark has no score)."""
    if len(runs) < rule.runs_required:
        return None, (f"{len(runs)} result files; {rule.benchmark} in {rule.round} "
                      f"requires {rule.runs_required}")
    failures = sum(1 for run in runs if not run.scored)
    if failures > rule.max_failures:
        return None, f"{failures} runs dropped; at most {rule.max_failures} allowed"
    times = [run.minutes for run in runs if run.scored]
    mean = olympic_mean(times, failures, rule.max_failures)  # type: ignore[arg-type]
    if mean is None:
        return None, "no run left after olympic scoring"
    return mean, None


def _natural_key(path: Path) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name))


def _dirs(folder: Path) -> list[Path]:
    return sorted((p for p in folder.iterdir() if p.is_dir()), key=_natural_key)


def _result_files(benchmark_dir: Path) -> list[Path]:
    files = (p for p in benchmark_dir.iterdir() if _RESULT_FILE.match(p.name) and p.is_file())
    return sorted(files, key=_natural_key)


def _scaling_factor(benchmark_dir: Path) -> float:
    path = benchmark_dir / "scaling.json"
    if not path.is_file():
        return 1.0
    try:
        factor = json.loads(path.read_text(encoding="utf-8")).get("scaling_factor")
    except (ValueError, AttributeError, OSError, RecursionError):
        factor = None
    try:
        valid = not isinstance(factor, bool) and isinstance(factor, (int, float)) and 0 < float(factor) < math.inf
    except OverflowError:
        valid = False
    if not valid:
        raise InputError(path, "$.scaling_factor", "expected a positive number")
    return float(factor)


def _round_of(root: Path, explicit: str | None) -> str:
    if explicit is not None:
        return normalize_round(explicit, root)
    for folder in (root, root.parent):
        match = _ROUND_FOLDER.match(folder.name)
        if match:
            return normalize_round(match.group(1), root)
    raise InputError(root, None, "cannot tell the MLPerf round: name the folder "
                                 "training_results_vX.Y or pass round explicitly")


def _submitters(root: Path) -> list[Path]:
    if (root / "results").is_dir():
        return [root]
    return [d for d in _dirs(root) if (d / "results").is_dir()]


def _walk(root: Path, round_: str) -> Iterator[tuple[dict, dict]]:
    """Yield (run rows, score row) per benchmark folder, one folder at a time."""
    base = root.parent
    for submitter_dir in _submitters(root):
        for system_dir in _dirs(submitter_dir / "results"):
            systems_json = submitter_dir / "systems" / f"{system_dir.name}.json"
            if not systems_json.is_file():
                raise InputError(system_dir, None, f"no systems JSON for this system (expected {systems_json})")
            for benchmark_dir in _dirs(system_dir):
                rule = benchmark_rule(round_, benchmark_dir.name, benchmark_dir)
                key = {"round": round_, "submitter": submitter_dir.name,
                       "system": system_dir.name, "benchmark": rule.benchmark}
                runs = [parse_result_file(f, rule) for f in _result_files(benchmark_dir)]
                run_rows = [
                    {**key, "run_file": Path(r.path).relative_to(base).as_posix(), "minutes": r.minutes,
                     "status": "scored" if r.scored else "dropped", "reason": r.reason,
                     "samples_per_second": r.samples_per_second}
                    for r in runs
                ]
                minutes, reason = score_benchmark(rule, runs)
                if minutes is not None:
                    minutes *= _scaling_factor(benchmark_dir)
                rates = [r.samples_per_second for r in runs if r.scored and r.samples_per_second is not None]
                yield run_rows, {
                    **key, "runs": len(runs), "dropped_runs": sum(1 for r in runs if not r.scored),
                    "time_to_train_minutes": minutes, "reason": reason,
                    "samples_per_second": sum(rates) / len(rates) if rates else None,
                }


def score_trees(roots: list[Path], round: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Score every benchmark of every system under ``roots``: (runs frame, scores frame).

    Bad layout (missing folder, results without a systems JSON, unknown round or benchmark) ->
    InputError. A benchmark that cannot be scored keeps a row with a null time and the reason.
    """
    runs: dict[str, list] = {name: [] for name in RUNS_SCHEMA}
    scores: dict[str, list] = {name: [] for name in SCORES_SCHEMA}
    for root in map(Path, roots):
        if not root.is_dir():
            raise InputError(root, None, "MLPerf results folder not found")
        round_ = _round_of(root, round)
        for run_rows, score_row in _walk(root, round_):
            for row in run_rows:
                for name in RUNS_SCHEMA:
                    runs[name].append(row[name])
            for name in SCORES_SCHEMA:
                scores[name].append(score_row[name])
    return pl.DataFrame(runs, schema=RUNS_SCHEMA), pl.DataFrame(scores, schema=SCORES_SCHEMA)
