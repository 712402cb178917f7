"""Where the pipeline reads and writes, from environment variables with defaults in the repo.

RAW_DIR (default raw/), REPORTS_DIR (default reports/), WAREHOUSE (default warehouse/pipeline.duckdb).
A user points RAW_DIR at another folder and gets a report of that data without touching code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SQL_DIR = REPO_ROOT / "sql"
TEMPLATES_DIR = REPO_ROOT / "templates"


@dataclass(frozen=True)
class Paths:
    raw_dir: Path
    reports_dir: Path
    warehouse: Path

    @classmethod
    def from_env(cls) -> "Paths":
        def env_path(name: str, default: Path) -> Path:
            value = os.environ.get(name, "").strip()
            return Path(value).expanduser().resolve() if value else default

        return cls(
            raw_dir=env_path("RAW_DIR", REPO_ROOT / "raw"),
            reports_dir=env_path("REPORTS_DIR", REPO_ROOT / "reports"),
            warehouse=env_path("WAREHOUSE", REPO_ROOT / "warehouse" / "pipeline.duckdb"),
        )
