"""Walk MLPerf Training result trees and score every benchmark folder as MLCommons scores it.

One walker for both readers, in two modes:
- strict (``score_trees``, the main report's hand-picked trees): the layout must be the official
  one; a results folder without its systems JSON, a folder that is not a benchmark of the round,
  an unusable scaling.json or an unreadable log stop the run with an InputError naming the path;
- lenient (``mlperf.corpus.score_corpus``, the atlas's whole published corpus): every problem is
  kept as the reason of the entry it concerns, and the layout quirks of the published trees
  (mlperf.quirks) are recorded as entries that say why the official summarizer does not score them.

Layout (as MLCommons publishes it and the official result summarizer reads it)::

    training_results_v1.0/<Submitter>/systems/<system>.json
    training_results_v1.0/<Submitter>/results/<system>/<benchmark>/result_<N>.txt

A root is a round folder (its children that hold ``results/`` are submitters) or one submitter
folder. The round comes from the explicit argument, else from the folder name.

Scores are those of the official result summarizer, mlperf-logging 4.1.68 (mlperf.summarizer for
olympic scoring and systems, mlperf.logs and mlperf.compliance for each run), with
``rule_deviation`` where that score departs from the written rules and ``official_crash`` where
the official tool raises instead of answering (mlperf.corpus says which other entries of the same
submitter folder that takes down). ``score_basis`` says where a score comes from: ``official``,
the tool's own answer; ``rules``, where the tool stops on a field of its table that its scoring
never reads (a systems JSON without ``number_of_nodes`` or ``division``): the runs are scored by
the written rules with the same functions (the checker's verdicts, the olympic mean, scaling.json),
as the tool's scoring function scores them, and ``official_crash`` keeps why the tool stops.

Division: ``closed`` or ``open`` from the systems JSON's ``division`` (the summarizer prints that
field; v0.7 and v1.0 files spell it ``close``: closed, though the tool's GBS and samples to
converge need ``closed`` to the letter). A systems JSON without one takes it from the system's
name where that states it (mlperf.gaps: ``modelarts_512_tensorflow_close``); ``division_source``
says which. Otherwise (no such field and a name that does not say, another value, no systems
JSON) the division is None: unknown, and the atlas shows and prices such an entry but ranks it
against neither division.

Per-benchmark facts beyond the time are computed from the same runs the time score uses:
throughput in ``BENCHMARK_FACTS``; global batch size and samples to converge (from every result
file, as the official summarizer's detailed CSV gives them: mlperf.convergence); the measured
energy of a folder with power logs (``<benchmark>/power/<result>/``, mlperf.power) after the time score, whose runs and scaling factor
it averages (mlperf_scores: energy_joules, energy_kwh, official_energy_joules, energy_runs,
energy_note; mlperf_runs: the per-run values).

Files are parsed one at a time; only small rows are kept, so memory stays flat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf import quirks
from pipelines.ingest.mlperf.convergence import folder_convergence
from pipelines.ingest.mlperf.logs import RunResult, parse_result_file
from pipelines.ingest.mlperf.power import RUN_COLUMNS, SCORE_COLUMNS, has_power, run_columns, score_columns, score_power
from pipelines.domain.mlperf import (BenchmarkRule, benchmark_model, benchmark_name, benchmark_rule, normalize_round,
                                     training_samples)
from pipelines.domain.rounds import folder_round
from pipelines.ingest.mlperf.gaps import division_from_names
from pipelines.ingest.mlperf.summarizer import (OfficialSystem, official_system, power_crash, scaling_factor,
                                                score_benchmark)

RUNS_SCHEMA = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
    "run_file": pl.Utf8, "minutes": pl.Float64, "status": pl.Utf8, "reason": pl.Utf8,
    "samples_per_second": pl.Float64, "folder": pl.Utf8,
} | RUN_COLUMNS  # measured energy per run (mlperf.power), null without power logs
SCORES_SCHEMA = {
    "round": pl.Utf8, "submitter": pl.Utf8, "system": pl.Utf8, "benchmark": pl.Utf8,
    "runs": pl.Int64, "dropped_runs": pl.Int64, "time_to_train_minutes": pl.Float64,
    "reason": pl.Utf8, "samples_per_second": pl.Float64, "division": pl.Utf8,
    "rule_deviation": pl.Utf8, "deviates_from_rules": pl.Boolean, "official_crash": pl.Utf8,
    "scaling_factor": pl.Float64, "benchmark_model": pl.Utf8, "folder": pl.Utf8,
    "benchmark_path": pl.Utf8, "quirk": pl.Utf8, "division_source": pl.Utf8, "score_basis": pl.Utf8,
    "global_batch_size": pl.Int64, "summarizer_samples_to_converge": pl.Float64, "samples_to_converge": pl.Float64,
} | SCORE_COLUMNS  # measured energy per training run (mlperf.power), null without power logs

_NOT_READ = "the official summarizer does not read this folder"
OFFICIAL, RULES = "official", "rules"  # score_basis: the official tool's answer, or the rules where it stops


@dataclass(frozen=True)
class Task:
    """One benchmark folder to score (picklable: sent to a worker process)."""

    round: str
    folder: str  # the submitter folder's name
    submitter: str  # the systems JSON's submitter, else the folder name
    system: str
    benchmark: str | None  # None: read it from the logs (a quirk)
    path: str
    base: str  # run_file and benchmark_path are relative to this
    quirk: str | None = None
    official_reads: bool = True  # does the official summarizer read this folder as a benchmark?
    division: str | None = None
    division_source: str | None = None  # where the division comes from (systems JSON, system name)
    system_skipped: str | None = None  # why the official summarizer skips the system
    system_crash: str | None = None  # why it stops on the system
    score_by_rules: bool = False  # it stops on a field its scoring never reads: score the runs by the rules
    number_of_nodes: int | None = None  # the systems JSON's, to check that every node has a power log
    rcp_columns: bool = False  # does the official summarizer report GBS and samples to converge? (OfficialSystem)


def _throughput(rule: BenchmarkRule, runs: list[RunResult]) -> dict:
    rates = [r.samples_per_second for r in runs if r.scored and r.samples_per_second is not None]
    return {"samples_per_second": sum(rates) / len(rates) if rates else None}


# Facts computed per benchmark from the runs its time score uses (each run's file, minutes and
# verdict; the rule's failure allowance for olympic averaging): each function returns extra
# columns of the score row (declare them in SCORES_SCHEMA). Energy needs the time score as well
# (the same runs, the same scaling factor), so it follows the official answer in score_task.
BENCHMARK_FACTS: tuple[Callable[[BenchmarkRule, list[RunResult]], dict], ...] = (_throughput,)


def _convergence(task: Task, rule: BenchmarkRule, runs: list[RunResult]) -> dict:
    """Global batch size and samples to converge as the official summarizer's detailed CSV gives them
    (mlperf.convergence), and the latter in training samples (domain.mlperf.training_samples)."""
    # a folder the tool does not read, or a division not spelled "closed": neither
    division = task.division if task.official_reads and task.rcp_columns else None
    found = folder_convergence([run.convergence for run in runs], rule.ruleset, division)
    return {"global_batch_size": found.global_batch_size,
            "summarizer_samples_to_converge": found.samples_to_converge,
            "samples_to_converge": training_samples(task.round, rule.benchmark, found.samples_to_converge,
                                                    found.global_batch_size)}


def round_of(root: Path, explicit: str | None) -> str:
    if explicit is not None:
        return normalize_round(explicit, root)
    for folder in (root, root.parent):
        found = folder_round(folder.name)
        if found:
            return normalize_round(found, root)
    raise InputError(root, None, "cannot tell the MLPerf round: name the folder "
                                 "training_results_vX.Y or pass round explicitly")


def submitter_dirs(root: Path) -> list[Path]:
    """The submitter folders of a root: itself when it holds results/, else its children that do."""
    if (root / "results").is_dir():
        return [root]
    return [d for d in quirks.dirs(root) if (d / "results").is_dir()]


def _benchmark_folders(system_dir: Path, round_: str, strict: bool) -> list[tuple[Path, str | None, str | None]]:
    """(folder, benchmark, quirk) per benchmark folder of a system; strict: official layout or InputError."""
    if not strict:
        return quirks.benchmark_folders(system_dir, round_)
    found = []
    for child in quirks.dirs(system_dir):
        name = benchmark_name(child.name, round_)
        if name is None:
            benchmark_rule(round_, child.name, child)  # raises: not a benchmark of the round
        found.append((child, name, None))
    return found


def find_tasks(root: Path, round_: str, strict: bool = False) -> list[Task]:
    """Every benchmark folder under a round or submitter folder, with its system's official status."""
    tasks = []
    base = str(root.parent)
    for submitter_dir in submitter_dirs(root):
        for system_dir in quirks.dirs(submitter_dir / "results"):
            json_path = submitter_dir / "systems" / f"{system_dir.name}.json"
            if strict and not json_path.is_file():
                raise InputError(system_dir, None, f"no systems JSON for this system (expected {json_path})")
            system = official_system(json_path)
            division, division_source = _division(system, system_dir.name)
            for path, benchmark, quirk in _benchmark_folders(system_dir, round_, strict):
                tasks.append(Task(
                    round=round_, folder=submitter_dir.name, submitter=system.submitter or submitter_dir.name,
                    system=system_dir.name, benchmark=benchmark, path=str(path), base=base, quirk=quirk,
                    official_reads=path.parent == system_dir, division=division, division_source=division_source,
                    system_skipped=system.skipped, system_crash=system.crash, score_by_rules=system.crash_on_table,
                    number_of_nodes=system.number_of_nodes, rcp_columns=system.rcp_columns,
                ))
    return tasks


