"""Entries the official summarizer stops on for a field of its table only, scored by the rules.

The data: published v0.7 logs kept in tests/published_mlperf (README there). The official tool
(mlperf-logging 4.1.68) stops on their systems JSON (no "number_of_nodes", no "division"), but its
scoring function, called directly on each benchmark folder, scores them; those values are written
here by hand, and both the tool's function and the project's walker must give them to the last bit.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipelines.ingest.mlperf.corpus import score_corpus
from pipelines.ingest.mlperf.gaps import division_from_names, nodes_from_names
from tests.official_summarizer import scoring_function

PUBLISHED = Path(__file__).resolve().parent / "published_mlperf"
V07 = PUBLISHED / "training_results_v0.7"
# (submitter folder, system, benchmark) -> minutes, as the official scoring function gives them
SCORES = {
    ("DellEMC", "C4140", "transformer"): 35.38293958333333,
    ("SIAT", "modelarts_512_tensorflow_close", "resnet"): 1.5581333333333334,
    ("SIAT", "modelarts_128_mindspore_open", "resnet"): 2.05395,
}


@pytest.fixture(scope="module")
def scored():
    return score_corpus(V07, workers=1)  # the v0.7 folders these scores are of (tests/published_mlperf has v5.1 too)


@pytest.mark.parametrize("entry", sorted(SCORES))
def test_the_official_scoring_function_gives_these_scores(entry):
    folder, system, benchmark = entry
    assert scoring_function(V07 / folder / "results" / system / benchmark, "v0.7") == SCORES[entry]


def test_the_walker_scores_them_by_the_rules_to_the_last_bit_and_keeps_why_the_tool_stops(scored):
    scores, runs, _ = scored
    got = {(r["folder"], r["system"], r["benchmark"]): r for r in scores.to_dicts()}
    assert set(got) == set(SCORES)
    for key, minutes in SCORES.items():
        row = got[key]
        assert (row["time_to_train_minutes"], row["score_basis"], row["reason"]) == (minutes, "rules", None), key
        assert row["dropped_runs"] == 0 and row["rule_deviation"] is None
    assert got[("DellEMC", "C4140", "transformer")]["official_crash"] == "systems JSON C4140.json has no 'number_of_nodes' field"
    # the tool stops on SIAT's folder at its first system; each system keeps the reason it would stop on
    siat = got[("SIAT", "modelarts_512_tensorflow_close", "resnet")]
    assert siat["official_crash"] == "systems JSON modelarts_512_tensorflow_close.json has no 'division' field"
    assert runs.height == 20 and set(runs["status"]) == {"scored"}


def test_what_the_json_lacks_is_filled_from_where_it_is_stated_and_says_where(scored):
    scores, _, systems = scored
    division = {r["system"]: (r["division"], r["division_source"]) for r in scores.to_dicts()}
    assert division == {"C4140": ("closed", "systems JSON"),  # it has "division"; it lacks number_of_nodes
                        "modelarts_512_tensorflow_close": ("closed", "system name"),  # the JSON says "divison"
                        "modelarts_128_mindspore_open": ("open", "system name")}
    nodes = {r["system"]: (r["number_of_nodes"], r["accelerators_total"], r["nodes_source"]) for r in systems.to_dicts()}
    assert nodes == {"C4140": (1, 4, "systems JSON 'number of nodes'"),  # 1 node x 4 V100
                     "modelarts_512_tensorflow_close": (64, 512, "systems JSON"),  # 64 nodes x 8 Ascend 910
                     "modelarts_128_mindspore_open": (16, 128, "systems JSON")}
    assert systems.filter(pl.col("problem").is_not_null()).is_empty()


@pytest.mark.parametrize("names, division", [
    (("modelarts_512_tensorflow_close", "modelarts_512_0"), "closed"),  # SIAT v0.7: the folder says it
    (("modelarts_1024_tensorflow_open", "modelarts_1024_1"), "open"),
    (("CloudBrainII_256_mindspore_close", None), "closed"),  # PCL v1.0
    (("8xA100_40GB_open", "8xA100_40GB"), "open"),  # Ailiverse v3.1
    (("sys_Closed", None), "closed"),
    (("GN10X-8xV100", "GN10X"), None),  # Tencent v0.7: nothing says
    (("a_open", "a_closed"), None),  # the names disagree
    (("reopen", "opened_sys"), None),  # a word, not a token
    ((None, None), None),
])
def test_division_from_names(names, division):
    assert division_from_names(*names) == division


@pytest.mark.parametrize("names, nodes", [
    (("dgxa100_n8_ngc20.06_mxnet", "NVIDIA DGX A100"), 8),  # NVIDIA's n<N>
    (("dgx2h_n64_ngc20.06_pytorch", None), 64),
    (("x_n2", "x-n2"), 2),
    (("2xC4140", "2xC4140"), None),  # a leading <N>x also counts accelerators elsewhere: not read
    (("8xA100_80GB-baseline", None), None),
    (("tpu-v3-32", "nvidia_sys"), None),
    (("x_n0_y", None), None),  # no system has 0 nodes
    (("x_n2", "x_n4"), None),  # the names disagree
])
def test_nodes_from_names(names, nodes):
    assert nodes_from_names(*names) == nodes
