"""Your model's cost: a described model's production budget from MLPerf's measured LLM throughput, by hand.

Every expected figure is worked out here from the rows the test writes and the formulas of the methodology
(pipelines/domain/llm.py, domain/precision.py, metrics/llm_basis.py, model_calibration.py, model_estimates.py,
model_picks.py); the bundled data's figures against published runs are tests/test_model_budget.py's.
"""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.domain.llm import DescribedModel
from pipelines.estimate import described, estimate_offers, render
from pipelines.ingest.accelerators import normalize, read_catalog
from pipelines.ingest.report_config import parse_report_config
from pipelines.metrics.llm_basis import basis, curve
from pipelines.metrics.llm_throughput import llm_throughput
from pipelines.metrics.model_calibration import MIN_RUNS, Calibration, calibrate, fit
from pipelines.metrics.model_estimates import NO_FABRIC, by_accelerator, model_estimates
from pipelines.metrics.model_picks import model_picks, ranked
from pipelines.warehouse import write_frame

RAW = Path(__file__).resolve().parents[1] / "raw"
H100, H200 = "NVIDIA H100-SXM5-80GB", "NVIDIA H200-SXM5-141GB"
HEADLINE = ("list", "spot", "commitment", "quote")
T95 = {2: 2.919986, 3: 2.353363, 4: 2.131847, 5: 2.015048}  # Student's t, 95th percentile, by degrees of freedom

# llama31_405b's FLOPs per token with attention: 6 x 405e9 + 6 x 126 layers x 8,192 x (16,384 + 16,384)
F405 = 6 * 405e9 + 6 * 126 * 8192 * (16384 + 16384)
F8 = 6 * 8.03e9 + 6 * 32 * 8192 * (4096 + 4096)  # llama31_8b's

# (round, system, benchmark, minutes, samples (sequences), accelerator name, accelerators) as stg_results has them
RESULTS = [
    ("v5.0", "h100_a", "llama31_405b", 300.0, 276480.0, H100, 512),
    ("v5.0", "h100_b", "llama31_405b", 80.0, 276480.0, H100, 2048),
    ("v5.1", "h100_8b", "llama31_8b", 50.0, 200000.0, H100, 64),
    ("v5.1", "h200_8b", "llama31_8b", 800.0, 200000.0, H200, 8),
    ("v5.0", "open_one", "llama31_405b", 10.0, 276480.0, H100, 512),  # open division: left out
]
PRECISIONS = pl.DataFrame({"round": ["v5.0", "v5.0", "v5.1"], "system": ["h100_a", "h100_b", "h200_8b"],
                           "benchmark": ["llama31_405b", "llama31_405b", "llama31_8b"],
                           "precision": ["fp8", "fp8", "bf16"], "evidence": ["config", "log", "config"]})


def results_frame() -> pl.DataFrame:
    rows = [{"round": r[0], "submitter": "x", "system": r[1], "benchmark": r[2], "time_to_train_minutes": r[3],
             "samples_to_converge": r[4], "accelerator_model_name": r[5], "accelerators_count": r[6],
             "division": "open" if r[1] == "open_one" else "closed", "file": "results.csv", "line": "2"}
            for r in RESULTS]
    return pl.DataFrame(rows)


SYSTEMS = pl.DataFrame(schema={"system": pl.Utf8, "division": pl.Utf8, "accelerator_model_name": pl.Utf8,
                               "accelerators_total": pl.Int64})


@pytest.fixture(scope="module")
def throughput() -> pl.DataFrame:
    catalog = read_catalog(RAW / "accelerators.csv")
    return llm_throughput(results_frame(), SYSTEMS, lambda name, system: normalize(catalog, name, None, system).cloud_model,
                          PRECISIONS)


def model(**kw) -> DescribedModel:
    base = dict(name="m", title="M", parameters=405e9, tokens=15.6e12, sequence_length=8192, layers=126,
                hidden_size=16384, accelerators=1024, precision="bf16")
    return DescribedModel(**(base | kw))


def phi(benchmark_flops_per_token: float, samples: float, minutes: float, accelerators: int) -> float:
    """Achieved model FLOP/s per accelerator, by the formula."""
    return benchmark_flops_per_token * samples * 8192 / (minutes * 60 * accelerators)


# ---- measured throughput, at its precision and at BF16 -----------------------------------------------------------

