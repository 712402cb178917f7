"""The atlas's corpus scoring on a corpus with every layout quirk of the published trees
(tests/atlas_fixtures.quirk_corpus); expected times are olympic means computed by hand."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf.corpus import round_dirs, score_corpus
from pipelines.domain.mlperf import benchmark_model
from pipelines.ingest.mlperf.quirks import status_class
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
    row = _row(scores, "v1.0", "hazy_a100", "resnet")
    assert row["runs"] == 5 and row["time_to_train_minutes"] == pytest.approx(32.0)
    files = runs.filter(pl.col("system") == "hazy_a100")["run_file"].to_list()
    assert files[0].endswith("result_220520100725096152634_1.txt")


def test_benchmark_folder_misplaced_inside_another_is_not_read_by_the_official_tool(scored):
    scores, runs, _ = scored
    bert = _row(scores, "v1.0", "gaudi8", "bert")
    assert bert["time_to_train_minutes"] is None and bert["runs"] == 10
    assert bert["reason"] == "the official summarizer does not read this folder (benchmark folder misplaced inside resnet/)"
    assert "misplaced inside resnet/" in bert["quirk"]
    # its runs are still read and listed
    assert runs.filter((pl.col("system") == "gaudi8") & (pl.col("benchmark") == "bert"))["status"].to_list() == ["scored"] * 10
    assert _row(scores, "v1.0", "gaudi8", "resnet")["time_to_train_minutes"] == pytest.approx(62.0)


def test_a_folder_not_named_after_a_benchmark_stops_the_official_tool_on_its_submitter_folder(scored):
    scores, _, _ = scored
    row = _row(scores, "v1.0", "typo_sys", "resnet")  # the benchmark as the logs name it
    assert row["time_to_train_minutes"] is None
    assert row["benchmark_path"].endswith("typo_sys/benchmark") and "'benchmark'" in row["quirk"]
    assert row["official_crash"] == "folder 'benchmark' is not a benchmark of v1.0"
    # the other system of the folder: the summarizer's score without the failing entry, and a note
    ok = _row(scores, "v1.0", "typo_ok", "resnet")
    assert ok["time_to_train_minutes"] == pytest.approx(27.0)
    assert ok["official_crash"] == ("the official summarizer stops on this submitter folder (at typo_sys/benchmark: "
                                    "folder 'benchmark' is not a benchmark of v1.0); scored as it scores the entry "
                                    "without that one")


def test_one_organisation_over_two_folders_keeps_both_and_the_json_name(scored):
    scores, _, _ = scored
    a = _row(scores, "v1.0", "sys_a", "resnet")
    b = _row(scores, "v1.0", "sys_b", "resnet")
    assert (a["submitter"], a["folder"]) == ("Supermicro", "Supermicro")
    assert (b["submitter"], b["folder"]) == ("Supermicro", "smc")
    assert b["time_to_train_minutes"] == pytest.approx(17.0)  # the CRLF logs: (16 + 17 + 18) / 3


def test_org_and_status_come_from_the_systems_json_not_the_logs(scored):
    scores, _, systems = scored
    row = _row(scores, "v1.0", "gcp_v100", "resnet")
    assert row["submitter"] == "Google"  # the logs say SUBMISSION_ORG_PLACEHOLDER
    assert row["time_to_train_minutes"] == pytest.approx(52.0)
    info = systems.filter(pl.col("system") == "gcp_v100").row(0, named=True)
    assert (info["status"], info["status_class"]) == ("Available cloud", "cloud")  # the logs say onprem


def test_scaling_json_multiplies_the_score(scored):
    scores, _, _ = scored
    row = _row(scores, "v1.0", "scaled_sys", "resnet")
    assert row["scaling_factor"] == 1.25
    assert row["time_to_train_minutes"] == pytest.approx(32.0 * 1.25)


def test_ssd_is_a_different_model_before_and_after_v2_0(scored):
    scores, _, _ = scored
    old, new = _row(scores, "v1.0", "acme_a100", "ssd"), _row(scores, "v3.0", "acme_a100", "ssd")
    assert (old["benchmark_model"], old["time_to_train_minutes"]) == ("ssd-resnet34", pytest.approx(7.0))
    assert (new["benchmark_model"], new["time_to_train_minutes"]) == ("retinanet", pytest.approx(70.0))
    assert benchmark_model("v5.0", "retinanet") == "retinanet"
    assert benchmark_model("v3.0", "dlrm_dcnv2") != benchmark_model("v2.1", "dlrm")
    assert benchmark_model("v4.1", "gnn") != benchmark_model("v5.0", "rgat")


def test_division_of_each_entry(scored):
    scores, _, _ = scored
    assert _row(scores, "v1.0", "acme_open", "resnet")["division"] == "open"
    assert _row(scores, "v1.0", "acme_a100", "resnet")["division"] == "closed"
    # no systems JSON: no division, and no score (the summarizer skips the system)
    assert _row(scores, "v1.0", "lost_sys", "resnet")["division"] is None


def test_entries_the_official_tool_does_not_score_say_why(scored):
    scores, _, systems = scored
    old = scores.filter(pl.col("round") == "v0.6").row(0, named=True)
    assert "not supported" in old["reason"]
    lost = _row(scores, "v1.0", "lost_sys", "resnet")
    assert lost["time_to_train_minutes"] is None
    assert lost["reason"] == "the official summarizer skips this system: no systems JSON systems/lost_sys.json"
    broken = _row(scores, "v1.0", "broken_sys", "resnet")
    assert broken["time_to_train_minutes"] is None and "not valid JSON" in broken["official_crash"]
    assert "invalid JSON" in systems.filter(pl.col("system") == "broken_sys").row(0, named=True)["problem"]


def test_systems_the_official_tool_stops_on_for_a_field_of_its_table_are_scored_by_the_rules(scored):
    """It stops on a systems JSON without number_of_nodes or division; its scoring reads neither, so the
    runs are scored by the rules (olympic means by hand), the crash kept, the gaps filled and sourced."""
    scores, _, systems = scored
    expected = {  # system: (minutes, division, division_source, official_crash)
        "spaced_sys": (32.0, "closed", "systems JSON", "systems JSON spaced_sys.json has no 'number_of_nodes' field"),
        "nodiv_open": (22.0, "open", "system name", "systems JSON nodiv_open.json has no 'division' field"),
        "nodiv_sys": (37.0, None, None, "systems JSON nodiv_sys.json has no 'division' field"),
        "nodes_n2_sys": (32.0, "closed", "systems JSON", "systems JSON nodes_n2_sys.json has no 'number_of_nodes' field"),
        "nodes_sys": (32.0, "closed", "systems JSON", "systems JSON nodes_sys.json has no 'number_of_nodes' field"),
    }
    for name, (minutes, division, source, crash) in expected.items():
        row = scores.filter(pl.col("system") == name).row(0, named=True)
        assert (row["time_to_train_minutes"], row["reason"], row["score_basis"]) == (minutes, None, "rules"), name
        assert (row["division"], row["division_source"], row["official_crash"]) == (division, source, crash), name
    # the node count: the JSON's misspelt field, NVIDIA's n<N> token of the name, or unknown
    nodes = {r["system"]: (r["number_of_nodes"], r["accelerators_total"], r["nodes_source"]) for r in systems.to_dicts()}
    assert nodes["spaced_sys"] == (1, 4, "systems JSON 'number of nodes'")
    assert nodes["nodes_n2_sys"] == (2, 16, "system name")
    assert nodes["nodes_sys"] == (None, None, None)
    assert nodes["acme_a100"] == (1, 8, "systems JSON")
    # every other score is the official tool's
    official = scores.filter(pl.col("time_to_train_minutes").is_not_null() & ~pl.col("system").is_in(list(expected)))
    assert set(official["score_basis"]) == {"official"}


def test_power_logs_the_official_energy_code_divides_by_zero_on(scored):
    scores, _, _ = scored
    smc = _row(scores, "v3.0", "smc_h100", "resnet")
    assert smc["time_to_train_minutes"] is None
    assert smc["official_crash"] == "power/result_0/node_0.txt: ZeroDivisionError: float division by zero"
    ok = _row(scores, "v3.0", "smc_ok", "resnet")
    assert ok["time_to_train_minutes"] == 42.0 and ok["official_crash"].startswith(
        "the official summarizer stops on this submitter folder (at smc_h100/resnet: power/result_0")


def test_too_few_runs_keep_the_official_score_with_the_rule_flagged(scored):
    scores, _, _ = scored
    short = _row(scores, "v1.0", "short_sys", "resnet")
    assert short["time_to_train_minutes"] == 31.0 and short["reason"] is None  # 30, 31, 32: drop 30 and 32
    assert short["deviates_from_rules"] is True and short["rule_deviation"].startswith("3 result files; resnet in v1.0 requires 5")
    assert scores.filter(pl.col("deviates_from_rules"))["system"].to_list() == ["short_sys"]


def test_systems_json_quirks_of_published_files(scored):
    _, _, systems = scored
    spaced = systems.filter(pl.col("system") == "spaced_sys").row(0, named=True)
    assert (spaced["problem"], spaced["number_of_nodes"], spaced["accelerators_total"]) == (None, 1, 4)
    floating = systems.filter(pl.col("system") == "float_sys").row(0, named=True)
    assert (floating["problem"], floating["number_of_nodes"], floating["accelerators_total"]) == (None, 1, 8)


def test_one_round_folder_alone(scored, tmp_path):
    root = quirk_corpus(tmp_path)
    alone, _, _ = score_corpus(root / "training_results_v3.0", workers=1)
    assert alone.equals(scored[0].filter(pl.col("round") == "v3.0"))


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
