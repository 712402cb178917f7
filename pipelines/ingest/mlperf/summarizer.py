"""How the official result summarizer turns a benchmark folder's runs into a score.

Mirrors mlperf-logging 4.1.68 (``result_summarizer.py``), the tool whose scores MLCommons
publishes, and says where its score departs from the written rules:

- Runs: every ``result_*.txt`` directly in ``results/<system>/<benchmark>/``; a run that fails
  the compliance checker (mlperf.logs) is a failed run.
- Olympic mean: with k failed runs allowed (1; 4 for unet3d) and f failed (f <= k), sort the
  times of the runs that count, drop the k fastest and the k - f slowest (each failed run is one
  of the dropped slowest), and average the rest. More failures than allowed, or nothing left to
  average: no score.
- scaling.json in the benchmark folder (a review-committee decision) multiplies the score.
- A benchmark folder with ``power/`` logs: the summarizer's energy code runs on every run that
  counts, and where it raises the summarizer stops (``power_crash``).
- Systems: the summarizer skips a system without ``systems/<system>.json``. It stops with an
  error on a file that is not JSON, lacks a field its table prints, or has counts that are not
  whole numbers (it means to skip the first two, but its error handling raises) (``official_system``).
  Its scoring function (``_compute_strong_score_standalone``) reads none of those fields: where it
  stops on one of them (``crash_on_table``: v0.7 DellEMC's "number of nodes", SIAT's and Tencent's
  "divison"), the walker scores the runs by the rules with the functions below, as that function
  scores them, and keeps the crash.
- Departures from the written rules, flagged and not corrected (MLCommons published the
  summarizer's score): the summarizer does not check that a benchmark has the number of result
  files the rules require (``get_result_file_counts``: 5, 10, 40 for unet3d ...), and scores fewer.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf.logs import RunResult, read_log
from pipelines.ingest.mlperf.power_integral import integrate, node_joules, switch_estimate, switch_joules
from pipelines.domain.mlperf import BenchmarkRule
from pipelines.ingest.systems_json import PLACEHOLDERS

# The summarizer's table columns, in its order: (fields of the systems JSON it needs, how it
# computes the column). A missing field or a computation that raises (int("N/A")) stops it on the
# whole submitter folder.
_COLUMNS: tuple[tuple[tuple[str, ...], object], ...] = (
    (("division",), None),
    (("status",), None),
    (("submitter",), None),
    (("system_name",), lambda d: int(d["accelerators_per_node"]) * 2 if d["system_name"] == "tpu-v3" else None),
    (("host_processor_model_name",), None),
    (("number_of_nodes",), None),
    (("host_processor_core_count", "host_processors_per_node", "number_of_nodes"),
     lambda d: int(d["host_processors_per_node"]) * int(d["number_of_nodes"])),
    (("accelerator_model_name",), None),
    (("accelerators_per_node", "number_of_nodes"), lambda d: int(d["accelerators_per_node"]) * int(d["number_of_nodes"])),
    (("framework",), lambda d: "TensorFlow" in d["framework"] and re.search(r" commit hash = .*", d["framework"])),
    (("hw_notes", "sw_notes"), lambda d: ";".join(s for s in (d["hw_notes"], d["sw_notes"]) if s)),
)
# Division as the systems JSON spells it -> closed/open ('close' is a typo in three v0.7 files).
_DIVISIONS = {"closed": "closed", "close": "closed", "open": "open"}


@dataclass(frozen=True)
class Score:
    minutes: float | None
    reason: str | None  # why there is no score
    rule_deviation: str | None = None  # where the official score departs from the written rules


@dataclass(frozen=True)
class OfficialSystem:
    """A systems JSON as the summarizer reads it: division, or why it skips or stops on the system."""

    division: str | None
    submitter: str | None = None
    system_name: str | None = None  # as the JSON writes it (the tool's "system" column)
    skipped: str | None = None  # the summarizer skips the system's benchmarks (no score, no crash)
    crash: str | None = None  # the summarizer raises on it and stops on the submitter folder
    # the crash is on a field of the summarizer's table (missing, or a count it cannot multiply),
    # which its scoring never reads: the runs can still be scored by the rules
    crash_on_table: bool = False
    number_of_nodes: int | None = None  # a whole number of nodes, else None (the power rules: every node logs)
    # The tool writes its RCP columns (GBS, samples to converge) where the field reads "closed" to the
    # letter: not for "close" (v0.7 and v1.0 PCL spell it so), which it otherwise takes for closed.
    rcp_columns: bool = False


def olympic_mean(times: list[float], failures: int, max_failures: int) -> float | None:
    """Mean after dropping the ``max_failures`` fastest and ``max_failures - failures`` slowest.

    None when more runs failed than allowed or nothing is left to average. Summed in ascending
    order, as the summarizer sums, so the result is the same to the last bit.
    """
    if failures > max_failures:
        return None
    ordered = sorted(times)
    kept = ordered[max_failures: len(ordered) - (max_failures - failures)]
    return sum(kept) * 1.0 / len(kept) if kept else None


def score_benchmark(rule: BenchmarkRule, runs: list[RunResult], factor: float = 1.0) -> Score:
    """The summarizer's score of one benchmark folder (``factor``: its scaling.json)."""
    failures = sum(1 for run in runs if not run.scored)
    if failures > rule.max_failures:
        first = next(run for run in runs if not run.scored)
        return Score(None, f"{failures} of {len(runs)} runs fail, at most {rule.max_failures} allowed "
                           f"({Path(first.path).name}: {first.reason})")
    mean = olympic_mean([run.minutes for run in runs if run.scored], failures, rule.max_failures)  # type: ignore[misc]
    if mean is None:
        return Score(None, f"no run left after olympic scoring ({len(runs)} result files)")
    deviation = None
    if len(runs) < rule.runs_required:
        deviation = (f"{len(runs)} result files; {rule.benchmark} in {rule.round} requires {rule.runs_required} "
                     "(the official summarizer does not check the count)")
    return Score(mean * factor, None, deviation)


