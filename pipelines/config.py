"""Where the pipeline reads and writes, from environment variables with defaults in the repo.

RAW_DIR (default raw/), REPORTS_DIR (default reports/), WAREHOUSE (default warehouse/pipeline.duckdb),
MLPERF_DIR (no default: the atlas is off until it names a folder of training_results_vX.Y trees)
and ATLAS_ROUNDS_DIR (default: atlas_rounds/ beside the warehouse; a local folder or an fsspec URL
such as s3://bucket/atlas_rounds, where each scored round is written as Parquet).
A user points RAW_DIR at another folder and gets a report of that data without touching code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SQL_DIR = REPO_ROOT / "sql"
TEMPLATES_DIR = REPO_ROOT / "templates"


def _env_path(name: str, default: Path | None) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else default


@dataclass(frozen=True)
class Paths:
    raw_dir: Path
    reports_dir: Path
    warehouse: Path
    mlperf_dir: Path | None = None
    atlas_rounds_dir: str = ""

    @classmethod
    def from_env(cls) -> "Paths":
        warehouse = _env_path("WAREHOUSE", REPO_ROOT / "warehouse" / "pipeline.duckdb")
        rounds = os.environ.get("ATLAS_ROUNDS_DIR", "").strip()
        if rounds and "://" not in rounds:
            rounds = str(Path(rounds).expanduser().resolve())
        return cls(
            raw_dir=_env_path("RAW_DIR", REPO_ROOT / "raw"),
            reports_dir=_env_path("REPORTS_DIR", REPO_ROOT / "reports"),
            warehouse=warehouse,
            mlperf_dir=_env_path("MLPERF_DIR", None),
            atlas_rounds_dir=rounds or str(warehouse.parent / "atlas_rounds"),
        )
