"""MLPerf results scored from run records (pipelines/ingest/mlperf/run_records.py): the official rule applied to the
runs as read from the published logs, against values worked out by hand, and the bundled v6.0 records against what
MLCommons announced."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.config import BUNDLED_RAW
from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf.run_records import ORIGIN, read_run_records
from pipelines.ingest.results_summary import summary_results

HEADER = ("round,submitter,system,benchmark,division,availability,accelerator_model_name,accelerators_per_node,"
          "number_of_nodes,scaling_factor,log,run_start_ms,run_stop_ms,status,samples_count,global_batch_size,"
          "max_sequence_length,note,source")


T0 = 1_777_000_000_000  # a run's start, ms since the epoch; the runs below give times after it


def _write(path: Path, runs: list[tuple], scaling: str = "", note: str = "") -> Path:
    lines = [HEADER] + [
        f"v6.0,Corp,sys_a,llama31_405b,closed,Available cloud,NVIDIA GB300,4,16,{scaling},result_{i}.txt,"
        f"{T0 + start},{T0 + stop},{status},{samples},1152,8192,{note},test"
        for i, (start, stop, status, samples) in enumerate(runs)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_three_runs_score_their_median_times_the_scaling_factor(tmp_path):
    # runs of 10, 12 and 11 minutes: sorted 10 11 12, the fastest and slowest dropped: 11 min x 1.5 = 16.5
    runs = [(0, 600_000, "success", 300_000), (0, 720_000, "success", 320_000), (0, 660_000, "success", 310_000)]
    row = read_run_records(_write(tmp_path / "r.csv", runs, scaling="1.5")).row(0, named=True)
    assert row["time_to_train_minutes"] == 16.5
    assert row["samples_to_converge"] == 310_000.0  # the middle of 300,000 310,000 320,000
    assert (row["accelerators_count"], row["runs"], row["dropped_runs"]) == (64, 3, 0)
    assert row["round"] == "v6.0" and row["origin"] == ORIGIN and row["global_batch_size"] == 1152


def test_one_failed_run_is_the_slowest_dropped(tmp_path):
    # one run aborted (allowed: one): the fastest success dropped, the failure counts as the slowest: (11 + 12) / 2
    runs = [(0, 600_000, "success", 300_000), (0, 720_000, "success", 320_000), (0, 660_000, "success", 310_000),
            (0, 100_000, "aborted", 50_000)]
    row = read_run_records(_write(tmp_path / "r.csv", runs)).row(0, named=True)
    assert row["time_to_train_minutes"] == 11.5 and row["dropped_runs"] == 1
    # samples: 300,000 310,000 320,000 and a run that never converged; the lowest and that one dropped
    assert row["samples_to_converge"] == 315_000.0


def test_two_failed_runs_leave_no_score_and_a_note_is_kept(tmp_path):
    runs = [(0, 600_000, "success", 1), (0, 1, "aborted", 1), (0, 2, "aborted", 1)]
    row = read_run_records(_write(tmp_path / "r.csv", runs, note="scaling.json not read")).row(0, named=True)
    assert row["time_to_train_minutes"] is None
    assert row["origin"] == f"{ORIGIN}; scaling.json not read"


@pytest.mark.parametrize(("runs", "problem"), [
    ([(5, 5, "success", 1)], "run_stop_ms: is not after run_start_ms"),
    ([(0, 1, "success", 1), (0, 2, "success", 1)], None),
])
def test_bad_records_are_one_line(tmp_path, runs, problem):
    path = _write(tmp_path / "r.csv", runs)
    if problem is None:  # the records of one folder must agree on its configuration
        path.write_text(path.read_text().replace(",1152,8192,", ",2304,8192,", 1), encoding="utf-8")
        problem = "column global_batch_size: the records of sys_a llama31_405b disagree"
    with pytest.raises(InputError, match=problem):
        read_run_records(path)


def test_the_bundled_v6_records_give_what_mlcommons_announced():
    """MLCommons announced (MLPerf Training v6.0, 2026-06) Azure's GB200 at 8,192 GPUs training Llama 3.1 405B in
    7.07 min and CoreWeave's GB300 at 8,192 GPUs training DeepSeek-V3 in 2.02 min. By hand from the records:
    Azure's runs took 432,691, 398,505 and 424,118 ms; the middle one, 424,118 ms, is 7.068633 min. CoreWeave's took
    117,879, 116,698 and 113,460 ms; the middle 116,698 ms = 1.944967 min x its scaling.json 1.038888... = 2.020604."""
    scores = summary_results(sorted((BUNDLED_RAW / "results").glob("*.csv")))
    v6 = {(r["system"], r["benchmark"]): r for r in scores.filter(scores["round"] == "v6.0").iter_rows(named=True)}
    azure = v6[("2048xAzure_GB200", "llama31_405b")]
    assert azure["time_to_train_minutes"] == pytest.approx(424_118 / 60_000, rel=1e-12)
    assert azure["accelerators_count"] == 8192 and azure["samples_to_converge"] == 331_776
    coreweave = v6[("CoreWeave_GB300_2048x4", "deepseekv3_671b")]
    assert coreweave["time_to_train_minutes"] == pytest.approx(116_698 / 60_000 * 1.038888888888889, rel=1e-12)
    assert round(coreweave["time_to_train_minutes"], 2) == 2.02 and round(azure["time_to_train_minutes"], 2) == 7.07
    assert {b for _, b in v6} == {"llama31_405b", "deepseekv3_671b", "gpt_oss_20b"}
    assert all(r["origin"].startswith(ORIGIN) for r in v6.values())
