"""Measured energy of MLPerf power results (pipelines/ingest/mlperf/power.py).

Checked three ways: against the official result summarizer (mlperf-logging 4.1.68) on power
trees the tests write and, with ATLAS_CORPUS, on the published v4.1 and v5.0 power results;
against energies computed by hand; and on bad power logs. The official tool writes scaling.json
into the folders it reads, so it only ever sees copies.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest
from mlperf_logging.compliance_checker.mlp_parser import parse_file
from mlperf_logging.result_summarizer import result_summarizer as official

from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf import quirks
from pipelines.ingest.mlperf.power import (
    RUN_COLUMNS, SCORE_COLUMNS, node_energy, run_columns, score_columns, score_power, switch_energy,
)
from pipelines.ingest.mlperf.corpus import score_corpus
from pipelines.ingest.mlperf.logs import parse_result_file
from pipelines.domain.mlperf import benchmark_rule
from pipelines.ingest.mlperf.summarizer import scaling_factor, score_benchmark
from pipelines.ingest.mlperf.tree import score_trees
from tests.mlperf_fixtures import write_log
from tests.power_fixtures import RULESET, power_log, result_log, write_power_result

CORPUS = Path(os.environ["ATLAS_CORPUS"]) if os.environ.get("ATLAS_CORPUS") else None
TOLERANCE = 1e-6  # relative


def walker_energy(benchmark_dir: Path, round_: str, *, strict: bool = False, nodes: int | None = None):
    """How the scoring walker calls mlperf.power for one benchmark folder (see the module docstring):
    the runs and the time score it computed, then the energy of the same runs."""
    rule = benchmark_rule(round_, benchmark_dir.name)
    runs = [parse_result_file(f, rule) for f in quirks.result_files(benchmark_dir)]
    minutes = score_benchmark(rule, runs).minutes
    factor = scaling_factor(benchmark_dir)
    power = score_power(benchmark_dir, runs, rule.max_failures, None if minutes is None else minutes * factor,
                        factor, number_of_nodes=nodes, strict=strict)
    return power, score_columns(power), run_columns(power, runs)


def official_energy(submitter_dir: Path, ruleset: str, work: Path) -> dict[str, float | None]:
    """{benchmark: Energy} of the official summarizer's detailed CSV for a copy of one submitter
    folder with one system."""
    copy = work / "official" / submitter_dir.name
    shutil.copytree(submitter_dir, copy)
    out = work / "official.csv"
    done = subprocess.run([sys.executable, "-m", "mlperf_logging.result_summarizer", str(copy), "training", ruleset,
                           "--csv", str(out)], cwd=work, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    with open(work / "official_detailed.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1
    return {column.split(":")[0]: (float(value) if value else None)
            for column, value in rows[0].items() if column.endswith(":Energy")}


def _close(ours: float | None, theirs: float | None) -> bool:
    return ours is not None and theirs is not None and abs(ours - theirs) <= TOLERANCE * abs(theirs)


# ---- small trees, against the official summarizer and by hand -----------------------------------

def _standard_run(i: int) -> dict[str, str]:
    """Node 0: readings 1000+10i, 2000, 3000 W at 1, 2, 3 s (start 0, stop 3 s), conversion_eff 0.95.
    Node 1: 500 W at 1 s and 1500 W at 3 s, conversion_eff 1.0. Switch: 250 W estimated, eff 0.9."""
    return {
        "node_0.txt": power_log([(1, 1000 + 10 * i), (2, 2000), (3, 3000)]),
        "node_1.txt": power_log([(1, 500), (3, 1500)], efficiency=1.0),
        "sw_0.txt": power_log([], estimate=250.0, start=False, stop=False, efficiency=0.9),
    }


def _hand_energy(i: int, minutes: float) -> float:
    """Joules of run i lasting ``minutes``: window-average power x time to train, per log.
    node 0: 0.95 x (1000+10i)*1 s + 2000*1 s + 3000*1 s over a 3 s window = 0.95 x (6000+10i)/3 W
    node 1: (500*1 s + 1500*2 s) / 3 s = 3500/3 W (conversion_eff 1.0)
    switch: 0.9 x 250 W = 225 W"""
    watts = 0.95 * (6000 + 10 * i) / 3 + 3500 / 3 + 225
    return watts * minutes * 60


def test_small_tree_equals_the_official_summarizer_and_the_hand_computed_energy(tmp_path):
    # 10 runs of 10..19 minutes plus nothing failed; scaling.json 1.5
    runs = [(10.0 + i, _standard_run(i)) for i in range(10)]
    bench = write_power_result(tmp_path / "training_results_v5.0", "sys1", runs, nodes=2, scaling=1.5)
    theirs = official_energy(bench.parents[2], RULESET, tmp_path)["bert"]
    power, row, run_rows = walker_energy(bench, "v5.0", nodes=2)
    # olympic: the fastest (i=0) and the slowest (i=9) are dropped; 8 runs averaged, x 1.5
    by_hand = sum(_hand_energy(i, 10.0 + i) for i in range(1, 9)) / 8 * 1.5
    assert by_hand == pytest.approx(4_315_717.5, rel=1e-12)
    assert _close(row["energy_joules"], theirs) and _close(row["official_energy_joules"], theirs)
    assert row["energy_joules"] == pytest.approx(by_hand, rel=1e-12)
    assert row["energy_kwh"] == pytest.approx(by_hand / 3.6e6, rel=1e-12)
    assert row["energy_runs"] == 8
    assert row["energy_note"] is None
    assert [r["energy_averaged"] for r in run_rows] == [False] + [True] * 8 + [False]
    assert run_rows[3]["energy_joules"] == pytest.approx(_hand_energy(3, 13.0), rel=1e-12)
    assert run_rows[3]["power_nodes"] == 2 and run_rows[3]["power_switches"] == 1
    assert set(row) == set(SCORE_COLUMNS) and set(run_rows[0]) == set(RUN_COLUMNS)


def test_the_walker_writes_the_energy_to_mlperf_scores_and_mlperf_runs(tmp_path):
    """The one walker, both modes: score_trees (the report, strict) and score_corpus (the atlas)."""
    runs = [(10.0 + i, _standard_run(i)) for i in range(10)]
    round_dir = tmp_path / "training_results_v5.0"
    write_power_result(round_dir, "sys1", runs, nodes=2, scaling=1.5)
    by_hand = 4_315_717.5  # the small tree's olympic mean x 1.5, computed in the test above
    for run_frame, scores in (score_trees([round_dir]), score_corpus(round_dir, workers=1)[:2][::-1]):
        row = scores.row(0, named=True)
        assert row["time_to_train_minutes"] == pytest.approx(sum(10.0 + i for i in range(1, 9)) / 8 * 1.5)
        assert row["energy_joules"] == pytest.approx(by_hand, rel=1e-12)
        assert row["energy_kwh"] == pytest.approx(by_hand / 3_600_000, rel=1e-12)
        assert row["official_energy_joules"] == pytest.approx(by_hand, rel=1e-12)
        assert row["energy_runs"] == 8 and row["energy_note"] is None
        run_3 = run_frame.filter(pl.col("run_file").str.ends_with("result_3.txt")).row(0, named=True)
        assert run_3["energy_joules"] == pytest.approx(_hand_energy(3, 13.0), rel=1e-12)
        assert run_3["power_nodes"] == 2 and run_3["power_switches"] == 1 and run_3["energy_averaged"]
        assert run_frame["energy_averaged"].to_list() == [False] + [True] * 8 + [False]


def test_the_walker_checks_every_node_of_the_systems_json_has_a_power_log(tmp_path):
    runs = [(10.0 + i, _standard_run(i)) for i in range(10)]
    round_dir = tmp_path / "training_results_v5.0"
    write_power_result(round_dir, "sys1", runs, nodes=3)  # two node logs per run, three nodes
    scores = score_corpus(round_dir, workers=1)[0]
    assert scores["energy_joules"][0] is not None  # scored as the official tool scores it, flagged
    assert "power logs of 2 nodes; the system has 3" in scores["energy_note"][0]
    with pytest.raises(InputError, match="power logs of 2 nodes; the system has 3"):
        score_trees([round_dir])


def test_a_benchmark_without_power_logs_has_null_energy_columns(tmp_path):
    round_dir = tmp_path / "training_results_v5.0"
    bench = write_power_result(round_dir, "sys1", [(10.0 + i, {}) for i in range(10)])
    shutil.rmtree(bench / "power", ignore_errors=True)
    runs, scores = score_trees([round_dir])
    assert scores["time_to_train_minutes"][0] is not None
    assert scores.select(list(SCORE_COLUMNS)).null_count().row(0) == (1,) * len(SCORE_COLUMNS)
    assert runs.select(list(RUN_COLUMNS)).null_count().row(0) == (10,) * len(RUN_COLUMNS)


def test_a_failed_run_counts_as_dropped_like_the_official_summarizer(tmp_path):
    # run 9 has no run_stop: both tools drop it, and then only the fastest scored run is dropped
    runs = [(10.0 + i, _standard_run(i)) for i in range(10)]
    bench = write_power_result(tmp_path / "training_results_v5.0", "sys1", runs)
    log = result_log(19.0).replace('"key": "run_stop"', '"key": "not_run_stop"')
    write_log(bench / "result_9.txt", log)
    theirs = official_energy(bench.parents[2], RULESET, tmp_path)["bert"]
    _, row, run_rows = walker_energy(bench, "v5.0")
    by_hand = sum(_hand_energy(i, 10.0 + i) for i in range(1, 9)) / 8
    assert _close(row["energy_joules"], theirs) and row["energy_joules"] == pytest.approx(by_hand, rel=1e-12)
    assert run_rows[9]["energy_joules"] is None and run_rows[9]["power_nodes"] is None


def test_no_power_folder_means_no_measured_energy(tmp_path):
    bench = write_power_result(tmp_path / "training_results_v5.0", "sys1", [(10.0, {})] * 10)
    power, row, run_rows = walker_energy(bench, "v5.0")
    assert power is None and set(row.values()) == {None} and len(run_rows) == 10


def test_the_energy_averages_the_runs_of_the_time_score(tmp_path):
    bench = write_power_result(tmp_path / "training_results_v5.0", "sys1",
                               [(10.0 + i, _standard_run(i)) for i in range(10)])
    rule = benchmark_rule("v5.0", "bert")
    runs = [parse_result_file(f, rule) for f in quirks.result_files(bench)]
    with pytest.raises(ValueError, match="time score"):
        score_power(bench, runs, rule.max_failures, 12.0)
    # no time score (say too few files): no energy, and the entry says so
    power = score_power(bench, runs, rule.max_failures, None)
    assert power.joules is None and power.note.startswith("no time score")


# ---- the two known departures of the official tool, shown on its own functions ---------------------

def _official_node(path: Path, ttt_ms: float) -> float:
    loglines, _ = parse_file(str(path), RULESET)
    return official._compute_power_node(loglines, ttt_ms)


def test_stop_equal_to_start_divides_by_zero_in_the_official_tool_and_follows_the_rules_here(tmp_path):
    # the v4.0 SMC pattern: start, stop at the start's time, readings, the stop line repeated at the end
    text = power_log([(2, 1000), (4, 1200), (6, 1100)], stop_s=0.0, efficiency=None)
    smc = write_log(tmp_path / "node_0.txt", text + text.splitlines(keepends=True)[-1])
    with pytest.raises(ZeroDivisionError):
        _official_node(smc, 600_000)
    energy = node_energy(smc, 600_000)
    # rules: readings 1000*2 s + 1200*2 s + 1100*2 s over the 6 s from start to the last reading
    assert energy.joules == pytest.approx((1000 * 2 + 1200 * 2 + 1100 * 2) / 6 * 600, rel=1e-12)
    assert energy.official_joules is None
    # the same value as the official tool gives once the broken stop lines are gone (its fallback)
    no_stop = write_log(tmp_path / "no_stop.txt", "".join(line for line in text.splitlines(keepends=True)
                                                            if "power_measurement_stop" not in line))
    assert energy.joules == pytest.approx(_official_node(no_stop, 600_000), rel=1e-12)
    assert [i.kind for i in energy.issues] == ["departure", "doubtful"]  # and no conversion_eff


def test_a_measuring_switch_log_counts_zero_in_the_official_tool_and_its_readings_here(tmp_path):
    sw = write_log(tmp_path / "sw_0.txt", power_log([(1, 300), (2, 320), (4, 310)], efficiency=0.96))
    loglines, _ = parse_file(str(sw), RULESET)
    assert official._compute_power_sw(loglines, 600_000) == 0
    energy = switch_energy(sw, 600_000)
    # 0.96 x (300*1 s + 320*1 s + 310*2 s) / 4 s x 600 s, the node formula of the official tool
    assert energy.joules == pytest.approx(0.96 * (300 + 320 + 620) / 4 * 600, rel=1e-12)
    assert energy.joules == pytest.approx(_official_node(sw, 600_000), rel=1e-12)
    assert energy.official_joules == 0 and energy.issues[0].kind == "departure"


def test_readings_at_the_stop_time_count_in_file_order_as_in_the_official_tool(tmp_path):
    # a reading at the stop's time counts when written before the stop line, not after it
    before = power_log([(1, 100), (2, 200)], stop_s=2.0)
    after = power_log([(1, 100)], stop_s=2.0, extra="")  # stop at 2 s, then a reading at 2 s
    after += power_log([(2, 200)], start=False, stop=False, efficiency=None)
    for name, text in (("before.txt", before), ("after.txt", after)):
        path = write_log(tmp_path / name, text)
        assert node_energy(path, 60_000).joules == pytest.approx(_official_node(path, 60_000), rel=1e-12)
    assert node_energy(tmp_path / "before.txt", 60_000).joules == pytest.approx(0.95 * 300 / 2 * 60)
    assert node_energy(tmp_path / "after.txt", 60_000).joules == pytest.approx(0.95 * 100 / 2 * 60)


# ---- bad power logs: an InputError in strict mode, a flagged entry otherwise, never a silent zero ---

_GOOD = [(1, 1000), (2, 1000), (3, 1000)]
UNUSABLE = {
    "no start": (power_log(_GOOD, start=False), "node_0.txt", "no power_measurement_start"),
    "negative reading": (power_log([(1, 1000), (2, -5), (3, 1000)]), "node_0.txt line 4", "-5 W is negative"),
    "absurd reading": (power_log([(1, 1000), (2, 5e7), (3, 1000)]), "node_0.txt line 4", "is absurd"),
    "text reading": (power_log([(1, 1000), (2, "n/a"), (3, 1000)]), "node_0.txt line 4", "'n/a' is not a number"),
    "stop before start": (power_log(_GOOD, start_s=3.0, stop_s=1.0), "node_0.txt", "is before power_measurement_start"),
    "no reading in the window": (power_log([(5, 1000)], stop_s=3.0), "node_0.txt",
                                 "no power_reading between power_measurement_start and power_measurement_stop"),
    "efficiency above 1": (power_log(_GOOD, efficiency=1.2), "node_0.txt line 2", "conversion_eff 1.2 is not a fraction"),
}
DOUBTFUL = {
    "no stop": (power_log(_GOOD, stop=False), "node_0.txt", "no power_measurement_stop; the last power_reading"),
    "no conversion_eff": (power_log(_GOOD, efficiency=None), "node_0.txt", "no conversion_eff; taken as 1.0"),
    "cut-off line": (power_log(_GOOD, extra=':::MLLOG {"namespace": "", "time_ms": 17450\n'), "node_0.txt line 7",
                     "not a :::MLLOG record"),
}


def _tree_with(tmp_path: Path, node_0: str) -> Path:
    """10 good runs, except that run 3's node_0.txt is ``node_0``."""
    runs = [(10.0 + i, _standard_run(i)) for i in range(10)]
    runs[3][1]["node_0.txt"] = node_0
    return write_power_result(tmp_path / "training_results_v5.0", "sys1", runs)


