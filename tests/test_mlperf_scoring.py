"""score_trees and olympic scoring on trees the tests write; every expected score is by hand."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.errors import InputError
from pipelines.ingest.mlperf_rules import benchmark_rule, normalize_round, official_ruleset
from pipelines.ingest.mlperf_tree import RUNS_SCHEMA, SCORES_SCHEMA, olympic_mean, score_trees
from tests import mlperf_fixtures as fx


@pytest.fixture
def v10(tmp_path):
    return tmp_path / "training_results_v1.0"


def only(scores: pl.DataFrame, **where) -> dict:
    rows = scores.filter(**where).to_dicts()
    assert len(rows) == 1, rows
    return rows[0]


# ---- olympic mean --------------------------------------------------------------------------

def test_olympic_mean_drops_fastest_and_slowest():
    assert olympic_mean([14.0, 10.0, 12.0, 11.0, 13.0], 0, 1) == 12.0  # (11 + 12 + 13) / 3


def test_olympic_mean_failed_run_is_the_dropped_slowest():
    assert olympic_mean([20.0, 10.0, 13.0, 12.0], 1, 1) == 15.0  # drop 10: (12 + 13 + 20) / 3


def test_olympic_mean_too_many_failures():
    assert olympic_mean([10.0, 11.0, 12.0], 2, 1) is None


def test_olympic_mean_unet3d_drops_four_each_end():
    times = [1.0] * 4 + [2.0] * 32 + [100.0] * 4
    assert olympic_mean(times, 0, 4) == 2.0
    assert olympic_mean([1.0] * 4 + [2.0] * 31 + [3.0], 4, 4) == pytest.approx(65 / 32)  # none slow dropped


# ---- rules -----------------------------------------------------------------------------------

def test_rules_facts():
    assert benchmark_rule("v1.0", "resnet").target.threshold == 0.759
    assert benchmark_rule("v0.7", "bert").target.threshold == 0.712
    assert benchmark_rule("v1.1", "bert").target.threshold == 0.720
    assert benchmark_rule("v1.0", "dlrm").target.threshold == 0.8025
    runs = {b: benchmark_rule("v1.0", b).runs_required for b in
            ("resnet", "bert", "dlrm", "maskrcnn", "ssd", "rnnt", "minigo", "unet3d")}
    assert runs == {"resnet": 5, "bert": 10, "dlrm": 5, "maskrcnn": 5, "ssd": 5, "rnnt": 10,
                    "minigo": 10, "unet3d": 40}
    assert benchmark_rule("v1.0", "unet3d").max_failures == 4
    assert benchmark_rule("v1.0", "bert").max_failures == 1
    assert benchmark_rule("v1.0", "mask").benchmark == "maskrcnn"
    assert normalize_round("1.1.0") == normalize_round("training_results_v1.1") == "v1.1"
    assert official_ruleset("v0.7") == "0.7.0"


def test_unknown_round_and_benchmark():
    with pytest.raises(InputError, match="unknown MLPerf Training round"):
        normalize_round("v9.9")
    with pytest.raises(InputError, match="not part of MLPerf Training v0.7"):
        benchmark_rule("v0.7", "unet3d", "/x/unet3d")


# ---- trees -------------------------------------------------------------------------------------

def test_olympic_score_of_a_tree(v10):
    fx.write_benchmark(v10, "ExampleCorp", "sys_a", "resnet",
                       [fx.converged(m) for m in (33.0, 30.0, 40.0, 31.0, 32.0)])
    runs, scores = score_trees([v10])
    row = only(scores, system="sys_a")
    assert row == {"round": "v1.0", "submitter": "ExampleCorp", "system": "sys_a", "benchmark": "resnet",
                   "runs": 5, "dropped_runs": 0, "time_to_train_minutes": 32.0, "reason": None,
                   "samples_per_second": pytest.approx(
                       sum(16 * 1_281_167 / (m * 60) for m in (33.0, 30.0, 40.0, 31.0, 32.0)) / 5)}
    assert runs.height == 5 and set(runs["status"]) == {"scored"}
    assert dict(runs.schema) == RUNS_SCHEMA and dict(scores.schema) == SCORES_SCHEMA


def test_one_failure_counts_as_the_slowest(v10):
    fx.write_benchmark(v10, "ExampleCorp", "sys_b", "resnet",
                       [fx.converged(29.0), fx.aborted(25.0), fx.converged(36.0),
                        fx.converged(31.0), fx.converged(32.0)])
    runs, scores = score_trees([v10])
    row = only(scores, system="sys_b")
    assert row["time_to_train_minutes"] == 33.0  # drop 29 only: (31 + 32 + 36) / 3
    assert row["dropped_runs"] == 1 and row["reason"] is None
    dropped = runs.filter(pl.col("status") == "dropped").to_dicts()
    assert [d["run_file"] for d in dropped] == [
        "training_results_v1.0/ExampleCorp/results/sys_b/resnet/result_1.txt"]
    assert dropped[0]["minutes"] == 25.0 and "aborted" in dropped[0]["reason"]


def test_too_many_failures_gives_no_score_with_reason(v10):
    fx.too_many_failures(v10)
    _, scores = score_trees([v10])
    row = only(scores, system="sys_fail")
    assert row["time_to_train_minutes"] is None
    assert row["reason"] == "2 runs dropped; at most 1 allowed"
    assert row["runs"] == 5 and row["dropped_runs"] == 2


def test_too_few_runs_gives_no_score_with_reason(v10):
    fx.write_benchmark(v10, "ExampleCorp", "sys_c", "resnet", [fx.converged(30.0)] * 4)
    _, scores = score_trees([v10])
    row = only(scores, system="sys_c")
    assert row["time_to_train_minutes"] is None and "requires 5" in row["reason"]


def test_mixed_failure_kinds_and_formats(v10):
    logs = [fx.junk_before_mllog(30.0), fx.non_utf8(34.0), fx.run_log(minutes=31.0, event_type=False),
            fx.converged(33.0), fx.missing_run_stop()]
    fx.write_benchmark(v10, "ExampleCorp", "sys_d", "resnet", logs)
    runs, scores = score_trees([v10])
    assert only(scores, system="sys_d")["time_to_train_minutes"] == pytest.approx((31 + 33 + 34) / 3)
    missing = runs.filter(pl.col("reason") == "missing run_stop")
    assert missing.height == 1 and missing["minutes"][0] is None


def test_stray_files_and_nested_folders_are_ignored(v10):
    bench = fx.write_benchmark(v10, "ExampleCorp", "sys_e", "resnet",
                               [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)])
    fx.write_stray_files(bench, fx.converged(1.0))
    runs, scores = score_trees([v10])
    assert only(scores, system="sys_e")["runs"] == 5
    assert only(scores, system="sys_e")["time_to_train_minutes"] == 32.0
    assert all(f.rsplit("/", 1)[1].startswith("result_") for f in runs["run_file"])


def test_runs_sorted_naturally(v10):
    fx.write_benchmark(v10, "ExampleCorp", "sys_f", "bert",
                       [fx.run_log("bert", minutes=20.0 + i, evals=[(0.73, 1.0)]) for i in range(11)])
    runs, _ = score_trees([v10])
    names = [f.rsplit("/", 1)[1] for f in runs["run_file"]]
    assert names == [f"result_{i}.txt" for i in range(11)]


def test_scaling_json_multiplies_the_score(v10):
    bench = fx.write_benchmark(v10, "ExampleCorp", "sys_g", "resnet",
                               [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)])
    (bench / "scaling.json").write_text('{"scaling_factor": 1.5}')
    _, scores = score_trees([v10])
    assert only(scores, system="sys_g")["time_to_train_minutes"] == 48.0


def test_results_without_systems_json_is_input_error(v10):
    bench = fx.write_benchmark(v10, "ExampleCorp", "sys_h", "resnet", [fx.converged(30.0)] * 5,
                               systems_json=False)
    with pytest.raises(InputError) as error:
        score_trees([v10])
    assert error.value.path == str(bench.parent) and "systems JSON" in error.value.problem


def test_benchmark_the_round_lacks_is_input_error_naming_the_path(tmp_path):
    v07 = tmp_path / "training_results_v0.7"
    bench = fx.write_benchmark(v07, "ExampleCorp", "sys_i", "unet3d", [fx.converged(30.0)])
    with pytest.raises(InputError) as error:
        score_trees([v07])
    assert error.value.path == str(bench)


def test_round_from_folder_name_or_argument(tmp_path):
    plain = tmp_path / "somewhere"
    fx.write_benchmark(plain, "ExampleCorp", "sys_j", "resnet", [fx.converged(30.0)] * 5)
    with pytest.raises(InputError, match="cannot tell the MLPerf round"):
        score_trees([plain])
    _, scores = score_trees([plain], round="1.1.0")
    assert scores["round"].to_list() == ["v1.1"]
    with pytest.raises(InputError, match="unknown MLPerf Training round"):
        score_trees([plain], round="v0.1")


def test_submitter_folder_as_root_and_several_roots(tmp_path):
    v10, v11 = tmp_path / "training_results_v1.0", tmp_path / "training_results_v1.1"
    fx.write_benchmark(v10, "ExampleCorp", "sys_k", "resnet", [fx.converged(30.0)] * 5)
    fx.write_benchmark(v11, "OtherCorp", "sys_l", "resnet", [fx.converged(20.0)] * 5)
    _, scores = score_trees([v10 / "ExampleCorp", v11])
    assert scores.select("round", "submitter", "time_to_train_minutes").rows() == [
        ("v1.0", "ExampleCorp", 30.0), ("v1.1", "OtherCorp", 20.0)]


def test_missing_root_is_input_error(tmp_path):
    with pytest.raises(InputError, match="not found"):
        score_trees([tmp_path / "training_results_v1.0"])


def test_empty_tree_gives_empty_typed_frames(v10):
    (v10 / "ExampleCorp" / "results").mkdir(parents=True)
    runs, scores = score_trees([v10])
    assert runs.height == 0 and dict(runs.schema) == RUNS_SCHEMA
    assert scores.height == 0 and dict(scores.schema) == SCORES_SCHEMA


@pytest.mark.parametrize("factor", ['"fast"', "0", "-1", "1e999", "1" + "0" * 400, "true"])
def test_scaling_factor_must_be_a_positive_finite_number(v10, factor):
    bench = fx.write_benchmark(v10, "ExampleCorp", "sys_g", "resnet", [fx.converged(30.0)] * 5)
    (bench / "scaling.json").write_text('{"scaling_factor": %s}' % factor)
    with pytest.raises(InputError, match="scaling_factor"):
        score_trees([v10])
