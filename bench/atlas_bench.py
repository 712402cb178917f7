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
  3. `make atlas` (pipelines.cli atlas: atlas_job in process) on the whole corpus, cold (fresh
     warehouse, round store and DAGSTER_HOME); reference: row 1's scoring alone. Peak memory is
     the process tree's (scoring workers and the PDF workers included).
  3m. the memory of row 3 against `make atlas` cold on one round alone (row 5's reference): memory
     stays flat as the corpus grows, goal peak <= 1.3x one round's and under 1 GiB. (An absolute
     500 MiB was the goal until 2026-12: the Dagster process that publishes holds ~300 MiB before it
     starts and its two PDF workers ~100-145 MiB each; BENCHMARKS.md has the measurements.)
  4. the same state after a price-only change (a new normalized snapshot repricing p4d.24xlarge);
     reference: row 3. Goal <= 0.25x; the number of result logs opened is counted by an audit hook
     in every process of the run (logs_read must be 0).
  5. after adding one round (ATLAS_BENCH_NEW_ROUND, default the newest): the corpus without that
     round is built first (not timed), then the round's folder appears and make atlas runs;
     reference: make atlas cold on that round alone. Goal <= 1.2x.
Subject and reference run alternately (harness.compare), so machine load falls on both alike;
rows 3-5 run once each, in that order, side by side in one bench run.

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

from bench.harness import PYTHON, REPO, Skipped, bench_env, compare, machine, row, run_command

RAW = REPO / "raw"  # the data set whose instances and prices the atlas is priced with: the bundled one

MEMORY_RATIO_GOAL = 1.3  # make atlas's peak on the whole corpus against one round's: flat as the corpus grows
MEMORY_CEILING_MIB = 1024

_SCORE = """
import sys, time
from pathlib import Path
from pipelines.ingest.mlperf.corpus import score_corpus
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


# make atlas, counting every result log any process of the run opens (fork keeps the audit hook).
_MAKE_ATLAS = """
import os, re, sys
log = os.environ["ATLAS_BENCH_OPENED"]
def hook(event, args):
    path = args[0] if event == "open" and isinstance(args[0], (str, os.PathLike)) else None
    if path is not None and re.search(r"/result_[^/]*\\.txt$", os.fspath(path)):
        with open(log, "a") as f:
            f.write(os.fspath(path) + "\\n")
sys.addaudithook(hook)
from pipelines.cli import main
sys.exit(main(["atlas"]))
"""


class AtlasState:
    """One atlas installation: MLPERF_DIR of symlinked rounds, RAW_DIR (a copy of raw/), warehouse,
    round store, reports and DAGSTER_HOME, all under one scratch folder."""

    def __init__(self, root: Path, corpus: Path, rounds: list[str]):
        self.root = root
        shutil.rmtree(root, ignore_errors=True)
        self.mlperf = root / "mlperf"
        self.mlperf.mkdir(parents=True)
        for name in rounds:
            self.add_round(corpus / name)
        shutil.copytree(RAW, root / "raw")
        self.opened = root / "opened.txt"

    def add_round(self, round_dir: Path) -> None:
        (self.mlperf / round_dir.name).symlink_to(round_dir)

    def env(self) -> dict:
        return bench_env(raw_dir=self.root / "raw", reports_dir=self.root / "reports",
                         warehouse=self.root / "warehouse" / "pipeline.duckdb", dagster_home=self.root / "dagster",
                         MLPERF_DIR=self.mlperf, ATLAS_BENCH_OPENED=self.opened)

    def make_atlas(self):
        self.opened.write_text("")
        return run_command([PYTHON, "-c", _MAKE_ATLAS], env=self.env(), sample_tree=True)

    def logs_read(self) -> int:
        return len(self.opened.read_text().splitlines())

    def new_price(self) -> None:
        # after the newest bundled snapshot (2026-08-20), so the new price is the one in force
        (self.root / "raw" / "prices" / "on_demand_2026-09-01.csv").write_text(
            "provider,region,instance_type,usd_per_hour,as_of,source\n"
            "aws,us-east-1,p4d.24xlarge,18.00,2026-09-01,bench: a price-only change\n")


def measure_make_atlas(root: Path, scratch: Path, scoring: list | None = None) -> list[dict]:
    """Rows 3-5; `scoring`, row 1's samples of the whole corpus scored alone (row 3's reference), measured here
    when not given (the rows alone)."""
    rounds = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name.startswith("training_results_v"))
    new = "training_results_" + os.environ.get("ATLAS_BENCH_NEW_ROUND", rounds[-1].removeprefix("training_results_"))
    if new not in rounds:
        raise Skipped(f"{root / new} is missing (ATLAS_BENCH_NEW_ROUND)")
    scoring = scoring or [run_command([PYTHON, "-c", _SCORE, str(root), "2"], sample_tree=True)]
    whole = AtlasState(scratch / "whole", root, rounds)
    cold = whole.make_atlas()
    cold_logs = whole.logs_read()
    whole.new_price()
    priced = whole.make_atlas()
    priced_logs = whole.logs_read()
    alone = AtlasState(scratch / "alone", root, [new])
    alone_cold = alone.make_atlas()
    grown = AtlasState(scratch / "grown", root, [r for r in rounds if r != new])
    grown.make_atlas()  # the corpus before the new round: not timed
    grown.add_round(root / new)
    added = grown.make_atlas()
    added_logs, alone_logs = grown.logs_read(), alone.logs_read()
    n = len(rounds)
    return [
        row(f"atlas: make atlas, whole corpus cold ({n} rounds: score, price, HTML, PDF, publish)", [cold],
            "score_corpus alone on the whole corpus (row 1's subject)", scoring, logs_read=cold_logs),
        row(f"atlas: peak memory of make atlas, whole corpus cold ({n} rounds)", [cold],
            f"make atlas cold on {new.removeprefix('training_results_')} alone", [alone_cold],
            goal_memory_ratio=MEMORY_RATIO_GOAL, goal_memory_mib=MEMORY_CEILING_MIB),
        row("atlas: make atlas after a price-only change (new p4d.24xlarge snapshot)", [priced],
            "make atlas, whole corpus cold", [cold], goal_ratio=0.25, logs_read=priced_logs),
        row(f"atlas: make atlas after adding round {new.removeprefix('training_results_')} to the other {n - 1}",
            [added], f"make atlas cold on {new.removeprefix('training_results_')} alone", [alone_cold], goal_ratio=1.2,
            logs_read=added_logs, ref_logs_read=alone_logs),
    ]


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
        theirs = []
        for _ in range(repeats):
            _fresh_copy(round_dir, copy)  # the official tool writes into the folders it reads
            theirs.append(official())
    # the round alone was scored for the row above (the same command): its samples are this row's
    rows.append(row(f"atlas: score round {round_} ({round_files:,} logs, {round_gb:.2f} GB), 2 workers", one,
                    f"official result summarizer on every {round_} submitter folder", theirs, goal_ratio=0.1))
    if os.environ.get("ATLAS_BENCH_MAKE", "1") != "0":
        with tempfile.TemporaryDirectory(prefix="atlas-make-") as scratch:
            rows += measure_make_atlas(root, Path(scratch), whole)
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
