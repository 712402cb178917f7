"""Energy of MLPerf Training power results, scored as the official result summarizer scores it.

Layout (MLPerf Training v4.0 on): a benchmark folder with a ``power/`` folder holds, for every
result file ``result_N.txt``, the power logs of that run::

    results/<system>/<benchmark>/power/result_N/node_K.txt   one per measured node (SUT)
    results/<system>/<benchmark>/power/result_N/sw_M.txt     one per interconnect switch

The logs use the ``:::MLLOG {json}`` line format of the result files, with the keys
``power_measurement_start``, ``power_measurement_stop``, ``power_reading`` (watts),
``conversion_eff`` (AC/DC efficiency) and ``interconnect_power_est`` (watts).

How the official summarizer (mlperf-logging 4.1.68, result_summarizer._compute_total_power,
_compute_power_node, _compute_power_sw, _index_olympic_average) scores them, and so do we:

- Node log: the records are sorted by time (a stable sort: equal times keep their file order).
  Every power_reading after power_measurement_start and before power_measurement_stop adds
  reading x (its time - the previous reading's time, or the start's for the first one), in
  watt-milliseconds. Node energy (J) = conversion_eff x that sum x time to train (ms) /
  (stop - start) (ms) / 1000: the average power over the measurement window, times conversion_eff,
  times the run's time to train. The last conversion_eff in the log counts (1.0 if none).
- Switch log: interconnect_power_est (W) x conversion_eff (only one logged before the estimate
  counts) x time to train (ms) / 1000. power_reading lines in a switch log are ignored.
- A run's energy is the sum over its node and switch logs. Time to train is the run's
  run_stop - run_start of its result file.
- Entry: the same runs as the time score count. The scored runs are ordered by time to train, the
  ``max_failures`` fastest and ``max_failures - failed runs`` slowest are dropped (olympic
  scoring), their energies are averaged and multiplied by scaling.json's factor.

Where the official tool fails or departs from the written rules (training_policies
power_measurement.adoc: "sum(a power reading x duration between the previous reading and the
current reading)" for measured components, "maximum specified power x duration of a run" for
estimated ones), we follow the rules and flag the entry with the reason:

- a node log whose power_measurement_stop equals its power_measurement_start (MLPerf v4.0
  Sustainable Metal Cloud logs write the stop with the start's time at the end of the log): the
  official tool divides by zero. We treat the stop as not logged and take the last reading as
  the stop, as the official tool itself does for a log without a stop;
- a switch log that writes power_reading and no interconnect_power_est (v4.1 Dell): the official
  tool counts it as 0 J. The rules say measured power counts, so we score it as a node log.

``official_energy_joules`` keeps what the official tool computes (None where it cannot compute a
number, e.g. the division by zero above), so the departures stay visible and testable.

Bad power logs never give a silent zero. An unusable log (no power_measurement_start, a
power_measurement_stop before the start, a reading that is not a number, negative or absurd,
no reading in the measurement window, a conversion_eff outside (0, 1], a switch log with neither
an estimate nor readings, a run without node logs) leaves its run without energy and says why;
a doubtful one (no power_measurement_stop, no conversion_eff, a line that is not a JSON record, fewer
node logs than the system has nodes) is scored as the official tool scores it and flagged. With
``strict=True`` both raise InputError naming the file and line; the two known departures above
are flagged, never raised.

How the scoring walker (mlperf.tree.score_task) calls it, per benchmark folder with ``power/``,
after the time score (the same runs, the same scaling.json factor; the systems JSON's nodes)::

    power = score_power(Path(task.path), runs, rule.max_failures, row["time_to_train_minutes"],
                        row["scaling_factor"] or 1.0, number_of_nodes=task.number_of_nodes, strict=strict)
    row |= score_columns(power)                                 # mlperf_scores
    for run_row, extra in zip(run_rows, run_columns(power, runs)):
        run_row |= extra                                        # mlperf_runs
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import polars as pl

from pipelines.domain.mllog import TOKEN, mllog_lines
from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import read_bytes
from pipelines.ingest.mlperf.power_integral import (EFFICIENCY, ESTIMATE, READING, START, STOP, Window, integrate,
                                                    node_joules, switch_estimate, switch_joules)

_KEYS = frozenset({START, STOP, READING, EFFICIENCY, ESTIMATE})

# A reading above this is no real measurement of one node or switch: a whole GB200 NVL72 rack
# (72 GPUs, 36 CPUs, its switches) draws about 130 kW.
MAX_WATTS = 1_000_000.0
JOULES_PER_KWH = 3_600_000.0

SCORE_COLUMNS = {
    "energy_joules": pl.Float64, "energy_kwh": pl.Float64, "official_energy_joules": pl.Float64,
    "energy_runs": pl.Int64, "energy_note": pl.Utf8,
}
RUN_COLUMNS = {
    "energy_joules": pl.Float64, "energy_kwh": pl.Float64, "official_energy_joules": pl.Float64,
    "power_nodes": pl.Int64, "power_switches": pl.Int64, "energy_averaged": pl.Boolean,
    "energy_note": pl.Utf8,
}


class ScoredRun(Protocol):
    """What the walker knows of one result file (mlperf.logs.RunResult has these)."""

    path: str
    minutes: float | None

    @property
    def scored(self) -> bool: ...


@dataclass(frozen=True)
class Issue:
    """Something wrong in one power log. kind: 'unusable' (no energy), 'doubtful' (scored as the
    official tool scores it, flagged) or 'departure' (scored by the rules, flagged)."""

    kind: str
    path: str
    where: str | None
    text: str

    def __str__(self) -> str:
        place = Path(self.path).name + (f" {self.where}" if self.where else "")
        return f"{place}: {self.text}"


@dataclass(frozen=True)
class _Record:
    line: int
    time_ms: float
    key: str
    value: object


@dataclass(frozen=True)
class LogEnergy:
    """One node or switch log of one run; joules None when the log is unusable."""

    path: str
    joules: float | None
    official_joules: float | None
    issues: tuple[Issue, ...] = ()


@dataclass(frozen=True)
class RunEnergy:
    """One run: the sum over its power logs (None when a log is unusable or none exists)."""

    run_file: str
    joules: float | None
    official_joules: float | None
    nodes: int
    switches: int
    issues: tuple[Issue, ...] = ()
    averaged: bool = False

    @property
    def problem(self) -> str | None:
        return next((str(i) for i in self.issues if i.kind == "unusable"), None)

    @property
    def flags(self) -> list[Issue]:
        return [i for i in self.issues if i.kind != "unusable"]


@dataclass(frozen=True)
class PowerScore:
    """A benchmark folder's measured energy per training run (olympic mean x scaling factor)."""

    joules: float | None
    official_joules: float | None
    runs_averaged: int
    note: str | None
    runs: tuple[RunEnergy, ...] = field(default=())

    @property
    def kwh(self) -> float | None:
        return None if self.joules is None else self.joules / JOULES_PER_KWH


