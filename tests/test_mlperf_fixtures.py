"""The test logs (tests/mlperf_fixtures) pass the official compliance checker, and our checker
gives the official checker's verdict on them and on broken variants of them.

The official checker (mlperf-logging 4.1.68, mlp_compliance) runs in-process here: it is the
reference that mlperf.compliance mirrors, so every fixture the other tests build on is judged by
it, not by our code.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mlperf_logging.compliance_checker import mlp_compliance

from pipelines.ingest.mlperf.compliance import OfficialCrash, check
from pipelines.ingest.mlperf.logs import read_log
from tests import mlperf_fixtures as fx
from tests.test_mlperf_properties import mutated

PAIRS = [(b, r) for b, rounds in fx.CHECKED_ROUNDS.items() for r in rounds]
EVALS = {"bert": [(0.73, 1.0)], "rnnt": [(0.05, 1.0)], "maskrcnn": [({"BBOX": 0.38, "SEGM": 0.34}, 1.0)],
         "ssd": [(0.35, 1.0)]}


def log_for(benchmark: str, round_: str, **kwargs) -> str:
    if benchmark == "stable_diffusion":
        return fx.stable_diffusion_log(round_, 20.0, [(1, 120.0, 0.10), (2, 85.0, 0.16)], **kwargs)
    return fx.run_log(benchmark, evals=EVALS.get(benchmark), **kwargs)


def official_valid(path, round_: str) -> bool:
    ruleset = round_[1:] + ".0"
    checker = mlp_compliance.make_checker("training", ruleset, quiet=True, werror=False)
    logging.disable(logging.CRITICAL)  # it logs its messages as warnings
    try:
        valid, *_ = mlp_compliance.main(str(path), f"training_{ruleset}/common.yaml", checker)
    finally:
        logging.disable(logging.NOTSET)
    return valid


def ours_valid(path, round_: str) -> bool:
    parsed = read_log(path)
    return check(parsed.lines, round_[1:] + ".0", len(parsed.errors)).valid


@pytest.mark.parametrize(("benchmark", "round_"), PAIRS)
def test_fixture_logs_pass_the_official_checker(tmp_path, benchmark, round_):
    path = fx.write_log(tmp_path / "result_0.txt", log_for(benchmark, round_))
    assert official_valid(path, round_)
    assert ours_valid(path, round_)


BREAKS = {
    "no hyperparameter": lambda log: "".join(line for line in log.splitlines(keepends=True)
                                             if '"opt_base_learning_rate"' not in line and '"lars_opt_momentum"' not in line
                                             and '"opt_name"' not in line),
    "value a check refuses": lambda log: log.replace('"value": "onprem"', '"value": "on premises"'),
    "division without rules": lambda log: log.replace('"value": "closed"', '"value": "closd"'),
    "two differing values": lambda log: log + fx.mllog("submission_org", "OtherCorp", time_ms=fx.START_MS),
    "two equal values": lambda log: log + fx.mllog("submission_org", "ExampleCorp", time_ms=fx.START_MS),
    "no status": lambda log: log.replace('"status": "success"', '"state": "success"'),
    "target missed": lambda log: log.replace("0.7601", "0.7001").replace("0.73", "0.63").replace(
        "0.05,", "0.5,").replace("85.0", "95.0"),
    "cut line": lambda log: log.replace('"key": "run_start"', '"key": "run_start'),
    "init too long": lambda log: log.replace(str(fx.START_MS - 60_000), str(fx.START_MS - 3 * 3600_000)),
    "unknown benchmark": lambda log: log.replace('"value": "resnet"', '"value": "resnet50"'),
}
# The official verdict on each break: valid, invalid, or it raises (the rules name a file it lacks).
EXPECTED = {name: False for name in BREAKS} | {"two equal values": True, "unknown benchmark": "raises",
                                              "division without rules": "raises"}


@pytest.mark.parametrize("broken", sorted(BREAKS))
@pytest.mark.parametrize(("benchmark", "round_"), [("resnet", "v1.0"), ("bert", "v3.0"), ("stable_diffusion", "v4.0"),
                                                   ("rnnt", "v1.0"), ("bert", "v0.7")])
def test_our_verdict_is_the_official_one_on_broken_logs(tmp_path, benchmark, round_, broken):
    path = fx.write_log(tmp_path / "result_0.txt", BREAKS[broken](log_for(benchmark, round_)))
    try:
        official = official_valid(path, round_)
    except Exception as error:  # noqa: BLE001 - the official checker raising is a verdict too
        official = f"raises {type(error).__name__}"
    try:
        ours = ours_valid(path, round_)
    except Exception as error:  # noqa: BLE001
        ours = f"raises {type(error).__name__}"
    expected = EXPECTED[broken] if benchmark == "resnet" or broken != "unknown benchmark" else True
    assert official == expected or (expected == "raises" and str(official).startswith("raises"))
    assert (ours is True) == (official is True)
    assert isinstance(ours, str) == isinstance(official, str)


# ---- differential: random edits of a valid log, judged by both checkers ------------------------

def _verdict(path, round_: str, ours: bool):
    """True / False, or "raises" where the checker raises (for us: a crash of the parse or the rules)."""
    try:
        if ours:
            parsed = read_log(path)
            return "raises" if parsed.crash else check(parsed.lines, round_[1:] + ".0", len(parsed.errors)).valid
        return official_valid(path, round_)
    except OfficialCrash:
        return "raises"
    except Exception:  # noqa: BLE001 - any exception of the official checker
        if ours:
            raise
        return "raises"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=mutated(fx.run_log("bert", evals=[(0.70, 1.0), (0.73, 2.0)]).encode("latin-1")),
       round_=st.sampled_from(["v0.7", "v1.0", "v3.0", "v5.0"]))
def test_random_edits_get_the_official_verdict(content, round_):
    with tempfile.TemporaryDirectory() as tmp:
        path = fx.write_log(Path(tmp) / "result_0.txt", content)
        assert _verdict(path, round_, ours=True) == _verdict(path, round_, ours=False)


def test_a_value_error_in_the_rules_fails_the_run_and_anything_else_stops_the_tool():
    # the summarizer catches ValueError around each run (a failed run) and nothing else (it stops)
    from pipelines.ingest.mlperf.compliance import _raised, _Rejected

    assert isinstance(_raised(ValueError("math domain error"), "line 3"), _Rejected)
    assert isinstance(_raised(TypeError("'>=' not supported"), "line 3"), OfficialCrash)
    assert isinstance(_raised(KeyError("step_num"), "BEGIN"), OfficialCrash)
