"""The atlas's corpus scoring on a corpus with every layout quirk of the published trees
(tests/atlas_fixtures.quirk_corpus); expected times are olympic means computed by hand."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.errors import InputError
from pipelines.ingest.mlperf_corpus import round_dirs, score_corpus
from pipelines.ingest.mlperf_quirks import benchmark_model, status_class
from tests.atlas_fixtures import quirk_corpus


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = quirk_corpus(tmp_path_factory.mktemp("quirks"))
    return score_corpus(root, workers=1)


def _row(scores: pl.DataFrame, round_: str, system: str, benchmark: str) -> dict:
    rows = scores.filter((pl.col("round") == round_) & (pl.col("system") == system) & (pl.col("benchmark") == benchmark))
    assert rows.height == 1, rows
    return rows.row(0, named=True)


def test_plain_result_is_the_olympic_mean(scored):
    scores, _, _ = scored
    row = _row(scores, "v1.0", "acme_a100", "resnet")
    assert row["time_to_train_minutes"] == pytest.approx((31 + 32 + 33) / 3)
    assert (row["runs"], row["dropped_runs"], row["reason"]) == (5, 0, None)


def test_job_id_file_names_count_as_runs(scored):
    scores, runs, _ = scored
    row = _row(scores, "v2.0", "hazy_a100", "resnet")
    assert row["runs"] == 5 and row["time_to_train_minutes"] == pytest.approx(32.0)
    files = runs.filter(pl.col("system") == "hazy_a100")["run_file"].to_list()
    assert files[0].endswith("result_220520100725096152634_1.txt")


def test_benchmark_folder_misplaced_inside_another_is_scored_as_its_benchmark(scored):
    scores, _, _ = scored
    bert = _row(scores, "v1.0", "gaudi8", "bert")
    # ten runs 100..109: drop 100 and 109, mean of 101..108 = 104.5
    assert bert["time_to_train_minutes"] == pytest.approx(104.5)
    assert "misplaced inside resnet/" in bert["quirk"]
    assert _row(scores, "v1.0", "gaudi8", "resnet")["time_to_train_minutes"] == pytest.approx(62.0)


def test_folder_not_named_after_a_benchmark_takes_the_benchmark_from_the_logs(scored):
    scores, _, _ = scored
    row = _row(scores, "v1.0", "typo_sys", "resnet")
    assert row["time_to_train_minutes"] == pytest.approx(22.0)
    assert row["benchmark_path"].endswith("typo_sys/benchmark") and "'benchmark'" in row["quirk"]


def test_one_organisation_over_two_folders_keeps_both_and_the_json_name(scored):
    scores, _, _ = scored
    a = _row(scores, "v2.0", "sys_a", "resnet")
    b = _row(scores, "v2.0", "sys_b", "resnet")
    assert (a["submitter"], a["folder"]) == ("Supermicro", "Supermicro")
    assert (b["submitter"], b["folder"]) == ("Supermicro", "smc")
    assert b["time_to_train_minutes"] == pytest.approx(17.0)  # the CRLF logs: (16 + 17 + 18) / 3


def test_org_and_status_come_from_the_systems_json_not_the_logs(scored):
    scores, _, systems = scored
    row = _row(scores, "v2.0", "gcp_v100", "resnet")
    assert row["submitter"] == "Google"  # the logs say SUBMISSION_ORG_PLACEHOLDER
    info = systems.filter(pl.col("system") == "gcp_v100").row(0, named=True)
    assert (info["status"], info["status_class"]) == ("Available cloud", "cloud")  # the logs say onprem


def test_scaling_json_multiplies_the_score(scored):
    scores, _, _ = scored
    row = _row(scores, "v2.0", "scaled_sys", "resnet")
    assert row["scaling_factor"] == 1.25
    assert row["time_to_train_minutes"] == pytest.approx(32.0 * 1.25)


def test_ssd_is_a_different_model_before_and_after_v2_0(scored):
    scores, _, _ = scored
    old, new = _row(scores, "v1.0", "acme_a100", "ssd"), _row(scores, "v2.0", "acme_a100", "ssd")
    assert (old["benchmark_model"], old["time_to_train_minutes"]) == ("ssd-resnet34", pytest.approx(7.0))
    assert (new["benchmark_model"], new["time_to_train_minutes"]) == ("retinanet", pytest.approx(70.0))
    assert benchmark_model("v5.0", "retinanet") == "retinanet"
    assert benchmark_model("v3.0", "dlrm_dcnv2") != benchmark_model("v2.1", "dlrm")
    assert benchmark_model("v4.1", "gnn") != benchmark_model("v5.0", "rgat")


def test_entries_that_cannot_be_scored_say_why(scored):
    scores, _, systems = scored
    short = _row(scores, "v1.0", "short_sys", "resnet")
    assert short["time_to_train_minutes"] is None and "requires 5" in short["reason"]
    old = scores.filter(pl.col("round") == "v0.6").row(0, named=True)
    assert "not supported" in old["reason"]
    broken = systems.filter(pl.col("system") == "broken_sys").row(0, named=True)
    assert "invalid JSON" in broken["problem"]
    # scores without a usable systems JSON are still scored (the atlas says why it cannot price them)
    assert _row(scores, "v1.0", "lost_sys", "resnet")["time_to_train_minutes"] == pytest.approx(32.0)
    assert _row(scores, "v1.0", "broken_sys", "resnet")["time_to_train_minutes"] == pytest.approx(32.0)


def test_systems_json_quirks_of_published_files(scored):
    _, _, systems = scored
    spaced = systems.filter(pl.col("system") == "spaced_sys").row(0, named=True)
    assert (spaced["problem"], spaced["number_of_nodes"], spaced["accelerators_total"]) == (None, 1, 4)
    floating = systems.filter(pl.col("system") == "float_sys").row(0, named=True)
    assert (floating["problem"], floating["number_of_nodes"], floating["accelerators_total"]) == (None, 1, 8)


def test_worker_processes_give_the_same_scores(scored, tmp_path):
    root = quirk_corpus(tmp_path)
    parallel, _, _ = score_corpus(root, workers=2)
    serial = scored[0]
    assert parallel.drop("benchmark_path").equals(serial.drop("benchmark_path"))


def test_status_classes_of_real_values():
    assert [status_class(s) for s in ["onprem", "Available on-premise", "available on premise", "Available cloud",
                                      "Available in cloud", "Cloud", "available", "Preview", "research", "rdi", None]] == [
        "on-premise", "on-premise", "on-premise", "cloud", "cloud", "cloud", "available", "preview", "research",
        "research", "unknown"]


def test_a_folder_without_rounds_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="no training_results"):
        round_dirs(tmp_path)
    with pytest.raises(InputError, match="not found"):
        round_dirs(tmp_path / "missing")
