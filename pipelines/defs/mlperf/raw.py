"""MLPerf's raw inputs: result-summarizer CSVs, result trees and systems JSON (observable source assets, defs/raw.py)."""

from pipelines.defs.raw import RawInput, observable_assets

MLPERF_INPUTS = {
    "raw_results": RawInput("results", "*.csv", "MLPerf result-summarizer CSVs."),
    "raw_mlperf": RawInput("mlperf", "*", "MLPerf Training result trees in the official layout (and those report.toml "
                                                       "names outside RAW_DIR).", outside_trees=True),
    "raw_systems": RawInput("systems", "*.json", "MLPerf systems JSON: the measured systems' configuration."),
    "raw_mlperf_precision": RawInput("mlperf_precision.csv", "*", "The numeric precision each MLPerf LLM result "
                                     "trained in, and where that is read (the project's when the data set has none).",
                                     public_facts=True),
}

raw_assets = observable_assets(MLPERF_INPUTS)