@pytest.mark.parametrize("case", sorted(UNUSABLE))
def test_an_unusable_log_leaves_the_entry_without_energy_and_says_why(tmp_path, case):
    text, where, problem = UNUSABLE[case]
    bench = _tree_with(tmp_path, text)
    _, row, run_rows = walker_energy(bench, "v5.0")
    assert row["energy_joules"] is None and row["energy_kwh"] is None and row["energy_runs"] is None
    assert row["energy_note"].startswith(f"no energy: result_3: {where}: ") and problem in row["energy_note"]
    assert run_rows[3]["energy_joules"] is None and problem in run_rows[3]["energy_note"]
    assert run_rows[4]["energy_joules"] == pytest.approx(_hand_energy(4, 14.0), rel=1e-12)
    with pytest.raises(InputError) as raised:
        walker_energy(bench, "v5.0", strict=True)
    assert problem in str(raised.value) and str(raised.value).startswith(str(bench / "power" / "result_3"))


@pytest.mark.parametrize("case", sorted(DOUBTFUL))
def test_a_doubtful_log_is_scored_as_the_official_tool_scores_it_and_flagged(tmp_path, case):
    text, where, problem = DOUBTFUL[case]
    bench = _tree_with(tmp_path, text)
    theirs = official_energy(bench.parents[2], RULESET, tmp_path)["bert"]
    _, row, _ = walker_energy(bench, "v5.0")
    assert _close(row["energy_joules"], theirs)
    assert f"{where}: {problem}" in row["energy_note"]
    with pytest.raises(InputError, match=problem.split(";")[0]):
        walker_energy(bench, "v5.0", strict=True)


