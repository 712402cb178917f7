"""score_trees (the walker in strict mode) and olympic scoring on trees the tests write; every
expected score is by hand, every log passes the official checker unless the test breaks it."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.domain.mlperf import benchmark_rule, normalize_round, official_ruleset
from pipelines.ingest.mlperf.summarizer import olympic_mean
from pipelines.ingest.mlperf.tree import RUNS_SCHEMA, SCORES_SCHEMA, score_trees
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
    # read from mlperf-logging 4.1.68 (its checker's YAML and benchmark_meta), checked by hand
    assert benchmark_rule("v1.0", "resnet").target.describe() == "eval_accuracy >= 0.7590 and eval_accuracy < 1.0"
    assert benchmark_rule("v0.7", "bert").target.describe() == (
        "(eval_accuracy >= 0.712 if global_batch_size < 8192 else eval_accuracy >= 0.706) and eval_accuracy < 1.0")
    assert benchmark_rule("v1.1", "bert").target.describe() == "(eval_accuracy >= 0.720) and eval_accuracy < 1.0"
    assert benchmark_rule("v1.0", "dlrm").target.describe() == "eval_accuracy >= 0.8025 and eval_accuracy < 1.0"
    assert benchmark_rule("v4.0", "stable_diffusion").target.describe() == \
        "(0.0 <= FID <= 90.0) and (0.15 <= CLIP <= 1.0)"
    runs = {b: benchmark_rule("v1.0", b).runs_required for b in
            ("resnet", "bert", "dlrm", "maskrcnn", "ssd", "rnnt", "minigo", "unet3d")}
    assert runs == {"resnet": 5, "bert": 10, "dlrm": 5, "maskrcnn": 5, "ssd": 5, "rnnt": 10,
                    "minigo": 10, "unet3d": 40}
    assert benchmark_rule("v1.0", "unet3d").max_failures == 4
    assert benchmark_rule("v1.0", "bert").max_failures == 1
    assert benchmark_rule("v1.0", "mask").benchmark == "maskrcnn"
    assert benchmark_rule("v5.1", "llama31_8b").runs_required == 10
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
                       sum(16 * 1_281_167 / (m * 60) for m in (33.0, 30.0, 40.0, 31.0, 32.0)) / 5),
                   "division": "closed", "rule_deviation": None, "deviates_from_rules": False,
                   "official_crash": None, "scaling_factor": 1.0, "benchmark_model": "resnet",
                   "folder": "ExampleCorp", "benchmark_path": "training_results_v1.0/ExampleCorp/results/sys_a/resnet",
                   "quirk": None, "division_source": "systems JSON", "score_basis": "official",
                   "energy_joules": None, "energy_kwh": None, "official_energy_joules": None,
                   "energy_runs": None, "energy_note": None,  # no power/ folder: no measured energy
                   # every run reaches the target at epoch 16 (3264 a batch): 16 epochs of ImageNet's 1,281,167
                   "global_batch_size": 3264, "summarizer_samples_to_converge": 16.0,
                   "samples_to_converge": 16 * 1_281_167}
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
    assert dropped[0]["minutes"] == 25.0 and "Failed checks for eval_accuracy" in dropped[0]["reason"]


def test_too_many_failures_gives_no_score_with_reason(v10):
    fx.too_many_failures(v10)
    _, scores = score_trees([v10])
    row = only(scores, system="sys_fail")
    assert row["time_to_train_minutes"] is None
    assert row["reason"] == ("2 of 5 runs fail, at most 1 allowed (result_3.txt: fails the official compliance check: "
                             "Failed checks for eval_accuracy : v['value'] >= 0.7590 and v['value'] < 1.0)")
    assert row["runs"] == 5 and row["dropped_runs"] == 2


def test_too_few_runs_keeps_the_official_score_and_flags_the_rule(v10):
    # The rules want 5 ResNet runs; the official summarizer scores the 4 there are (drops the fastest
    # and the slowest) and MLCommons publishes that. We give its score and flag the deviation.
    fx.write_benchmark(v10, "ExampleCorp", "sys_c", "resnet", [fx.converged(m) for m in (30.0, 31.0, 32.0, 39.0)])
    _, scores = score_trees([v10])
    row = only(scores, system="sys_c")
    assert row["time_to_train_minutes"] == (31 + 32) / 2 and row["reason"] is None
    assert row["deviates_from_rules"] is True
    assert row["rule_deviation"] == ("4 result files; resnet in v1.0 requires 5 "
                                     "(the official summarizer does not check the count)")


def test_failed_compliance_gives_no_score_with_the_checkers_reason(tmp_path):
    # as v3.0 Lenovo SR670v2 BERT: the logs write opt_epsilon, the v3.0 rules require opt_lamb_epsilon
    v30 = tmp_path / "training_results_v3.0"
    logs = [fx.run_log("bert", minutes=40.0 + i, evals=[(0.73, 1.0)]).replace('"opt_lamb_epsilon"', '"opt_x"')
            for i in range(10)]
    fx.write_benchmark(v30, "Lenovo", "sr670", "bert", logs)
    runs, scores = score_trees([v30])
    row = only(scores, system="sr670")
    assert row["time_to_train_minutes"] is None and row["dropped_runs"] == 10
    assert row["reason"] == ("10 of 10 runs fail, at most 1 allowed (result_0.txt: fails the official compliance "
                             "check: Required EXACTLY_ONE occurrence of 'opt_lamb_epsilon' but found 0)")
    assert set(runs["status"]) == {"dropped"}


def test_division_comes_from_the_systems_json(v10):
    fx.write_system_json(v10 / "ExampleCorp", "sys_open", division="open")
    fx.write_benchmark(v10, "ExampleCorp", "sys_open", "resnet", [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)])
    fx.write_system_json(v10 / "ExampleCorp", "sys_typo", division="close")  # three v0.7 files spell it so
    fx.write_benchmark(v10, "ExampleCorp", "sys_typo", "resnet", [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)])
    _, scores = score_trees([v10])
    assert only(scores, system="sys_open")["division"] == "open"
    assert only(scores, system="sys_typo")["division"] == "closed"


def test_a_system_json_without_a_field_the_summarizer_prints_stops_it_and_the_rules_score_it(v10):
    # it means to skip such a system, but its error report raises NameError: a crash, kept; its scoring
    # never reads hw_notes, so the runs are scored by the rules as it would score them: (31 + 32 + 33) / 3
    path = fx.write_system_json(v10 / "ExampleCorp", "sys_x")
    path.write_text(path.read_text().replace('"hw_notes"', '"hardware_notes"'))
    fx.write_benchmark(v10, "ExampleCorp", "sys_x", "resnet", [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)])
    _, scores = score_trees([v10])
    row = only(scores, system="sys_x")
    assert (row["time_to_train_minutes"], row["reason"], row["score_basis"]) == (32.0, None, "rules")
    assert (row["division"], row["division_source"]) == ("closed", "systems JSON")
    assert row["official_crash"] == "systems JSON sys_x.json has no 'hw_notes' field"


def test_a_count_the_official_summarizer_cannot_multiply_stops_it_and_the_rules_score_it(v10):
    # int("two") raises in the summarizer, which stops on the whole submitter folder; scoring never reads it
    fx.write_system_json(v10 / "ExampleCorp", "sys_y", host_processors_per_node="two")
    fx.write_benchmark(v10, "ExampleCorp", "sys_y", "resnet", [fx.converged(m) for m in (30.0, 33.0, 40.0, 31.0, 29.0)])
    _, scores = score_trees([v10])
    row = only(scores, system="sys_y")
    assert (row["time_to_train_minutes"], row["score_basis"]) == ((30 + 31 + 33) / 3, "rules")
    assert "host_processors_per_node" in row["official_crash"]


def test_where_the_rules_give_no_score_either_the_reason_says_both(v10):
    fx.write_system_json(v10 / "ExampleCorp", "sys_z", host_processors_per_node="two")
    fx.too_many_failures(v10, system="sys_z")
    _, scores = score_trees([v10])
    row = only(scores, system="sys_z")
    assert row["time_to_train_minutes"] is None and row["score_basis"] is None
    assert "host_processors_per_node" in row["official_crash"]
    assert row["reason"].startswith("the official summarizer stops on this system: systems JSON sys_z.json "
                                    "(host_processor_core_count=")
    assert "; by the rules: 2 of 5 runs fail, at most 1 allowed (result_3.txt: " in row["reason"]


def test_a_system_json_that_is_not_json_is_not_scored(v10):
    # the tool stops before it knows anything of the system: no division, no accelerators, no score
    (v10 / "ExampleCorp/systems").mkdir(parents=True)
    (v10 / "ExampleCorp/systems/sys_w.json").write_text('{"division": "closed",, }')
    fx.write_benchmark(v10, "ExampleCorp", "sys_w", "resnet", [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)],
                       systems_json=False)
    _, scores = score_trees([v10])
    row = only(scores, system="sys_w")
    assert (row["time_to_train_minutes"], row["score_basis"], row["division"]) == (None, None, None)
    assert "not valid JSON" in row["official_crash"] and row["reason"].startswith("the official summarizer stops")


def test_mixed_failure_kinds_and_formats(v10):
    logs = [fx.junk_before_mllog(30.0), fx.non_utf8(34.0), fx.run_log(minutes=31.0, event_type=False),
            fx.converged(33.0), fx.missing_run_stop()]
    fx.write_benchmark(v10, "ExampleCorp", "sys_d", "resnet", logs)
    runs, scores = score_trees([v10])
    assert only(scores, system="sys_d")["time_to_train_minutes"] == pytest.approx((31 + 33 + 34) / 3)
    missing = runs.filter(pl.col("reason").str.contains("'run_stop' but found 0"))
    assert missing.height == 1 and missing["minutes"][0] is None


def test_stray_files_and_nested_folders_are_ignored(v10):
    bench = fx.write_benchmark(v10, "ExampleCorp", "sys_e", "resnet",
                               [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)])
    fx.write_stray_files(bench, fx.converged(1.0))
    runs, scores = score_trees([v10])
    assert only(scores, system="sys_e")["runs"] == 5
    assert only(scores, system="sys_e")["time_to_train_minutes"] == 32.0
    assert all(f.rsplit("/", 1)[1].startswith("result_") for f in runs["run_file"])


def test_power_logs_the_official_energy_code_cannot_read_stop_it(tmp_path):
    v40 = tmp_path / "training_results_v4.0"
    for system, stop_at_start in (("sys_ok", False), ("sys_smc", True)):
        bench = fx.write_benchmark(v40, "ExampleCorp", system, "resnet",
                                   [fx.converged(m) for m in (30.0, 31.0, 32.0, 33.0, 34.0)])
        fx.write_power_logs(bench, [f"result_{i}" for i in range(5)], stop_at_start=stop_at_start)
    _, scores = score_trees([v40])
    ok = only(scores, system="sys_ok")
    assert ok["time_to_train_minutes"] == 32.0
    # 2000 W over the whole 60 s window x conversion_eff 0.95 = 1900 W, for the olympic mean of
    # 31, 32, 33 minutes: 1900 W x 32 x 60 s = 3,648,000 J
    assert ok["energy_joules"] == pytest.approx(3_648_000.0, rel=1e-12) and ok["energy_runs"] == 3
    smc = only(scores, system="sys_smc")
    assert smc["time_to_train_minutes"] is None
    assert smc["official_crash"] == "power/result_0/node_0.txt: ZeroDivisionError: float division by zero"
    assert smc["energy_joules"] is None and smc["energy_note"].startswith("no time score, so no energy; ")
    assert "power_measurement_stop has the start's time" in smc["energy_note"]


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
    v10, v07 = tmp_path / "training_results_v1.0", tmp_path / "training_results_v0.7"
    fx.write_benchmark(v10, "ExampleCorp", "sys_k", "resnet", [fx.converged(30.0)] * 5)
    fx.write_benchmark(v07, "OtherCorp", "sys_l", "resnet", [fx.converged(20.0)] * 5)
    _, scores = score_trees([v10 / "ExampleCorp", v07])
    assert scores.select("round", "submitter", "time_to_train_minutes").rows() == [
        ("v1.0", "ExampleCorp", 30.0), ("v0.7", "OtherCorp", 20.0)]


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
