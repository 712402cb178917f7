"""Where the pipeline reads and writes: settings from environment variables, defaults per data set.

A data set is a RAW_DIR. Its outputs (published reports, the DuckDB warehouse, Dagster's run
history, the atlas's scored rounds) default to folders that belong to that data set, so a report of
one data set never overwrites another's:
- the bundled raw/ keeps the repo's reports/, warehouse/pipeline.duckdb and .dagster_home/;
- any other RAW_DIR gets reports/, warehouse/pipeline.duckdb and .dagster_home/ inside it.
REPORTS_DIR, WAREHOUSE and DAGSTER_HOME, when set, win. (The tests move the bundled data's home out of the
repo, PIPELINE_BUNDLED_HOME below, so that they never read or write a checkout's own, and hold the calendar
day still for a session, PIPELINE_TODAY.) MLPERF_DIR has no
default: the atlas is off until it names a folder of training_results_vX.Y trees; a successful `make atlas` remembers it for
the data set (DAGSTER_HOME/pipeline_settings.json), so the UI and the next `make atlas` of that data
set find it without being told again, and MLPERF_DIR set in the environment still wins. ATLAS_ROUNDS_DIR (default: atlas_rounds/
beside the warehouse; a local folder or an fsspec URL such as s3://bucket/atlas_rounds) is where
each scored round is written as Parquet. Standard library only: `make clean` and `--help` run
without the virtual environment's packages.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import date, datetime, timezone
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
    Setting("MLPERF_DIR", "not set, or the folder the data set's last `make atlas` used (remembered in "
            "DAGSTER_HOME/pipeline_settings.json)",
            "the atlas's input: a folder holding the MLPerf Training result repositories "
            "training_results_v0.7 ... v5.1"),
    Setting("ATLAS_ROUNDS_DIR", "atlas_rounds/ beside the warehouse",
            "where the atlas keeps each scored MLPerf round as Parquet: a folder, or an fsspec URL such as "
            "s3://bucket/atlas_rounds when rounds are scored on other machines"),
    Setting("PRICE_SOURCES", "skypilot, aws, azure, gcp (all)",
            "what prices fetch downloads, a comma list of: skypilot (the GPU clouds' public catalogs), aws, azure, gcp "
            "(their own price lists)"),
    Setting("SKYPILOT_CLOUDS", "every cloud of the catalog that sells GPUs: lambda, nebius, runpod, oci, cudo, vast, "
            "verda, hyperstack, hyperbolic, jarvislabs, lium, mithril, primeintellect, seeweb, shadeform, spheron, yotta, "
            "daytona",
            "the clouds whose catalog prices fetch downloads, a comma list (aws, gcp and azure too, on request: their "
            "own price lists price them by default)"),
    Setting("SKYPILOT_CATALOG_URL", "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8",
            "the folder holding SkyPilot's <cloud>/vms.csv (a mirror, or a raw URL pinned to a commit, which the "
            "snapshot's SOURCE.md then names)"),
    Setting("GCP_API_KEY", "not set, and GCP is skipped",
            "API key for Google's Cloud Billing Catalog (prices fetch); AWS and Azure need none"),
    Setting("UI_HOST", "127.0.0.1, this machine only", "address the Dagster UI listens on"),
    Setting("UI_PORT", "3000", "port of the Dagster UI; a busy port is refused, never silently swapped"),
    Setting("SOURCE_DATE_EPOCH", "not set: today",
            "the reports' 'generated on' date in Unix seconds, for byte-identical rebuilds"),
)


# Two days, one home. SOURCE_DATE_EPOCH pins only what the outputs say about themselves (the day they were
# generated, and the up-to-date key over it), so that a rebuild gives the same bytes. The inputs are checked
# against the calendar: a price or a date after today is a typo or a wrong clock, a fetched snapshot is named
# for the day it was taken, and an Azure price announced for later is not in force yet. Pinning those to the
# build's day would refuse real data whenever the pin lies before it (the tests pin 2025-11-29 and read 2026
# prices).
#
# TODAY_PIN (YYYY-MM-DD) stands in for the calendar, for the tests only: a session that crosses 00:00 UTC must not
# see two days, or a build made before midnight looks stale to a check after it (the day is one of its inputs).
# Not in SETTINGS: a user's inputs are checked against the real calendar.
TODAY_PIN = "PIPELINE_TODAY"


def today() -> date:
    """The calendar day now, in UTC (every machine of a deployment agrees on it): what inputs are checked against."""
    pinned = os.environ.get(TODAY_PIN, "").strip()
    return date.fromisoformat(pinned) if pinned else datetime.now(timezone.utc).date()


def build_day() -> date:
    """The day the outputs say they were generated: SOURCE_DATE_EPOCH (Unix seconds) when set, else today()."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    return datetime.fromtimestamp(int(epoch), timezone.utc).date() if epoch else today()