def test_an_unusable_log_of_a_run_outside_the_average_is_flagged_only(tmp_path):
    runs = [(10.0 + i, _standard_run(i)) for i in range(10)]
    runs[0][1]["node_0.txt"] = power_log([(1, -1)])  # run 0 is the fastest: dropped by olympic scoring
    bench = write_power_result(tmp_path / "training_results_v5.0", "sys1", runs)
    _, row, _ = walker_energy(bench, "v5.0")
    assert row["energy_joules"] == pytest.approx(sum(_hand_energy(i, 10.0 + i) for i in range(1, 9)) / 8, rel=1e-12)
    assert "result_0 (not averaged): node_0.txt line 3: power_reading -1 W is negative" in row["energy_note"]


def test_missing_logs_and_missing_nodes(tmp_path):
    runs = [(10.0 + i, _standard_run(i)) for i in range(10)]
    runs[5] = (15.0, {"sw_0.txt": runs[5][1]["sw_0.txt"]})  # run 5 lost its node logs
    runs[6] = (16.0, {"node_0.txt": runs[6][1]["node_0.txt"]})  # run 6 measured 1 of 2 nodes
    runs[7][1]["sw_0.txt"] = power_log([], efficiency=0.9, start=False, stop=False)  # neither estimate nor readings
    bench = write_power_result(tmp_path / "training_results_v5.0", "sys1", runs)
    _, row, run_rows = walker_energy(bench, "v5.0", nodes=2)
    assert row["energy_joules"] is None
    assert run_rows[5]["energy_note"].startswith("result_5: no node_*.txt power log for this run")
    assert "result_6: power logs of 1 nodes; the system has 2" in run_rows[6]["energy_note"]
    assert run_rows[6]["energy_joules"] is not None  # scored, flagged
    assert "sw_0.txt: neither interconnect_power_est nor power_reading" in run_rows[7]["energy_note"]
    with pytest.raises(InputError, match="no node_.*txt power log"):
        walker_energy(bench, "v5.0", strict=True)


