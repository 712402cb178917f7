"""The whole pipeline on the bundled data: exports, the PDF read back, checks that stop the report."""

import re
import shutil

import dagster as dg
import polars as pl
import pytest
from pypdf import PdfReader

from pipelines.metrics.cost import EXPORT_COLUMNS
from tests.atlas_runner import SAMPLE
from tests.pipeline_runner import BUNDLED_PRICE_DATE, built_report, make_dirs, pipeline_env, run_pipeline


def test_definitions_load(tmp_path):
    from pipelines.definitions import defs

    with pipeline_env(make_dirs(tmp_path, raw_source=None)):
        definitions = defs()
        dg.Definitions.validate_loadable(definitions)
        keys = {k.to_user_string() for k in definitions.resolve_all_asset_keys()}
    for name in ("stg_prices", "stg_results", "time_to_train", "cost_to_train", "report_html", "report_pdf",
                 "report_data", "published_report"):
        assert name in keys


def test_outputs_exist_with_contract_columns(bundled_run):
    latest = bundled_run.reports / "latest"
    dated = bundled_run.reports / BUNDLED_PRICE_DATE
    for folder in (latest, dated):
        for name in ("report.html", "report.pdf", "data/cost_to_train.csv", "data/cost_to_train.parquet",
                     "data/price_history.csv", "data/price_changes.csv"):
            assert (folder / name).is_file(), name
    csv = pl.read_csv(dated / "data" / "cost_to_train.csv", try_parse_dates=True)
    assert csv.columns[: len(EXPORT_COLUMNS)] == EXPORT_COLUMNS
    assert pl.read_parquet(dated / "data" / "cost_to_train.parquet").columns == csv.columns
    history = pl.read_csv(dated / "data" / "price_history.csv")
    # the six columns it always had, then the pricing option (issue 15's contract)
    assert history.columns == ["provider", "region", "instance_type", "usd_per_hour", "as_of", "source",
                               "pricing_model", "term_years", "payment_option", "offering_class", "upfront_usd",
                               "recurring_usd_per_hour", "certainty", "zone_count", "zone_min_usd_per_hour",
                               "zone_max_usd_per_hour", "interruption_frequency", "offer_kind"]
    # every row of the bundled snapshots: on demand, the report's 12 and the atlas instances' 14; then the
    # spot and commitment snapshots (raw/SOURCES.md): committed use 2 + 2 + 4 + 4, reserved 24 + 21 + 4,
    # savings plans 36, spot 2 + 3 + 8 + 3; and prices/added_instances.csv (the catalog's newer instances):
    # on demand 29, committed use 8, spot 4; prices/current_generation_2025.csv: on demand 3;
    # prices/refreshed_2026.csv: on demand 26, of which 7 repeat rows of added_instances.csv (collapsed);
    # prices/skypilot_2026-12-04/: one row per (region, instance type) of each offer whose accelerator the
    # alias table knows, on demand: lambda 6 (1x A100 SXM4, 8x A100: Lambda's "8x A100 (40 GB SXM4)", 8x H100 SXM5,
    # 1x/2x/8x B200), nebius 21
    # (H100 1x/8x, H200 1x/8x in 3 regions each, 12 L40S, 8x B200), verda 11 (1x/4x B300, 1x B200,
    # 1x/2x/4x RTX PRO 6000, and its SXM types read from the S of the type: 1H100.80S, 1H200.141S and
    # 2H200.141S in 2 regions), hyperstack 16 (A100 PCIe 5, H100 PCIe 5, H100 SXM5 in 2 regions, L40 4),
    # mithril 4, hyperbolic 3 (H100 80GB HBM3), oci 13 (B200, B300, GB200, GB300, L40S, MI300X, MI355X,
    # RTX PRO 6000, and the HGX shapes H100.8, H200.8, A100-v2.8, GPU3.8, GPU4.8), cudo 16 (H100-SXM 4 sizes
    # x 2 regions, A100 PCIe 8) = 90; spot where SpotPrice is below Price: nebius 8, verda 9 = 17 (Mithril's 4
    # SpotPrice equal its Price: its auction's one minimum, no cheaper way to pay).
    # The whole market of prices/skypilot_2026-12-06/ (issue 44) and its refresh of 2026-12-07 are counted apart.
    newer = history["source"].str.contains("as of 2026-12-06") | history["source"].str.contains("as of 2026-12-07")
    counts = dict(history.filter(~newer).group_by("pricing_model").len().iter_rows())
    assert counts == {"on_demand": 26 + 29 + 3 + 26 - 7 + 90, "committed_use": 12 + 8, "reserved": 49,
                      "savings_plan": 36, "spot": 16 + 4 + 17}
    assert {"lambda", "cudo", "lium", "primeintellect", "vast", "runpod"} <= set(history.filter(newer)["provider"])
    # prices/skypilot_2026-12-07/ copies each cloud's newest copy (raw/SOURCES.md): the 2026-12-06 folder's eleven
    # and, of 2026-12-04's, the six 2026-12-06 did not copy again; so its rows are theirs, one by one
    def rows(day: str, clouds: set[str] | None = None) -> dict:
        dated = history.filter(history["source"].str.contains(f"as of {day}"))
        if clouds is not None:
            dated = dated.filter(pl.col("provider").is_in(sorted(clouds)))
        return dict(dated.group_by("pricing_model").len().iter_rows())
    older = rows("2026-12-04", {"nebius", "verda", "hyperstack", "mithril", "hyperbolic", "oci"})
    assert older == {"on_demand": 90 - 6 - 16, "spot": 17}  # less Lambda's 6 and Cudo's 16 of 2026-12-04
    newest, six = rows("2026-12-07"), rows("2026-12-06")
    assert newest == {model: older.get(model, 0) + six.get(model, 0) for model in set(older) | set(six)}


