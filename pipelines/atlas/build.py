"""Render the atlas: HTML from templates/atlas.html.j2 and the data exports under data/.

The atlas is built by Dagster assets (pipelines/defs/atlas_*.py, group `atlas`, job `atlas_job`):
rounds scored into Parquet, marts in the warehouse (atlas_* tables), then these two functions
write the run's build folder, which is published atomically like the report.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipelines.config import TEMPLATES_DIR
from pipelines.publish.exports import write_table
from pipelines.publish.render import environment

TEMPLATE = "atlas.html.j2"
SCORE_COLUMNS = ["round", "submitter", "system", "benchmark", "runs", "dropped_runs", "time_to_train_minutes"]


def render(context: dict, templates: Path = TEMPLATES_DIR) -> str:
    css = (templates / "report.css").read_text(encoding="utf-8")
    if "</" in css:
        raise ValueError(f"{templates / 'report.css'} contains '</', which would end the inline <style>")
    return environment(templates).get_template(TEMPLATE).render(css=css, **context)


def write_data(folder: Path, tables: dict[str, pl.DataFrame]) -> list[Path]:
    scores = tables["atlas_scores"]
    written = write_table(folder, "mlperf_scores", scores.select(SCORE_COLUMNS + [c for c in scores.columns if c not in SCORE_COLUMNS]))
    written += write_table(folder, "atlas", tables["atlas_costs"])
    written += write_table(folder, "atlas_not_priced", tables["atlas_unpriced"])
    written += write_table(folder, "atlas_trend", tables["atlas_trend"])
    written += write_table(folder, "mlperf_runs", tables["atlas_runs"])
    written += write_table(folder, "atlas_systems", tables["atlas_systems"])
    written += write_table(folder, "atlas_prices", tables["atlas_prices"])
    return written