# ---- reading one power log -------------------------------------------------------------------

def _number(value: object) -> float | None:
    """A finite float from a JSON number; None for text, bool, null, NaN or infinity."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _time(value: object) -> float | None:
    """time_ms as the official parser reads it (float(), so "1715341078316" counts too)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    return _number(value)


def read_power_log(path: Path) -> tuple[list[_Record], list[Issue]]:
    """The power records of one log, in file order, and the lines that are no records.

    Read as the official parser reads: latin-1, universal newlines, the text after the last
    ``:::MLLOG `` of a line parsed as JSON. A line that does not parse is skipped, as the official
    summarizer skips it (it collects such lines as parse errors and does not look at them again).
    """
    records: list[_Record] = []
    issues: list[Issue] = []
    for number, line in mllog_lines(io.BytesIO(read_bytes(path))):
        try:
            record = json.loads(line[len(TOKEN):].strip())
        except (ValueError, RecursionError):
            record = None
        time_ms = _time(record.get("time_ms")) if isinstance(record, dict) else None
        key = record.get("key") if isinstance(record, dict) else None
        if time_ms is None or not isinstance(key, str):
            issues.append(Issue("doubtful", str(path), f"line {number}",
                                "not a :::MLLOG record with key and time_ms; skipped, as the official summarizer does"))
            continue
        if key in _KEYS:
            records.append(_Record(number, time_ms, key, record.get("value")))
    return records, issues


# ---- node logs -------------------------------------------------------------------------------

def _integrate(records: list[_Record], ignore_stop_at: float | None = None) -> Window:
    """The one integration of a node log's readings (power_integral.integrate, as the official tool's)."""
    return integrate([(r.time_ms, r.key, r.value) for r in records], ignore_stop_at)


