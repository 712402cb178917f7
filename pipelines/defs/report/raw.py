"""Raw inputs as observable source assets whose data version is a content hash.

The UI then shows which assets are stale after a raw file really changed; touching a file
without changing its bytes changes nothing.
"""


import warnings

import dagster as dg

from pipelines.defs.resources import PipelineSettings
from pipelines.fingerprint import files_sha256
from pipelines.ingest.raw_files import input_files

# asset name -> (path under RAW_DIR, glob, what it holds)
RAW_INPUTS = {
    "raw_prices": ("prices", "*", "Price snapshots: normalized CSV and the providers' own price lists."),
    "raw_instances": ("instances.csv", "*", "The instance catalog: every cloud instance, its accelerators and billing."),
    "raw_accelerators": ("accelerators.csv", "*", "The accelerator catalog: names in systems JSON -> model -> cloud model."),
    "raw_accelerator_aliases": ("accelerator_aliases.csv", "*", "The public catalogs' accelerator names -> cloud model "
                                                                "(the project's when the data set has none)."),
    "raw_mappings": ("mappings.csv", "*", "Which measured system stands for which instance, per benchmark."),
    "raw_results": ("results", "*.csv", "MLPerf result-summarizer CSVs."),
    "raw_mlperf": ("mlperf", "*", "MLPerf Training result trees in the official layout."),
    "raw_throughput": ("throughput", "*.csv", "Throughput a team measured itself."),
    "raw_systems": ("systems", "*.json", "MLPerf systems JSON: the measured systems' configuration."),
    "raw_report_config": ("report.toml", "*", "Title, comparisons, baselines, benchmarks and price date."),
    "raw_published_runs": ("published_runs.csv", "*", "Published training runs with their accelerator-hours and "
                                                      "sources: the model estimates' calibration (the project's when "
                                                      "the data set has none)."),
    "raw_carbon": ("carbon", "*.csv", "Grid carbon intensity per cloud region and data-centre PUE (the project's "
                                      "when the data set has none)."),
}


def raw_fingerprint(settings: PipelineSettings, name: str) -> str:
    relative, pattern, _ = RAW_INPUTS[name]
    root = settings.raw / relative
    return files_sha256(input_files(root, pattern), root if root.is_dir() else root.parent)


def observed_files(settings: PipelineSettings, name: str) -> dict:
    """What an observation saw: how many files, how many bytes, and which (shown in the UI)."""
    relative, pattern, _ = RAW_INPUTS[name]
    root = settings.raw / relative
    files = input_files(root, pattern)
    base = root if root.is_dir() else root.parent
    shown = [f"- {f.relative_to(base)} ({f.stat().st_size:,} bytes)" for f in files[:50]]
    if len(files) > 50:
        shown.append(f"- ... and {len(files) - 50} more")
    return {
        "files": len(files),
        "bytes": sum(f.stat().st_size for f in files),
        "listing": dg.MetadataValue.md("\n".join(shown) or "(no files)"),
    }


def _observable(name: str):
    relative, _, description = RAW_INPUTS[name]

    @dg.observable_source_asset(
        name=name,
        group_name="raw",
        description=f"{description} (RAW_DIR/{relative})",
        metadata={"path": f"RAW_DIR/{relative}"},
        tags={"dagster/kind/file": ""},
    )
    def _observe(settings: PipelineSettings) -> dg.ObserveResult:
        return dg.ObserveResult(data_version=dg.DataVersion(raw_fingerprint(settings, name)),
                                metadata=observed_files(settings, name))

    return _observe


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)  # observable source assets are beta, and what fits
    raw_assets = [_observable(name) for name in RAW_INPUTS]
