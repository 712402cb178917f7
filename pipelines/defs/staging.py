"""What every subject's staging assets and blocking checks share: RAW_DIR paths shown relative to it, a
missing input named, a frame loaded into its table, the project's public facts when a data set has
none, and a check's result. Imports no subject (prices, mlperf, report, atlas)."""


from pathlib import Path

import dagster as dg
import polars as pl

from pipelines.config import BUNDLED_RAW
from pipelines.defs.metadata import table_metadata
from pipelines.defs.resources import PipelineSettings
from pipelines.domain.errors import InputError
from pipelines.ingest.raw_files import input_files
from pipelines.warehouse import create_table


def relative_to_raw(frame: pl.DataFrame, raw: Path, column: str = "file") -> pl.DataFrame:
    """File paths relative to RAW_DIR, so the report and exports do not leak local folders."""
    prefix = str(raw) + "/"
    return frame.with_columns(pl.col(column).str.strip_prefix(prefix))


def need_input(path: Path, what: str) -> Path:
    if not path.exists() and not path.is_symlink():  # a dangling link or a loop: the reader says which
        raise InputError(path, None, f"is missing: the pipeline needs {what}")
    return path


def load_table(context: dg.AssetExecutionContext, settings: PipelineSettings, table: str, **frames: pl.DataFrame) -> dg.MaterializeResult:
    with settings.connect() as conn:
        create_table(conn, table, **frames)
        meta = table_metadata(conn, table)
    return dg.MaterializeResult(metadata=meta)


def files_in_raw(settings: PipelineSettings, folder: str, pattern: str) -> list[Path]:
    return input_files(settings.raw / folder, pattern)


def public_facts(settings: PipelineSettings, relative: str) -> tuple[Path, str]:
    """(path, file label) of a file of public facts (the accelerator catalog, the carbon factors):
    hardware and grid facts, not a team's data, so a data set without its own uses the project's."""
    own = settings.raw / relative
    if own.exists() or own.is_symlink():
        return own, str(own)
    return BUNDLED_RAW / relative, f"{relative} (the project's: the data set has none)"


def public_facts_frame(settings: PipelineSettings, relative: str, reader) -> pl.DataFrame:
    """A file of public facts (public_facts) read by `reader`, each row labelled with its file relative to RAW_DIR."""
    path, label = public_facts(settings, relative)
    return relative_to_raw(reader(path).with_columns(file=pl.lit(label)), settings.raw)


def check_result(problems: list[str], ok: str) -> dg.AssetCheckResult:
    if problems:
        shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])
        return dg.AssetCheckResult(
            passed=False,
            description="; ".join(shown),
            metadata={"problems": dg.MetadataValue.md("\n".join(f"- {p}" for p in shown)), "count": len(problems)},
        )
    return dg.AssetCheckResult(passed=True, description=ok)
