"""Writes MLPerf Training result logs and systems JSON in the official format, for tests.

The project never copies real MLCommons logs; these writers produce the same line format
(``:::MLLOG {json}``, optional launcher prefixes, optional event_type) with times chosen so that
expected scores can be computed by hand: a run of ``minutes`` has run_stop exactly
``minutes * 60000`` ms after run_start.
"""

from __future__ import annotations

import json
from pathlib import Path

START_MS = 1_621_000_000_000
IMAGENET_TRAIN_SAMPLES = 1_281_167


def mllog(key: str, value=None, *, time_ms: int, metadata: dict | None = None,
          event_type: str | None = "POINT_IN_TIME", prefix: str = "") -> str:
    record = {"namespace": "", "time_ms": time_ms}
    if event_type is not None:
        record["event_type"] = event_type
    record.update(key=key, value=value, metadata={"file": "train.py", "lineno": 1, **(metadata or {})})
    return f"{prefix}:::MLLOG {json.dumps(record)}\n"


def run_log(
    benchmark: str = "resnet",
    *,
    minutes: float = 30.0,
    start_ms: int = START_MS,
    status: str | None = "success",
    evals: list[tuple[object, float]] | None = None,
    run_start: bool = True,
    run_stop: bool = True,
    prefix: str = "",
    event_type: bool = True,
    train_samples: int | None = IMAGENET_TRAIN_SAMPLES,
    train_samples_at_end: int | None = None,
    global_batch_size: int = 3264,
    noise: bool = True,
) -> str:
    """A complete result log. ``evals`` = [(eval_accuracy value, epoch_num)], spread over the run."""
    if evals is None:
        evals = [(0.50, 8.0), (0.7601, 16.0)]
    et = (lambda kind: kind) if event_type else (lambda kind: None)
    stop_ms = start_ms + round(minutes * 60000)
    lines = []
    if noise:
        lines.append("+ srun --ntasks=1 bash -c 'echo Beginning trial 1 of 1'\n")
    t0 = start_ms - 60_000
    lines.append(mllog("cache_clear", True, time_ms=t0, event_type=et("POINT_IN_TIME"), prefix=prefix))
    lines.append(mllog("init_start", time_ms=t0, event_type=et("INTERVAL_START"), prefix=prefix))
    lines.append(mllog("submission_benchmark", benchmark, time_ms=t0, event_type=et("POINT_IN_TIME"), prefix=prefix))
    lines.append(mllog("global_batch_size", global_batch_size, time_ms=t0, event_type=et("POINT_IN_TIME"), prefix=prefix))
    if train_samples is not None:
        lines.append(mllog("train_samples", train_samples, time_ms=t0, event_type=et("POINT_IN_TIME"), prefix=prefix))
    lines.append(mllog("init_stop", time_ms=start_ms, event_type=et("INTERVAL_END"), prefix=prefix))
    if run_start:
        lines.append(mllog("run_start", time_ms=start_ms, event_type=et("INTERVAL_START"), prefix=prefix))
    for i, (value, epoch) in enumerate(evals, start=1):
        at = start_ms + (stop_ms - start_ms) * i // (len(evals) + 1)
        if noise:
            lines.append(f"epoch {epoch}: loss 1.234, lr 0.1\n")
        lines.append(mllog("eval_accuracy", value, time_ms=at, metadata={"epoch_num": epoch},
                           event_type=et("POINT_IN_TIME"), prefix=prefix))
    if train_samples_at_end is not None:
        lines.append(mllog("train_samples", train_samples_at_end, time_ms=stop_ms, event_type=et("POINT_IN_TIME"), prefix=prefix))
    if run_stop:
        metadata = {} if status is None else {"status": status}
        lines.append(mllog("run_stop", time_ms=stop_ms, metadata=metadata, event_type=et("INTERVAL_END"), prefix=prefix))
    return "".join(lines)


def converged(minutes: float, **kwargs) -> str:
    return run_log(minutes=minutes, **kwargs)


def aborted(minutes: float = 45.0, **kwargs) -> str:
    return run_log(minutes=minutes, status="aborted", evals=[(0.50, 8.0), (0.70, 16.0)], **kwargs)


