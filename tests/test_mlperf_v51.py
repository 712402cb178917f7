"""MLPerf Training v5.1 in the bundled data set: the project's scorer against the official summarizer on a
published v5.1 folder, and raw/results/mlperf_training_v5.1_summary_detailed.csv read back against figures
computed by hand from the published logs.

The folder: tests/published_mlperf/training_results_v5.1/AMD (README there), the systems JSON of
MI355X_EPYC_9575F_pytorch (8x AMD Instinct MI355X, one node) and its llama31_8b result folder, unmodified
from mlcommons/training_results_v5.1@441d65f4: 10 logs (result_9.txt with CRLF line ends) and the
scaling.json the review committee published (RCP scaling factor 1.004011735824202).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.config import BUNDLED_RAW
from pipelines.ingest.mlperf.corpus import score_corpus
from pipelines.ingest.results_summary import read_results_summary
from tests.official_summarizer import compare, official_entries

V51 = Path(__file__).resolve().parent / "published_mlperf" / "training_results_v5.1"
SUMMARY = BUNDLED_RAW / "results" / "mlperf_training_v5.1_summary_detailed.csv"
ENTRY = ("AMD", "MI355X_EPYC_9575F_pytorch", "llama31_8b")


@pytest.mark.slow
def test_the_scorer_equals_the_official_summarizer_on_a_published_v51_folder(tmp_path):
    entries, verdicts = official_entries(V51, tmp_path / "work")
    assert [v.crashed for v in verdicts] == [False] and verdicts[0].dropped == {}  # every run passes its checker
    official = entries[ENTRY]
    assert (official.minutes, official.global_batch_size, official.samples_to_converge) == (
        99.70854353631518, 32.0, 178144.0)
    scores, runs, _ = score_corpus(V51, workers=1)
    rows = scores.to_dicts()
    assert [(r["folder"], r["system"], r["benchmark"]) for r in rows] == [ENTRY]
    row = rows[0]
    assert row["round"] == "v5.1" and row["reason"] is None and row["dropped_runs"] == 0
    # to the last digit: the score, the global batch size and the samples to converge of the detailed CSV
    assert row["time_to_train_minutes"] == official.minutes
    assert row["global_batch_size"] == official.global_batch_size
    assert row["summarizer_samples_to_converge"] == official.samples_to_converge
    assert runs.height == 10 and set(runs["status"]) == {"scored"}
    comparison = compare(entries, rows)
    assert comparison.differences == []
    assert (comparison.equal_scores, comparison.equal_convergence, comparison.equal_batch_sizes) == (1, 1, 1)


# Figures computed by hand from the published logs (mlcommons/training_results_v5.1@441d65f4), as the rules
# score them: per run, time to train = run_stop time_ms - run_start time_ms; the score is the olympic mean
# (the fastest and the slowest run dropped, the rest averaged) in minutes, times the RCP scaling factor of the
# benchmark folder's scaling.json where there is one; llama31_405b has 3 runs, so its olympic mean is the
# middle run. samples_to_converge is the same olympic mean of the samples_count of each run's last
# eval_accuracy line before run_stop; the global batch size is the logs' global_batch_size.
HAND = {
    # AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b (also kept in tests/published_mlperf), ms:
    #   result_0 1759971964686 - 1759966206549 = 5758137    result_5 1760003179171 - 1759997020413 = 6158758
    #   result_1 1759978209292 - 1759972048358 = 6160934    result_6 1760016084921 - 1760009920562 = 6164359
    #   result_2 1759984038507 - 1759978293852 = 5744655 *  result_7 1760028170653 - 1760022417250 = 5753403
    #   result_3 1759990687781 - 1759984121354 = 6566427 *  result_8 1760034007525 - 1760028253484 = 5754041
    #   result_4 1759996934759 - 1759990775164 = 6159595    result_9 1759953847202 - 1759948087563 = 5759639
    #   (* dropped) sum of the other 8 = 47,668,866 ms; / 8 / 60,000 = 99.3101375 min;
    #   x 1.004011735824202 (its scaling.json) = 99.7085435363 min
    #   samples: 172000 (runs 0, 2, 7, 8, 9), 184288 (1, 4, 5, 6), 196576 (3): drop one 172000 and the
    #   196576: (4 x 172000 + 4 x 184288) / 8 = 178144; global_batch_size 32
    ("MI355X_EPYC_9575F_pytorch", "llama31_8b"): (
        "AMD", "Available on-premise", "AMD Instinct MI355X", 8, 47_668_866 / 8 / 60_000 * 1.004011735824202, 32,
        178144.0),
    # Nebius/results/nebius_b300_n1/llama31_8b (result_1 ... result_10, no scaling.json; RCP factor 1), ms:
    #   4707227, 4388981 *, 4396656, 4396856, 4707642 *, 4398473, 4396411, 4705703, 4701719, 4700421
    #   sum of the 8 kept = 36,403,466 ms; / 8 / 60,000 = 75.8405541667 min
    #   samples: 184320 x 5, 172032 x 5 -> (4 x 172032 + 4 x 184320) / 8 = 178176; global_batch_size 16
    ("nebius_b300_n1", "llama31_8b"): (
        "Nebius", "Available cloud", "NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)", 8, 36_403_466 / 8 / 60_000, 16,
        178176.0),
    # NVIDIA/results/theia_ngpu512_ngc25.09_nemo/llama31_405b (512 GB300, 128 nodes), ms:
    #   result_0 1759836796188 - 1759832919879 = 3876309 (kept: the middle run)
    #   result_1 1759841983652 - 1759838333166 = 3650486 *, result_2 1759845752531 - 1759841874896 = 3877635 *
    #   3,876,309 / 60,000 = 64.60515 min; samples 331776 (result_0; 313344 and 331776 the others);
    #   global_batch_size 1152
    ("theia_ngpu512_ngc25.09_nemo", "llama31_405b"): (
        "NVIDIA", "Available on-premise", "NVIDIA Blackwell Ultra GPU (GB300)", 512, 3_876_309 / 60_000, 1152,
        331776.0),
}


def test_the_bundled_v51_summary_reads_as_the_logs_give_it():
    frame = read_results_summary(SUMMARY)
    assert set(frame["round"]) == {"v5.1"}
    assert frame.height == 184  # every (system, benchmark) the official tool scored in the whole v5.1 tree
    got = {(r["system"], r["benchmark"]): r for r in frame.to_dicts()}
    for key, (submitter, availability, accelerator, count, minutes, batch, samples) in HAND.items():
        row = got[key]
        assert (row["submitter"], row["accelerator_model_name"], row["accelerators_count"]) == (submitter, accelerator, count), key
        assert (row["division"], row["availability"]) == ("closed", availability), key
        assert row["time_to_train_minutes"] == pytest.approx(minutes, rel=1e-12), key
        assert (row["global_batch_size"], row["samples_to_converge"]) == (batch, samples), key