def _division(system: OfficialSystem, folder_name: str) -> tuple[str | None, str | None]:
    """(division, where it comes from): the systems JSON's, else its name's (mlperf.gaps); a system
    whose JSON the tool cannot read at all (none, not JSON) has none."""
    if system.division is not None:
        return system.division, "systems JSON"
    if system.skipped or (system.crash and not system.crash_on_table):
        return None, None
    named = division_from_names(folder_name, system.system_name)
    return (named, "system name") if named else (None, None)


def _run_row(task: Task, benchmark: str, run: RunResult) -> dict:
    return {"round": task.round, "submitter": task.submitter, "folder": task.folder, "system": task.system,
            "benchmark": benchmark, "run_file": Path(run.path).relative_to(task.base).as_posix(),
            "minutes": run.minutes, "status": "scored" if run.scored else "dropped", "reason": run.reason,
            "samples_per_second": run.samples_per_second}


def score_task(task: Task, strict: bool = False) -> tuple[dict, list[dict]]:
    """Score one benchmark folder: (score row, run rows). Lenient: never raises for bad content."""
    path = Path(task.path)
    files = quirks.result_files(path)
    row = {name: None for name in SCORES_SCHEMA} | {
        "round": task.round, "submitter": task.submitter, "system": task.system, "benchmark": task.benchmark,
        "runs": len(files), "division": task.division, "division_source": task.division_source,
        "folder": task.folder, "deviates_from_rules": False,
        "benchmark_path": path.relative_to(task.base).as_posix(), "quirk": task.quirk,
    }
    benchmark, problem = task.benchmark, None
    if benchmark is None:
        benchmark, problem = quirks.logged_benchmark(files, task.round)
    if benchmark is None:
        return row | _official_answer(task, None, [], strict) | {"reason": problem}, []
    rule = benchmark_rule(task.round, benchmark)
    runs = [_parse(file, rule, strict) for file in files]
    row |= {"benchmark": rule.benchmark, "benchmark_model": benchmark_model(task.round, rule.benchmark),
            "dropped_runs": sum(1 for run in runs if not run.scored)}
    for facts in BENCHMARK_FACTS:
        row |= facts(rule, runs)
    row |= _convergence(task, rule, runs)
    row |= _official_answer(task, rule, runs, strict)
    run_rows = [_run_row(task, rule.benchmark, run) for run in runs]
    if task.official_reads and has_power(path):
        energy = _energy(task, rule, runs, row, strict)
        row |= score_columns(energy)
        for run_row, extra in zip(run_rows, run_columns(energy, runs)):
            run_row |= extra
    return row, run_rows


