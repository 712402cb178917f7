"""Score a whole MLPerf Training corpus (training_results_v0.7 ... v5.1 side by side) for the atlas.

mlperf_tree.score_trees is strict: a layout problem anywhere stops the main report, which reads a
few hand-picked trees. The atlas reads every published round, where layout problems are facts of
life, so here every problem is recorded against the entry it concerns ("cannot be scored: why")
and the rest is scored. Scoring itself is the same code: mlperf_logs.parse_result_file under the
round's rule (mlperf_rules), mlperf_tree.score_benchmark (required runs, olympic mean) and the
benchmark folder's scaling.json factor.

Quirks of the published trees, each handled here (see mlperf_quirks for the details):
- result files named with job ids (result_220520100725096152634_9.txt, result_run3.txt): every
  result_*.txt directly in the benchmark folder counts, as the official summarizer's glob;
- a benchmark folder misplaced inside another (Habana v1.0 results/<system>/resnet/bert/) or not
  named after its benchmark (a `benchmark/` folder, result files directly in the system folder):
  the benchmark is read from the logs' submission_benchmark line;
- a submitter split over several folders (Supermicro, smc, smc-ac-power ...; Azure and
  Azure+NVIDIA): the organisation comes from the systems JSON, the folder is kept as `folder`;
- CRLF logs (universal newlines) and latin-1 bytes;
- logs whose submission_org / submission_status are placeholders or wrong: organisation and
  status always come from the systems JSON, never from the logs;
- results without a systems JSON of the same name, or with a systems JSON that is not valid JSON:
  the times are still scored, the entry says why it cannot be priced.

Work is spread over processes one benchmark folder at a time; each returns a few small rows, so
memory does not grow with the number or the size of the logs.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest import mlperf_quirks as quirks
from pipelines.ingest.mlperf_logs import RunResult
from pipelines.ingest.mlperf_rounds_later import parse_result
from pipelines.ingest.mlperf_rules import RULES, BenchmarkRule, benchmark_rule
from pipelines.ingest.mlperf_tree import _scaling_factor, score_benchmark
from pipelines.ingest.systems_json import parse_system_json

SCORES_SCHEMA = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
    "runs": pl.Int64, "dropped_runs": pl.Int64, "time_to_train_minutes": pl.Float64,
    "reason": pl.Utf8, "scaling_factor": pl.Float64, "benchmark_model": pl.Utf8, "folder": pl.Utf8,
    "benchmark_path": pl.Utf8, "quirk": pl.Utf8,
}
RUNS_SCHEMA = {
    "round": pl.Utf8, "folder": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8, "run_file": pl.Utf8,
    "minutes": pl.Float64, "status": pl.Utf8, "reason": pl.Utf8,
}
SYSTEMS_SCHEMA = {
    "round": pl.Utf8, "folder": pl.Utf8, "system": pl.Utf8, "submitter": pl.Utf8, "system_name": pl.Utf8,
    "division": pl.Utf8, "status": pl.Utf8, "status_class": pl.Utf8, "number_of_nodes": pl.Int64,
    "accelerators_per_node": pl.Int64, "accelerators_total": pl.Int64, "accelerator_model_name": pl.Utf8,
    "accelerator_memory_capacity": pl.Utf8, "host_processor_model_name": pl.Utf8, "framework": pl.Utf8,
    "software": pl.Utf8, "problem": pl.Utf8, "file": pl.Utf8,
}

_ROUND_DIR = re.compile(r"^training_results_(v\d+\.\d+)$")


@dataclass(frozen=True)
class Task:
    """One benchmark folder to score (picklable: sent to a worker process)."""

    round: str
    folder: str
    system: str
    benchmark: str | None  # None: read it from the logs
    path: str
    base: str  # paths in run_file are relative to this
    quirk: str | None


def round_dirs(mlperf_dir: Path) -> list[tuple[Path, str | None]]:
    """(round folder, round or None when unknown) for training_results_vX.Y under mlperf_dir."""
    mlperf_dir = Path(mlperf_dir)
    if not mlperf_dir.is_dir():
        raise InputError(mlperf_dir, None, "MLPerf folder not found")
    candidates = [mlperf_dir] if _ROUND_DIR.match(mlperf_dir.name) else sorted(
        (p for p in mlperf_dir.iterdir() if p.is_dir() and _ROUND_DIR.match(p.name)), key=quirks.natural_key)
    if not candidates:
        raise InputError(mlperf_dir, None, "no training_results_vX.Y folder in it (clone the MLCommons "
                                           "training results repositories into one folder)")
    found = []
    for path in candidates:
        round_ = _ROUND_DIR.match(path.name).group(1)  # type: ignore[union-attr]
        found.append((path, round_ if round_ in RULES else None))
    return found


def _submitter_dirs(round_dir: Path) -> list[Path]:
    return [d for d in quirks.dirs(round_dir) if (d / "results").is_dir()]


def systems(round_dir: Path, round_: str) -> Iterator[dict]:
    """One row per systems JSON of the round; a file that cannot be read says why."""
    for submitter_dir in _submitter_dirs(round_dir):
        folder = submitter_dir / "systems"
        paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
        for path in paths:
            yield system_row(path, round_, submitter_dir.name)


def system_row(path: Path, round_: str, folder: str) -> dict:
    row = {name: None for name in SYSTEMS_SCHEMA} | {"round": round_, "folder": folder, "system": path.stem,
                                                     "file": str(path)}
    try:
        desc = parse_system_json(path)
    except InputError as error:
        row["problem"] = f"systems JSON unusable: {error.where + ': ' if error.where else ''}{error.problem}"
        row["submitter"] = folder
        return row
    for key in ("system_name", "division", "status", "number_of_nodes", "accelerators_per_node",
                "accelerators_total", "accelerator_model_name", "accelerator_memory_capacity",
                "host_processor_model_name", "framework", "software"):
        row[key] = desc[key]
    row["submitter"] = desc["submitter"] or folder
    row["status_class"] = quirks.status_class(desc["status"])
    return row


def tasks(round_dir: Path, round_: str) -> tuple[list[Task], list[dict]]:
    """Benchmark folders to score, and rows for entries that cannot be scored at all."""
    found: list[Task] = []
    unscorable: list[dict] = []
    base = str(round_dir.parent)
    for submitter_dir in _submitter_dirs(round_dir):
        for system_dir in quirks.dirs(submitter_dir / "results"):
            for path, benchmark, quirk in quirks.benchmark_folders(system_dir, round_):
                found.append(Task(round_, submitter_dir.name, system_dir.name, benchmark, str(path), base, quirk))
    return found, unscorable


def score_task(task: Task, parse: Callable[[Path, BenchmarkRule], RunResult] = parse_result) -> tuple[dict, list[dict]]:
    """Score one benchmark folder: (score row, run rows). Never raises for bad content."""
    path = Path(task.path)
    files = quirks.result_files(path)
    benchmark, problem = task.benchmark, None
    if benchmark is None:
        benchmark, problem = quirks.logged_benchmark(files, task.round)
    row = {"round": task.round, "submitter": None, "system": task.system, "benchmark": benchmark,
           "runs": len(files), "dropped_runs": None, "time_to_train_minutes": None, "reason": problem,
           "scaling_factor": None, "benchmark_model": None, "folder": task.folder,
           "benchmark_path": Path(task.path).relative_to(task.base).as_posix(), "quirk": task.quirk}
    if problem is not None:
        return row, []
    try:
        rule = benchmark_rule(task.round, benchmark, path)  # type: ignore[arg-type]
    except InputError as error:
        return row | {"reason": error.problem}, []
    row["benchmark"] = rule.benchmark
    row["benchmark_model"] = quirks.benchmark_model(task.round, rule.benchmark)
    runs: list[RunResult] = []
    for file in files:
        try:
            runs.append(parse(file, rule))
        except InputError as error:
            runs.append(RunResult(str(file), None, f"unreadable: {error.problem}"))
    run_rows = [{"round": task.round, "folder": task.folder, "system": task.system, "benchmark": rule.benchmark,
                 "run_file": Path(r.path).relative_to(task.base).as_posix(), "minutes": r.minutes,
                 "status": "scored" if r.scored else "dropped", "reason": r.reason} for r in runs]
    minutes, reason = score_benchmark(rule, runs)
    row["dropped_runs"] = sum(1 for r in runs if not r.scored)
    try:
        factor = _scaling_factor(path)
    except InputError as error:
        return row | {"reason": f"scaling.json unusable: {error.problem}"}, run_rows
    row["scaling_factor"] = factor
    if minutes is not None:
        row["time_to_train_minutes"] = minutes * factor
    row["reason"] = reason
    return row, run_rows


def _score_chunk(chunk: list[Task]) -> list[tuple[dict, list[dict]]]:
    return [score_task(task) for task in chunk]


def score_corpus(mlperf_dir: Path, workers: int | None = None, keep_runs: bool = True
                 ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(scores, runs, systems) for every round under mlperf_dir; unknown rounds are reported."""
    all_tasks: list[Task] = []
    score_rows: list[dict] = []
    system_rows: list[dict] = []
    for round_dir, round_ in round_dirs(mlperf_dir):
        if round_ is None:
            score_rows.append({name: None for name in SCORES_SCHEMA} | {
                "round": round_dir.name.removeprefix("training_results_"), "folder": round_dir.name,
                "reason": f"MLPerf Training round not supported (known: {', '.join(RULES)})"})
            continue
        found, unscorable = tasks(round_dir, round_)
        all_tasks += found
        score_rows += unscorable
        system_rows += list(systems(round_dir, round_))
    workers = workers or min(len(os.sched_getaffinity(0)), 8)
    results: list[tuple[dict, list[dict]]] = []
    if workers <= 1 or len(all_tasks) < 8:
        results = [score_task(task) for task in all_tasks]
    else:
        # Largest folders first, in small chunks, so both workers stay busy to the end.
        ordered = sorted(all_tasks, key=lambda t: -quirks.folder_bytes(Path(t.path)))
        chunks = [ordered[i:i + 4] for i in range(0, len(ordered), 4)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part in pool.map(_score_chunk, chunks):
                results += part
    run_rows: list[dict] = []
    for row, runs in results:
        score_rows.append(row)
        if keep_runs:
            run_rows += runs
    systems_frame = pl.DataFrame(system_rows, schema=SYSTEMS_SCHEMA, orient="row") if system_rows \
        else pl.DataFrame(schema=SYSTEMS_SCHEMA)
    scores = pl.DataFrame(score_rows, schema=SCORES_SCHEMA, orient="row") if score_rows \
        else pl.DataFrame(schema=SCORES_SCHEMA)
    scores = _attach_submitters(scores, systems_frame)
    runs_frame = pl.DataFrame(run_rows, schema=RUNS_SCHEMA, orient="row") if run_rows else pl.DataFrame(schema=RUNS_SCHEMA)
    order = ["round", "folder", "system", "benchmark", "benchmark_path"]
    return (scores.sort(order, nulls_last=True), runs_frame.sort("round", "folder", "system", "benchmark", "run_file"),
            systems_frame.sort("round", "folder", "system"))


def _attach_submitters(scores: pl.DataFrame, systems_frame: pl.DataFrame) -> pl.DataFrame:
    """The organisation from the systems JSON (logs carry placeholders); the folder name otherwise."""
    names = systems_frame.select("round", "folder", "system", pl.col("submitter").alias("json_submitter"))
    return (scores.join(names, on=["round", "folder", "system"], how="left")
            .with_columns(pl.coalesce("json_submitter", "folder").alias("submitter")).drop("json_submitter"))
