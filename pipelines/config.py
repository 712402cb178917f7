"""Where the pipeline reads and writes: settings from environment variables, defaults per data set.

A data set is a RAW_DIR. Its outputs (published reports, the DuckDB warehouse, Dagster's run
history) default to folders that belong to that data set, so a report of one data set never
overwrites another's:
- the bundled raw/ keeps the repo's reports/, warehouse/pipeline.duckdb and .dagster_home/;
- any other RAW_DIR gets reports/, warehouse/pipeline.duckdb and .dagster_home/ inside it.
REPORTS_DIR, WAREHOUSE and DAGSTER_HOME, when set, win. Standard library only: `make clean` and
`--help` run without the virtual environment's packages.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SQL_DIR = REPO_ROOT / "sql"
TEMPLATES_DIR = REPO_ROOT / "templates"
BUNDLED_RAW = REPO_ROOT / "raw"
# The project's Dagster instance settings, copied into DAGSTER_HOME. Not at the repo root: `dg dev`
# runs there and warns about any dagster.yaml in its folder that is not DAGSTER_HOME's.
INSTANCE_YAML = REPO_ROOT / "config" / "dagster.yaml"


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # in words, as --help and README show it
    meaning: str


# Every environment variable a user may set, in the order --help lists them.
SETTINGS = (
    Setting("RAW_DIR", "raw/ in the repo, the bundled data",
            "the data set: prices/, instances.csv, mappings.csv, results/, mlperf/, throughput/, systems/, "
            "report.toml (README: bring your own data)"),
    Setting("REPORTS_DIR", "reports/ in the repo for the bundled data, RAW_DIR/reports for any other",
            "where reports are published: <price date>/, latest/, index.html, atlas/"),
    Setting("WAREHOUSE", "warehouse/pipeline.duckdb in the repo for the bundled data, "
            "RAW_DIR/warehouse/pipeline.duckdb for any other",
            "the DuckDB file holding the staging tables and marts"),
    Setting("DAGSTER_HOME", ".dagster_home/ in the repo for the bundled data, RAW_DIR/.dagster_home for any other",
            "Dagster's instance: run history, sensor and schedule state, shown in the UI"),
    Setting("MLPERF_DIR", "not set",
            "the atlas's input: a folder holding the MLPerf Training result repositories "
            "training_results_v0.7 ... v5.1"),
    Setting("GCP_API_KEY", "not set, and GCP is skipped",
            "API key for Google's Cloud Billing Catalog (prices fetch); AWS and Azure need none"),
    Setting("UI_HOST", "127.0.0.1, this machine only", "address the Dagster UI listens on"),
    Setting("UI_PORT", "3000", "port of the Dagster UI; a busy port is refused, never silently swapped"),
    Setting("SOURCE_DATE_EPOCH", "not set: today",
            "the reports' 'generated on' date in Unix seconds, for byte-identical rebuilds"),
)


def env_path(name: str) -> Path | None:
    """The setting as an absolute path (~ expanded, relative to the current folder), or None when unset."""
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else None


@dataclass(frozen=True)
class Paths:
    raw_dir: Path
    reports_dir: Path
    warehouse: Path
    dagster_home: Path

    @classmethod
    def from_env(cls) -> "Paths":
        raw = env_path("RAW_DIR") or BUNDLED_RAW
        # the bundled data keeps the repo's layout; any other data set keeps its outputs inside it
        home = REPO_ROOT if raw == BUNDLED_RAW.resolve() else raw
        return cls(
            raw_dir=raw,
            reports_dir=env_path("REPORTS_DIR") or home / "reports",
            warehouse=env_path("WAREHOUSE") or home / "warehouse" / "pipeline.duckdb",
            dagster_home=env_path("DAGSTER_HOME") or home / ".dagster_home",
        )

    def as_env(self) -> dict[str, str]:
        """The four settings as absolute paths, for processes started from another folder."""
        return {"RAW_DIR": str(self.raw_dir), "REPORTS_DIR": str(self.reports_dir),
                "WAREHOUSE": str(self.warehouse), "DAGSTER_HOME": str(self.dagster_home)}
