"""Benchmark: score a 5,000-log MLPerf tree with score_trees and with the official summarizer.

The tree is one v1.0 submitter folder whose systems replicate the real MLCommons sample logs
(../shared/mlperf-sample/training_results_v1.0, realistic sizes: 40 KB to 210 KB per log) under new
system names, or, when the sample is absent, logs written by tests/mlperf_fixtures. Both scorers
run as subprocesses, so both pay interpreter start-up and imports and are measured alike: wall
time around the process, and its peak resident memory from os.wait4 (that child's own rusage).
The official tool writes scaling.json into the folder it reads, so it gets a fresh copy (hard
links to the same result files; it never rewrites them) for every repeat. The scores of the two
must be identical (exact float equality), or the benchmark fails.

Run: .venv/bin/python -m bench.mlperf_bench [repeats]
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE_ROUND = REPO.parent / "shared" / "mlperf-sample" / "training_results_v1.0"
TARGET_FILES = 5000
SUBMITTER = "BenchCorp"

_OURS = """
import json, sys
from pathlib import Path
from pipelines.ingest.mlperf.tree import score_trees
_, scores = score_trees([Path(sys.argv[1])], round="v1.0")
rows = scores.select("system", "benchmark", "time_to_train_minutes").rows()
json.dump(rows, open(sys.argv[2], "w"))
"""


def _templates(scratch: Path) -> list[tuple[Path, Path]]:
    """(systems JSON, results/<system> folder) pairs to replicate."""
    if SAMPLE_ROUND.is_dir():
        return [(s / "systems" / f"{d.name}.json", d)
                for s in sorted(SAMPLE_ROUND.iterdir()) if (s / "results").is_dir()
                for d in sorted((s / "results").iterdir()) if d.is_dir()]
    sys.path.insert(0, str(REPO))
    from tests import mlperf_fixtures as fx

    round_dir = scratch / "training_results_v1.0"
    fx.write_benchmark(round_dir, "Fixture", "fixture_sys", "resnet",
                       [fx.converged(30.0 + i) for i in range(4)] + [fx.aborted()])
    fx.write_benchmark(round_dir, "Fixture", "fixture_sys", "bert",
                       [fx.run_log("bert", minutes=20.0 + i, evals=[(0.721, 1.0)]) for i in range(10)])
    return [(round_dir / "Fixture" / "systems" / "fixture_sys.json", round_dir / "Fixture" / "results" / "fixture_sys")]


def build_tree(dest: Path, min_files: int = TARGET_FILES) -> tuple[Path, int]:
    """Write a submitter folder with at least ``min_files`` result files; (folder, file count)."""
    submitter = dest / "training_results_v1.0" / SUBMITTER
    templates = _templates(dest / "scratch")
    per_copy = sum(len(list(d.glob("*/result_*.txt"))) for _, d in templates)
    copies = -(-min_files // per_copy)
    for i in range(copies):
        for systems_json, results in templates:
            name = f"{results.name}_r{i:03d}"
            (submitter / "systems").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(systems_json, submitter / "systems" / f"{name}.json")
            for log in results.glob("*/result_*.txt"):
                target = submitter / "results" / name / log.parent.name / log.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(log, target)
    return submitter, copies * per_copy


def _run(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one child process; fails loudly on a non-zero exit."""
    # Output goes to a file, not a pipe: the official tool prints megabytes and would block on
    # a full pipe while we wait for it.
    with tempfile.TemporaryFile() as output:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=output, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            output.seek(0)
            tail = output.read()[-2000:].decode(errors="replace")
            raise RuntimeError(f"{cmd[:4]} exited {proc.returncode}: {tail}")
    return seconds, usage.ru_maxrss / 1024  # Linux reports KiB


def _ours(tree: Path, out: Path) -> tuple[float, float, dict]:
    env_cmd = [sys.executable, "-c", _OURS, str(tree), str(out)]
    seconds, mib = _run(env_cmd, REPO)
    scores = {(s, b): m for s, b, m in json.loads(out.read_text()) if m is not None}
    return seconds, mib, scores


def _official(tree: Path, work: Path) -> tuple[float, float, dict]:
    copy = work / "official_copy" / "training_results_v1.0" / SUBMITTER
    shutil.rmtree(work / "official_copy", ignore_errors=True)
    shutil.copytree(tree, copy, copy_function=os.link)
    out = work / "official.csv"
    cmd = [sys.executable, "-m", "mlperf_logging.result_summarizer", str(copy), "training", "1.0.0",
           "--csv", str(out)]
    seconds, mib = _run(cmd, work)
    scores = {}
    with open(out, newline="") as f:
        for row in csv.DictReader(f):
            system = row["details_url"].rsplit("/", 1)[1].removesuffix(".json")
            for benchmark in ("bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"):
                if row.get(benchmark):
                    scores[(system, benchmark)] = float(row[benchmark])
    return seconds, mib, scores


def _stats(values: list[float]) -> tuple[float, float]:
    return statistics.median(values), max(values) - min(values)


def measure(repeats: int = 3) -> list[dict]:
    """Median and spread (max - min) of wall time, and peak RSS, for both scorers."""
    with tempfile.TemporaryDirectory(prefix="mlperf_bench_") as tmp:
        work = Path(tmp)
        tree, files = build_tree(work / "tree")
        ours_t, ours_m, theirs_t, theirs_m = [], [], [], []
        for i in range(repeats):
            seconds, mib, ours = _ours(tree, work / f"ours_{i}.json")
            ours_t.append(seconds)
            ours_m.append(mib)
            seconds, mib, theirs = _official(tree, work)
            theirs_t.append(seconds)
            theirs_m.append(mib)
            assert ours == theirs, f"scores differ: {sorted(set(ours.items()) ^ set(theirs.items()))[:5]}"
        median, spread = _stats(ours_t)
        ref_median, ref_spread = _stats(theirs_t)
        return [{
            "name": f"score {files:,}-log MLPerf tree",
            "median_s": round(median, 3), "spread_s": round(spread, 3), "peak_mib": round(max(ours_m), 1),
            "reference": "official mlperf-logging summarizer",
            "ref_median_s": round(ref_median, 3), "ref_spread_s": round(ref_spread, 3),
            "ref_peak_mib": round(max(theirs_m), 1),
            "speedup": round(ref_median / median, 1), "scores_compared": len(ours),
            "logs": "real MLCommons v1.0 sample, replicated" if SAMPLE_ROUND.is_dir() else "test fixtures, replicated",
        }]


if __name__ == "__main__":
    for row in measure(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        print(json.dumps(row))
