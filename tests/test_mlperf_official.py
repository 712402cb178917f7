"""Our scores against the official MLPerf result summarizer (mlperf-logging 4.1.68) on real logs.

Uses the MLCommons sample beside the repo (../shared/mlperf-sample, never copied into the
project); skipped when it is absent. The official tool writes scaling.json (and private-id files)
into the folder it reads, which changes the scores of a second run, so it only ever sees a fresh
copy in tmp. It takes a SUBMITTER folder (training_results_v1.0/NVIDIA) and the ruleset 1.0.0.

Findings (all asserted below):
- Every score the official tool gives, we give, equal within 1e-6 minutes, and the runs it drops
  (v0.7 NVIDIA resnet result_0, v1.0 NVIDIA mxnet resnet result_1: run_stop status "aborted")
  are the runs we drop.
- One difference, kept on purpose: v1.1 NVIDIA dgxa100_ngc21.09_pytorch bert. The official CSV
  is empty because the package's 1.1.0 compliance rules (training_1.1.0/closed_bert.yaml) require
  `weights_initialization` lines naming every BERT tensor, and these logs have none, so all 10
  runs fail the compliance check ("Compliance check failed"), 10 > 1 allowed failures, no score.
  It is not RCP (the summarizer computes the score before the RCP check, which only prints; the
  v1.0 BERT result fails RCP interpolation and is still scored) and not scaling. Under the 1.0.0
  rules the same file passes. That check is about logging hygiene, not about the scoring rules
  this project applies (run_start/run_stop, status success, quality target reached): every run
  converged to >= 0.720, and MLCommons published the result. We score it (20.003 minutes by our
  olympic mean) and this test pins that as the one documented difference.
- v0.7: the current package still scores v0.7 logs (its RCP checker does not support 0.7 and
  prints an exception, which the summarizer catches); the scores match ours.
- Not compared: the official tool does not require the rules' run count (it scores whatever
  result files exist); none of the sample folders is short, so that rule does not show here.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from pipelines.ingest.mlperf_logs import parse_result_file
from pipelines.ingest.mlperf_rules import benchmark_rule, official_ruleset
from pipelines.ingest.mlperf_tree import score_trees

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "mlperf-sample"
TOLERANCE_MINUTES = 1e-6
V11_BERT = ("v1.1", "NVIDIA", "dgxa100_ngc21.09_pytorch", "bert")
KNOWN_DIFFERENCES = {V11_BERT: "official 1.1.0 compliance rules need weights_initialization lines"}

pytestmark = pytest.mark.skipif(not SAMPLE.is_dir(), reason=f"MLPerf sample not found at {SAMPLE}")


def _rounds() -> list[Path]:
    return sorted(SAMPLE.glob("training_results_v*")) if SAMPLE.is_dir() else []


def _run_official(copy_root: Path, work: Path) -> tuple[dict, set[str]]:
    """Run the official summarizer on every submitter folder of the copied rounds, in parallel.

    Returns ({(round, submitter, system, benchmark): minutes or None}, {dropped run paths}).
    """
    jobs = []
    for round_dir in sorted(copy_root.glob("training_results_v*")):
        round_ = round_dir.name.removeprefix("training_results_")
        for submitter_dir in sorted(p for p in round_dir.iterdir() if p.is_dir()):
            out = work / f"{round_}_{submitter_dir.name}.csv"
            cmd = [sys.executable, "-m", "mlperf_logging.result_summarizer", str(submitter_dir),
                   "training", official_ruleset(round_), "--csv", str(out)]
            proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            jobs.append((round_, submitter_dir, out, proc))
    scores: dict = {}
    dropped: set[str] = set()
    for round_, submitter_dir, out, proc in jobs:
        log, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, log[-2000:]
        for path in re.findall(r"Compliance check failed in (\S+)", log):
            dropped.add(Path(path).relative_to(copy_root).as_posix())
        with open(out, newline="") as f:
            for row in csv.DictReader(f):
                system = row["details_url"].rsplit("/", 1)[1].removesuffix(".json")
                for benchmark in [c for c in row if c not in _NON_BENCHMARK_COLUMNS]:
                    value = row[benchmark]
                    key = (round_, submitter_dir.name, system, benchmark)
                    scores[key] = float(value) if value else None
    return scores, dropped


_NON_BENCHMARK_COLUMNS = {
    "division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
    "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes",
    "private_id", "details_url", "code_url",
}


@pytest.fixture(scope="module")
def official(tmp_path_factory):
    work = tmp_path_factory.mktemp("official")
    copy_root = work / "copy"
    for round_dir in _rounds():
        shutil.copytree(round_dir, copy_root / round_dir.name)
    return _run_official(copy_root, work)


@pytest.fixture(scope="module")
def ours():
    return score_trees(_rounds())


def test_every_official_score_matches_ours(official, ours):
    official_scores, _ = official
    _, scores = ours
    mine = {(r["round"], r["submitter"], r["system"], r["benchmark"]): r["time_to_train_minutes"]
            for r in scores.to_dicts()}
    compared = 0
    for key, theirs in official_scores.items():
        if theirs is None:
            continue
        assert key in mine, f"official scores {key} = {theirs}, we have no row"
        assert mine[key] is not None, f"official scores {key} = {theirs}, we give none"
        assert abs(mine[key] - theirs) <= TOLERANCE_MINUTES, (key, mine[key], theirs)
        compared += 1
    assert compared == 9  # v0.7: 3, v1.0: 5, v1.1: 1 (the sample's scored benchmarks)


def test_we_score_nothing_the_official_tool_leaves_empty_except_documented(official, ours):
    official_scores, _ = official
    _, scores = ours
    extra = {
        (r["round"], r["submitter"], r["system"], r["benchmark"])
        for r in scores.filter(pl.col("time_to_train_minutes").is_not_null()).to_dicts()
        if official_scores.get((r["round"], r["submitter"], r["system"], r["benchmark"])) is None
    }
    assert extra == set(KNOWN_DIFFERENCES)


def test_dropped_runs_match_the_official_tool(official, ours):
    _, official_dropped = official
    runs, _ = ours
    documented = {f"training_results_{r}/{s}/results/{y}/{b}/" for r, s, y, b in KNOWN_DIFFERENCES}
    theirs = {p for p in official_dropped if not any(p.startswith(d) for d in documented)}
    mine = set(runs.filter(pl.col("status") == "dropped")["run_file"])
    assert mine == theirs == {
        "training_results_v0.7/NVIDIA/results/dgx1_ngc20.06_mxnet/resnet/result_0.txt",
        "training_results_v1.0/NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet/result_1.txt",
    }
    assert all("aborted" in reason for reason in runs.filter(pl.col("status") == "dropped")["reason"])
    # all 10 v1.1 BERT runs are the official tool's drops, for the documented reason
    assert len(official_dropped - theirs) == 10


def test_v11_bert_official_reason_is_the_weights_initialization_rule(tmp_path):
    log = SAMPLE / "training_results_v1.1/NVIDIA/results/dgxa100_ngc21.09_pytorch/bert/result_0.txt"

    def check(ruleset: str) -> str:
        cmd = [sys.executable, "-m", "mlperf_logging.compliance_checker", "--usage", "training",
               "--ruleset", ruleset, str(log)]
        done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        return done.stdout + done.stderr

    strict = check("1.1.0")
    assert "Required AT_LEAST_ONE occurrence of 'weights_initialization' but found 0" in strict
    assert "initialized_tensors" in strict
    assert "SUCCESS" in check("1.0.0")  # same log passes the previous round's rules
    ours = parse_result_file(log, benchmark_rule("v1.1", "bert"))
    # run_start time_ms 1634349989940, run_stop 1634351107849 (read off the log by hand)
    assert ours.scored and ours.minutes == (1634351107849 - 1634349989940) / 60000


def test_known_difference_value_is_our_olympic_mean(ours):
    runs, scores = ours
    times = sorted(runs.filter(pl.col("run_file").str.contains("dgxa100_ngc21.09_pytorch/bert/"))["minutes"])
    assert len(times) == 10
    row = scores.filter(pl.col("system") == V11_BERT[2]).to_dicts()[0]
    assert row["time_to_train_minutes"] == pytest.approx(sum(times[1:-1]) / 8, abs=TOLERANCE_MINUTES)