def test_runs_that_are_not_scored_get_no_energy(tmp_path):
    bench = write_power_result(tmp_path / "training_results_v5.0", "sys1",
                               [(10.0 + i, _standard_run(i)) for i in range(3)])
    runs = [SimpleNamespace(path=str(bench / f"result_{i}.txt"), minutes=10.0 + i, scored=i != 1) for i in range(3)]
    power = score_power(bench, runs, 1, 12.0)
    assert [r.joules is None for r in power.runs] == [False, True, False]
    # 1 failure allowed and used: only the fastest scored run (run 0) is dropped
    assert power.joules == pytest.approx(_hand_energy(2, 12.0), rel=1e-12)


# ---- the published power results (ATLAS_CORPUS) ----------------------------------------------------

PUBLISHED = [
    ("v4.1", "Dell", "8xXE9680x8H100-SXM-80GB-POWER", {"llama2_70b_lora"}),
    ("v5.0", "Lenovo", "SR780aV3-8xB200_SXM_180GB", {"bert", "llama2_70b_lora", "retinanet", "stable_diffusion"}),
]


def _one_system(source: Path, system: str, work: Path, benchmarks: set[str] | None = None) -> Path:
    """A copy of a submitter folder with one system (and some benchmarks): the official tool then
    runs in seconds."""
    target = work / "src" / source.name
    (target / "results" / system).mkdir(parents=True)
    (target / "systems").mkdir()
    shutil.copy(source / "systems" / f"{system}.json", target / "systems")
    for bench in quirks.dirs(source / "results" / system):
        if benchmarks is None or bench.name in benchmarks:
            shutil.copytree(bench, target / "results" / system / bench.name)
    return target


