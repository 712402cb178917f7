"""Global batch size and samples to converge of a benchmark folder, as the official summarizer reports them.

The official result summarizer (mlperf-logging 4.1.68, ``_compute_strong_scaling_scores``) writes
``<benchmark>:GBS`` and ``<benchmark>:samples_to_converge`` in its detailed CSV for closed-division
entries, from its RCP checker's reading of every result file of the folder (compliant or not):

- per file (``read_submission_file``), over the ``:::MLLOG`` lines in order: the batch size is the
  value of the last line that mentions ``global_batch_size``, the benchmark that of the last line
  that mentions ``submission_benchmark``; every line that mentions ``eval_accuracy`` or
  ``eval_error`` sets the point reached: ``metadata.samples_count`` for the LLM benchmarks,
  ``metadata.epoch_num`` rounded to 3 places for the others (BERT logs samples there, the others
  epochs); for Stable Diffusion each eval step (``samples_count``, v3.1 ``step_num``) keeps its FID
  and CLIP, and the point is the first step with FID <= 90 and CLIP >= 0.15. A ``run_stop`` with
  status ``success`` takes the point reached; any other run_stop marks the file not converged;
- per folder (``get_submission_epochs``): the files must agree on batch size and benchmark (else
  the batch size is -1 and there are no samples), more than one file not converged (more than four
  for unet3d) leaves no samples, and samples to converge is the olympic mean of the points with one
  dropped at each end (a file not converged counts as 1e9, so it is the one dropped);
- only where the RCP checker can run: a benchmark it knows (its ``submission_runs``) with an RCP
  file in the package for that round (v1.0 on; both read from the package, as the tool reads them). Where the tool's
  reading raises (a value of the wrong type, a success without an eval before it, a cut-off line it
  has to decode), it prints a warning and reports neither.

``samples_to_converge`` here is the tool's figure in the tool's unit (samples or epochs by
benchmark and round); domain.mlperf.training_samples turns it into training samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from pipelines.domain.mllog import TOKEN, LogLine

NOT_CONVERGED = 1e9  # what the official reader counts for a run that did not converge
_SAMPLE_COUNT_BENCHMARKS = frozenset({"llama2_70b_lora", "flux1", "llama31_405b", "llama31_8b", "gpt_oss_20b",
                                      "deepseekv3_671b", "qwen35_397b_grpo"})
_FID_AT_MOST, _CLIP_AT_LEAST = 90.0, 0.15  # the Stable Diffusion convergence test of the RCP reader
_RCP_PACKAGE = "mlperf_logging.rcp_checker"


class Unreadable(Exception):
    """The official RCP reader raises on this file: the folder gets no batch size and no samples."""


@dataclass(frozen=True)
class FileReading:
    """What the official RCP reader takes from one result file."""

    batch_size: object  # as logged (int or float); -1 when no line gives one
    benchmark: object  # the logged submission_benchmark, None when none
    point: float  # epochs or samples at convergence; NOT_CONVERGED when the run did not converge


@dataclass(frozen=True)
class Convergence:
    global_batch_size: int | None
    samples_to_converge: float | None  # in the tool's unit (see module docstring)


NONE = Convergence(None, None)


def _eval_point(record: dict, benchmark: object, ruleset: str, sd_evals: dict) -> object:
    metadata = record["metadata"]
    if benchmark == "stable_diffusion":
        step = metadata["step_num" if ruleset == "3.1.0" else "samples_count"]
        sd_evals.setdefault(step, {})[metadata["metric"]] = record["value"]
        return None
    if benchmark in _SAMPLE_COUNT_BENCHMARKS:
        return metadata["samples_count"]
    return round(metadata["epoch_num"], 3)


def read_file(lines: list[LogLine], unparsed: list[str], ruleset: str) -> FileReading:
    """One file as the official RCP reader reads it; Unreadable where that reader raises.

    ``unparsed`` holds the :::MLLOG lines that are not JSON records: the reader fails on one only
    if it mentions a key it decodes."""
    for text in unparsed:
        if any(key in text for key in ("global_batch_size", "submission_benchmark", "eval_accuracy", "eval_error",
                                        "run_stop")):
            raise Unreadable(f"cannot decode {text[:60]!r}")
    batch, benchmark, point, reached = -1, None, NOT_CONVERGED, None
    sd_evals: dict = {}
    try:
        for line in lines:
            body = line.full_string[len(TOKEN):]
            if "global_batch_size" in body:
                batch = line.value["value"]
            if "submission_benchmark" in body:
                benchmark = line.value["value"]
            if "eval_error" in body or "eval_accuracy" in body:
                found = _eval_point(line.value, benchmark, ruleset, sd_evals)
                reached = found if found is not None else reached
            if "run_stop" in body and line.key == "run_stop":
                if line.value["metadata"]["status"] != "success":
                    point = NOT_CONVERGED
                elif benchmark == "stable_diffusion":
                    point = min(step for step, r in sd_evals.items()
                                if r["FID"] <= _FID_AT_MOST and r["CLIP"] >= _CLIP_AT_LEAST)
                elif reached is None:
                    raise Unreadable("a successful run_stop before any eval")
                else:
                    point = reached
    except (KeyError, TypeError, ValueError) as error:
        raise Unreadable(f"{type(error).__name__} {error}") from None
    return FileReading(batch, benchmark, point)


@cache
def _rcp_benchmarks() -> frozenset[str]:
    """The benchmarks the RCP checker knows (its submission_runs; imported late: it loads scipy)."""
    from mlperf_logging.rcp_checker.rcp_checker import submission_runs
    return frozenset(submission_runs["training"])


def has_rcps(ruleset: str, benchmark: object) -> bool:
    """Can the RCP checker run on this benchmark in this round? It needs the benchmark among those it
    knows and an RCP file in the package (v1.0 DLRM has a file but is not known: the tool raises)."""
    folder = resources.files(_RCP_PACKAGE) / f"training_{ruleset}"
    return (isinstance(benchmark, str) and benchmark in _rcp_benchmarks()
            and (folder / f"rcps_{benchmark}.json").is_file())


def folder_convergence(readings: list[FileReading | None], ruleset: str, division: str | None) -> Convergence:
    """The folder's global batch size and samples to converge; ``None`` in readings = an Unreadable file."""
    if division != "closed" or not readings or any(r is None for r in readings):
        return NONE
    batch, benchmark = -1, None
    for reading in readings:
        if batch == -1:
            batch = reading.batch_size
        elif reading.batch_size != batch:
            return NONE
        if benchmark is None:
            benchmark = reading.benchmark
        elif reading.benchmark != benchmark:
            return NONE
    if not has_rcps(ruleset, benchmark):
        return NONE
    gbs = _whole(batch)
    not_converged = sum(1 for r in readings if r.point == NOT_CONVERGED)
    if not_converged > (4 if benchmark == "unet3d" else 1) or len(readings) < 3:
        return Convergence(gbs, None)
    points = sorted(float(r.point) for r in readings)
    # np.mean, as the summarizer takes it: its pairwise sum can differ from sum() in the last bit (8 runs and more)
    return Convergence(gbs, float(np.mean(points[1:-1])))


def _whole(batch: object) -> int | None:
    """A logged batch size as a whole number; -1 (none found) or anything else -> None."""
    if isinstance(batch, bool) or not isinstance(batch, (int, float)):
        return None
    return int(batch) if batch > 0 and batch == int(batch) else None