REMEMBERED = "pipeline_settings.json"  # in DAGSTER_HOME: settings a data set keeps between commands


def remembered(dagster_home: Path) -> dict[str, str]:
    """The settings the data set remembers ({"MLPERF_DIR": "/data/mlperf"}); {} when none."""
    try:
        found = json.loads((dagster_home / REMEMBERED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(found, dict) else {}


def remember(dagster_home: Path, name: str, value: str) -> bool:
    """Keep `name` = `value` for the data set (written to a temporary name, then renamed); True when it changed."""
    settings = remembered(dagster_home)
    if settings.get(name) == value:
        return False
    settings[name] = value
    dagster_home.mkdir(parents=True, exist_ok=True)
    tmp = dagster_home / f".{REMEMBERED}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, dagster_home / REMEMBERED)
    return True


# Tests only (tests/checkout_state.py): the folder that stands in for the repo as the bundled data's home. Unset, as
# for every user, the bundled data's outputs and remembered settings are the repo's own.
BUNDLED_HOME = "PIPELINE_BUNDLED_HOME"


def bundled_home() -> Path:
    """Where the bundled data keeps reports/, warehouse/ and .dagster_home/: the repo, unless the tests move it."""
    return env_path(BUNDLED_HOME) or REPO_ROOT


def env_path(name: str) -> Path | None:
    """The setting as an absolute path (~ expanded, relative to the current folder), or None when unset."""
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else None


def cache_dir(warehouse: Path, kind: str) -> Path:
    """Where a build keeps its drawn charts ("charts") or printed PDFs ("pdf"): <warehouse name>_<kind>/ beside it."""
    return warehouse.with_name(f"{warehouse.stem}_{kind}")


@dataclass(frozen=True)
class Paths:
    raw_dir: Path
    reports_dir: Path
    warehouse: Path
    dagster_home: Path
    mlperf_dir: Path | None = None
    atlas_rounds_dir: str = ""

    @classmethod
    def from_env(cls) -> "Paths":
        raw = env_path("RAW_DIR") or BUNDLED_RAW
        # the bundled data keeps the repo's layout; any other data set keeps its outputs inside it
        home = bundled_home() if raw == BUNDLED_RAW.resolve() else raw
        warehouse = env_path("WAREHOUSE") or home / "warehouse" / "pipeline.duckdb"
        rounds = os.environ.get("ATLAS_ROUNDS_DIR", "").strip()
        if rounds and "://" not in rounds:
            rounds = str(Path(rounds).expanduser().resolve())
        dagster_home = env_path("DAGSTER_HOME") or home / ".dagster_home"
        mlperf = env_path("MLPERF_DIR")
        if mlperf is None:  # what the data set's last make atlas used (read only when needed: the setting wins)
            kept = remembered(dagster_home).get("MLPERF_DIR")
            mlperf = Path(kept) if kept else None
        return cls(
            raw_dir=raw,
            reports_dir=env_path("REPORTS_DIR") or home / "reports",
            warehouse=warehouse,
            dagster_home=dagster_home,
            mlperf_dir=mlperf,
            atlas_rounds_dir=rounds or str(warehouse.parent / "atlas_rounds"),
        )

    @property
    def beside_warehouse(self) -> tuple[Path, ...]:
        """What a build keeps beside the DuckDB file: the file, its write-ahead log and spill folder, and the drawn
        charts and printed PDFs (caches, made again by the next build)."""
        w = self.warehouse
        return (w, w.with_name(w.name + ".wal"), w.with_name(w.name + ".tmp"), cache_dir(w, "charts"),
                cache_dir(w, "pdf"))

    def outputs(self) -> tuple[Path, ...]:
        """Every file or folder the pipeline writes, wherever the settings put them (inside the data set, beside it,
        or around it): never an input, and nothing else is an output."""
        rounds = () if "://" in self.atlas_rounds_dir else (Path(self.atlas_rounds_dir),)
        return (self.reports_dir, self.dagster_home, *self.beside_warehouse, *rounds)

    def as_env(self) -> dict[str, str]:
        """The path settings as absolute paths, for processes started from another folder."""
        env = {"RAW_DIR": str(self.raw_dir), "REPORTS_DIR": str(self.reports_dir),
               "WAREHOUSE": str(self.warehouse), "DAGSTER_HOME": str(self.dagster_home),
               "ATLAS_ROUNDS_DIR": self.atlas_rounds_dir}
        if self.mlperf_dir is not None:
            env["MLPERF_DIR"] = str(self.mlperf_dir)
        return env