def _check_values(path: Path, records: list[_Record], *keys: str) -> Issue | None:
    """The first reading or estimate that is not a number, negative or absurd."""
    for record in records:
        if record.key not in keys:
            continue
        value = _number(record.value)
        problem = None
        if value is None:
            problem = f"{record.key} {record.value!r} is not a number"
        elif value < 0:
            problem = f"{record.key} {record.value} W is negative"
        elif value > MAX_WATTS:
            problem = f"{record.key} {record.value} W is absurd (more than {MAX_WATTS:,.0f} W for one node or switch)"
        if problem:
            return Issue("unusable", str(path), f"line {record.line}", problem)
    return None


def _efficiency(path: Path, records: list[_Record], value: object) -> tuple[float | None, Issue | None]:
    """conversion_eff: a number in (0, 1]; missing -> 1.0 as the official summarizer, flagged."""
    if value is None and not any(r.key == EFFICIENCY for r in records):
        return 1.0, Issue("doubtful", str(path), None,
                          "no conversion_eff; taken as 1.0, as the official summarizer does")
    number = _number(value)
    if number is None or not 0 < number <= 1:
        line = next(r.line for r in reversed(records) if r.key == EFFICIENCY)
        return None, Issue("unusable", str(path), f"line {line}",
                           f"conversion_eff {value!r} is not a fraction in (0, 1]")
    return number, None


def _official_node(window: Window, ttt_ms: float) -> float | None:
    """What _compute_power_node returns; None where it raises (no start, a zero-length window)."""
    efficiency = 1.0 if window.efficiency is None else _number(window.efficiency)
    if window.start is None or window.end == window.start or efficiency is None:
        return None
    return node_joules(efficiency, window, ttt_ms)


def _measured(path: Path, records: list[_Record], ttt_ms: float) -> LogEnergy:
    """Energy from power readings (a node log, or a switch log that measures)."""
    if any(r.key == READING and _number(r.value) is None for r in records):
        return LogEnergy(str(path), None, None, (_check_values(path, records, READING),))  # type: ignore[arg-type]
    window = _integrate(records)
    official = _official_node(window, ttt_ms)
    bad = _check_values(path, records, READING)
    if bad:
        return LogEnergy(str(path), None, official, (bad,))
    issues: list[Issue] = []

    def unusable(text: str, where: str | None = None) -> LogEnergy:
        return LogEnergy(str(path), None, official, (*issues, Issue("unusable", str(path), where, text)))

    if window.start is None:
        return unusable(f"no {START}")
    if window.stop is not None and window.stop == window.start:
        issues.append(Issue("departure", str(path), None,
                            f"{STOP} has the start's time: the official summarizer divides by zero; "
                            "the last power_reading is taken as the stop, as it does for a log without a stop"))
        window = _integrate(records, ignore_stop_at=window.start)
    elif window.stop is None:
        issues.append(Issue("doubtful", str(path), None,
                            f"no {STOP}; the last power_reading is taken as the stop, as the official summarizer does"))
    if window.stop is not None and window.stop < window.start:  # type: ignore[operator]
        return unusable(f"{STOP} ({window.stop:.0f} ms) is before {START} ({window.start:.0f} ms)")
    if window.readings == 0 or window.end <= window.start:  # type: ignore[operator]
        return unusable(f"no {READING} between {START} and {STOP}")
    efficiency, problem = _efficiency(path, records, window.efficiency)
    if problem and problem.kind == "unusable":
        return unusable(problem.text, problem.where)
    issues += [problem] if problem else []
    return LogEnergy(str(path), node_joules(efficiency, window, ttt_ms), official, tuple(issues))


def node_energy(path: Path, ttt_ms: float) -> LogEnergy:
    """Energy (J) of one node log over a run of ``ttt_ms`` milliseconds."""
    records, issues = read_power_log(path)
    energy = _measured(path, records, ttt_ms)
    return LogEnergy(energy.path, energy.joules, energy.official_joules, (*issues, *energy.issues))


# ---- switch logs -----------------------------------------------------------------------------

