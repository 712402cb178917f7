"""The atlas end to end: `python -m pipelines.atlas` on the shared MLPerf sample (skipped when it is
absent) and on the project's quirk corpus, into temporary folders; figures checked by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from pypdf import PdfReader

from pipelines.atlas.build import build
from pipelines.publish.render import TemplatesOnlyFetcher
from tests.atlas_fixtures import REPO, atlas_raw, quirk_corpus

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "mlperf-sample"
needs_sample = pytest.mark.skipif(not SAMPLE.is_dir(), reason=f"MLPerf sample not found at {SAMPLE}")


def _env(tmp: Path) -> dict:
    return {**os.environ, "RAW_DIR": str(atlas_raw(tmp)), "REPORTS_DIR": str(tmp / "reports"),
            "WAREHOUSE": str(tmp / "warehouse.duckdb"), "DAGSTER_HOME": str(tmp / "dagster")}


@pytest.fixture(scope="module")
def sample_atlas(tmp_path_factory):
    if not SAMPLE.is_dir():
        pytest.skip(f"MLPerf sample not found at {SAMPLE}")
    tmp = tmp_path_factory.mktemp("atlas")
    env = _env(tmp)
    done = subprocess.run([sys.executable, "-m", "pipelines.atlas", "--mlperf-dir", str(SAMPLE)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return tmp / "reports" / "atlas" / "2025-06-01", done.stdout


@needs_sample
def test_publishes_html_pdf_and_csv(sample_atlas):
    folder, stdout = sample_atlas
    assert f"atlas: {folder / 'atlas.html'}" in stdout
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
def test_costs_in_the_csv_by_hand(sample_atlas):
    folder, _ = sample_atlas
    atlas = pl.read_csv(folder / "data/atlas.csv", try_parse_dates=True)
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


@needs_sample
def test_report_content_and_footnotes_on_their_page(sample_atlas):
    folder, _ = sample_atlas
    html = (folder / "atlas.html").read_text(encoding="utf-8")
    for text in ("MLPerf Training v0.7", "MLPerf Training v1.1", "Pareto", "Methodology", "estimate",
                 "Cheapest cost to train per benchmark model", "dl1.24xlarge"):
        assert text in html, text
    pdf_text = "".join(page.extract_text() for page in PdfReader(folder / "atlas.pdf").pages)
    assert "The MLPerf price-performance atlas" in pdf_text and "$13.67" in pdf_text
    from weasyprint import HTML
    document = HTML(string=html, base_url=str(REPO / "templates") + "/",
                    url_fetcher=TemplatesOnlyFetcher(REPO / "templates")).render()
    page_of = {}
    for number, page in enumerate(document.pages):
        for anchor in page.anchors:
            page_of.setdefault(anchor, number)
    calls = [a for a in page_of if a.startswith("fncall-")]
    assert calls
    for call in calls:
        assert page_of[f"fn-{call.removeprefix('fncall-')}"] == page_of[call], call


@needs_sample
def test_same_inputs_give_the_same_html(sample_atlas, tmp_path):
    folder, _ = sample_atlas
    generated = date.fromisoformat(
        (folder / "atlas.html").read_text(encoding="utf-8").split('name="dcterms.created" content="')[1][:10])
    again = build(SAMPLE, atlas_raw(tmp_path), tmp_path / "reports", tmp_path / "wh.duckdb", workers=1,
                  generated_on=generated)
    assert (again / "atlas.html").read_bytes() == (folder / "atlas.html").read_bytes()


def test_quirk_corpus_end_to_end(tmp_path):
    root = quirk_corpus(tmp_path / "corpus")
    published = build(root, atlas_raw(tmp_path), tmp_path / "reports", tmp_path / "wh.duckdb", workers=1,
                      price_date=date(2025, 6, 1), generated_on=date(2026, 1, 1))
    unpriced = pl.read_csv(published / "data/atlas_not_priced.csv")
    why = {(r["system"] or r["folder"]): r["not_priced_because"] for r in unpriced.to_dicts()}
    assert "short_sys" not in why  # scored as the official summarizer scores it, the run count flagged
    assert why["lost_sys"].startswith("not scored: the official summarizer skips this system: no systems JSON")
    assert why["broken_sys"].startswith("not scored: the official summarizer stops on this system")
    assert why["ipu_sys"] == "no cloud instance in the atlas has Graphcore IPU GC200"
    assert "round not supported" in why["training_results_v0.6"]
    atlas = pl.read_csv(published / "data/atlas.csv")
    scaled = atlas.filter((pl.col("system") == "scaled_sys") & (pl.col("instance_type") == "p4de.24xlarge")).row(0, named=True)
    # the price in force on 2025-06-01 (after the June 2025 cut), 40 minutes after scaling.json
    assert scaled["cost_to_train_usd"] == pytest.approx(27.44705 * 40.0 / 60)
    html = (published / "atlas.html").read_text(encoding="utf-8")
    assert "RetinaNet (OpenImages)" in html and "SSD-ResNet34 (COCO)" in html


def test_cli_says_what_is_wrong_in_one_line(tmp_path):
    env = _env(tmp_path)
    (Path(env["RAW_DIR"]) / "atlas" / "prices.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,certainty,source\naws,us-east-1,p4d.24xlarge,-1,2024-01-01,exact,x\n")
    quirk_corpus(tmp_path / "corpus")
    done = subprocess.run([sys.executable, "-m", "pipelines.atlas", "--mlperf-dir", str(tmp_path / "corpus")], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "prices.csv:2 column usd_per_hour" in done.stderr
    assert not (tmp_path / "reports" / "atlas").exists() or not any((tmp_path / "reports" / "atlas").glob("2*"))
