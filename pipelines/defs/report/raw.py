"""The report's own raw inputs: report.toml, the instance-to-system mappings, the team's measured throughput
and the published runs that calibrate the model estimates (observable source assets, defs/raw.py)."""

from pipelines.defs.raw import RawInput, observable_assets

REPORT_INPUTS = {
    "raw_mappings": RawInput("mappings.csv", "*", "Which measured system stands for which instance, per benchmark."),
    "raw_throughput": RawInput("throughput", "*.csv", "Throughput a team measured itself."),
    "raw_report_config": RawInput("report.toml", "*", "Title, comparisons, baselines, benchmarks and price date."),
    "raw_published_runs": RawInput("published_runs.csv", "*", "Published training runs with their accelerator-hours and "
                                                      "sources: the model estimates' calibration (the project's when "
                                                      "the data set has none).", public_facts=True),
}

raw_assets = observable_assets(REPORT_INPUTS)
