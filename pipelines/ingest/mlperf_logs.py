"""Parse one MLPerf Training result file (result_N.txt) into time to train and throughput.

Reading, as the official mlperf-logging parser does: the file is read as latin-1 (any byte is a
character, so no file fails to decode) with universal newlines, one line at a time (memory stays
flat however long the log). A line counts when it contains ``:::MLLOG ``; everything up to the
last ``:::MLLOG `` on the line is ignored (multi-process launchers prefix ``0: `` and the like),
and the rest must be one JSON object with ``time_ms``, ``key``, ``value``, ``metadata``.
``event_type`` is optional (the v0.7 TensorFlow loggers omit it). Other lines are ignored.

A line cut off mid-JSON (or any :::MLLOG line that is not a JSON object): the official summarizer
collects it as a parse error and then rejects the whole run ("Parse error"), which counts as a
failed run in olympic scoring. We do the same: the run is dropped with the line number as reason.
(Official mlperf-logging crashes with KeyError on a JSON line without ``time_ms`` or ``key``; we
drop that run with a reason instead.)

A run counts ("scored") when all of these hold, else it is dropped with the first reason found:
  - a ``run_start`` and a ``run_stop`` are logged (the first of each counts),
  - the first ``run_stop`` is not before the first ``run_start``,
  - ``run_stop.metadata.status == "success"``,
  - some ``eval_accuracy`` anywhere in the file meets the round's quality target (mlperf_rules).
Time to train = (run_stop.time_ms - run_start.time_ms) / 60000 minutes (computed as ``/ 60 / 1000``
like the official summarizer, so that scores agree to the last bit).

Throughput, samples_per_second = samples trained / ((run_stop.time_ms - run_start.time_ms) / 1000).
It is the effective rate over the whole timed run, evaluation pauses included, which is what a
cloud bill pays for. Logged per-epoch ``throughput`` values are not used: only some submitters log
them and they leave evaluation out. Samples trained is taken only where the log states it:
  - ResNet-50: ``train_samples`` (the ImageNet training-set size, 1,281,167, logged once) times the
    ``epoch_num`` of the first eval_accuracy that meets the target (epochs completed at that eval;
    all sample logs number epochs from 1 and evaluate after epoch N with epoch_num N).
  - BERT: the last ``train_samples`` logged after run_start (NVIDIA logs the samples trained at the
    end of the run). Failing that, from v1.0 on, the ``epoch_num`` of the first eval_accuracy that
    meets the target, which the v1.0+ rules define as training samples seen (the official RCP
    checker reads it the same way). v0.7 BERT logs count eval blocks there: no throughput.
    A ``train_samples`` logged before run_start is the configured maximum, not what was trained.
  - DLRM: the last ``train_samples`` logged after run_start (samples trained).
  - Other benchmarks, dropped runs, or a log without those values: samples_per_second is None.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from pipelines.errors import InputError
from pipelines.ingest.mlperf_rules import EPOCHS, LOGGED, LOGGED_OR_EVAL, BenchmarkRule

TOKEN = ":::MLLOG "
_DECODER = json.JSONDecoder()
_KEYS = frozenset({"run_start", "run_stop", "eval_accuracy", "train_samples", "global_batch_size"})


@dataclass(frozen=True)
class RunResult:
    """One result file: minutes is None when run_start/run_stop is missing; reason None = scored."""

    path: str
    minutes: float | None
    reason: str | None
    samples: float | None = None
    samples_per_second: float | None = None

    @property
    def scored(self) -> bool:
        return self.reason is None


def _number(value: object) -> float | None:
    """A finite float from a JSON number; None for anything else (text, bool, 1e999, 10**400)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    return None


