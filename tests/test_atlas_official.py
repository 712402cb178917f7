"""The atlas's corpus scoring against the official MLPerf result summarizer (mlperf-logging 4.1.68).

- The shared MLPerf sample (v0.7, v1.0, v1.1; skipped when absent), as tests/test_mlperf_official.py
  does for the strict tree scorer: same scores within 1e-6 minutes, with the one documented
  difference (v1.1 NVIDIA BERT, rejected by the package's 1.1.0 compliance rules for missing
  weights_initialization lines, scored by the rules).
- Later rounds, when ATLAS_CORPUS names a folder with the published training_results_v2.0 ...
  v5.1 trees: a few submitter folders per round covering scaling.json, TPU pods, job-id log names,
  Stable Diffusion, GPT-3, Llama 2 LoRA and Llama 3.1 8B.
- Stable Diffusion's two-metric target on logs the tests write.
The official tool writes scaling.json into the folders it reads, so it only ever sees copies.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.ingest.mlperf_corpus import score_corpus, score_task, tasks
from pipelines.ingest.mlperf_rounds_later import parse_result
from pipelines.ingest.mlperf_rules import benchmark_rule
from tests.mlperf_fixtures import mllog, run_log, write_log

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "mlperf-sample"
CORPUS = Path(os.environ["ATLAS_CORPUS"]) if os.environ.get("ATLAS_CORPUS") else None
TOLERANCE = 1e-6
V11_BERT = ("v1.1", "NVIDIA", "dgxa100_ngc21.09_pytorch", "bert")
LATER = [("v2.0", "Google"), ("v2.0", "Intel-HabanaLabs"), ("v2.0", "HazyResearch"), ("v3.1", "Azure"),
         ("v4.1", "Google"), ("v5.0", "AMD"), ("v5.0", "Google"), ("v5.1", "Lambda")]
_NOT_BENCHMARKS = {"division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
                   "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes",
                   "private_id", "details_url", "code_url"}


def official_scores(copies: list[tuple[str, Path]], work: Path) -> dict:
    """{(round, submitter folder, system, benchmark): minutes or None} from the official tool, 2 at a time."""
    scores: dict = {}
    pending = list(copies)
    running: list = []
    while pending or running:
        while pending and len(running) < 2:
            round_, folder = pending.pop(0)
            out = work / f"{round_}_{folder.name}.csv"
            cmd = [sys.executable, "-m", "mlperf_logging.result_summarizer", str(folder), "training",
                   round_[1:] + ".0", "--csv", str(out)]
            running.append((round_, folder, out, subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE,
                                                                  stderr=subprocess.STDOUT, text=True)))
        round_, folder, out, proc = running.pop(0)
        log, _ = proc.communicate(timeout=900)
        assert proc.returncode == 0, log[-2000:]
        with open(out, newline="") as handle:
            for row in csv.DictReader(handle):
                system = row["details_url"].rsplit("/", 1)[1].removesuffix(".json")
                for column, value in row.items():
                    if column not in _NOT_BENCHMARKS and ":" not in column:
                        scores[(round_, folder.name, system, column)] = float(value) if value else None
    return scores


def _compare(official: dict, ours: dict, known: set) -> int:
    compared = 0
    for key, theirs in official.items():
        if theirs is None:
            continue
        assert ours.get(key) is not None, f"official scores {key} = {theirs}, we give none"
        assert abs(ours[key] - theirs) <= TOLERANCE, (key, ours[key], theirs)
        compared += 1
    extra = {k for k, v in ours.items() if v is not None and official.get(k) is None}
    assert extra == known
    return compared


@pytest.mark.skipif(not SAMPLE.is_dir(), reason=f"MLPerf sample not found at {SAMPLE}")
def test_sample_scores_equal_the_official_summarizer(tmp_path):
    copies = []
    for round_dir in sorted(SAMPLE.glob("training_results_v*")):
        shutil.copytree(round_dir, tmp_path / "copy" / round_dir.name)
        round_ = round_dir.name.removeprefix("training_results_")
        copies += [(round_, p) for p in sorted((tmp_path / "copy" / round_dir.name).iterdir()) if p.is_dir()]
    official = official_scores(copies, tmp_path)
    scores, _, _ = score_corpus(SAMPLE, workers=2)
    ours = {(r["round"], r["folder"], r["system"], r["benchmark"]): r["time_to_train_minutes"] for r in scores.to_dicts()}
    assert _compare(official, ours, {V11_BERT}) == 9


@pytest.mark.skipif(CORPUS is None, reason="set ATLAS_CORPUS to a folder with the published training_results_v* trees")
def test_later_rounds_equal_the_official_summarizer(tmp_path):
    copies = []
    for round_, folder in LATER:
        source = CORPUS / f"training_results_{round_}" / folder  # type: ignore[operator]
        if not source.is_dir():
            pytest.skip(f"{source} not in the corpus")
        shutil.copytree(source, tmp_path / "copy" / f"training_results_{round_}" / folder)
        copies.append((round_, tmp_path / "copy" / f"training_results_{round_}" / folder))
    official = official_scores(copies, tmp_path)
    ours = {}
    for round_, folder in LATER:
        for task in tasks(CORPUS / f"training_results_{round_}", round_)[0]:  # type: ignore[operator]
            if task.folder == folder:
                row, _ = score_task(task)
                ours[(round_, folder, task.system, row["benchmark"])] = row["time_to_train_minutes"]
    assert _compare(official, ours, set()) >= 30


def _sd_log(round_: str, minutes: float, evals: list[tuple[int, float, float]]) -> str:
    """A Stable Diffusion log; evals = [(evaluation number, FID, CLIP)], logged after run_stop."""
    group = "step_num" if round_ == "v3.1" else "samples_count"
    log = run_log("stable_diffusion", minutes=minutes, evals=[], train_samples=None)
    for i, (n, fid, clip) in enumerate(evals):
        for metric, value in (("FID", fid), ("CLIP", clip)):
            log += mllog("eval_accuracy", value, time_ms=1_700_000_000_000 + i, metadata={group: n * 512, "metric": metric})
    return log


@pytest.mark.parametrize("round_", ["v3.1", "v4.0", "v5.0"])
def test_stable_diffusion_needs_fid_and_clip_at_one_evaluation(tmp_path, round_):
    rule = benchmark_rule(round_, "stable_diffusion")
    good = write_log(tmp_path / "good.txt", _sd_log(round_, 20.0, [(1, 120.0, 0.10), (2, 85.0, 0.16)]))
    result = parse_result(good, rule)
    assert result.scored and result.minutes == pytest.approx(20.0)
    # FID reached at the first evaluation, CLIP only at the second: no single evaluation reaches both
    split = write_log(tmp_path / "split.txt", _sd_log(round_, 20.0, [(1, 85.0, 0.10), (2, 95.0, 0.16)]))
    assert "FID <= 90 and CLIP >= 0.15" in parse_result(split, rule).reason
    aborted = write_log(tmp_path / "aborted.txt", _sd_log(round_, 20.0, [(1, 85.0, 0.16)]).replace('"success"', '"aborted"'))
    assert "aborted" in parse_result(aborted, rule).reason