def test_achieved_flops_and_bf16_by_hand(throughput):
    rows = {r["system"]: r for r in throughput.iter_rows(named=True)}
    assert "open_one" not in rows
    a = rows["h100_a"]
    assert a["flops_with_attention_per_accelerator_s"] == pytest.approx(phi(F405, 276480, 300, 512))
    # FP8 on H100 (stated by the configuration): 1.45 x BF16's speed, so at BF16 / 1.45
    assert (a["precision"], a["precision_evidence"], a["speedup"]) == ("fp8", "config", 1.45)
    assert a["bf16_flops_with_attention_per_accelerator_s"] == pytest.approx(phi(F405, 276480, 300, 512) / 1.45)
    # no precision stated for h100_8b: FP8 assumed; H200's stated BF16 is taken as it is
    assert (rows["h100_8b"]["precision"], rows["h100_8b"]["precision_evidence"]) == ("fp8", "assumed")
    assert rows["h200_8b"]["speedup"] == 1.0
    assert a["architecture"] == "dense" and a["benchmark_sequence_length"] == 8192


# ---- the basis: architecture, size, scale ------------------------------------------------------------------------

def test_the_scaling_curve_is_read_within_the_scales_measured(throughput):
    a = phi(F405, 276480, 300, 512) / 1.45
    b = phi(F405, 276480, 80, 2048) / 1.45
    slope = math.log(b / a) / math.log(4)  # two points: the least-squares line through them
    assert -0.5 < slope < 0
    # at 1,024 (between): halfway in ln, so the geometric mean; no spread (the line goes through both)
    at_1024, spread = curve([512, 2048], [a, b], 1024)
    assert at_1024 == pytest.approx(math.sqrt(a * b)) and spread == pytest.approx(0, abs=1e-12)
    # at 16,384 (beyond): held at 2,048, with the results' own spread across scales: sd of ln a, ln b = |ln(a/b)| / 2
    at_16k, spread = curve([512, 2048], [a, b], 16384)
    assert at_16k == pytest.approx(b) and spread == pytest.approx(abs(math.log(a / b)) / 2)
    found = basis(model(), throughput, "H100-SXM-80GB", 16384)
    assert found.benchmarks == ("llama31_405b",) and found.flops_bf16 == pytest.approx(b)
    assert "one result" not in found.note


def test_a_size_between_benchmarks_weighs_both_by_ln_n(throughput):
    m = model(parameters=70e9, layers=80, hidden_size=8192, accelerators=64)
    found = basis(m, throughput, "H100-SXM-80GB", 64)
    w = math.log(70e9 / 8.03e9) / math.log(405e9 / 8.03e9)  # where ln N lies between 8.03B and 405B
    assert found.benchmarks == ("llama31_8b", "llama31_405b") and found.weights == pytest.approx((1 - w, w))
    # attention counted as the model counts it: per benchmark its own FLOPs; 8B at 64 measured, 405B held at 512
    eight = phi(F8, 200000, 50, 64) / 1.45
    big = phi(F405, 276480, 300, 512) / 1.45
    assert found.flops_bf16 == pytest.approx(math.exp((1 - w) * math.log(eight) + w * math.log(big)))


def test_a_mixture_of_experts_without_a_moe_result_is_priced_from_dense_and_says_so(throughput):
    moe = model(parameters=37e9, total_parameters=671e9, sequence_length=4096, layers=61, hidden_size=7168)
    found = basis(moe, throughput, "H100-SXM-80GB", 2048)
    assert "no mixture-of-experts result on H100-SXM-80GB" in found.note
    one = basis(model(parameters=8.03e9, layers=32, hidden_size=4096), throughput, "H200-SXM-141GB", 8)
    assert one.spread == 0 and "one result: its speed is one figure" in one.note


def test_flops_as_the_model_has_them():
    dense = model(parameters=8e9, tokens=1e12, sequence_length=4096, layers=32, hidden_size=4096)
    assert dense.training_flops() == pytest.approx((6 * 8e9 + 12 * 32 * 4096 * 4096) * 1e12)
    mla = model(parameters=37e9, total_parameters=671e9, tokens=1e12, sequence_length=4096, layers=61,
                hidden_size=7168, attention="mla", qk_width=128 * 192, v_width=128 * 128)
    assert mla.architecture == "moe"
    assert mla.training_flops() == pytest.approx((6 * 37e9 + 6 * 61 * 4096 * (24576 + 16384)) * 1e12)
    stated = model(flops_per_token=1e11, tokens=2e12)
    assert stated.training_flops() == pytest.approx(2e23)
    lora = model(parameters=70e9, tokens=1e9, layers=80, hidden_size=8192, kind="lora")
    assert lora.training_flops() == pytest.approx((4 * 70e9 + 8 * 80 * 8192 * 8192) * 1e9)


