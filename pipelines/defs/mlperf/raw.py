"""MLPerf's raw inputs: result-summarizer CSVs, result trees and systems JSON (observable source assets, defs/raw.py)."""

from pipelines.defs.raw import observable_assets

MLPERF_INPUTS = {
    "raw_results": ("results", "*.csv", "MLPerf result-summarizer CSVs."),
    "raw_mlperf": ("mlperf", "*", "MLPerf Training result trees in the official layout."),
    "raw_systems": ("systems", "*.json", "MLPerf systems JSON: the measured systems' configuration."),
}

raw_assets = observable_assets(MLPERF_INPUTS)