def scaling_factor(benchmark_dir: Path) -> float:
    """The folder's scaling.json factor (1.0 without one); unusable file -> InputError."""
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


def official_system(path: Path) -> OfficialSystem:
    """What the summarizer makes of ``systems/<system>.json`` (see the module docstring)."""
    if not path.is_file():
        return OfficialSystem(None, skipped=f"no systems JSON {path.parent.name}/{path.name}")
    try:
        with open(path, encoding="utf-8") as handle:
            desc = json.load(handle)
    except (ValueError, OSError, RecursionError) as error:
        # it means to skip such a file, but its error handler raises TypeError itself
        return OfficialSystem(None, crash=f"systems JSON {path.name} is not valid JSON ({error})")
    if not isinstance(desc, dict):
        return OfficialSystem(None, crash=f"systems JSON {path.name} is not a JSON object")
    raw = desc.get("division")
    division = _DIVISIONS.get(raw.strip().lower()) if isinstance(raw, str) else None
    submitter = _stated(desc.get("submitter"))
    system_name = _stated(desc.get("system_name"))
    for fields, compute in _COLUMNS:
        missing = [name for name in fields if name not in desc]
        if missing:
            # it means to skip the system, but its error report names an undefined variable (NameError)
            return OfficialSystem(division, submitter, system_name, crash_on_table=True,
                                  crash=f"systems JSON {path.name} has no {missing[0]!r} field")
        try:
            if compute is not None:
                compute(desc)  # type: ignore[operator]
        except Exception as error:  # noqa: BLE001 - any error stops the official tool
            values = ", ".join(f"{name}={desc[name]!r}" for name in fields)
            return OfficialSystem(division, submitter, system_name, crash_on_table=True,
                                  crash=f"systems JSON {path.name} ({values}): {type(error).__name__}: {error}")
    return OfficialSystem(division, submitter, system_name, number_of_nodes=_whole(desc.get("number_of_nodes")),
                          rcp_columns=raw == "closed")


def _stated(value: object) -> str | None:
    """A text field's value, stripped; None for a placeholder or a value that is not text."""
    return value.strip() if isinstance(value, str) and value.strip().lower() not in PLACEHOLDERS else None


def _whole(value: object) -> int | None:
    """A positive whole number from a systems JSON field ("8" or 8), else None."""
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number > 0 else None


def power_crash(benchmark_dir: Path, runs: list[RunResult]) -> str | None:
    """Where the summarizer's energy code raises on a benchmark folder with ``power/`` (it then stops).

    For every run that counts it reads ``power/<result>/node_*.txt`` (at least one) and
    ``sw_*.txt`` and integrates the power readings between power_measurement_start and _stop.
    Mirrored only to know whether that raises: no node file, no start, a stop at the start's
    timestamp (ZeroDivisionError, the v4.0 Sustainable Metal Cloud logs), values that are not
    numbers. The integration is the one the power-log module uses (power_integral); the energy
    figure itself belongs to the power-log module, not here.
    """
    if not (benchmark_dir / "power").is_dir():
        return None
    for run in runs:
        if not run.scored:
            continue
        name = Path(run.path).name.split(".")[0]
        folder = benchmark_dir / "power" / name
        nodes = sorted(folder.glob("node_*.txt"))
        if not nodes:
            return f"power/{name} has no node_*.txt (AssertionError)"
        for path, energy_of in [(p, _node_energy) for p in nodes] + [(p, _switch_energy) for p in sorted(folder.glob("sw_*.txt"))]:
            parsed = read_log(path)
            try:
                if parsed.crash:
                    raise ValueError(parsed.crash)
                energy_of(parsed.lines, run.minutes * 60_000)  # type: ignore[operator]
            except Exception as error:  # noqa: BLE001 - any error stops the official tool
                return f"power/{name}/{path.name}: {type(error).__name__}: {error}"
    return None


def _node_energy(lines: list, time_ms: float) -> float:
    """The summarizer's _compute_power_node (so it raises where that raises), with the one integration
    (power_integral): conversion_eff 1.0 unless logged, ValueError without a start."""
    window = integrate((line.timestamp, line.key, line.value["value"]) for line in lines)
    if window.start is None:
        raise ValueError("Power start timestamp not found")
    return node_joules(window.efficiency if window.efficiency_logged else 1.0, window, time_ms)


def _switch_energy(lines: list, time_ms: float) -> float:
    """The summarizer's _compute_power_sw, with the one integration (power_integral)."""
    efficiency, watts, _ = switch_estimate((line.timestamp, line.key, line.value["value"]) for line in lines)
    return switch_joules(efficiency, watts, time_ms)
