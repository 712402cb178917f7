"""One MLPerf Training result file (result_N.txt): its official verdict, time to train and throughput.

Reading, as the official parser (mlperf-logging's ``mlp_parser``, rulesets 0.7.0 on) reads it: the
file is read as latin-1 (any byte is a character) with universal newlines. A line counts when it
contains ``:::MLLOG ``; everything before the last ``:::MLLOG `` is dropped (launchers prefix
``0: `` and the like), the line is stripped, and the rest must be one JSON value. A line that is
not JSON, or whose ``time_ms`` is text that is not a number, is a parse error: the compliance
checker then fails the run. A JSON line that is not an object with ``time_ms``, ``key``, ``value``
and ``metadata`` makes the official tool raise (KeyError/TypeError) and stop on the whole
submitter folder: such a run is reported with ``crash`` set.

Verdict, as the official result summarizer (``_read_result_file``) gives it: a run counts when
the compliance checker passes the log under the round's rules (mlperf.compliance: required keys,
hyperparameter checks, quality target), and has a ``run_start`` and a ``run_stop``. Time to train
= (run_stop - run_start) / 60 / 1000 minutes, with run_start and run_stop picked as the official
tool picks them (it walks the lines and stops as soon as it has seen both: the first run_stop
after the last run_start before it). The checker does not look at run_stop's status: a run
marked "aborted" that reached the target counts, as it does for MLCommons.

Throughput, samples_per_second = samples trained / ((run_stop - run_start) / 1000 s): the rate
over the whole timed run, evaluation pauses included (what a cloud bill pays for). Samples
trained only where the log states them (domain.mlperf samples_basis):
  - ResNet-50: ``train_samples`` (the ImageNet training-set size, logged once) times the
    ``epoch_num`` of the first eval_accuracy that meets the checker's target;
  - BERT: the last ``train_samples`` logged after run_start (NVIDIA logs samples trained at the
    end); failing that, from v1.0 on, the ``epoch_num`` of the first eval that meets the target,
    which the v1.0+ rules define as samples seen. v0.7 BERT counts eval blocks there: none;
  - DLRM: the last ``train_samples`` logged after run_start;
  - other benchmarks, or a log without those values: None.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.domain.errors import InputError
from pipelines.domain.mllog import TOKEN, LogLine, mllog_lines
from pipelines.ingest.mlperf.compliance import OfficialCrash, check
from pipelines.ingest.mlperf.convergence import FileReading, Unreadable, read_file
from pipelines.domain.mlperf import EPOCHS, LOGGED, LOGGED_OR_EVAL, BenchmarkRule

_DECODER = json.JSONDecoder()
_SHOWN_MESSAGES = 3  # of the checker's messages in a run's reason, each cut to _MESSAGE_CHARS
_MESSAGE_CHARS = 160


@dataclass(frozen=True)
class RunResult:
    """One result file. reason None = the run counts; crash = where the official tool stops."""

    path: str
    minutes: float | None
    reason: str | None
    samples: float | None = None
    samples_per_second: float | None = None
    crash: str | None = None
    convergence: FileReading | None = None  # what the official RCP reader takes from it; None: it raises

    @property
    def scored(self) -> bool:
        return self.reason is None


@dataclass
class ParsedLog:
    lines: list[LogLine]
    errors: list[str]  # "line N: problem" for each :::MLLOG line that did not parse
    unparsed: list[str] = field(default_factory=list)  # the text of those lines
    crash: str | None = None  # the first line the official parser raises on


def read_log(path: Path) -> ParsedLog:
    """Every :::MLLOG line of a result file, as the official parser reads it; unreadable -> InputError."""
    parsed = ParsedLog([], [])
    try:
        with open(path, "rb") as handle:
            for lineno, line in _token_lines(handle):
                _add(parsed, lineno, line)
    except OSError as error:
        raise InputError(path, None, f"cannot read result file: {error.strerror or error}") from None
    return parsed


def _token_lines(handle, block_bytes: int = 1 << 22):
    """(line number, ``:::MLLOG ...`` stripped) for the lines holding TOKEN, from the last TOKEN on,
    as the official parser cuts the lines of the file iterated in text mode (domain.mllog reads them)."""
    for lineno, text in mllog_lines(handle, block_bytes):
        yield lineno, text.strip()


_JSON_SPACE = " \t\n\r"


def _add(parsed: ParsedLog, lineno: int, text: str) -> None:
    """One stripped ``:::MLLOG {...}`` line into parsed: a log line, a parse error, or a crash."""
    body = text[len(TOKEN):]
    try:
        # json.loads(body) without its two whitespace regex scans (the line is stripped at its end)
        record, end = _DECODER.raw_decode(body, len(body) - len(body.lstrip(_JSON_SPACE)))
        if end != len(body):
            raise json.JSONDecodeError("Extra data", body, end)
        timestamp = float(record["time_ms"])
        value = {"value": record["value"], "metadata": record["metadata"]}
        key = record["key"]
    except ValueError as error:
        problem = "cut off or invalid JSON" if isinstance(error, json.JSONDecodeError) else "time_ms is not a number"
        parsed.errors.append(f"line {lineno}: {problem}")
        parsed.unparsed.append(text)
        return
    except (KeyError, TypeError, IndexError, OverflowError, RecursionError) as error:
        parsed.crash = parsed.crash or f"line {lineno}: {type(error).__name__} {error}"
        return
    parsed.lines.append(LogLine(text, timestamp, key, value, lineno))


def run_start_stop(lines: list[LogLine]) -> tuple[float | None, float | None]:
    """run_start and run_stop as the official summarizer picks them (see module docstring)."""
    start = stop = None
    for line in lines:
        if line.key == "run_start":
            start = line.timestamp
        if line.key == "run_stop":
            stop = line.timestamp
        if start is not None and stop is not None:
            break
    return start, stop


def _number(value: object) -> float | None:
    """A finite float from a JSON number; None for anything else (text, bool, 1e999, 10**400)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    return None


