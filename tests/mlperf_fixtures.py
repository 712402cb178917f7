"""Writes MLPerf Training result logs and systems JSON in the official format, for tests.

The project never copies real MLCommons logs; these writers produce the same line format
(``:::MLLOG {json}``, optional launcher prefixes, optional event_type) with times chosen so that
expected scores can be computed by hand: a run of ``minutes`` has run_stop exactly
``minutes * 60000`` ms after run_start.

A log passes the official compliance checker (mlperf-logging 4.1.68) of the rounds in
``CHECKED_ROUNDS`` for its benchmark: it has the submission lines, the init/run/block/eval
structure and the hyperparameters the closed-division rules require, with values they accept
(``HYPERPARAMETERS``, read off compliance_checker/training_<round>/closed_<benchmark>.yaml).
tests/test_mlperf_fixtures.py runs the official checker on each of those pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

START_MS = 1_621_000_000_000
IMAGENET_TRAIN_SAMPLES = 1_281_167

# benchmark -> (key, value) lines its closed rules require, for every round in CHECKED_ROUNDS.
HYPERPARAMETERS: dict[str, dict] = {
    "resnet": {"opt_name": "lars", "lars_opt_base_learning_rate": 9.5, "lars_opt_end_learning_rate": 0.0001,
               "lars_opt_learning_rate_decay_poly_power": 2, "lars_opt_learning_rate_decay_steps": 2000,
               "lars_epsilon": 0.0, "lars_opt_learning_rate_warmup_epochs": 2, "lars_opt_momentum": 0.9,
               "lars_opt_weight_decay": 0.0002},
    "bert": {"opt_base_learning_rate": 0.0004, "opt_epsilon": 1e-06, "opt_lamb_epsilon": 1e-06,
             "opt_learning_rate_training_steps": 7100, "opt_learning_rate_warmup_steps": 0, "num_warmup_steps": 0,
             "start_warmup_step": 0, "opt_lamb_beta_1": 0.9, "opt_lamb_beta_2": 0.999,
             "opt_lamb_weight_decay_rate": 0.01},
    "ssd": {"model_bn_span": 32, "opt_learning_rate_warmup_factor": 0, "opt_learning_rate_warmup_steps": 100,
            "opt_weight_decay": 0.0, "opt_base_learning_rate": 0.003, "max_samples": 1,
            "opt_learning_rate_decay_boundary_epochs": [44, 55], "opt_name": "adam",
            "opt_learning_rate_warmup_epochs": 1.0},
    "rnnt": {"model_weights_initialization_scale": 1.0, "opt_name": "lamb", "opt_base_learning_rate": 0.004,
             "opt_lamb_epsilon": 1e-9, "opt_lamb_learning_rate_decay_poly_power": 0.935,
             "opt_lamb_learning_rate_hold_epochs": 40, "opt_learning_rate_warmup_epochs": 6,
             "opt_weight_decay": 1e-3, "opt_lamb_beta_1": 0.9, "opt_lamb_beta_2": 0.999,
             "opt_gradient_clip_norm": 1, "opt_learning_rate_alt_decay_func": True,
             "opt_learning_rate_alt_warmup_func": True, "opt_lamb_learning_rate_min": 1e-5, "eval_samples": 2703,
             "data_train_max_duration": 16.7, "data_train_num_buckets": 6, "data_speed_perturbaton_min": 0.85,
             "data_speed_perturbaton_max": 1.15, "data_spec_augment_freq_n": 2, "data_spec_augment_freq_min": 0,
             "data_spec_augment_freq_max": 20, "data_spec_augment_time_n": 10, "data_spec_augment_time_min": 0,
             "data_spec_augment_time_max": 0.03, "model_eval_ema_factor": 0.999, "eval_max_prediction_symbols": 300},
    "maskrcnn": {"opt_base_learning_rate": 0.12, "opt_learning_rate_warmup_steps": 800,
                 "opt_learning_rate_warmup_factor": 0.0001, "num_image_candidates": 6000,
                 "opt_learning_rate_decay_factor": 0.1, "opt_learning_rate_decay_steps": [12000, 16000],
                 "min_image_size": 800, "max_image_size": 1333},
    "stable_diffusion": {"opt_name": "adamw", "opt_adamw_beta_1": 0.9, "opt_adamw_beta_2": 0.999,
                         "opt_adamw_epsilon": 1e-08, "opt_adamw_weight_decay": 0.01, "opt_base_learning_rate": 1.25e-7,
                         "opt_learning_rate_warmup_steps": 1000},
}
# weights_initialization lines (one per tensor) that a benchmark's rules list in full
TENSORS = {"rnnt": ["pre_rnn", "post_rnn", "pred_embed", "dec_rnn", "joint_pred", "joint_enc", "joint_net"]}
CHECKED_ROUNDS = {
    "resnet": ["v0.7", "v1.0", "v3.0", "v4.0"], "bert": ["v0.7", "v1.0", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0"],
    "ssd": ["v1.0", "v3.0", "v4.1"], "rnnt": ["v1.0"], "maskrcnn": ["v1.0"],
    "stable_diffusion": ["v3.1", "v4.0", "v5.0"],
}


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
    org: str = "ExampleCorp",
    division: str = "closed",
) -> str:
    """A complete result log. ``evals`` = [(eval_accuracy value, epoch_num)], spread over the run.

    The rules want train_samples logged once: at init (``train_samples``) or at the end of the
    run (``train_samples_at_end``, as NVIDIA logs BERT), the latter wins when both are given.
    """
    if evals is None:
        evals = [(0.50, 8.0), (0.7601, 16.0)]
    et = (lambda kind: kind) if event_type else (lambda kind: None)
    stop_ms = start_ms + round(minutes * 60000)
    lines = []

    def log(key, value=None, at=None, kind="POINT_IN_TIME", **metadata):
        lines.append(mllog(key, value, time_ms=t0 if at is None else at, metadata=metadata, event_type=et(kind),
                           prefix=prefix))

    if noise:
        lines.append("+ srun --ntasks=1 bash -c 'echo Beginning trial 1 of 1'\n")
    t0 = start_ms - 60_000
    log("cache_clear", True)
    log("init_start", kind="INTERVAL_START")
    for key, value in (("submission_org", org), ("submission_platform", "8xA100 example"),
                       ("submission_division", division), ("submission_status", "onprem"),
                       ("submission_benchmark", benchmark)):
        log(key, value)
    log("global_batch_size", global_batch_size)
    log("gradient_accumulation_steps", 1)
    if train_samples is not None and train_samples_at_end is None:
        log("train_samples", train_samples)
    hyper = HYPERPARAMETERS.get(benchmark, {})
    if "eval_samples" not in hyper:
        log("eval_samples", 50_000)
    for key, value in hyper.items():
        log(key, value)
    for tensor in TENSORS.get(benchmark, []):
        log("weights_initialization", tensor=tensor)
    log("init_stop", at=start_ms, kind="INTERVAL_END")
    if run_start:
        log("run_start", at=start_ms, kind="INTERVAL_START")
    log("block_start", at=start_ms, kind="INTERVAL_START", first_epoch_num=1, epoch_count=1)
    for i, (value, epoch) in enumerate(evals, start=1):
        at = start_ms + (stop_ms - start_ms) * i // (len(evals) + 1)
        if noise:
            lines.append(f"epoch {epoch}: loss 1.234, lr 0.1\n")
        log("eval_start", at=at, kind="INTERVAL_START", epoch_num=epoch)
        log("eval_accuracy", value, at=at, epoch_num=epoch)
        log("eval_stop", at=at, kind="INTERVAL_END", epoch_num=epoch)
    log("block_stop", at=stop_ms, kind="INTERVAL_END", first_epoch_num=1)
    if train_samples_at_end is not None:
        log("train_samples", train_samples_at_end, at=stop_ms)
    if run_stop:
        lines.append(mllog("run_stop", time_ms=stop_ms, metadata={} if status is None else {"status": status},
                           event_type=et("INTERVAL_END"), prefix=prefix))
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


def write_power_logs(bench_dir: Path, results: list[str], *, watts: float = 2000.0, seconds: int = 60,
                     stop_at_start: bool = False, efficiency: float = 0.95) -> None:
    """power/<result>/node_0.txt per result: readings every 2 s between start and stop (MLPerf
    power logging) and the AC/DC conversion_eff; ``stop_at_start`` writes the stop at the start's
    timestamp, as the v4.0 Sustainable Metal Cloud logs do."""
    for result in results:
        t0 = START_MS
        lines = [mllog("conversion_eff", efficiency, time_ms=t0), mllog("power_measurement_start", time_ms=t0)]
        lines += [mllog("power_reading", watts, time_ms=t0 + ms) for ms in range(2000, seconds * 1000 + 1, 2000)]
        lines.append(mllog("power_measurement_stop", time_ms=t0 if stop_at_start else t0 + seconds * 1000))
        write_log(bench_dir / "power" / result / "node_0.txt", "".join(lines))


def too_many_failures(round_dir: Path, system: str = "sys_fail") -> Path:
    """A resnet folder with 3 converged and 2 aborted runs: 2 > 1 allowed failure."""
    logs = [converged(30.0), converged(31.0), converged(32.0), aborted(), aborted()]
    return write_benchmark(round_dir, "ExampleCorp", system, "resnet", logs)


def stable_diffusion_log(round_: str, minutes: float, evals: list[tuple[int, float, float]], **kwargs) -> str:
    """A Stable Diffusion log; evals = [(evaluation number, FID, CLIP)], logged after run_stop
    (computed offline), one line per metric grouped by step_num (v3.1) or samples_count (v4.0 on)."""
    group = "step_num" if round_ == "v3.1" else "samples_count"
    log = run_log("stable_diffusion", minutes=minutes, evals=[], **kwargs)
    for i, (n, fid, clip) in enumerate(evals):
        for metric, value in (("FID", fid), ("CLIP", clip)):
            log += mllog("eval_accuracy", value, time_ms=START_MS + round(minutes * 60000) + 1000 + i,
                         metadata={group: n * 512, "metric": metric})
    return log