# ---- the calibration ---------------------------------------------------------------------------------------------

PUBLISHED_SCHEMA = {"run": pl.Utf8, "accelerator_model": pl.Utf8, "parameters": pl.Float64,
                    "total_parameters": pl.Float64, "tokens": pl.Float64, "sequence_length": pl.Int64,
                    "layers": pl.Int64, "hidden_size": pl.Int64, "qk_width": pl.Int64, "v_width": pl.Int64,
                    "precision": pl.Utf8, "accelerators": pl.Int64, "published_gpu_hours": pl.Float64,
                    "published_basis": pl.Utf8, "published_source": pl.Utf8, "note": pl.Utf8}


def _published(rows: list[tuple[str, float, float]]) -> pl.DataFrame:
    """(run, parameters, published GPU-hours) as H100 pretraining runs of 405B's shape on 16,384 accelerators."""
    return pl.DataFrame(schema=PUBLISHED_SCHEMA, data=[
                        {"run": run, "accelerator_model": "H100-SXM-80GB", "parameters": n, "total_parameters": None,
                          "tokens": 1e12, "sequence_length": 8192, "layers": 126, "hidden_size": 16384,
                          "qk_width": None, "v_width": None, "precision": "bf16", "accelerators": 16384,
                          "published_gpu_hours": hours, "published_basis": "total", "published_source": "test",
                          "note": None} for run, n, hours in rows])


def test_correction_range_and_leave_one_out_by_hand(throughput):
    found = basis(model(), throughput, "H100-SXM-80GB", 16384)
    e = (F405 * 1e12) / found.flops_bf16 / 3600  # every run: the same model at MLPerf's speed, BF16 on H100
    published = [e * 1.2, e * 1.5, e * 1.35, e * 1.65]
    cal, table = calibrate(_published([(f"r{i}", 405e9, p) for i, p in enumerate(published)]), throughput)
    logs = [math.log(p / e) for p in published]
    mean = sum(logs) / 4
    s = math.sqrt(sum((x - mean) ** 2 for x in logs) / 3)
    assert (cal.factor, cal.sigma, cal.runs) == (pytest.approx(math.exp(mean)), pytest.approx(s), 4)
    # the range: ± sqrt((t(3) x s x sqrt(1 + 1/4))^2 + spread^2) in ln
    half = math.hypot(T95[3] * s * math.sqrt(1.25), found.spread)
    low, mid, high = cal.budget(e, found.spread)
    assert (low, mid, high) == (pytest.approx(e * math.exp(mean - half)), pytest.approx(e * math.exp(mean)),
                                pytest.approx(e * math.exp(mean + half)))
    # leave-one-out: r0's budget is corrected by the other three only
    others = logs[1:]
    r0 = table.row(0, named=True)
    assert r0["mlperf_gpu_hours"] == pytest.approx(e) and r0["ratio"] == pytest.approx(1 / 1.2)
    assert r0["estimated_gpu_hours"] == pytest.approx(e * math.exp(sum(others) / 3))
    assert r0["error"] == pytest.approx(math.exp(sum(others) / 3) / 1.2 - 1)
    s0 = math.sqrt(sum((x - sum(others) / 3) ** 2 for x in others) / 2)
    assert r0["estimated_gpu_hours_high"] == pytest.approx(
        r0["estimated_gpu_hours"] * math.exp(math.hypot(T95[2] * s0 * math.sqrt(1 + 1 / 3), found.spread)))
    assert r0["within_range"] and table["correction"].to_list() == [pytest.approx(math.exp(mean))] * 4


def test_too_few_runs_are_not_calibrated(throughput):
    cal, table = calibrate(_published([("a", 405e9, 1e6), ("b", 405e9, 2e6)]), throughput)
    assert not cal.calibrated and cal.factor == 1.0 and MIN_RUNS == 3
    assert table["correction"].null_count() == 2
    assert all("not calibrated without it" in n for n in table["note"])
    assert fit([0.1, 0.2]) == Calibration(1.0, 0.0, 0)
    # not calibrated: the budget is MLPerf's speed, its range the basis's spread alone
    assert cal.budget(100.0, 0.0) == (100.0, 100.0, 100.0)


