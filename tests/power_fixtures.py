"""Writes small MLPerf Training power results (v5.0 layout) that the official summarizer scores.

A benchmark folder holds result_N.txt and power/result_N/node_K.txt (and sw_M.txt). The result
logs are open-division BERT logs that pass mlperf-logging's 5.0.0 compliance checker and reach
the closed target (eval_accuracy 0.73 >= 0.720), so our walker and the official tool score the
same runs. Power logs are written from (time offset in seconds, watts) readings so that every
expected energy can be computed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.mlperf_fixtures import mllog, write_log, write_system_json

START_MS = 1_745_000_000_000  # run_start of every run
ROUND, RULESET, BENCHMARK = "v5.0", "5.0.0", "bert"


def result_log(minutes: float, start_ms: int = START_MS, accuracy: float = 0.73) -> str:
    """An open-division v5.0 BERT log of ``minutes`` (run_stop - run_start) that reaches the target."""
    stop_ms = start_ms + round(minutes * 60_000)
    t0 = start_ms - 60_000
    lines = [
        mllog("submission_division", "open", time_ms=t0), mllog("submission_benchmark", BENCHMARK, time_ms=t0),
        mllog("submission_org", "ExampleCorp", time_ms=t0), mllog("submission_status", "onprem", time_ms=t0),
        mllog("submission_platform", "power-test", time_ms=t0), mllog("cache_clear", True, time_ms=t0),
        mllog("init_start", time_ms=t0, event_type="INTERVAL_START"),
        mllog("global_batch_size", 64, time_ms=t0), mllog("train_samples", 1000, time_ms=t0),
        mllog("eval_samples", 100, time_ms=t0), mllog("seed", 1, time_ms=t0),
        mllog("init_stop", time_ms=start_ms, event_type="INTERVAL_END"),
        mllog("run_start", time_ms=start_ms, event_type="INTERVAL_START"),
        mllog("block_start", time_ms=start_ms, event_type="INTERVAL_START",
              metadata={"first_epoch_num": 1, "epoch_count": 1}),
        mllog("eval_start", time_ms=stop_ms - 2, event_type="INTERVAL_START", metadata={"epoch_num": 1}),
        mllog("eval_accuracy", accuracy, time_ms=stop_ms - 1, metadata={"epoch_num": 1}),
        mllog("eval_stop", time_ms=stop_ms - 1, event_type="INTERVAL_END", metadata={"epoch_num": 1}),
        mllog("block_stop", time_ms=stop_ms - 1, event_type="INTERVAL_END", metadata={"first_epoch_num": 1}),
        mllog("run_stop", time_ms=stop_ms, event_type="INTERVAL_END", metadata={"status": "success"}),
    ]
    return "".join(lines)


def power_log(readings: list[tuple[float, float]], *, start_s: float = 0.0, stop_s: float | None = None,
              efficiency: float | None = 0.95, estimate: float | None = None, base_ms: int = START_MS,
              start: bool = True, stop: bool = True, extra: str = "") -> str:
    """A node or switch log: start at ``start_s``, readings [(seconds, watts)], stop at ``stop_s``
    (default: the last reading), times in seconds after ``base_ms``."""
    def at(seconds: float) -> int:
        return base_ms + round(seconds * 1000)
    lines = []
    if start:
        lines.append(mllog(_START, None, time_ms=at(start_s), event_type="INTERVAL_START"))
    if efficiency is not None:
        lines.append(mllog("conversion_eff", efficiency, time_ms=at(start_s), metadata={"measurement_type": "AC"}))
    if estimate is not None:
        lines.append(mllog("interconnect_power_est", estimate, time_ms=at(start_s)))
    lines += [mllog("power_reading", watts, time_ms=at(seconds), metadata={"host": "node"}) for seconds, watts in readings]
    if stop:
        end = stop_s if stop_s is not None else readings[-1][0]
        lines.append(mllog(_STOP, None, time_ms=at(end), event_type="INTERVAL_END"))
    return "".join(lines) + extra


_START, _STOP = "power_measurement_start", "power_measurement_stop"


def write_power_result(round_dir: Path, system: str, runs: list[tuple[float, dict[str, str]]], *,
                       submitter: str = "ExampleCorp", nodes: int = 1, scaling: float | None = None) -> Path:
    """A benchmark folder: runs = [(minutes, {log name: log text})] -> result_i.txt and power/result_i/."""
    submitter_dir = round_dir / submitter
    write_system_json(submitter_dir, system, division="open", number_of_nodes=str(nodes),
                      accelerator_model_name="NVIDIA B200-SXM-180GB", accelerator_memory_capacity="180 GB")
    bench = submitter_dir / "results" / system / BENCHMARK
    for i, (minutes, logs) in enumerate(runs):
        write_log(bench / f"result_{i}.txt", result_log(minutes, START_MS + i * 3_600_000))
        for name, text in logs.items():
            write_log(bench / "power" / f"result_{i}" / name, text)
    if scaling is not None:
        (bench / "scaling.json").write_text(json.dumps({"scaling_factor": scaling}), encoding="utf-8")
    return bench
