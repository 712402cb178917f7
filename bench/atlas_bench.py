"""Benchmark: the atlas's corpus scoring, on the whole MLPerf corpus and on one round against the
official MLPerf result summarizer on the same round.

The corpus is a folder holding the published training_results_v0.7 ... v5.1 trees, named by the
environment variable ATLAS_CORPUS; without it the benchmark returns no rows (skipped cleanly).
ATLAS_BENCH_ROUND picks the round compared with the official tool (default v1.0, the round
DESIGN.md times the official tool on; any round folder of the corpus works).

Rows (bench/harness.py measures every run in a fresh process: wall time, peak memory of the
process tree sampled from /proc, CPU time):
  1. the whole corpus: score_corpus(workers=2), every log of every round; reference: the same on
     one round (memory must stay flat in the number of files: the two peaks should be alike).
  2. one round: score_corpus(round folder, workers=2); reference: the official summarizer
     (mlperf-logging, `python -m mlperf_logging.result_summarizer <submitter> training <X.Y.0>`)
     on every submitter folder of that round, one after the other, as MLCommons runs it. The
     official tool writes scaling.json into the folders it reads, so it reads a fresh hard-linked
     copy each time, in which every existing scaling.json is a real copy (never a link to the
     corpus).
Subject and reference run alternately (harness.compare), so machine load falls on both alike.

Run: ATLAS_CORPUS=/path/to/corpus .venv/bin/python -m bench.atlas_bench [repeats]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.harness import PYTHON, REPO, Skipped, compare, machine, row, run_command

_SCORE = """
import sys, time
from pathlib import Path
from pipelines.ingest.mlperf_corpus import score_corpus
scores, runs, systems = score_corpus(Path(sys.argv[1]), workers=int(sys.argv[2]), keep_runs=False)
print(scores.height, "entries", int(scores["runs"].fill_null(0).sum()), "result files")
"""

_OFFICIAL = """
import subprocess, sys
from pathlib import Path
round_dir, ruleset, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
for submitter in sorted(p for p in round_dir.iterdir() if (p / "results").is_dir()):
    subprocess.run([sys.executable, "-m", "mlperf_logging.result_summarizer", str(submitter), "training", ruleset,
                    "--csv", str(out / (submitter.name + ".csv"))], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=out, check=False)
"""


def corpus() -> Path | None:
    value = os.environ.get("ATLAS_CORPUS", "").strip()
    return Path(value).expanduser() if value else None


def _stats(root: Path) -> tuple[int, float]:
    files = [p for p in root.glob("training_results_v*/*/results/**/result_*.txt")]
    return len(files), sum(p.stat().st_size for p in files) / 1e9


def _fresh_copy(source: Path, dest: Path) -> None:
    """Hard-linked copy of a round for the official tool; scaling.json files are real copies."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-al", str(source), str(dest)], check=True)
    for scaling in dest.rglob("scaling.json"):
        data = scaling.read_bytes()
        scaling.unlink()
        scaling.write_bytes(data)


def measure(repeats: int = 1) -> list[dict]:
    root = corpus()
    if root is None or not root.is_dir():
        raise Skipped("set ATLAS_CORPUS to a folder holding the training_results_v0.7 ... v5.1 trees "
                      "(make bench ATLAS_CORPUS=...)")
    round_ = os.environ.get("ATLAS_BENCH_ROUND", "v1.0")
    round_dir = root / f"training_results_{round_}"
    if not round_dir.is_dir():
        raise Skipped(f"{round_dir} is missing (ATLAS_BENCH_ROUND={round_})")
    files, gigabytes = _stats(root)
    round_files, round_gb = _round_stats(round_dir)
    score = lambda target: (lambda: run_command([PYTHON, "-c", _SCORE, str(target), "2"], sample_tree=True))  # noqa: E731
    rows = []
    whole, one = compare(score(root), score(round_dir), repeats)
    rows.append(row(f"atlas: score the whole corpus ({files:,} logs, {gigabytes:.1f} GB), 2 workers", whole,
                    f"the same on round {round_} alone ({round_files:,} logs, {round_gb:.2f} GB)", one,
                    goal_seconds=60, memory_ratio=round(max(s.peak_mib for s in whole) / max(s.peak_mib for s in one), 2)))
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as scratch:
        copy = Path(scratch) / f"training_results_{round_}"
        out = Path(scratch) / "out"
        out.mkdir()
        official = lambda: run_command([PYTHON, "-c", _OFFICIAL, str(copy), round_[1:] + ".0", str(out)])  # noqa: E731
        ours, theirs = compare(score(round_dir), official, repeats,
                               reference_setup=lambda: _fresh_copy(round_dir, copy))
    rows.append(row(f"atlas: score round {round_} ({round_files:,} logs, {round_gb:.2f} GB), 2 workers", ours,
                    f"official result summarizer on every {round_} submitter folder", theirs, goal_ratio=0.1))
    return rows


def _round_stats(round_dir: Path) -> tuple[int, float]:
    files = list(round_dir.glob("*/results/**/result_*.txt"))
    return len(files), sum(p.stat().st_size for p in files) / 1e9


def main(argv: list[str]) -> int:
    repeats = int(argv[1]) if len(argv) > 1 else 1
    try:
        rows = measure(repeats)
    except Skipped as exc:
        print(f"skipped: {exc}")
        return 0
    print(json.dumps({"machine": machine(), "rows": rows}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
