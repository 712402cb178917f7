"""A team's own workload: measured throughput and samples per run give time, cost, samples per
dollar, relative value and the monthly bill, against figures worked out by hand; the names a
user types are checked; the report credits the measurement to its source, never to MLPerf."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.names import unknown_name
from pipelines.ingest.report_config import parse_report_config
from pipelines.ingest.tables import read_throughput
from pipelines.metrics.cost import (
    CONVERGENCE_BASIS, LOGGED_BASIS, MEASURED_BASIS, assemble_inputs, cost_to_train, workload_frame,
)
from tests.pipeline_runner import make_dirs, run_pipeline
from tests.small_raw import write_small_raw

# The bundled worked example (raw/throughput/example_workload.csv, raw/report.toml): one run is
# 90 epochs x 1,281,167 images = 115,305,030 samples; four runs a month.
SAMPLES = 115_305_030
THROUGHPUT = (
    "system,benchmark,samples_per_second,framework,precision,global_batch_size,source,measured_on\n"
    "aws/p4d.24xlarge,ours,18740,PyTorch,bf16,2048,our lab,2025-05-20\n"
    "aws/p3.16xlarge,ours,8210,PyTorch,fp16,1024,our lab,2025-05-20\n"
    "gcp/a2-highgpu-8g,ours,18310,PyTorch,bf16,2048,our lab,2025-05-21\n"
)
INSTANCES = [("aws", "us-east-1", "p4d.24xlarge", 21.957642), ("aws", "us-east-1", "p3.16xlarge", 24.48),
             ("gcp", "us-central1", "a2-highgpu-8g", 29.38708)]


def _frames(benchmark: str = "ours", baseline: str = "p3.16xlarge"):
    comparisons = pl.DataFrame([
        {"comparison": "c", "comparison_title": "C", "position": i, "provider": p, "region": r, "instance_type": t,
         "benchmark": benchmark, "benchmark_position": 0, "is_baseline": t == baseline}
        for i, (p, r, t, _) in enumerate(INSTANCES)])
    instances = pl.DataFrame([{"provider": p, "instance_type": t, "accelerator": "GPU", "accelerator_count": 8}
                              for p, _, t, _ in INSTANCES])
    prices = pl.DataFrame([{"provider": p, "region": r, "instance_type": t, "usd_per_hour": usd,
                            "as_of": dt.date(2025, 6, 1), "source": "list"} for p, r, t, usd in INSTANCES])
    mappings = pl.DataFrame(schema={"provider": pl.Utf8, "instance_type": pl.Utf8, "benchmark": pl.Utf8,
                                    "system": pl.Utf8, "note": pl.Utf8})
    return comparisons, instances, prices, mappings


def _by_type(frame: pl.DataFrame) -> dict:
    return {r["instance_type"]: r for r in frame.iter_rows(named=True)}


@pytest.fixture
def throughput(tmp_path) -> pl.DataFrame:
    path = tmp_path / "throughput.csv"
    path.write_text(THROUGHPUT)
    return read_throughput(path).with_columns(file=pl.lit("throughput.csv"))


def test_workload_time_cost_value_and_month_by_hand(throughput):
    comparisons, instances, prices, mappings = _frames()
    empty_scores = pl.DataFrame(schema={"system": pl.Utf8, "benchmark": pl.Utf8, "round": pl.Utf8,
                                        "time_to_train_minutes": pl.Float64, "runs": pl.Int64,
                                        "dropped_runs": pl.Int64, "samples_per_second": pl.Float64})
    workloads = workload_frame([{"name": "ours", "title": "Ours", "samples": SAMPLES, "runs_per_month": 4}])
    out = _by_type(cost_to_train(assemble_inputs(comparisons, instances, mappings, empty_scores, prices, throughput,
                                                 workloads=workloads)))
    p4d, p3, a2 = out["p4d.24xlarge"], out["p3.16xlarge"], out["a2-highgpu-8g"]
    # time = 115,305,030 samples / 18,740 samples/s = 6,152.88 s = 102.5481 min
    assert p4d["time_to_train_minutes"] == pytest.approx(102.5481, abs=1e-4)
    # cost = 21.957642 $/h x 102.5481 / 60 h = $37.5286; p3: 24.48 x 234.0744 / 60 = $95.5023
    assert p4d["cost_to_train_usd"] == pytest.approx(37.5286, abs=1e-4)
    assert p3["cost_to_train_usd"] == pytest.approx(95.5023, abs=1e-4)
    assert a2["cost_to_train_usd"] == pytest.approx(51.4060, abs=1e-4)  # 29.38708 x 104.9563 / 60
    # samples per dollar = 18,740 x 3,600 / 21.957642 = 3,072,461.06; p3: 8,210 x 3,600 / 24.48 = 1,207,352.94
    assert p4d["samples_per_dollar"] == pytest.approx(3_072_461.06, abs=0.01)
    assert p3["samples_per_dollar"] == pytest.approx(1_207_352.94, abs=0.01)
    # ... which is samples per run / cost: 115,305,030 / 37.52856 = 3,072,461
    assert p4d["samples_per_dollar"] == pytest.approx(SAMPLES / p4d["cost_to_train_usd"], rel=1e-12)
    # relative value against the baseline p3.16xlarge: 3,072,461.06 / 1,207,352.94 = 2.5448
    assert p4d["relative_value"] == pytest.approx(2.5448, abs=1e-4)
    assert a2["relative_value"] == pytest.approx(2_243_026.53 / 1_207_352.94, abs=1e-6)
    assert p3["relative_value"] == pytest.approx(1.0)
    # four runs a month: 4 x 37.5286 = $150.11
    assert p4d["monthly_cost_usd"] == pytest.approx(150.1142, abs=1e-4)
    # savings = 100 x (1 - 37.5286 / 95.5023) = 60.70 %; speedup = 234.0744 / 102.5481 = 2.2826
    assert p4d["savings_pct"] == pytest.approx(60.7039, abs=1e-3)
    assert p4d["speedup"] == pytest.approx(2.2826, abs=1e-4)
    assert {r["samples_per_dollar_basis"] for r in out.values()} == {MEASURED_BASIS}
    assert p4d["time_origin"] == MEASURED_BASIS and p4d["round"] is None
    assert p4d["throughput_source"] == "our lab" and p4d["measured_on"] == dt.date(2025, 5, 20)
    assert p4d["mapping_note"] == "measured on the instance itself"


def test_an_instance_not_measured_has_no_result_never_zero(throughput):
    comparisons, instances, prices, mappings = _frames()
    workloads = workload_frame([{"name": "ours", "title": "Ours", "samples": SAMPLES, "runs_per_month": None}])
    scores = pl.DataFrame(schema={"system": pl.Utf8, "benchmark": pl.Utf8, "round": pl.Utf8,
                                  "time_to_train_minutes": pl.Float64, "runs": pl.Int64, "dropped_runs": pl.Int64,
                                  "samples_per_second": pl.Float64})
    out = _by_type(cost_to_train(assemble_inputs(comparisons, instances, mappings, scores, prices,
                                                 throughput.filter(pl.col("system") != "gcp/a2-highgpu-8g"),
                                                 workloads=workloads)))
    a2 = out["a2-highgpu-8g"]
    assert a2["time_to_train_minutes"] is None and a2["cost_to_train_usd"] is None
    assert a2["samples_per_dollar"] is None and a2["relative_value"] is None
    assert out["p4d.24xlarge"]["monthly_cost_usd"] is None  # no runs_per_month: no monthly bill


def test_mlperf_samples_to_converge_per_dollar_by_hand():
    """An MLPerf result: samples to converge / cost to train; logged throughput where none is known."""
    comparisons, instances, prices, _ = _frames("resnet", baseline="p3.16xlarge")
    mappings = pl.DataFrame({"provider": ["aws", "aws", "gcp"], "instance_type": ["p4d.24xlarge", "p3.16xlarge",
                                                                                  "a2-highgpu-8g"],
                             "benchmark": ["resnet"] * 3, "system": ["a100", "v100", "a100-log"], "note": ["x"] * 3})
    scores = pl.DataFrame({
        "system": ["a100", "v100", "a100-log"], "benchmark": ["resnet"] * 3, "round": ["v1.0"] * 3,
        "time_to_train_minutes": [28.0, 70.0, 30.0], "runs": [5, 5, 5], "dropped_runs": [0, 0, 0],
        "samples_per_second": [None, None, 30_000.0],
        # ResNet-50: 37 and 40 epochs of 1,281,167 images
        "samples_to_converge": [47_403_179.0, 51_246_680.0, None],
    })
    empty = pl.DataFrame(schema={"system": pl.Utf8, "benchmark": pl.Utf8, "samples_per_second": pl.Float64})
    out = _by_type(cost_to_train(assemble_inputs(comparisons, instances, mappings, scores, prices, empty)))
    p4d, p3, a2 = out["p4d.24xlarge"], out["p3.16xlarge"], out["a2-highgpu-8g"]
    # p4d: cost 21.957642 x 28 / 60 = $10.246900; 47,403,179 / 10.246900 = 4,626,099.7 samples per dollar
    assert p4d["cost_to_train_usd"] == pytest.approx(10.24690, abs=1e-5)
    assert p4d["samples_per_dollar"] == pytest.approx(4_626_099.7, abs=0.1)
    assert p4d["samples_per_dollar_basis"] == CONVERGENCE_BASIS
    # p3 (baseline): 24.48 x 70 / 60 = $28.56; 51,246,680 / 28.56 = 1,794,351.5 -> value 4,626,099.7 / 1,794,351.5 = 2.5781
    assert p3["samples_per_dollar"] == pytest.approx(1_794_351, abs=1)
    assert p4d["relative_value"] == pytest.approx(2.5781, abs=1e-4)
    # a2 has only logged throughput: 30,000 x 3,600 / 29.38708 = 3,675,084.4
    assert a2["samples_per_dollar"] == pytest.approx(3_675_084.4, abs=0.1)
    assert a2["samples_per_dollar_basis"] == LOGGED_BASIS


TOML = '''title = "T"
benchmarks = ["resnet"]
[regions]
aws = "us-east-1"
[workloads.ours]
title = "Our model"
samples = 12_000_000
runs_per_month = 3
[[comparisons]]
id = "mlperf"
title = "MLPerf"
baseline = "aws/a"
instances = ["aws/a", "aws/b"]
[[comparisons]]
id = "own"
title = "Own"
baseline = "aws/a"
instances = ["aws/a", "aws/b"]
benchmarks = ["ours"]
'''


def _config(tmp_path: Path, text: str):
    path = tmp_path / "report.toml"
    path.write_text(text)
    return parse_report_config(path)


def test_a_workload_named_in_one_comparison_only(tmp_path):
    config = _config(tmp_path, TOML)
    assert [(w.name, w.title, w.samples, w.runs_per_month) for w in config.workloads] == [
        ("ours", "Our model", 12_000_000.0, 3)]
    assert [c.benchmarks for c in config.comparisons] == [("resnet",), ("ours",)]  # the first needs no mapping for it
    assert config.all_benchmarks == ("resnet", "ours")


@pytest.mark.parametrize("old, new, where, message", [
    ("samples = 12_000_000", "samples = -5", "workloads.ours.samples", "-5 must be a positive number of training samples"),
    ("runs_per_month = 3", "runs_per_month = 2.5", "workloads.ours.runs_per_month", "2.5 must be a positive whole"),
    ("runs_per_month = 3", "epochs = 3", "workloads.ours.epochs", "is not a workload key"),
    ('benchmarks = ["ours"]', 'benchmarks = ["our"]', "comparisons[1].benchmarks",
     "our not in the report's benchmarks (resnet) nor a workload ([workloads]: ours); did you mean 'ours'?"),
    ('benchmarks = ["resnet"]', 'benchmarks = ["resnet50"]', "benchmarks[0]",
     "unknown benchmark 'resnet50'; did you mean 'resnet'? (known benchmarks: bert, "),
])
def test_workload_and_benchmark_errors_name_the_place(tmp_path, old, new, where, message):
    with pytest.raises(InputError) as error:
        _config(tmp_path, TOML.replace(old, new, 1))
    assert error.value.where == where if hasattr(error.value, "where") else True
    assert f"report.toml:{where}: {message}" in str(error.value)


def test_unknown_name_lists_the_valid_names_and_the_nearest():
    assert unknown_name("system", "sysA", ["sysA", "sysB"]) is None
    assert unknown_name("system", "sysC", ["other", "sysA"]) == (
        "unknown system 'sysC'; did you mean 'sysA'? (known systems: other, sysA)")
    assert unknown_name("benchmark", "zzz", ["resnet", "bert"]) == "unknown benchmark 'zzz' (known benchmarks: bert, resnet)"
    many = unknown_name("system", "x", [f"s{i:02}" for i in range(20)])
    assert many.endswith("(known systems: s00, s01, s02, s03, s04, s05, s06, s07, s08, s09, s10, s11 and 8 more)")


def _small_with_workload(raw: Path, throughput: str) -> None:
    write_small_raw(raw)
    (raw / "throughput" / "own.csv").write_text(throughput)
    (raw / "report.toml").write_text(
        (raw / "report.toml").read_text()
        + '[workloads.ours]\ntitle = "Our model"\nsamples = 3_600_000\nruns_per_month = 10\n'
          '[[comparisons]]\nid = "own"\ntitle = "Own model"\nbaseline = "aws/small.8x"\n'
          'instances = ["aws/big.8x", "aws/small.8x"]\nbenchmarks = ["ours"]\n')


OWN = ("system,benchmark,samples_per_second,framework,precision,global_batch_size,source,measured_on\n"
       "aws/big.8x,ours,2000,fw,bf16,512,the platform team,2024-03-01\n"
       "aws/small.8x,ours,1000,fw,fp16,256,the platform team,2024-03-02\n")


def test_pipeline_prices_a_workload_and_credits_its_source(tmp_path):
    dirs = make_dirs(tmp_path, raw_source=None)
    _small_with_workload(dirs.raw, OWN)
    assert run_pipeline(dirs).success
    with duckdb.connect(str(dirs.warehouse), read_only=True) as conn:
        rows = conn.sql("select instance_type, time_to_train_minutes, cost_to_train_usd, samples_per_dollar, "
                        "relative_value, monthly_cost_usd from cost_to_train where comparison = 'own' "
                        "and pricing_option = 'on_demand' order by instance_type").fetchall()
    # big.8x at $24/h (the 2024-06-01 price): 3,600,000 / 2,000 = 1,800 s = 30 min -> $12.00; 2,000 x 3,600 / 24
    # = 300,000 samples per dollar; small.8x at $20/h: 60 min -> $20.00, 180,000 per dollar; value 300/180 = 1.667
    assert rows == [
        ("big.8x", pytest.approx(30.0), pytest.approx(12.0), pytest.approx(300_000.0), pytest.approx(5 / 3),
         pytest.approx(120.0)),
        ("small.8x", pytest.approx(60.0), pytest.approx(20.0), pytest.approx(180_000.0), pytest.approx(1.0),
         pytest.approx(200.0)),
    ]
    html = (dirs.reports / "latest" / "report.html").read_text()
    # the note gives the product, the sources appendix who measured it and where the row is
    assert ("aws/big.8x: time to train = 3,600,000 samples per run (report.toml [workloads]) / 2,000 samples per "
            "second measured on 2024-03-01.") in html
    assert "2,000 samples per second, measured by the platform team on 2024-03-01 (throughput/own.csv line 2)." in html
    note = html[html.index("time to train = 3,600,000"):][:400]
    assert "MLPerf" not in note
    assert "At 10 runs a month: AWS big.8x $120.00; AWS small.8x $200.00 a month." in " ".join(html.split())


def test_pipeline_refuses_an_unknown_system_with_the_valid_names(tmp_path):
    dirs = make_dirs(tmp_path, raw_source=None)
    _small_with_workload(dirs.raw, OWN.replace("aws/big.8x,", "aws/big.8:,"))
    result = run_pipeline(dirs)
    assert not result.success
    checks = [e for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    failed = [e.event_specific_data.description for e in checks if not e.event_specific_data.passed]
    assert ("throughput/own.csv:2 column system: unknown system 'aws/big.8:'; did you mean 'aws/big.8x'? "
            "(known systems: aws/big.8x, aws/small.8x, sysA, sysB)") in failed


def test_a_workload_file_left_without_its_declaration_says_so_once_with_every_line():
    """Issue 43: a copy of raw/ whose report.toml drops the example workload named throughput/example_workload.csv
    three times on one line, with no hint. Now: one problem per file, column and name, its lines, and what to do."""
    from pipelines.defs.report.checks import _name_problems

    rows = [("throughput/example_workload.csv", line, "resnet_inhouse") for line in (2, 3, 4)]
    (problem,) = _name_problems(rows, [(2, "benchmark", ["resnet", "bert"])])
    assert problem.startswith("throughput/example_workload.csv:2, 3, 4 column benchmark: unknown benchmark "
                              "'resnet_inhouse'")
    assert problem.endswith("a workload of your own is declared in report.toml ([workloads.<name>]), else remove its rows")
