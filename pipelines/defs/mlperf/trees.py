"""MLPerf result trees (RAW_DIR/mlperf/ and report.toml's mlperf_trees) scored by the official rules."""

from pathlib import Path

import dagster as dg
import polars as pl

from pipelines.defs.metadata import POOL, input_errors_as_failures, table_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.ingest.mlperf.tree import RUNS_ORDER, RUNS_SCHEMA, SCORES_ORDER, SCORES_SCHEMA, score_trees, stored
from pipelines.ingest.report_config import mlperf_tree_roots
from pipelines.warehouse import write_frame


def _shown(root: Path, raw: Path) -> str:
    return str(root.relative_to(raw)) if root.is_relative_to(raw) else str(root)


@dg.multi_asset(
    group_name="staging",
    pool=POOL,
    specs=[
        dg.AssetSpec("stg_mlperf_runs", kinds={"duckdb", "polars"}, deps=["raw_mlperf", "raw_report_config"],
                     description="Every MLPerf result file in the trees: minutes, status, and why a run was dropped."),
        dg.AssetSpec("stg_mlperf_scores", kinds={"duckdb", "polars"}, deps=["raw_mlperf", "raw_report_config"],
                     description="MLPerf scores from the trees, by the official rules of each round: olympic mean of "
                                 "the required runs, at most one failed run (four for unet3d), scaling.json applied."),
    ],
)
@input_errors_as_failures
def stg_mlperf(settings: PipelineSettings):
    runs_parts, score_parts = [], []
    for root in mlperf_tree_roots(settings.raw):
        runs, scores = score_trees([root])
        shown = _shown(root, settings.raw)
        # run_file is relative to the tree's parent folder; show it as the tree is shown
        parent = str(Path(shown).parent)
        prefix = "" if parent == "." else parent + "/"
        runs_parts.append(runs.with_columns((pl.lit(prefix) + pl.col("run_file")).alias("run_file")))
        score_parts.append(scores.with_columns(tree=pl.lit(shown)))
    runs = pl.concat(runs_parts) if runs_parts else pl.DataFrame(schema=RUNS_SCHEMA)
    scores = pl.concat(score_parts) if score_parts else pl.DataFrame(schema=SCORES_SCHEMA | {"tree": pl.Utf8})
    with settings.connect() as conn:
        write_frame(conn, "stg_mlperf_runs", stored(runs, RUNS_SCHEMA, RUNS_ORDER))
        write_frame(conn, "stg_mlperf_scores", stored(scores, SCORES_SCHEMA, SCORES_ORDER, "tree"))
        yield dg.MaterializeResult(asset_key="stg_mlperf_runs", metadata=table_metadata(conn, "stg_mlperf_runs"))
        yield dg.MaterializeResult(asset_key="stg_mlperf_scores", metadata=table_metadata(conn, "stg_mlperf_scores", preview=True))