def test_a_run_without_an_llm_result_on_its_accelerator_is_listed_not_estimated(throughput):
    runs = _published([("a", 405e9, 1e6)]).with_columns(pl.lit("A100-SXM-80GB").alias("accelerator_model"))
    _, table = calibrate(runs, throughput)
    assert table["estimated_gpu_hours"][0] is None and table["note"][0].startswith("not estimated: A100-SXM-80GB")


# ---- offers: instances, cost, fabric, predecessor ----------------------------------------------------------------

OFFERS = pl.DataFrame({
    "provider": ["lambda", "aws", "aws", "aws", "nebius", "vast"],
    "region": ["us-east-1", "us-east-1", "us-east-1", "us-east-1", "eu-north1", "us"],
    "instance_type": ["gpu_8x_h100", "p5.48xlarge", "p5.48xlarge", "p5.4xlarge", "h200x8", "8x-H100"],
    "accelerator_model": ["H100-SXM-80GB", "H100-SXM-80GB", "H100-SXM-80GB", "H100-SXM-80GB", "H200-SXM-141GB",
                          "H100-SXM-80GB"],
    "instance_accelerators": [8, 8, 8, 1, 8, 8],
    "pricing_option": ["on_demand", "on_demand", "spot", "on_demand", "on_demand", "on_demand"],
    "usd_per_hour": [24.0, 55.04, 20.0, 7.0, 28.0, 15.0],
    "as_of": [date(2026, 12, 6), date(2026, 12, 6), date(2026, 5, 18), date(2026, 12, 6), date(2026, 12, 6),
              date(2026, 12, 6)],
    "offer_kind": ["list", "list", "spot", "list", "list", "marketplace"],
    "price_age_days": [1, 1, 202, 1, 1, 1],
    "stale": [False, False, True, False, False, False],
})
FABRICS = pl.DataFrame({"provider": ["aws", "aws"], "instance_type": ["p5.48xlarge", "p5.4xlarge"],
                        "fabric": ["EFA", "EFA"]})
CAL = Calibration(1.5, 0.1, 6)


def test_budget_time_cost_and_the_optimistic_bound_per_offer(throughput):
    m = model(accelerators=1024)
    rows = {(r["provider"], r["instance_type"], r["pricing_option"]): r
            for r in model_estimates(m, throughput, OFFERS, CAL, FABRICS).iter_rows(named=True)}
    found = basis(m, throughput, "H100-SXM-80GB", 1024)
    mlperf = m.training_flops() / found.flops_bf16 / 3600
    lam = rows[("lambda", "gpu_8x_h100", "on_demand")]
    assert lam["instances"] == 128 and lam["accelerators"] == 1024  # 1,024 / 8
    assert lam["mlperf_gpu_hours"] == pytest.approx(mlperf) and lam["gpu_hours"] == pytest.approx(mlperf * 1.5)
    assert lam["hours"] == pytest.approx(mlperf * 1.5 / 1024)
    assert lam["cost_usd"] == pytest.approx(mlperf * 1.5 / 8 * 24.0)  # GPU-hours / accelerators per instance x price
    assert lam["mlperf_cost_usd"] == pytest.approx(mlperf / 8 * 24.0)
    # 128 Lambda VMs with no stated fabric: priced, not a proven cluster; AWS's EFA is one
    assert not lam["cluster_proven"] and NO_FABRIC in lam["basis_note"]
    assert rows[("aws", "p5.48xlarge", "on_demand")]["cluster_proven"]
    assert rows[("aws", "p5.48xlarge", "on_demand")]["fabric"] == "EFA"
    # 1,024 one-GPU VMs are no training cluster: not priced
    assert ("aws", "p5.4xlarge", "on_demand") not in rows
    assert rows[("aws", "p5.48xlarge", "spot")]["price_age_days"] == 202