def _samples(lines: list[LogLine], basis: str | None, target: LogLine | None) -> float | None:
    first_logged = in_run = None
    started = False
    for line in lines:
        if line.key == "run_start":
            started = True
        elif line.key == "train_samples" and _number(line.value["value"]) is not None:
            first_logged = first_logged if first_logged is not None else _number(line.value["value"])
            if started:
                in_run = _number(line.value["value"])
    metadata = target.value.get("metadata") if target is not None else None
    epoch = _number(metadata.get("epoch_num")) if isinstance(metadata, dict) else None
    if basis == EPOCHS:
        return first_logged * epoch if first_logged is not None and epoch is not None else None
    if basis in (LOGGED, LOGGED_OR_EVAL) and in_run is not None:
        return in_run
    return epoch if basis == LOGGED_OR_EVAL else None


def _failed(messages: list[str], errors: list[str]) -> str:
    shown = [", ".join(errors[:_SHOWN_MESSAGES]) if m == "Log lines had parsing errors." and errors else m
             for m in messages]
    shown = [" ".join(m.split()) for m in shown]
    shown = [m if len(m) <= _MESSAGE_CHARS else m[:_MESSAGE_CHARS - 1] + "…" for m in shown]
    more = f" (and {len(shown) - _SHOWN_MESSAGES} more)" if len(shown) > _SHOWN_MESSAGES else ""
    return "fails the official compliance check: " + "; ".join(shown[:_SHOWN_MESSAGES]) + more


def parse_result_file(path: Path, rule: BenchmarkRule) -> RunResult:
    """The official verdict on one result file under ``rule``; unreadable file -> InputError."""
    parsed = read_log(path)
    if parsed.crash:
        return RunResult(str(path), None, f"the official summarizer stops on this file ({parsed.crash})",
                         crash=parsed.crash)
    start, stop = run_start_stop(parsed.lines)
    minutes = (stop - start) / 60 / 1000 if start is not None and stop is not None else None
    try:  # the RCP reader reads every file of the folder, compliant or not
        convergence = read_file(parsed.lines, parsed.unparsed, rule.ruleset)
    except Unreadable:
        convergence = None
    try:
        verdict = check(parsed.lines, rule.ruleset, len(parsed.errors))
    except OfficialCrash as error:
        return RunResult(str(path), minutes, f"the official summarizer stops on this file ({error})", crash=str(error))
    if not verdict.valid:
        return RunResult(str(path), minutes, _failed(verdict.messages, parsed.errors), convergence=convergence)
    if start is None or stop is None:
        return RunResult(str(path), minutes, f"{'run_start' if start is None else 'run_stop'} not recorded",
                         convergence=convergence)
    samples = _samples(parsed.lines, rule.samples_basis, verdict.target_line.get("eval_accuracy"))
    seconds = (stop - start) / 1000.0
    rate = samples / seconds if samples and samples > 0 and seconds > 0 else None
    return RunResult(str(path), minutes, None, samples if rate else None, rate, convergence=convergence)
