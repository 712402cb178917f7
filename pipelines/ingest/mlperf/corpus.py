"""Score a whole MLPerf Training corpus (training_results_v0.7 ... v5.1 side by side) for the atlas.

The walker is mlperf.tree's, in lenient mode: layout problems are facts of life in the published
trees, so every problem is recorded against the entry it concerns and the rest is scored. This
module adds what a corpus needs: the rounds under a folder (or one round folder), the systems
table, and processes that share the benchmark folders.

Quirks of the published trees (mlperf.quirks): result files named with job ids count (the
official glob ``result_*.txt``); a benchmark folder misplaced inside another, result files
directly in the system folder, or a folder not named after a benchmark are entries that say why
the official summarizer does not score them (the benchmark is read from the logs'
submission_benchmark); a submitter split over several folders keeps its folder in ``folder`` and
its organisation from the systems JSON; logs with placeholder organisations are fine (the
organisation and status come from the systems JSON).

Where the official summarizer raises on an entry (``official_crash``), it stops on the whole
submitter folder and publishes nothing of it; every other entry of that folder is scored as the
summarizer scores it when run without the failing entry, and says so in ``official_crash``.

Work is spread over processes one benchmark folder at a time; each returns a few small rows, so
memory does not grow with the number or the size of the logs.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Iterator

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf import quirks
from pipelines.domain.mlperf import RULES
from pipelines.domain.rounds import folder_round, partition_key
from pipelines.ingest.mlperf.tree import (RUNS_ORDER, RUNS_SCHEMA, SCORES_ORDER, SCORES_SCHEMA, Task, find_tasks, frame,
                                         score_task, stored, submitter_dirs)
from pipelines.ingest.mlperf.gaps import nodes_from_names
from pipelines.ingest.systems_json import SYSTEM_SCHEMA, load_system_json, nodes_field, system_fields

SYSTEMS_SCHEMA = ({"round": pl.Utf8, "folder": pl.Utf8} | SYSTEM_SCHEMA  # where it was found, what it says
                  | {"status_class": pl.Utf8, "problem": pl.Utf8}  # how the summarizer classes it; why unusable
                  | {"nodes_source": pl.Utf8})  # where number_of_nodes comes from (None: unknown)



def round_dirs(mlperf_dir: Path) -> list[tuple[Path, str | None]]:
    """(round folder, round or None when unknown) for training_results_vX.Y under mlperf_dir (or itself)."""
    mlperf_dir = Path(mlperf_dir)
    if not mlperf_dir.is_dir():
        raise InputError(mlperf_dir, None, "MLPerf folder not found")
    candidates = [mlperf_dir] if folder_round(mlperf_dir.name) else sorted(
        (p for p in mlperf_dir.iterdir() if p.is_dir() and folder_round(p.name)), key=quirks.natural_key)
    if not candidates:
        raise InputError(mlperf_dir, None, "no training_results_vX.Y folder in it (clone the MLCommons "
                                           "training results repositories into one folder)")
    found = []
    for path in candidates:
        round_ = folder_round(path.name)
        found.append((path, round_ if round_ in RULES else None))
    return found


def systems(round_dir: Path, round_: str) -> Iterator[dict]:
    """One row per systems JSON of the round; a file that cannot be read says why."""
    for submitter_dir in submitter_dirs(round_dir):
        folder = submitter_dir / "systems"
        paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
        for path in paths:
            yield system_row(path, round_, submitter_dir.name)


def system_row(path: Path, round_: str, folder: str) -> dict:
    row = {name: None for name in SYSTEMS_SCHEMA} | {"round": round_, "folder": folder, "system": path.stem,
                                                     "file": str(path)}
    try:
        raw = load_system_json(path)
        desc = system_fields(raw, path, nodes_required=False)
    except InputError as error:
        row["problem"] = f"systems JSON unusable: {error.where + ': ' if error.where else ''}{error.problem}"
        row["submitter"] = folder
        return row
    row.update(desc | _nodes(desc, nodes_field(raw)))
    row["submitter"] = desc["submitter"] or folder
    row["status_class"] = quirks.status_class(desc["status"])
    return row


def _nodes(desc: dict, field: str | None) -> dict:
    """The node count, its accelerators and where the count comes from: the systems JSON's field
    (named when it is not number_of_nodes), else the system's name (mlperf.gaps), else unknown."""
    if field is not None:
        return {"nodes_source": "systems JSON" if field == "number_of_nodes" else f"systems JSON {field!r}"}
    nodes = nodes_from_names(desc["system"], desc["system_name"])
    if nodes is None:
        return {"nodes_source": None}
    per_node = desc["accelerators_per_node"]
    return {"number_of_nodes": nodes, "accelerators_total": nodes * per_node, "nodes_source": "system name"}


def _score_chunk(chunk: list[Task]) -> list[tuple[dict, list[dict]]]:
    return [score_task(task) for task in chunk]


def _score(tasks: list[Task], workers: int) -> list[tuple[dict, list[dict]]]:
    if workers <= 1 or len(tasks) < 8:
        return [score_task(task) for task in tasks]
    # Largest folders first, in small chunks, so every worker stays busy to the end.
    ordered = sorted(tasks, key=lambda t: -quirks.folder_bytes(Path(t.path)))
    chunks = [ordered[i:i + 4] for i in range(0, len(ordered), 4)]
    results: list[tuple[dict, list[dict]]] = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_score_chunk, chunks):
            results += part
    return results


def score_corpus(mlperf_dir: Path, workers: int | None = None, keep_runs: bool = True
                 ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(scores, runs, systems) for every round under mlperf_dir, or for one training_results_vX.Y
    folder; an unknown round keeps a row that says so."""
    tasks: list[Task] = []
    score_rows: list[dict] = []
    system_rows: list[dict] = []
    for round_dir, round_ in round_dirs(mlperf_dir):
        if round_ is None:
            score_rows.append({name: None for name in SCORES_SCHEMA} | {
                "round": partition_key(round_dir.name), "folder": round_dir.name,
                "reason": f"MLPerf Training round not supported (known: {', '.join(RULES)})"})
            continue
        tasks += find_tasks(round_dir, round_)
        system_rows += list(systems(round_dir, round_))
    run_rows: list[dict] = []
    for row, runs in _score(tasks, workers or min(len(os.sched_getaffinity(0)), 8)):
        score_rows.append(row)
        if keep_runs:
            run_rows += runs
    scores = _folder_crashes(frame(score_rows, SCORES_SCHEMA))
    return (stored(scores, SCORES_SCHEMA, SCORES_ORDER), stored(frame(run_rows, RUNS_SCHEMA), RUNS_SCHEMA, RUNS_ORDER),
            frame(system_rows, SYSTEMS_SCHEMA).sort("round", "folder", "system"))


def _folder_crashes(scores: pl.DataFrame) -> pl.DataFrame:
    """Tell every entry of a submitter folder the official summarizer stops on (see the docstring)."""
    first = (scores.filter(pl.col("official_crash").is_not_null())
             .sort("system", "benchmark_path")
             .group_by("round", "folder", maintain_order=True)
             .agg((pl.col("system") + "/" + pl.col("benchmark_path").str.split("/").list.last() + ": "
                   + pl.col("official_crash")).first().alias("folder_crash")))
    note = ("the official summarizer stops on this submitter folder (at " + pl.col("folder_crash")
            + "); scored as it scores the entry without that one")
    return (scores.join(first, on=["round", "folder"], how="left")
            .with_columns(pl.coalesce("official_crash", note).alias("official_crash"))
            .drop("folder_crash"))
