"""The atlas end to end through Dagster: `python -m pipelines.cli atlas` (what `make atlas` runs:
atlas_job in process, one run per changed round, then one publish run) on the shared MLPerf sample
(skipped when it is absent) and on the project's quirk corpus, into temporary folders; figures
checked by hand."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from pypdf import PdfReader

from tests.atlas_fixtures import quirk_corpus, resnet_logs, system, write_logs
from tests.atlas_runner import (REPO, SAMPLE, SOURCE_DATE_EPOCH, atlas_env, make_atlas, make_atlas_process, moved_env,
                                needs_sample)
from tests.mlperf_fixtures import run_log
from tests.pipeline_runner import NEXT_PRICE_DATE, PROVIDER_FILES_PRICE_DATE, without_catalogs
from tests.shared_builds import copy_tree

pytestmark = pytest.mark.slow  # most build an atlas through the command line

# The atlas prices at the newest snapshot of an instance a result can be priced on. The sample's and these
# corpora's accelerators (A100 80 GB, V100, Gaudi, Cloud TPU) have no offer in the bundled catalogs
# (prices/skypilot_2026-12-04/), so their atlas is dated by the big three's newest files.
ATLAS_PRICE_DATE = PROVIDER_FILES_PRICE_DATE


@pytest.fixture(scope="module")
def sample_atlas(sample_atlas_run):
    """(the published folder of the price date, what make atlas printed, its environment) of the shared sample's
    atlas (conftest.sample_atlas_run: read-only)."""
    run = sample_atlas_run
    return run.root / "reports" / "atlas" / ATLAS_PRICE_DATE, run.stdout, run.env


@needs_sample
def test_publishes_html_pdf_and_csv(sample_atlas):
    folder, stdout, _ = sample_atlas
    assert f"atlas:  {folder / 'atlas.html'}" in stdout
    assert "scored now: v0.7, v1.0, v1.1" in stdout
    for name in ("atlas.html", "atlas.pdf", "data/atlas.csv", "data/mlperf_scores.csv", "data/atlas_not_priced.csv",
                 "data/atlas_trend.csv"):
        assert (folder / name).is_file(), name
    assert (folder.parent / "latest").resolve() == folder.resolve()
    scores = pl.read_csv(folder / "data/mlperf_scores.csv")
    assert scores.columns[:7] == ["round", "submitter", "system", "benchmark", "runs", "dropped_runs",
                                  "time_to_train_minutes"]
    # v1.1 NVIDIA BERT fails the official 1.1.0 checker (no weights_initialization lines): no score
    assert scores.height == 10 and scores["time_to_train_minutes"].null_count() == 1


@needs_sample
def test_the_digest_is_atlas_pdf_and_a_tagged_pdf_per_round(sample_atlas):
    folder, _, _ = sample_atlas
    overview = PdfReader(folder / "atlas.pdf")
    contents = " ".join(overview.pages[1].extract_text().split())
    for round_ in ("v0.7", "v1.0", "v1.1"):
        assert f"MLPerf Training {round_} " in contents and f"atlas-{round_}.pdf" in contents, round_
        part = PdfReader(folder / f"atlas-{round_}.pdf")
        assert "/StructTreeRoot" in part.trailer["/Root"]  # tagged, as atlas.pdf
        cover = " ".join(part.pages[0].extract_text().split()).replace("- ", "-")
        assert f"MLPerf Training {round_}: the price-performance atlas" in cover and "Prices as of 2026-08-20" in cover
        assert "Contents" in cover and "Cheapest:" in "".join(page.extract_text() for page in part.pages[1:])
    # the round's chapters are in their own PDFs, not in atlas.pdf; the web edition links to them
    assert "Cheapest:" not in "".join(page.extract_text() for page in overview.pages)
    html = (folder / "atlas.html").read_text(encoding="utf-8")
    assert '<a href="atlas-v1.0.pdf">atlas-v1.0.pdf</a>' in html
    # the instances appendix too is a PDF of its own (it changes with the price book, not with a round)
    appendix = PdfReader(folder / "atlas-instances.pdf")
    assert "/StructTreeRoot" in appendix.trailer["/Root"]
    text = " ".join(" ".join(page.extract_text() for page in appendix.pages).split())
    assert "Cloud instances and prices" in text and "Table A.1. Cloud instances, prices in force on 2026-08-20" in text
    assert "atlas-instances.pdf" in contents and "Table A.1" not in " ".join(p.extract_text() for p in overview.pages)
    assert 'id="tab-A-1"' in html and "Table A.1." in html  # the web edition keeps it, numbered alike


@needs_sample
def test_costs_in_the_csv_by_hand(sample_atlas):
    folder, _, _ = sample_atlas
    atlas = pl.read_csv(folder / "data/atlas.csv", try_parse_dates=True).filter(pl.col("pricing_option") == "on_demand")
    gaudi = atlas.filter((pl.col("system") == "SYS-420GH-TNGR") & (pl.col("benchmark") == "resnet")).row(0, named=True)
    # Habana v1.0 resnet: olympic mean 62.551556 minutes on 1 x dl1.24xlarge at 13.10904 USD/h
    assert gaudi["instance_type"] == "dl1.24xlarge" and gaudi["instances_needed"] == 1
    assert gaudi["cost_to_train_usd"] == pytest.approx(13.10904 * 62.55155555555556 / 60, rel=1e-12)  # 13.6665
    assert gaudi["usd_per_accelerator_hour"] == pytest.approx(13.10904 / 8)
    assert gaudi["price_basis"].startswith("estimate")
    # the A100-80GB results are priced only on A100-80GB instances, never on the 40 GB p4d
    a100 = atlas.filter(pl.col("accelerator_model") == "A100-SXM-80GB")
    assert set(a100["instance_type"]) == {"p4de.24xlarge", "a2-ultragpu-8g", "Standard_ND96amsr_A100_v4"}
    # Google's v0.7 cloud V100 result: "same cloud" on GCP only
    google = atlas.filter(pl.col("system") == "gpu-v100-8-TF2.0").select("provider", "price_basis").unique().sort("provider").rows()
    assert google[1] == ("gcp", "same cloud") and google[0][1].startswith("estimate")
    # one rank 1 per round and benchmark model
    assert atlas.filter(pl.col("cost_rank") == 1).group_by("round", "benchmark_model").len()["len"].max() == 1
    # the price book's row with its source: p4de after the June 2025 cut, confirmed by AWS's price file of
    # 2026-07-20 (prices/refreshed_2026.csv), in report.toml's region
    p4de = atlas.filter(pl.col("instance_type") == "p4de.24xlarge")
    assert set(p4de["usd_per_hour"]) == {27.44705} and set(p4de["region"]) == {"us-east-1"}
    assert set(p4de["price_as_of"].cast(pl.Utf8)) == {"2026-07-20"} and set(p4de["price_certainty"]) == {"exact"}
    assert p4de["price_source"].str.starts_with("aws/karpenter-provider-aws:pkg/providers/pricing/").all()


@needs_sample
def test_price_ages_divisions_and_the_cover_counts(sample_atlas):
    """Issue 14: each pair's price date, age and staleness; the cover states estimates, unpriced entries
    and the spread of price ages, counted here from the published CSVs."""
    folder, _, _ = sample_atlas
    atlas = pl.read_csv(folder / "data/atlas.csv", try_parse_dates=True).filter(pl.col("pricing_option") == "on_demand")
    assert {"division", "price_as_of", "price_age_days", "stale"} <= set(atlas.columns)
    assert set(atlas["division"]) == {"closed"}  # the sample's systems JSON are all closed
    ages = dict(atlas.select("instance_type", "price_age_days").unique().iter_rows())
    # the atlas prices at 2026-08-20. GCP n1-highmem-96 + 8 V100 is dated 2022-02-08 (pricing.yml has no
    # V100 price): to 2026-02-08 is 4 x 365 + 1 = 1,461 days (2024 is a leap year), then 20 + 31 + 30 + 31
    # + 30 + 31 + 31 + 20 = 193 days to 2026-08-20: 1,654 days, stale; p4de (2026-07-20) is 31 days old;
    # a2-ultragpu-8g is priced on the date itself
    assert ages["n1-highmem-96+8xV100"] == 1654 and ages["p4de.24xlarge"] == 31 and ages["a2-ultragpu-8g"] == 0
    assert atlas.filter(pl.col("instance_type") == "n1-highmem-96+8xV100")["stale"].all()
    assert not atlas.filter(pl.col("instance_type") == "p4de.24xlarge")["stale"].any()
    unpriced = pl.read_csv(folder / "data/atlas_not_priced.csv")
    scores = pl.read_csv(folder / "data/mlperf_scores.csv")
    estimates = atlas.filter(pl.col("price_basis") != "same cloud").height
    prices = atlas.select("provider", "region", "instance_type", "price_as_of", "stale").unique()
    cover = " ".join(PdfReader(folder / "atlas.pdf").pages[0].extract_text().split())
    assert f"Estimates {estimates} of {atlas.height} pairs" in cover
    assert f"Not priced {unpriced.height} of {scores.height} entries" in cover
    assert (f"Price ages {prices.height} prices dated {prices['price_as_of'].min()} to {prices['price_as_of'].max()}; "
            f"{prices['stale'].sum()} stale (over 365 days old)") in cover


@needs_sample
def test_every_way_to_pay_and_the_cheapest_one(sample_atlas):
    """Issue 15 item 5: every pair under the bundled pricing options in force on 2026-08-20 (report.toml's
    default: spot and the cheapest 1- and 3-year commitment), the cheapest named on the on-demand row."""
    folder, _, _ = sample_atlas
    atlas = pl.read_csv(folder / "data/atlas.csv", try_parse_dates=True)
    rows = {(r["system"], r["benchmark"], r["instance_type"], r["pricing_option"]): r for r in atlas.to_dicts()}
    # NVIDIA's v0.7 dgx1 ResNet-50 (8 V100, 71.278322 minutes) on one p3.16xlarge: the 3-year reserved
    # instance, all upfront (raw/prices/reserved_2019-04-05.csv), effective 7.882953 USD/h
    key = ("dgx1_ngc20.06_mxnet", "resnet", "p3.16xlarge")
    three = rows[key + ("commitment_3y",)]
    assert (three["pricing_model"], three["term_years"], three["payment_option"]) == ("reserved", 3, "all_upfront")
    assert three["cost_to_train_usd"] == pytest.approx(1 * 7.882953 * 71.278322 / 60, rel=1e-6)  # 9.3647
    # spot (SkyPilot catalog, 2026-05-18: the median over the zones, 2.7845 USD/h) is cheaper still
    spot = rows[key + ("spot",)]
    assert spot["cost_to_train_usd"] == pytest.approx(2.7845 * 71.278322 / 60, rel=1e-6)  # 3.3079
    on_demand = rows[key + ("on_demand",)]
    assert on_demand["cost_to_train_usd"] == pytest.approx(24.48 * 71.278322 / 60, rel=1e-6)  # 29.0816
    assert on_demand["cheapest_option"] == "spot"
    assert on_demand["cheapest_option_cost_usd"] == pytest.approx(spot["cost_to_train_usd"])
    # GCP a2-ultragpu-8g's spot price in force (Cyclenerd, 2026-07-30): 22.07637 USD/h for the 21.692583-minute BERT
    spot = rows[("dgxa100_ngc21.05_pytorch", "bert", "a2-ultragpu-8g", "spot")]
    assert spot["cost_to_train_usd"] == pytest.approx(22.07637 * 21.692583 / 60, rel=1e-6)  # 7.9816
    # a pair whose instance has no other option in force keeps on demand (Azure's reservations of
    # ND96amsr_A100_v4 are dated 2026-09-27, after the price date)
    pair = ("dgxa100_ngc21.05_mxnet", "resnet", "Standard_ND96amsr_A100_v4")
    assert rows[pair + ("on_demand",)]["cheapest_option"] == "on_demand"
    assert not any(key[:3] == pair and key[3] != "on_demand" for key in rows)


@needs_sample
def test_tpus_are_priced_where_they_are_sold(sample_atlas):
    """report.toml buys in us-central1; Cloud TPUs are not sold there, so each is priced in the
    region of its cheapest price (the only one in the bundled price book)."""
    folder, _, _ = sample_atlas
    prices = pl.read_csv(folder / "data/atlas_prices.csv", try_parse_dates=True)
    regions = dict(prices.select("instance_type", "region").unique().iter_rows())
    assert regions["tpu-v4"] == "us-central2" and regions["tpu-v5p"] == "us-east5"
    assert regions["a2-highgpu-8g"] == "us-central1" and regions["p4d.24xlarge"] == "us-east-1"


@needs_sample
def test_report_content_and_footnotes_on_their_page(sample_atlas):
    folder, _, _ = sample_atlas
    html = (folder / "atlas.html").read_text(encoding="utf-8")
    for text in ("MLPerf Training v0.7", "MLPerf Training v1.1", "Pareto", "Methodology", "estimate",
                 "Cheapest cost to train per benchmark model", "dl1.24xlarge"):
        assert text in html, text
    pdf_text = "".join(page.extract_text() for pdf in sorted(folder.glob("atlas*.pdf")) for page in PdfReader(pdf).pages)
    assert "The MLPerf price-performance atlas" in pdf_text and "$13.67" in pdf_text
    calls = 0
    for pdf in sorted(folder.glob("atlas*.pdf")):  # the page of each anchor: the PDF's named destinations
        reader = PdfReader(pdf)
        page_of = {name: reader.get_destination_page_number(dest) for name, dest in reader.named_destinations.items()}
        for call in (a for a in page_of if a.startswith("fncall-")):
            assert page_of[f"fn-{call.removeprefix('fncall-')}"] == page_of[call], (pdf.name, call)
            calls += 1
    assert calls


def test_make_atlas_again_the_same_day_builds_nothing(tmp_path):
    """Nothing changed (rounds, prices, code, day): Dagster reports nothing of the atlas stale, so no run starts
    and the published atlas stays the same build; removing it publishes it again."""
    v10 = tmp_path / "corpus" / "training_results_v1.0"
    system(v10, "Acme", "acme_a100")
    write_logs(v10 / "Acme/results/acme_a100/resnet", resnet_logs())
    env = atlas_env(tmp_path, tmp_path / "corpus")
    first = make_atlas(env)
    assert first.returncode == 0, first.stderr[-3000:]
    folder = (tmp_path / "reports" / "atlas" / ATLAS_PRICE_DATE).resolve()
    again = make_atlas(env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "scored now: none (all unchanged)" in again.stdout
    assert "up to date: Dagster reports nothing of the atlas stale or missing; nothing rebuilt" in again.stdout
    assert (tmp_path / "reports" / "atlas" / ATLAS_PRICE_DATE).resolve() == folder
    shutil.rmtree(folder)  # the published build is gone: its documents are built and published again
    third = make_atlas(env)
    assert third.returncode == 0 and "the published folder is gone" in third.stdout, third.stdout + third.stderr
    assert (tmp_path / "reports" / "atlas" / ATLAS_PRICE_DATE / "atlas.pdf").is_file()


@needs_sample
def test_unchanged_rounds_are_not_scored_again_nor_laid_out_again_the_next_day(sample_atlas_run, tmp_path):
    root = copy_tree(sample_atlas_run.root, tmp_path / "atlas")  # the shared build is read-only
    env = moved_env(sample_atlas_run.env, sample_atlas_run.root, root)
    folder = root / "reports" / "atlas" / ATLAS_PRICE_DATE
    before = (folder / "atlas.html").read_bytes()
    pdf_before = (folder / "atlas-v1.0.pdf").read_bytes()
    done = make_atlas({**env, "SOURCE_DATE_EPOCH": str(int(SOURCE_DATE_EPOCH) + 86400)})  # the next day's run
    assert done.returncode == 0, done.stderr[-3000:]
    assert "scored now: none (all unchanged)" in done.stdout
    # every chart served from the cache, byte for byte; only the day it was generated is the new one
    assert (folder / "atlas.html").read_bytes() == before.replace(b"2025-11-29", b"2025-11-30")
    # the PDFs are the ones printed the day before, which they say
    assert (folder / "atlas-v1.0.pdf").read_bytes() == pdf_before
    assert "Generated 2025-11-29" in " ".join(p.extract_text() for p in PdfReader(folder / "atlas-v1.0.pdf").pages)
    html = _metadata(env, "atlas_html")
    charts = before.decode("utf-8").count('class="chart-svg"')
    assert charts >= 2 and (html["charts_drawn"], html["charts_reused"], html["charts_pruned"]) == (0, charts, 0)
    pdf = _metadata(env, "atlas_pdf")
    assert pdf["laid_out"] == [] and pdf["layouts"] == 0 and pdf["pages"] >= 10  # every PDF printed before
    assert pdf["files"] == ["atlas.pdf", "atlas-v0.7.pdf", "atlas-v1.0.pdf", "atlas-v1.1.pdf", "atlas-instances.pdf"]


def _metadata(env: dict, asset: str) -> dict:
    """The latest materialization's metadata of `asset` in the run's instance (DAGSTER_HOME)."""
    import dagster as dg

    with dg.DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        event = instance.get_latest_materialization_event(dg.AssetKey(asset))
        return {k: v.value for k, v in event.asset_materialization.metadata.items()}


def test_quirk_corpus_end_to_end(tmp_path):
    root = quirk_corpus(tmp_path / "corpus")
    done = make_atlas(atlas_env(tmp_path, root))
    assert done.returncode == 0, done.stderr[-3000:]
    published = tmp_path / "reports" / "atlas" / ATLAS_PRICE_DATE
    unpriced = pl.read_csv(published / "data/atlas_not_priced.csv")
    why = {(r["system"] or r["folder"]): r["not_priced_because"] for r in unpriced.to_dicts()}
    assert "short_sys" not in why  # scored as the official summarizer scores it, the run count flagged
    assert why["lost_sys"].startswith("not scored: the official summarizer skips this system: no systems JSON")
    assert why["broken_sys"].startswith("not scored: the official summarizer stops on this system")
    assert why["ipu_sys"] == "no price list or catalog in the price book sells Graphcore IPU GC200"
    assert "round not supported" in why["training_results_v0.6"]
    # scored by the rules where the tool stops on the systems JSON, but no node count anywhere
    assert why["nodes_sys"] == ("node count unknown: the systems JSON has no number_of_nodes and the system name "
                                "does not state it")
    assert not {"spaced_sys", "nodiv_open", "nodiv_sys", "nodes_n2_sys"} & set(why)  # priced
    atlas = pl.read_csv(published / "data/atlas.csv")
    by_rules = (atlas.filter((pl.col("score_basis") == "rules") & (pl.col("pricing_option") == "on_demand"))
                .group_by("system").agg(pl.col("division").first(), pl.col("accelerators_total").first(),
                                        pl.col("cost_rank").is_null().all().alias("unranked")))
    assert sorted(by_rules.rows()) == [("nodes_n2_sys", "closed", 16, False), ("nodiv_open", "open", 8, False),
                                       ("nodiv_sys", None, 8, True), ("spaced_sys", "closed", 4, False)]
    # the cover, the summary, the round's chapter and the methodology count them beside the official scores:
    # 27 entries, 16 scored by the tool, 5 by the rules (4 of them in v3.0), 6 without a score
    cover = " ".join(PdfReader(published / "atlas.pdf").pages[0].extract_text().split())
    assert "27 (21 scored: 16 by the official summarizer, 5 by the rules where it stops)" in cover
    text = " ".join(re.sub(r"<[^>]+>", " ", (published / "atlas.html").read_text(encoding="utf-8")).split())
    assert "Of 27 benchmark entries, 16 are scored by the official summarizer, 5 by the written rules" in text
    assert "Round v3.0 has 7 benchmark entries: 2 scored by the official summarizer, 4 by the rules" in text
    assert "Of 21 scored entries, 16 are scored by the official summarizer and 5 by the rules where it stops." in text
    round_pdf = " ".join(" ".join(p.extract_text() for p in PdfReader(published / "atlas-v3.0.pdf").pages).split())
    assert "7 (6 scored: 2 by the official summarizer, 4 by the rules where it stops)" in round_pdf
    assert "1 of unknown division last, unranked" in round_pdf
    scaled = atlas.filter((pl.col("system") == "scaled_sys") & (pl.col("instance_type") == "p4de.24xlarge")).row(0, named=True)
    # the price in force on 2026-12-04 (the June 2025 cut's, confirmed 2026-07-20), 40 minutes after scaling.json
    assert scaled["cost_to_train_usd"] == pytest.approx(27.44705 * 40.0 / 60)
    html = (published / "atlas.html").read_text(encoding="utf-8")
    assert "RetinaNet (OpenImages)" in html and "SSD-ResNet34 (COCO)" in html
    # v1.0 ResNet has an open-division result beside the closed ones: on the chart, hollow and named
    assert "closed division filled, open division hollow" in html and "open division (hollow)" in html
    assert re.search(r"<title>acme_open \(Acme\)[^<]*· open division</title>", html)
    # each round is one partition, stored as one Parquet file per table
    stored = tmp_path / "warehouse" / "atlas_rounds" / "atlas_round_scores"
    assert sorted(p.name for p in stored.iterdir()) == ["v0.6.parquet", "v1.0.parquet", "v3.0.parquet"]


def test_a_new_price_snapshot_reprices_the_atlas_without_scoring_again(tmp_path):
    """The must-show: a normalized snapshot in RAW_DIR/prices with p4d.24xlarge at a new price and a
    later date changes the atlas's p4d rows on the next `make atlas`; no round is scored again."""
    v10 = tmp_path / "corpus" / "training_results_v1.0"
    # 2 nodes x 8 A100-40GB: 2 p4d.24xlarge; olympic mean of RESNET_5 = 32.0 minutes
    system(v10, "Acme", "acme_a100_40", accelerator_model_name="NVIDIA A100-SXM4-40GB", accelerator_memory_capacity="40 GB",
           number_of_nodes="2")
    write_logs(v10 / "Acme/results/acme_a100_40/resnet", resnet_logs())
    env = atlas_env(tmp_path, tmp_path / "corpus")
    without_catalogs(Path(env["RAW_DIR"]))  # a later snapshot than the catalogs' cannot be dated yet
    first = make_atlas(env)
    assert first.returncode == 0, first.stderr[-3000:]
    before = pl.read_csv(tmp_path / f"reports/atlas/{PROVIDER_FILES_PRICE_DATE}/data/atlas.csv").filter(
        (pl.col("instance_type") == "p4d.24xlarge") & (pl.col("pricing_option") == "on_demand"))
    assert before.select("usd_per_hour", "price_as_of", "instances_needed", "cost_to_train_usd").rows() == [
        (21.957642, "2026-07-20", 2, pytest.approx(2 * 21.957642 * 32.0 / 60))]  # 23.421485 USD

    (Path(env["RAW_DIR"]) / "prices" / f"on_demand_{NEXT_PRICE_DATE}.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        f"aws,us-east-1,p4d.24xlarge,18.00,{NEXT_PRICE_DATE},test snapshot\n")
    second = make_atlas(env)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "scored now: none (all unchanged)" in second.stdout
    after = pl.read_csv(tmp_path / f"reports/atlas/{NEXT_PRICE_DATE}/data/atlas.csv").filter(
        pl.col("pricing_option") == "on_demand")
    p4d = after.filter(pl.col("instance_type") == "p4d.24xlarge")
    assert p4d.select("usd_per_hour", "price_as_of", "cost_to_train_usd", "price_source").rows() == [
        (18.0, NEXT_PRICE_DATE, pytest.approx(2 * 18.0 * 32.0 / 60), "test snapshot")]  # 19.20 USD
    # other instances keep their prices in force; the earlier atlas stays published
    other = after.filter(pl.col("instance_type") == "a2-highgpu-8g").row(0, named=True)
    assert (other["usd_per_hour"], other["price_as_of"]) == (29.38708, "2026-08-20")
    assert (tmp_path / f"reports/atlas/{PROVIDER_FILES_PRICE_DATE}/atlas.html").is_file()
    assert (tmp_path / "reports/atlas/latest").resolve() == (tmp_path / f"reports/atlas/{NEXT_PRICE_DATE}").resolve()


def test_a_new_round_lays_out_its_own_pdf_and_atlas_pdf_only(tmp_path):
    v10, v30 = tmp_path / "corpus" / "training_results_v1.0", tmp_path / "corpus" / "training_results_v3.0"
    system(v10, "Acme", "acme_a100")
    write_logs(v10 / "Acme/results/acme_a100/resnet", resnet_logs())
    env = atlas_env(tmp_path, tmp_path / "corpus")
    first = make_atlas(env)
    assert first.returncode == 0, first.stderr[-3000:]
    assert sorted(_metadata(env, "atlas_pdf")["laid_out"]) == ["atlas-instances.pdf", "atlas-v1.0.pdf", "atlas.pdf"]
    published = tmp_path / "reports" / "atlas" / ATLAS_PRICE_DATE
    before = (published / "atlas-v1.0.pdf").read_bytes()
    instances_before = (published / "atlas-instances.pdf").read_bytes()

    system(v30, "Acme", "acme_a100")
    write_logs(v30 / "Acme/results/acme_a100/ssd",
               [run_log("ssd", minutes=m, evals=[(0.20, 1.0), (0.341, 2.0)]) for m in [50.0, 60.0, 70.0, 80.0, 90.0]])
    second = make_atlas(env)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "scored now: v3.0" in second.stdout
    pdf = _metadata(env, "atlas_pdf")
    assert sorted(pdf["laid_out"]) == ["atlas-v3.0.pdf", "atlas.pdf"] and pdf["layouts"] == 1
    assert (published / "atlas-v1.0.pdf").read_bytes() == before  # served from the PDF cache, byte for byte
    assert (published / "atlas-instances.pdf").read_bytes() == instances_before  # a round does not change it
    assert "MLPerf Training v3.0" in PdfReader(published / "atlas-v3.0.pdf").pages[0].extract_text()
    contents = " ".join(PdfReader(published / "atlas.pdf").pages[1].extract_text().split())
    assert "atlas-v1.0.pdf" in contents and "atlas-v3.0.pdf" in contents


def test_the_stale_age_is_report_tomls(tmp_path):
    """report.toml stale_after_days marks the atlas's prices as it marks the report's."""
    v10 = tmp_path / "corpus" / "training_results_v1.0"
    system(v10, "Acme", "acme_v100", accelerator_model_name="NVIDIA Tesla V100-SXM2-16GB", accelerator_memory_capacity="16 GB")
    write_logs(v10 / "Acme/results/acme_v100/resnet", resnet_logs())
    env = atlas_env(tmp_path, tmp_path / "corpus")
    toml = Path(env["RAW_DIR"]) / "report.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("\n[regions]", "\nstale_after_days = 2000\n\n[regions]", 1),
                    encoding="utf-8")
    done = make_atlas(env)
    assert done.returncode == 0, done.stderr[-3000:]
    # the atlas prices at the newest on-demand price of an instance its results can run on: p3.16xlarge's
    # (AWS's file of 2026-07-20)
    folder = tmp_path / "reports/atlas/2026-07-20"
    atlas = pl.read_csv(folder / "data/atlas.csv").filter(pl.col("pricing_option") == "on_demand")
    # GCP n1-highmem-96 + 8 V100's 2022-02-08 price is 1,623 days old on 2026-07-20: stale after 365 days,
    # not after 2,000
    n1 = atlas.filter(pl.col("instance_type") == "n1-highmem-96+8xV100").row(0, named=True)
    assert (n1["price_age_days"], n1["stale"]) == (1623, False)
    assert not atlas["stale"].any()
    cover = " ".join(PdfReader(folder / "atlas.pdf").pages[0].extract_text().split())
    assert "0 stale (over 2000 days old)" in cover
    assert "a price older than 2000 days" in (folder / "atlas.html").read_text(encoding="utf-8")