def never_reaches_target(minutes: float = 50.0, **kwargs) -> str:
    return run_log(minutes=minutes, evals=[(0.50, 8.0), (0.7589, 16.0)], **kwargs)


def missing_run_stop(minutes: float = 30.0, **kwargs) -> str:
    return run_log(minutes=minutes, run_stop=False, **kwargs)


def junk_before_mllog(minutes: float, **kwargs) -> str:
    """Launcher prefixes as real multi-process logs have them ("0: ", "[1,0]<stdout>:")."""
    return run_log(minutes=minutes, prefix="[1,0]<stdout>:0: ", **kwargs)


def non_utf8(minutes: float, **kwargs) -> bytes:
    """A converged log with bytes that are not valid UTF-8, inside and outside :::MLLOG lines."""
    text = run_log(minutes=minutes, **kwargs).encode("latin-1")
    head = b"GPU \xff\xfe temperature \xe9\xe8 80C\n"
    odd = (":::MLLOG " + json.dumps({"namespace": "", "time_ms": START_MS, "key": "note",
                                      "value": "Caf\u00e9 \u00ff", "metadata": {}}, ensure_ascii=False)
           + "\n").encode("latin-1")  # raw \xe9 and \xff bytes inside the JSON
    return head + odd + text


def truncated_line(minutes: float, **kwargs) -> str:
    """A converged log with one :::MLLOG line cut off mid-JSON (a killed writer)."""
    lines = run_log(minutes=minutes, **kwargs).splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"eval_accuracy"' in line)
    lines[cut] = lines[cut][: len(lines[cut]) // 2] + "\n"
    return "".join(lines)


def write_log(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("latin-1")
    path.write_bytes(content)
    return path


SYSTEM_DEFAULTS = {
    "submitter": "ExampleCorp", "division": "closed", "status": "onprem",
    "system_name": "8xA100 example", "number_of_nodes": "1", "host_processors_per_node": "2",
    "host_processor_model_name": "AMD EPYC 7742", "host_processor_core_count": "64",
    "host_memory_capacity": "2 TB", "accelerators_per_node": "8",
    "accelerator_model_name": "NVIDIA A100-SXM4-80GB (400W)", "accelerator_memory_capacity": "80 GB",
    "hw_notes": "", "framework": "PyTorch NVIDIA Release 21.05",
    "other_software_stack": {"cuda_version": "11.3", "nccl_version": "2.9.8"},
    "operating_system": "Ubuntu 20.04.2 LTS", "sw_notes": "",
}


def write_system_json(submitter_dir: Path, system: str, **fields) -> Path:
    path = submitter_dir / "systems" / f"{system}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    desc = {**SYSTEM_DEFAULTS, "submitter": submitter_dir.name, **fields}
    path.write_text(json.dumps(desc, indent=4), encoding="utf-8")
    return path


def write_benchmark(round_dir: Path, submitter: str, system: str, benchmark: str,
                    logs: list[str | bytes], *, systems_json: bool = True) -> Path:
    """Writes result_0.txt .. result_{n-1}.txt and (unless told not to) the systems JSON."""
    submitter_dir = round_dir / submitter
    if systems_json and not (submitter_dir / "systems" / f"{system}.json").exists():
        write_system_json(submitter_dir, system)
    bench_dir = submitter_dir / "results" / system / benchmark
    for i, log in enumerate(logs):
        write_log(bench_dir / f"result_{i}.txt", log)
    return bench_dir


def write_stray_files(bench_dir: Path, log: str) -> None:
    """Files the official summarizer ignores: not result_*.txt, or not directly in the folder."""
    write_log(bench_dir / "result_summary.csv", "a,b\n1,2\n")
    write_log(bench_dir / "notes.txt", log)
    write_log(bench_dir / "old" / "result_7.txt", log)
    write_log(bench_dir / "power" / "result_0" / "node_0.txt", "power\n")


def too_many_failures(round_dir: Path, system: str = "sys_fail") -> Path:
    """A resnet folder with 3 converged and 2 aborted runs: 2 > 1 allowed failure."""
    logs = [converged(30.0), converged(31.0), converged(32.0), aborted(), aborted()]
    return write_benchmark(round_dir, "ExampleCorp", system, "resnet", logs)