def switch_energy(path: Path, ttt_ms: float) -> LogEnergy:
    """Energy (J) of one interconnect log over a run of ``ttt_ms`` milliseconds."""
    records, issues = read_power_log(path)
    efficiency, _, estimated = switch_estimate([(r.time_ms, r.key, r.value) for r in records])
    estimate = next((r for r in records if r.key == ESTIMATE), None) if estimated else None  # the one counted
    has_readings = any(r.key == READING for r in records)
    if estimate is None:
        if not has_readings:
            return LogEnergy(str(path), None, 0.0, (*issues, Issue(
                "unusable", str(path), None,
                f"neither {ESTIMATE} nor {READING} (the official summarizer counts 0 J)")))
        measured = _measured(path, records, ttt_ms)
        departure = Issue("departure", str(path), None,
                          f"writes {READING} and no {ESTIMATE}: the official summarizer counts 0 J; "
                          "counted as measured power, as the rules say")
        return LogEnergy(str(path), measured.joules, 0.0, (*issues, departure, *measured.issues))
    number, watts = _number(efficiency), _number(estimate.value)
    official = None if number is None or watts is None else switch_joules(number, watts, ttt_ms)
    bad = _check_values(path, [estimate], ESTIMATE)
    if bad is None and (number is None or not 0 < number <= 1):
        bad = Issue("unusable", str(path), None, f"conversion_eff {efficiency!r} is not a fraction in (0, 1]")
    if bad:
        return LogEnergy(str(path), None, official, (*issues, bad))
    if has_readings:
        issues.append(Issue("doubtful", str(path), None,
                            f"writes both {ESTIMATE} and {READING}; the estimate counts, as the official summarizer does"))
    return LogEnergy(str(path), official, official, tuple(issues))


# ---- runs and benchmark folders --------------------------------------------------------------

def result_name(run_file: str | Path) -> str:
    """'result_3.txt' -> 'result_3': the official summarizer's name of a run's power folder."""
    return Path(run_file).name.split(".")[0]


def _logs(folder: Path, pattern: str) -> list[Path]:
    try:
        return sorted(folder.glob(pattern))
    except OSError:
        return []


def run_energy(benchmark_dir: Path, run_file: str | Path, minutes: float,
               number_of_nodes: int | None = None) -> RunEnergy:
    """Energy (J) of one run: its node logs plus its switch logs, over its time to train."""
    folder = Path(benchmark_dir) / "power" / result_name(run_file)
    ttt_ms = minutes * 60 * 1000
    nodes, switches = _logs(folder, "node_*.txt"), _logs(folder, "sw_*.txt")
    if not nodes:
        issue = Issue("unusable", str(folder), None, "no node_*.txt power log for this run "
                      "(the official summarizer stops with an AssertionError)")
        return RunEnergy(str(run_file), None, None, 0, len(switches), (issue,))
    logs = []
    for path, score in [(p, node_energy) for p in nodes] + [(p, switch_energy) for p in switches]:
        try:
            logs.append(score(path, ttt_ms))
        except InputError as error:  # unreadable: a directory, a FIFO, a dangling link
            logs.append(LogEnergy(str(path), None, None, (Issue("unusable", str(path), error.where or None, error.problem),)))
    issues = [issue for log in logs for issue in log.issues]
    if number_of_nodes is not None and len(nodes) != number_of_nodes:
        issues.append(Issue("doubtful", str(folder), None, f"power logs of {len(nodes)} nodes; the system has "
                            f"{number_of_nodes} (the rules: measure all nodes)"))
    joules = None if any(log.joules is None for log in logs) else sum(log.joules for log in logs)  # type: ignore[misc]
    official = None if any(log.official_joules is None for log in logs) else sum(
        log.official_joules for log in logs)  # type: ignore[misc]
    return RunEnergy(str(run_file), joules, official, len(nodes), len(switches), tuple(issues))


def olympic_kept(runs: Sequence[ScoredRun], max_failures: int) -> list[int]:
    """Indexes of the runs the time score averages: scored runs ordered by time (ties keep their
    order), without the ``max_failures`` fastest and ``max_failures - failed`` slowest."""
    scored = [i for i, run in enumerate(runs) if run.scored]
    failures = len(runs) - len(scored)
    if failures > max_failures:
        return []
    ordered = sorted(scored, key=lambda i: runs[i].minutes)  # type: ignore[arg-type,return-value]
    return ordered[max_failures: len(ordered) - (max_failures - failures)]


def has_power(benchmark_dir: Path) -> bool:
    """True when the folder holds power results (a power/ subfolder, as the official tool checks)."""
    return (Path(benchmark_dir) / "power").is_dir()