def test_exported_figures_match_the_inputs(bundled_run):
    csv = pl.read_csv(bundled_run.reports / "latest" / "data" / "cost_to_train.csv")
    row = csv.filter((pl.col("comparison") == "a100-vs-v100") & (pl.col("benchmark") == "resnet")
                     & (pl.col("instance_type") == "p4d.24xlarge") & (pl.col("pricing_option") == "on_demand")
                     ).row(0, named=True)
    # p4d.24xlarge after the June 2025 cut: 21.957642 $/h, confirmed by AWS's 2026-07-20 price file
    # (prices/refreshed_2026.csv); DGX A100 ResNet-50 v1.0: 28.770861 min
    assert row["usd_per_hour"] == 21.957642
    assert row["time_to_train_minutes"] == pytest.approx(28.770861111111106)
    assert row["cost_to_train_usd"] == pytest.approx(21.957642 * 28.770861111111106 / 60)
    # baseline p3.16xlarge: 24.48 $/h x 71.278322 min (DGX-1, v0.7) = 29.0816 $
    assert row["savings_pct"] == pytest.approx(100 * (1 - 10.529005 / 29.081555), abs=1e-4)
    assert row["price_as_of"] == "2026-07-20"
    dlrm_v100 = csv.filter((pl.col("benchmark") == "dlrm") & (pl.col("instance_type") == "p3.16xlarge"))
    # no measured result: never zero, under every pricing option it has (2026 spot, its 2019 reserved instances)
    assert dlrm_v100["pricing_option"].to_list() == ["on_demand", "spot", "commitment_1y", "commitment_3y"]
    assert dlrm_v100["cost_to_train_usd"].to_list() == [None, None, None, None]


@pytest.fixture(scope="module")
def pdf_text(bundled_run, bundled_pdf_texts):
    return PdfReader(bundled_run.reports / "latest" / "report.pdf"), bundled_pdf_texts


def test_pdf_figures_match_inputs(pdf_text):
    _, pages = pdf_text
    text = re.sub(r"\s+", " ", " ".join(pages))
    assert "Cost to train on cloud accelerators" in text
    assert BUNDLED_PRICE_DATE in text
    # p4d ResNet-50: 21.957642 x 28.770861 / 60 = 10.529 -> "$10.53"; baseline 24.48 x 71.278322 / 60 -> "$29.08"
    assert "$10.53" in text and "$29.08" in text
    # Gaudi dl1.24xlarge BERT: 13.10904 x 164.367692 / 60 = 35.912 -> "$35.91"
    assert "$35.91" in text
    assert "$21.9576" in text  # the hourly price as listed
    assert "no result" in text  # DLRM on V100 instances