def _energy(task: Task, rule: BenchmarkRule, runs: list[RunResult], row: dict, strict: bool):
    """Measured energy of a folder with power logs, over the runs and the time score of ``row``.

    An entry the official summarizer does not score (it stops on the folder, say a v4.0 node log
    whose stop equals its start) has no time score, so no energy; its note says why and keeps the
    flags of the logs.
    """
    factor = row["scaling_factor"] if row["scaling_factor"] is not None else 1.0
    return score_power(Path(task.path), runs, rule.max_failures, row["time_to_train_minutes"], factor,
                       number_of_nodes=task.number_of_nodes, strict=strict)


def _official_answer(task: Task, rule: BenchmarkRule | None, runs: list[RunResult], strict: bool) -> dict:
    """The official summarizer's answer on one entry: its score and our flags, or why it has none;
    where it stops on a field of the system's JSON that scoring never reads, the rules' answer."""
    if task.system_crash:
        stops = f"the official summarizer stops on this system: {task.system_crash}"
        if not task.score_by_rules:
            return {"reason": stops, "official_crash": task.system_crash}
        answer = _folder_answer(task, rule, runs, strict)
        if answer.get("time_to_train_minutes") is None:  # the rules give no score either: say both
            answer["reason"] = f"{stops}; by the rules: {answer['reason']}"
        return _scored_by(answer | {"official_crash": task.system_crash}, RULES)
    if task.system_skipped:
        return {"reason": f"the official summarizer skips this system: {task.system_skipped}"}
    return _scored_by(_folder_answer(task, rule, runs, strict), OFFICIAL)


