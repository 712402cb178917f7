"""bench/atlas_bench.py: skipped with a reason without a corpus, and gives both rows on a small one."""

from __future__ import annotations

import pytest

from bench import atlas_bench
from bench.__main__ import _goal, run_module
from bench.harness import ROW_KEYS, Skipped
import json

from tests.atlas_fixtures import resnet_logs
from tests.mlperf_fixtures import write_benchmark
from tests.small_raw import write_small_raw


def test_no_corpus_is_a_skip_with_its_reason(monkeypatch):
    monkeypatch.delenv("ATLAS_CORPUS", raising=False)
    with pytest.raises(Skipped, match="ATLAS_CORPUS"):
        atlas_bench.measure()
    rows, note, _ = run_module("atlas", 1, True)  # make bench goes on and says why in BENCHMARKS.md
    assert rows == [] and note.startswith("bench/atlas_bench.py skipped: set ATLAS_CORPUS")


@pytest.mark.slow
def test_rows_on_a_small_corpus(monkeypatch, tmp_path):
    root = tmp_path / "corpus"
    bench = write_benchmark(root / "training_results_v2.0", "Acme", "acme_a100", "resnet", resnet_logs())
    (bench / "scaling.json").write_text(json.dumps({"scaling_factor": 1.25}))
    write_benchmark(root / "training_results_v1.0", "Acme", "acme_a100", "resnet", resnet_logs())
    monkeypatch.setenv("ATLAS_CORPUS", str(root))
    monkeypatch.setenv("ATLAS_BENCH_ROUND", "v2.0")
    # priced on the tests' small data set, not the bundled market: the rows' mechanics are the subject here, and
    # each of the five make atlas runs takes half the time (tests/test_atlas_e2e.py prices the bundled data)
    monkeypatch.setattr(atlas_bench, "RAW", write_small_raw(tmp_path / "raw"))
    rows = atlas_bench.measure(repeats=1)
    assert [r["name"].split(" (")[0] for r in rows] == [
        "atlas: score the whole corpus", "atlas: score round v2.0", "atlas: make atlas, whole corpus cold",
        "atlas: peak memory of make atlas, whole corpus cold", "atlas: make atlas after a price-only change",
        "atlas: make atlas after adding round v2.0 to the other 1"]
    assert "10 logs" in rows[0]["name"] and "5 logs" in rows[1]["name"]
    for r in rows:
        assert set(ROW_KEYS) <= set(r)
        assert r["median_s"] > 0 and r["ref_median_s"] > 0 and r["peak_mib"] > 0
    assert "official result summarizer" in rows[1]["reference"]
    assert rows[0]["goal_seconds"] == 60 and rows[1]["goal_ratio"] == 0.1  # the goals, judged per row
    assert rows[0]["memory_ratio"] > 0
    # make atlas: the cold run reads every log, the price-only run none, the added round only its own
    cold, memory, priced, added = rows[2:]
    assert (cold["logs_read"], priced["logs_read"], added["logs_read"], added["ref_logs_read"]) == (10, 0, 5, 5)
    assert priced["goal_ratio"] == 0.25 and added["goal_ratio"] == 1.2
    # memory flat in the corpus: the cold whole-corpus peak against one round's, and a ceiling
    assert (memory["peak_mib"], memory["ref_peak_mib"]) == (cold["peak_mib"], added["ref_peak_mib"])
    assert (memory["goal_memory_ratio"], memory["goal_memory_mib"]) == (1.3, 1024)
    assert _goal(memory).startswith("peak ≤ 1.3x and < 1024 MiB (")
    # the corpus itself is never written to (the official tool reads a copy) and scaling.json is intact
    assert sorted(p.name for p in bench.iterdir()) == [f"result_{i}.txt" for i in range(5)] + ["scaling.json"]
    assert json.loads((bench / "scaling.json").read_text()) == {"scaling_factor": 1.25}
    assert not list((root / "training_results_v1.0").rglob("scaling.json"))