@pytest.mark.skipif(CORPUS is None, reason="set ATLAS_CORPUS to a folder with the published training_results_v* trees")
@pytest.mark.parametrize("round_,folder,system,benchmarks", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_power_results_equal_the_official_summarizer(tmp_path, round_, folder, system, benchmarks):
    source = CORPUS / f"training_results_{round_}" / folder  # type: ignore[operator]
    if not (source / "results" / system).is_dir():
        pytest.skip(f"{source / 'results' / system} not in the corpus")
    theirs = official_energy(_one_system(source, system, tmp_path), round_[1:] + ".0", tmp_path)
    assert {b for b, v in theirs.items() if v is not None} == benchmarks
    for benchmark in sorted(benchmarks):
        bench = source / "results" / system / benchmark
        power, row, _ = walker_energy(bench, round_)
        assert _close(row["official_energy_joules"], theirs[benchmark]), (benchmark, row, theirs[benchmark])
        if round_ == "v5.0":
            assert _close(row["energy_joules"], theirs[benchmark]) and row["energy_note"] is None
            continue
        # v4.1 Dell: its sw_0.txt measures; the rules count it, the official tool counts 0 J. The
        # difference is the switch energy by the official node formula, averaged over the same runs.
        factor = scaling_factor(bench)
        averaged = [r for r in power.runs if r.averaged]
        switch = [_official_node(bench / "power" / Path(r.run_file).stem / "sw_0.txt",
                                 next(x.minutes for x in _runs(bench, round_) if x.path == r.run_file) * 60_000)
                  for r in averaged]
        assert row["energy_joules"] == pytest.approx(theirs[benchmark] + sum(switch) / len(switch) * factor, rel=TOLERANCE)
        assert "sw_0.txt: writes power_reading and no interconnect_power_est" in row["energy_note"]


def _runs(bench: Path, round_: str):
    rule = benchmark_rule(round_, bench.name)
    return [parse_result_file(f, rule) for f in quirks.result_files(bench)]


@pytest.mark.skipif(CORPUS is None, reason="set ATLAS_CORPUS to a folder with the published training_results_v* trees")
def test_published_v40_smc_logs_stop_the_official_tool_and_are_scored_by_the_rules(tmp_path):
    source = CORPUS / "training_results_v4.0" / "smc-dc-power"  # type: ignore[operator]
    system = "1xSMC-H100-SXM-80GB"
    if not (source / "results" / system / "bert").is_dir():
        pytest.skip("v4.0 smc-dc-power not in the corpus")
    copy = _one_system(source, system, tmp_path, {"bert"})
    done = subprocess.run([sys.executable, "-m", "mlperf_logging.result_summarizer", str(copy), "training", "4.0.0"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and "ZeroDivisionError" in done.stderr
    bench = source / "results" / system / "bert"
    power, row, _ = walker_energy(bench, "v4.0")
    assert row["official_energy_joules"] is None and row["energy_joules"] > 0
    assert "power_measurement_stop has the start's time" in row["energy_note"]
    # each averaged run equals the official node formula on its log without the broken stop lines
    for run in (r for r in power.runs if r.averaged):
        log = bench / "power" / Path(run.run_file).stem / "node_0.txt"
        kept = "".join(line for line in log.read_text(encoding="latin-1").splitlines(keepends=True)
                       if "power_measurement_stop" not in line)
        fixed = write_log(tmp_path / "fixed" / Path(run.run_file).stem / "node_0.txt", kept)
        minutes = next(x.minutes for x in _runs(bench, "v4.0") if x.path == run.run_file)
        assert run.joules == pytest.approx(_official_node(fixed, minutes * 60_000), rel=TOLERANCE)