def test_pdf_has_toc_footnotes_and_page_numbers(pdf_text):
    reader, pages = pdf_text
    assert len(pages) >= 5
    toc = re.sub(r"\s+", " ", pages[2])  # after the cover and the answer
    assert "Contents" in toc and "Methodology" in toc
    # every TOC line ends with a page number
    assert re.search(r"The answer\s*\.*\s*\d+", toc)
    last = re.sub(r"\s+", " ", pages[-1])
    assert re.search(rf"Page {len(pages)} / {len(pages)}", last)
    # a footnote or a source may wrap anywhere, even after "/" or "-" ("karpenter-provider-" / "aws:pkg")
    text = re.sub(r"(?<=[/-]) ", "", re.sub(r"\s+", " ", " ".join(pages)))
    # footnotes: a system configuration and a price's date and source
    assert "AMD EPYC 7742" in text and "MXNet NVIDIA Release 21.05" in text
    # the note gives the price and its date, the sources appendix its source (the file's own words)
    assert "AWS p4d.24xlarge in us-east-1: $21.9576 per hour on demand, as of 2026-07-20." in text
    assert ("AWS p4d.24xlarge in us-east-1, on demand, as of 2026-07-20: "
            "aws/karpenter-provider-aws:pkg/providers/pricing/zz_generated.pricing_aws.go@6fc13b52") in text


def test_failing_check_stops_the_report(tmp_path):
    dirs = make_dirs(tmp_path)
    # the baseline of the Gaudi comparison loses its price: the coverage check must fail
    prices = dirs.raw / "prices"
    for f in prices.glob("*.csv"):
        f.write_text("\n".join(line for line in f.read_text().splitlines() if ",p4d.24xlarge," not in line) + "\n")
    result = run_pipeline(dirs)
    assert not result.success
    checks = [e.event_specific_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    failed = [c for c in checks if not c.passed]
    assert [c.check_name for c in failed] == ["comparisons_are_covered"]
    # the price date is report_dates' (one query serves the mart and the check): the newest on-demand snapshot
    assert (f"report.toml:comparisons[0].instances[0]: aws/p4d.24xlarge has no price in us-east-1 on or before "
            f"{BUNDLED_PRICE_DATE} in prices/ (on demand)") in failed[0].description
    materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert "stg_prices" in materialized
    assert not materialized & {"cost_to_train", "report_html", "report_pdf", "published_report"}
    assert not (dirs.reports / "latest").exists()




@pytest.mark.skipif(not SAMPLE.is_dir(), reason="../shared/mlperf-sample is not beside the repo")
def test_result_tree_scores_and_run_counts_reach_the_report(tmp_path):
    dirs = make_dirs(tmp_path)
    shutil.copytree(SAMPLE / "training_results_v1.0", dirs.raw / "mlperf" / "training_results_v1.0")
    # without its logged-throughput row (the file's only one), the result's samples per dollar rests on
    # samples to converge
    (dirs.raw / "throughput" / "mlperf_logged_throughput.csv").unlink()
    result = run_pipeline(dirs, pdf=False)  # the data and the HTML are read: no PDF
    assert result.success
    built = built_report(dirs, result)
    html = (built / "report.html").read_text()
    # DGX A100 MXNet ResNet-50 in v1.0: 5 logs, result_1 aborted -> 4 scored, the same 28.770861 min
    assert "runs scored: 4 of 5 (1 dropped)" in html
    scores = pl.read_csv(built / "data" / "mlperf_scores.csv")
    row = scores.filter((pl.col("system") == "dgxa100_ngc21.05_mxnet") & (pl.col("benchmark") == "resnet")).row(0, named=True)
    assert (row["runs"], row["dropped_runs"]) == (5, 1)
    assert row["time_to_train_minutes"] == pytest.approx(28.770861111111106, abs=1e-6)
    # global batch size and samples to converge from the logs, as the summarizer's detailed CSV gives them
    # (tests/test_atlas_official): 3264, and the olympic mean of the runs' epochs, 35, x 1,281,167 ImageNet images
    assert (row["global_batch_size"], row["summarizer_samples_to_converge"]) == (3264, 35.0)
    assert row["samples_to_converge"] == 35 * 1_281_167
    costs = pl.read_csv(built / "data" / "cost_to_train.csv").filter(
        (pl.col("system") == "dgxa100_ngc21.05_mxnet") & (pl.col("benchmark") == "resnet"))
    assert costs.height and set(costs["samples_to_converge"]) == {35 * 1_281_167}
    assert set(costs["samples_per_dollar_basis"]) == {"samples to converge / cost"}
    for cost in costs.iter_rows(named=True):  # samples per dollar = samples to converge / cost to train
        assert cost["samples_per_dollar"] == pytest.approx(35 * 1_281_167 / cost["cost_to_train_usd"], rel=1e-9)
    runs = pl.read_csv(built / "data" / "mlperf_runs.csv")
    assert runs.filter(pl.col("status") == "dropped")["run_file"].to_list() == [
        "mlperf/training_results_v1.0/NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet/result_1.txt"]