class _Run:
    """Accumulates the few facts a run's score needs while the lines stream past."""

    def __init__(self, rule: BenchmarkRule):
        self.rule = rule
        self.start: float | None = None
        self.stop: float | None = None
        self.stop_status: object = None
        self.bad_line: str | None = None
        self.first_train_samples: float | None = None
        self.train_samples_in_run: float | None = None
        self.global_batch_size: float | None = None
        self.evals: list[tuple[object, object]] = []  # (value, epoch_num) in log order

    def _bad(self, lineno: int, problem: str) -> None:
        self.bad_line = self.bad_line or f"line {lineno}: {problem}"

    def add(self, lineno: int, record: object) -> None:
        if type(record) is not dict:
            self._bad(lineno, ":::MLLOG record is not a JSON object")
            return
        key, time_ms = record.get("key"), record.get("time_ms")
        if type(key) is not str or type(time_ms) not in (int, float):
            self._bad(lineno, ":::MLLOG record without key or numeric time_ms")
            return
        if key not in _KEYS:  # most lines: valid, and nothing the score needs
            return
        metadata = record.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        value = record.get("value")
        if key in ("run_start", "run_stop"):
            at = _number(time_ms)
            if at is None:
                self._bad(lineno, f"{key} time_ms is not a finite number")
            elif key == "run_start" and self.start is None:
                self.start = at
            elif key == "run_stop" and self.stop is None:
                self.stop = at
                self.stop_status = metadata.get("status")
        elif key == "eval_accuracy":
            self.evals.append((value, metadata.get("epoch_num")))
        elif key == "train_samples" and _number(value) is not None:
            if self.first_train_samples is None:
                self.first_train_samples = _number(value)
            if self.start is not None:
                self.train_samples_in_run = _number(value)
        elif key == "global_batch_size" and self.global_batch_size is None:
            self.global_batch_size = _number(value)

    def reason(self) -> str | None:
        target = self.rule.target
        if self.bad_line:
            return f"unparseable log ({self.bad_line}); the official summarizer rejects such runs"
        if self.start is None:
            return "missing run_start"
        if self.stop is None:
            return "missing run_stop"
        if self.stop < self.start:
            return "run_stop logged before run_start"
        if self.stop_status != "success":
            return f"run_stop status is {self.stop_status!r}, not 'success'"
        if target is None:
            return f"quality target of {self.rule.benchmark} {self.rule.round} is not checked by this parser"
        if self._target_epoch() is None:
            return f"quality target not reached (needs {target.describe()})"
        return None

    def _target_epoch(self) -> tuple[object] | None:
        """(epoch_num,) of the first eval that meets the target, None if none does."""
        target = self.rule.target
        for value, epoch in self.evals:
            if target is not None and target.reached(value, self.global_batch_size):
                return (epoch,)
        return None

    def samples(self) -> float | None:
        basis = self.rule.samples_basis
        hit = self._target_epoch()
        epoch = _number(hit[0]) if hit else None
        if basis == EPOCHS:
            if self.first_train_samples is None or epoch is None:
                return None
            return self.first_train_samples * epoch
        if basis in (LOGGED, LOGGED_OR_EVAL) and self.train_samples_in_run is not None:
            return self.train_samples_in_run
        if basis == LOGGED_OR_EVAL:
            return epoch
        return None


def parse_result_file(path: Path, rule: BenchmarkRule) -> RunResult:
    """Score one result file under ``rule``; unreadable file -> InputError, bad content -> dropped."""
    run = _Run(rule)
    try:
        with open(path, encoding="latin-1") as lines:
            for lineno, line in enumerate(lines, start=1):
                at = line.rfind(TOKEN)
                if at < 0:
                    continue
                text = line[at + len(TOKEN):].strip()
                try:
                    record, end = _DECODER.raw_decode(text)  # json.loads minus its whitespace scans
                    if end != len(text):
                        raise ValueError("extra data")
                except (ValueError, RecursionError):
                    run._bad(lineno, "cut off or invalid JSON")
                    continue
                run.add(lineno, record)
    except OSError as error:
        raise InputError(path, None, f"cannot read result file: {error.strerror or error}") from None

    minutes = None
    if run.start is not None and run.stop is not None:
        minutes = (run.stop - run.start) / 60 / 1000  # the official tool's arithmetic, bit for bit
    reason = run.reason()
    if reason is not None:
        return RunResult(str(path), minutes, reason)
    samples = run.samples()
    seconds = (run.stop - run.start) / 1000.0  # type: ignore[operator]
    rate = samples / seconds if samples and samples > 0 and seconds > 0 else None
    return RunResult(str(path), minutes, None, samples if rate else None, rate)