def _scored_by(answer: dict, basis: str) -> dict:
    """The answer with its score_basis, where it has a score."""
    return answer | {"score_basis": basis if answer.get("time_to_train_minutes") is not None else None}


def _folder_answer(task: Task, rule: BenchmarkRule | None, runs: list[RunResult], strict: bool) -> dict:
    """The summarizer's answer on one benchmark folder of a system it reads: its score, or why none."""
    if task.benchmark is None and task.official_reads:
        # a folder the summarizer takes for a benchmark it does not know: it stops on it
        crash = f"folder {Path(task.path).name!r} is not a benchmark of {task.round}"
        return {"reason": f"the official summarizer stops on this folder: {crash}", "official_crash": crash}
    if not task.official_reads or rule is None:
        return {"reason": f"{_NOT_READ} ({task.quirk})"}
    crash = next((f"{Path(run.path).name}: {run.crash}" for run in runs if run.crash), None) \
        or power_crash(Path(task.path), runs)
    if crash:
        return {"reason": f"the official summarizer stops on this benchmark folder: {crash}", "official_crash": crash}
    try:
        factor = scaling_factor(Path(task.path))
    except InputError as error:
        if strict:
            raise
        return {"reason": f"scaling.json unusable: {error.problem}", "official_crash": f"scaling.json: {error.problem}"}
    score = score_benchmark(rule, runs, factor)
    return {"time_to_train_minutes": score.minutes, "reason": score.reason, "scaling_factor": factor,
            "rule_deviation": score.rule_deviation, "deviates_from_rules": score.rule_deviation is not None}


def _parse(file: Path, rule: BenchmarkRule, strict: bool) -> RunResult:
    try:
        return parse_result_file(file, rule)
    except InputError as error:
        if strict:
            raise
        return RunResult(str(file), None, f"unreadable: {error.problem}")


def frame(rows: list[dict], schema: dict) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


# Raise when a change alters what scoring gives for the same files (the atlas scores its stored
# rounds again): 2 = the RCP columns need division "closed" to the letter; 3 = systems the tool
# stops on for a field of its table are scored by the rules, divisions filled from names.
SCORING_REVISION = 3

# How scored tables are stored, whichever pipeline scored them (the report's trees: stg_mlperf_*;
# the atlas's rounds: atlas_*): the schema's columns, types and this row order.
SCORES_ORDER = ("round", "folder", "system", "benchmark", "benchmark_path")
RUNS_ORDER = ("round", "folder", "system", "benchmark", "run_file")


def stored(table: pl.DataFrame, schema: dict, order: tuple[str, ...], *extra: str) -> pl.DataFrame:
    """`table` as it is stored: the schema's columns in its order and types, then the `extra` columns
    (the report's `tree`), rows sorted by `order` (nulls last)."""
    columns = [pl.col(name).cast(dtype) for name, dtype in schema.items()] + [pl.col(name) for name in extra]
    return table.select(columns).sort(list(order), nulls_last=True, maintain_order=True)


def score_trees(roots: list[Path], round: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Score every benchmark of every system under ``roots`` (strict mode): (runs frame, scores frame).

    Bad layout (missing folder, results without a systems JSON, unknown round or benchmark) ->
    InputError. A benchmark without a score keeps a row with a null time and the reason.
    """
    run_rows: list[dict] = []
    score_rows: list[dict] = []
    for root in map(Path, roots):
        if not root.is_dir():
            raise InputError(root, None, "MLPerf results folder not found")
        for task in find_tasks(root, round_of(root, round), strict=True):
            score, runs = score_task(task, strict=True)
            score_rows.append(score)
            run_rows += runs
    return frame(run_rows, RUNS_SCHEMA), frame(score_rows, SCORES_SCHEMA)
