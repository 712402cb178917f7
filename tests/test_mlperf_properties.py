"""Property tests: any bytes, and valid files mutated at random, give a result or InputError.

Never another exception: the pipeline turns InputError into one readable line, anything else
would be a stack trace for the user.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf.logs import RunResult, parse_result_file
from pipelines.domain.mlperf import RULES
from pipelines.ingest.mlperf.summarizer import olympic_mean
from pipelines.ingest.mlperf.tree import score_trees
from pipelines.ingest.systems_json import parse_system_json
from tests import mlperf_fixtures as fx

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALL_RULES = [rule for rules in RULES.values() for rule in rules.values()]
VALID_LOG = fx.converged(30.0).encode("latin-1")
VALID_SYSTEM = json.dumps(fx.SYSTEM_DEFAULTS, indent=2).encode("utf-8")


@st.composite
def mutated(draw, original: bytes) -> bytes:
    """Delete, insert, replace or truncate a few spots of a valid file."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "truncate"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "delete":
            del data[at: at + draw(st.integers(1, 40))]
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=20) | st.sampled_from(
                [b":::MLLOG ", b"{", b"}", b'"', b"\n", b"\r", b"NaN", b"1e999", b"[[[[", b'"run_stop"']))
        elif op == "replace" and data:
            data[at] = draw(st.integers(0, 255))
        else:
            del data[at:]
    return bytes(data)


def _parse_log(content: bytes, rule) -> RunResult | None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "result_0.txt"
        path.write_bytes(content)
        try:
            return parse_result_file(path, rule)
        except InputError:
            return None


def _check_run(run: RunResult | None) -> None:
    if run is None:
        return
    assert run.scored == (run.reason is None)
    if run.scored:
        assert run.minutes is not None and run.minutes >= 0
    if run.samples_per_second is not None:
        assert run.scored and run.samples_per_second > 0


@SETTINGS
@given(content=st.binary(max_size=4000), rule=st.sampled_from(ALL_RULES))
def test_arbitrary_bytes_as_result_log(content, rule):
    _check_run(_parse_log(content, rule))


@SETTINGS
@given(content=st.binary(max_size=400).map(lambda b: b":::MLLOG " + b), rule=st.sampled_from(ALL_RULES))
@example(content=b':::MLLOG {"key": "run_start", "time_ms": 1' + b"0" * 400 + b"}", rule=ALL_RULES[0])
@example(content=b':::MLLOG {"key": "run_start", "time_ms": 1e999}', rule=ALL_RULES[0])
@example(content=b":::MLLOG " + b"[" * 100_000, rule=ALL_RULES[0])
def test_arbitrary_bytes_after_mllog_token(content, rule):
    _check_run(_parse_log(content, rule))


@SETTINGS
@given(content=mutated(VALID_LOG), rule=st.sampled_from(ALL_RULES))
def test_mutated_valid_log(content, rule):
    _check_run(_parse_log(content, rule))


@SETTINGS
@given(records=st.lists(st.dictionaries(
    st.sampled_from(["time_ms", "key", "value", "metadata", "event_type"]),
    st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=10)
                 | st.sampled_from(["run_start", "run_stop", "eval_accuracy", "train_samples", "success"]),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                     st.sampled_from(["status", "epoch_num", "BBOX", "SEGM"]), inner, max_size=3),
                 max_leaves=8)), max_size=12),
       rule=st.sampled_from(ALL_RULES))
def test_well_formed_json_with_any_shape(records, rule):
    content = "".join(":::MLLOG " + json.dumps(r) + "\n" for r in records).encode("latin-1", "replace")
    _check_run(_parse_log(content, rule))


def _parse_system(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sys.json"
        path.write_bytes(content)
        try:
            desc = parse_system_json(path)
        except InputError:
            return
        assert desc["accelerators_total"] == desc["number_of_nodes"] * desc["accelerators_per_node"]


@SETTINGS
@given(content=st.binary(max_size=2000))
def test_arbitrary_bytes_as_systems_json(content):
    _parse_system(content)


@SETTINGS
@given(content=mutated(VALID_SYSTEM))
def test_mutated_systems_json(content):
    _parse_system(content)


@SETTINGS
@given(fields=st.dictionaries(
    st.sampled_from(list(fx.SYSTEM_DEFAULTS)),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                 max_leaves=6)))
def test_systems_json_with_any_value_types(fields):
    _parse_system(json.dumps({**fx.SYSTEM_DEFAULTS, **fields}).encode("utf-8"))


@SETTINGS
@given(times=st.lists(st.floats(0.1, 1000), min_size=3, max_size=12), failures=st.integers(0, 1))
def test_olympic_mean_lies_between_kept_extremes(times, failures):
    mean = olympic_mean(times, failures, 1)
    kept = sorted(times)[1: len(times) - (1 - failures)]
    if mean is not None:
        assert min(kept) - 1e-9 <= mean <= max(kept) + 1e-9


@settings(max_examples=30, deadline=None)
@given(logs=st.lists(mutated(VALID_LOG), min_size=0, max_size=6))
def test_score_trees_on_mutated_logs(logs):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "training_results_v1.0"
        fx.write_benchmark(root, "ExampleCorp", "sys", "resnet", logs)
        (root / "ExampleCorp" / "results" / "sys").mkdir(parents=True, exist_ok=True)
        runs, scores = score_trees([root])
        assert runs.height == len(logs)
        if logs:
            row = scores.to_dicts()[0]
            assert (row["time_to_train_minutes"] is None) == (row["reason"] is not None)