def score_power(benchmark_dir: Path, runs: Sequence[ScoredRun], max_failures: int,
                time_to_train_minutes: float | None, scaling_factor: float = 1.0, *,
                number_of_nodes: int | None = None, strict: bool = False) -> PowerScore | None:
    """Measured energy per training run of one benchmark folder; None without a power/ folder.

    ``runs``: every result file of the folder as the time score saw it; ``time_to_train_minutes``:
    that score (scaled; None when the folder has none, and then neither has energy). The energy
    averages the same runs: a time score that these runs do not give is a caller's error
    (ValueError). Only scored runs get an energy. ``strict``: InputError for a bad power log
    instead of a flagged entry.
    """
    benchmark_dir = Path(benchmark_dir)
    if not has_power(benchmark_dir):
        return None
    kept = olympic_kept(runs, max_failures)
    if time_to_train_minutes is not None:
        mean = sum(runs[i].minutes for i in kept) / len(kept) * scaling_factor if kept else None  # type: ignore[misc]
        if mean is None or not math.isclose(mean, time_to_train_minutes, rel_tol=1e-9):
            raise ValueError(f"{benchmark_dir}: the runs give a time score of {mean}, not {time_to_train_minutes}")
    results: list[RunEnergy] = []
    for i, run in enumerate(runs):
        if not run.scored or run.minutes is None:
            results.append(RunEnergy(str(run.path), None, None, 0, 0))
            continue
        energy = run_energy(benchmark_dir, run.path, run.minutes, number_of_nodes)
        if strict:
            bad = next((issue for issue in energy.issues if issue.kind != "departure"), None)
            if bad:
                raise InputError(bad.path, bad.where, bad.text)
        results.append(RunEnergy(energy.run_file, energy.joules, energy.official_joules, energy.nodes,
                                 energy.switches, energy.issues, averaged=i in kept))
    scored = [i for i, run in enumerate(runs) if run.scored and run.minutes is not None]
    return _entry(results, scored, kept, time_to_train_minutes, scaling_factor)


def summarize(issues: list[Issue], shown: int = 3) -> list[str]:
    """One line per distinct text, naming the logs it concerns: 'text (node_0.txt ... 8 logs)'."""
    files: dict[str, list[str]] = {}
    for issue in issues:
        name = Path(issue.path).name + (f" {issue.where}" if issue.where else "")
        names = files.setdefault(issue.text, [])
        if name not in names:
            names.append(name)
    lines = []
    for text, names in files.items():
        listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
        lines.append(f"{listed}: {text}")
    return lines


def _entry(results: list[RunEnergy], scored: list[int], kept: list[int], time_score: float | None,
           factor: float) -> PowerScore:
    """The olympic mean of the kept runs' energies x factor, and what the entry must say."""
    notes = summarize([flag for i in scored for flag in results[i].flags])
    notes += [f"{result_name(results[i].run_file)} (not averaged): {results[i].problem}"
              for i in scored if i not in kept and results[i].problem]
    official = None  # the official tool computes every scored run's energy, or stops
    if kept and all(results[i].official_joules is not None for i in scored):
        official = sum(results[i].official_joules for i in kept) / len(kept) * factor  # type: ignore[misc]
    if time_score is None:
        return PowerScore(None, None, 0, "; ".join(["no time score, so no energy", *notes]), tuple(results))
    missing = next((results[i] for i in kept if results[i].joules is None), None)
    if missing is not None:
        why = f"no energy: {result_name(missing.run_file)}: {missing.problem}"
        return PowerScore(None, official, 0, "; ".join([why, *notes]), tuple(results))
    joules = sum(results[i].joules for i in kept) / len(kept) * factor  # type: ignore[misc]
    return PowerScore(joules, official, len(kept), "; ".join(notes) or None, tuple(results))


# ---- rows for mlperf_scores / mlperf_runs ----------------------------------------------------

def score_columns(score: PowerScore | None) -> dict:
    """The SCORE_COLUMNS of one entry (all None when the folder has no power results)."""
    if score is None:
        return {name: None for name in SCORE_COLUMNS}
    return {
        "energy_joules": score.joules, "energy_kwh": score.kwh, "official_energy_joules": score.official_joules, "energy_runs": score.runs_averaged or None,
        "energy_note": score.note,
    }


def run_columns(score: PowerScore | None, runs: Sequence[ScoredRun]) -> list[dict]:
    """The RUN_COLUMNS of each of ``runs`` (the list given to score_power), in that order."""
    if score is None:
        return [{name: None for name in RUN_COLUMNS} for _ in runs]
    rows = []
    for run in score.runs:
        note = "; ".join(([run.problem] if run.problem else []) + summarize(run.flags)) or None
        measured = run.nodes > 0
        rows.append({
            "energy_joules": run.joules,
            "energy_kwh": None if run.joules is None else run.joules / JOULES_PER_KWH,
            "official_energy_joules": run.official_joules,
            "power_nodes": run.nodes if measured else None,
            "power_switches": run.switches if measured else None,
            "energy_averaged": run.averaged,
            "energy_note": note,
        })
    return rows