def test_a_successor_is_never_priced_slower_without_a_measurement(throughput):
    # 8B on 8 accelerators: H200's basis is its BF16 8B result; H100's is its (assumed FP8) 8B result at 64
    m = model(parameters=8.03e9, layers=32, hidden_size=4096, accelerators=8)
    both = by_accelerator(m, throughput, ["H100-SXM-80GB", "H200-SXM-141GB"], CAL)
    h100, h200 = both["H100-SXM-80GB"][0], both["H200-SXM-141GB"][0]
    h100_bf16 = phi(F8, 200000, 50, 64) / 1.45
    h200_bf16 = phi(F8, 200000, 800, 8)
    assert h200_bf16 < h100_bf16  # measured on the same benchmark, but at no common scale (8 against 64)
    assert h200.mlperf_gpu_hours == pytest.approx(h100.mlperf_gpu_hours)
    assert "capped at the H100-SXM-80GB figure" in h200.note


def test_a_slower_successor_measured_on_the_same_benchmark_is_named(throughput):
    extra = results_frame().vstack(pl.DataFrame([{
        "round": "v5.1", "submitter": "x", "system": "h200_8b_64", "benchmark": "llama31_8b",
        "time_to_train_minutes": 80.0, "samples_to_converge": 200000.0, "accelerator_model_name": H200,
        "accelerators_count": 64, "division": "closed", "file": "results.csv", "line": "3"}]))
    catalog = read_catalog(RAW / "accelerators.csv")
    slow = llm_throughput(extra, SYSTEMS, lambda name, system: normalize(catalog, name, None, system).cloud_model,
                          PRECISIONS)
    m = model(parameters=8.03e9, layers=32, hidden_size=4096, accelerators=64)
    h200 = by_accelerator(m, slow, ["H100-SXM-80GB", "H200-SXM-141GB"], CAL)["H200-SXM-141GB"][0]
    assert "slower than H100-SXM-80GB as measured on llama31_8b at 64 accelerators" in h200.note
    assert "h200_8b_64" in h200.note and "h100_8b" in h200.note


# ---- the picks ---------------------------------------------------------------------------------------------------

def test_picks_leave_out_stale_spot_unproven_clusters_and_name_the_market_apart(throughput):
    m = model(accelerators=1024)
    estimates = ranked(model_estimates(m, throughput, OFFERS, CAL, FABRICS), HEADLINE)
    picks = {r["pick"]: r for r in model_picks(estimates, HEADLINE).iter_rows(named=True)}
    # the spot p5 ($20/h) is 202 days old; Lambda's 128 VMs state no fabric; Vast's listing is a marketplace's
    assert (picks["cheapest"]["provider"], picks["cheapest"]["pricing_option"]) == ("aws", "on_demand")
    assert picks["cheapest_on_demand"]["instance_type"] == "p5.48xlarge"
    assert "market" not in picks  # Vast's 128 hosts state no fabric either
    # the table's order: what may headline first, the rest after, each by cost
    assert estimates["provider"].to_list()[:1] == ["aws"] and estimates["instance_type"][0] == "p5.48xlarge"
    one = model(parameters=8.03e9, layers=32, hidden_size=4096, accelerators=8)
    picks = {r["pick"]: r for r in model_picks(model_estimates(one, throughput, OFFERS, CAL, FABRICS),
                                               HEADLINE).iter_rows(named=True)}
    # one instance needs no fabric: Lambda's $24/h is the cheapest list price, Vast's $15/h the market's
    assert picks["cheapest"]["provider"] == "lambda" and picks["market"]["provider"] == "vast"
    assert picks["fastest"]["tied"] >= 2  # the H100 offers share one time


# ---- the command line and report.toml ----------------------------------------------------------------------------

def test_estimate_prints_whole_counts_kind_age_basis_and_what_the_budget_includes(tmp_path, throughput):
    warehouse = tmp_path / "w.duckdb"
    with duckdb.connect(str(warehouse)) as conn:
        write_frame(conn, "llm_throughput", throughput)
        write_frame(conn, "priced_offers", OFFERS)
        write_frame(conn, "stg_published_runs", _published([("a", 405e9, 3e7), ("b", 405e9, 3.3e7),
                                                            ("c", 405e9, 2.8e7)]))
        write_frame(conn, "stg_instances", FABRICS)
    frame, calibration = estimate_offers(warehouse, described(405e9, 15.6e12, 8192, 2048, layers=126,
                                                               hidden_size=16384))
    text = render(frame, calibration, "table")
    first = text.splitlines()[1]
    assert first.startswith("aws/p5.48xlarge@us-east-1") and "256 x 8" in first  # whole instance counts
    assert " list " in first and "1 d old" in first
    assert "budget: MLPerf's measured speed at the model's precision x" in text and "3 published" in text
    assert "basis on H100-SXM-80GB (llama31_405b): v5.0/h100_a llama31_405b on 512 (fp8)" in text
    assert "multi-node speed unproven" in text  # Lambda's 256 VMs are listed, never the headline


