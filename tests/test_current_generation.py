"""The summarizer's detailed CSV, the report's benchmark renames and per-instance regions."""

from pathlib import Path

import pytest

from pipelines.errors import InputError
from pipelines.ingest.mlperf_quirks import report_benchmark
from pipelines.ingest.results_summary import read_results_summary

RAW = Path(__file__).resolve().parents[1] / "raw"


def test_report_benchmark_renames_only_the_same_model():
    assert report_benchmark("v4.1", "ssd") == "retinanet"
    assert report_benchmark("v2.0", "ssd") == "retinanet"
    assert report_benchmark("v1.1", "ssd") == "ssd"  # SSD-ResNet34, another model
    assert report_benchmark("v4.0", "gnn") == "rgat"
    assert report_benchmark("v5.0", "rgat") == "rgat"
    assert report_benchmark(None, "ssd") == "ssd"


def test_detailed_csv_batch_size_and_samples():
    frame = read_results_summary(RAW / "results" / "mlperf_training_v4.1_summary_detailed.csv")
    row = frame.filter((frame["system"] == "AS-8125GS-TNHR-1") & (frame["benchmark"] == "ssd")).row(0, named=True)
    # the CSV row: ssd:time_to_train 36.301917, ssd:GBS 256.0, ssd:samples_to_converge 4.0 (epochs)
    assert row["time_to_train_minutes"] == pytest.approx(36.301917, rel=1e-6)
    assert row["global_batch_size"] == 256
    assert row["samples_to_converge"] == pytest.approx(4 * 1_170_301)  # 4 epochs of OpenImages' 1,170,301 images


def test_detailed_csv_bad_batch_size_names_line_and_column(tmp_path):
    text = (RAW / "results" / "mlperf_training_v5.0_summary_detailed.csv").read_text(encoding="utf-8").splitlines()
    header = text[0].split(",")
    cells = text[1].split(",")
    if len(cells) != len(header):
        pytest.skip("first row has quoted commas")
    cells[header.index("bert:time_to_train")] = "5.0"
    cells[header.index("bert:GBS")] = "12.5"
    bad = tmp_path / "s_detailed.csv"
    bad.write_text("\n".join([text[0], ",".join(cells)]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r":2 column bert:GBS"):
        read_results_summary(bad)