def test_bad_price_is_one_line_and_publishes_nothing(tmp_path):
    env = atlas_env(tmp_path, quirk_corpus(tmp_path / "corpus"))
    (Path(env["RAW_DIR"]) / "prices" / "on_demand_2025-07-01.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\naws,us-east-1,p4d.24xlarge,-1,2025-07-01,x\n")
    done = make_atlas_process(env)  # the command line's one line, from a process of its own
    assert done.returncode == 2  # bad input
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "on_demand_2025-07-01.csv:2 column usd_per_hour" in done.stderr
    assert not any((tmp_path / "reports" / "atlas").glob("2*"))


@needs_sample
def test_after_make_atlas_the_data_set_finds_mlperf_dir_by_itself(sample_atlas):
    """The UI's processes read their settings as the definitions load: without MLPERF_DIR in the
    environment they now find the folder `make atlas` used (before: "MLPERF_DIR is not set")."""
    _, stdout, env = sample_atlas
    assert f"kept:   MLPERF_DIR={SAMPLE.resolve()} for this data set" in stdout
    without = {k: v for k, v in env.items() if k != "MLPERF_DIR"}
    done = subprocess.run([sys.executable, "-c", "from pipelines.defs.resources import PipelineSettings; "
                           "print(PipelineSettings.from_env().mlperf)"], cwd=REPO, env=without,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == str(SAMPLE.resolve()), done.stderr


def test_without_mlperf_dir_it_says_so_in_one_line(tmp_path):
    env = atlas_env(tmp_path, tmp_path)
    env.pop("MLPERF_DIR")
    done = make_atlas(env)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: MLPERF_DIR is not set: the atlas needs the folder holding the "
                                   "training_results_vX.Y trees (make atlas MLPERF_DIR=<folder>, python -m pipelines.cli atlas "
                                   "--mlperf-dir <folder>, or set it for `make ui`)")