def _toml(tmp_path: Path, model_lines: str) -> Path:
    path = tmp_path / "report.toml"
    path.write_text('title = "t"\nbenchmarks = ["resnet"]\n[regions]\naws = "us-east-1"\n[[comparisons]]\nid = "a"\n'
                    'title = "A"\nbaseline = "aws/p4d.24xlarge"\ninstances = ["aws/p4d.24xlarge"]\n'
                    f'[models.my_8b]\ntitle = "8B"\n{model_lines}\n')
    return path


GOOD = "parameters = 8.03e9\ntokens = 15.6e12\nsequence_length = 8192\naccelerators = 1024"
MOE = GOOD.replace("parameters = 8.03e9", "active_parameters = 37e9")


@pytest.mark.parametrize(("lines", "where", "problem"), [
    (GOOD.replace("tokens = 15.6e12", "tokens = -1"), "models.my_8b.tokens", "must be a positive number"),
    (GOOD.replace("tokens = 15.6e12\n", ""), "models.my_8b.tokens", "is missing"),
    (GOOD.replace("8192", "8192.5"), "models.my_8b.sequence_length", "must be a positive whole number"),
    (GOOD + "\nkind = \"finetune\"", "models.my_8b.kind", "finetune"),
    (GOOD + "\nlayers = 32", "models.my_8b.hidden_size", "go together"),
    (GOOD + "\ndeadline_days = 0", "models.my_8b.deadline_days", "positive number of days"),
    (GOOD + "\ntoken = 1", "models.my_8b.token", "is not a key"),
    (GOOD.replace("accelerators = 1024", ""), "models.my_8b.accelerators", "deadline_days"),
    (GOOD + "\nactive_parameters = 1e9", "models.my_8b.active_parameters", "not both"),
    (MOE, "models.my_8b.total_parameters", "is missing"),
    (MOE + "\ntotal_parameters = 20e9", "models.my_8b.total_parameters", "below active_parameters"),
    (GOOD + '\nprecision = "int4"', "models.my_8b.precision", "must be one of bf16, fp8, fp4"),
    (GOOD + '\nattention = "mla"\nlayers = 4\nqk_width = 64', "models.my_8b.v_width", "is missing"),
    (GOOD + '\nattention = "flash"', "models.my_8b.attention", "flash"),
    (GOOD + "\nflops_per_token = -1", "models.my_8b.flops_per_token", "positive"),
])
def test_bad_model_values_are_one_line_naming_the_key(tmp_path, lines, where, problem):
    with pytest.raises(InputError) as error:
        parse_report_config(_toml(tmp_path, lines))
    message = str(error.value)
    assert "\n" not in message and f"report.toml:{where}:" in message and problem in message


def test_described_models_parse(tmp_path):
    (m,) = parse_report_config(_toml(tmp_path, GOOD + '\nkind = "lora"\nlayers = 32\nhidden_size = 4096')).models
    assert (m.name, m.parameters, m.tokens, m.sequence_length, m.kind, m.layers, m.accelerators, m.precision) == \
        ("my_8b", 8.03e9, 15.6e12, 8192, "lora", 32, 1024, "bf16")
    moe = MOE + ('\ntotal_parameters = 671e9\nlayers = 61\nattention = "mla"\nqk_width = 24576\nv_width = 16384\n'
                 'precision = "mxfp8"')
    (m,) = parse_report_config(_toml(tmp_path, moe)).models
    assert (m.parameters, m.total_parameters, m.architecture, m.attention, m.precision) == (37e9, 671e9, "moe", "mla",
                                                                                           "fp8")
    assert len(parse_report_config(RAW / "report.toml").models) >= 2  # the bundled worked examples


def test_the_command_line_refuses_a_bad_option_in_one_line():
    with pytest.raises(InputError, match="--precision"):
        described(8e9, 1e12, 4096, precision="int4")
    with pytest.raises(InputError, match="--total-parameters"):
        described(37e9, 1e12, 4096, total_parameters=8e9)
