"""Resources: where the pipeline reads and writes, the DuckDB warehouse, and the round store."""


import io
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import dagster as dg
import duckdb
import polars as pl

from pipelines.config import Paths, cache_dir
from pipelines.defs.metadata import frame_metadata
from pipelines.publish.store import write_atomic
from pipelines.warehouse import connect

ROUND_STORE = "atlas_round_store"  # io_manager_key of the atlas's per-round results


class PipelineSettings(dg.ConfigurableResource):
    """RAW_DIR, REPORTS_DIR, WAREHOUSE and MLPERF_DIR, read from the environment when the code loads."""

    raw_dir: str
    reports_dir: str
    warehouse: str
    mlperf_dir: str = ""  # empty: the atlas is off
    atlas_rounds_dir: str = ""  # where RoundStore keeps the scored rounds (the marts read them there)

    @classmethod
    def from_env(cls) -> "PipelineSettings":
        paths = Paths.from_env()
        return cls(raw_dir=str(paths.raw_dir), reports_dir=str(paths.reports_dir), warehouse=str(paths.warehouse),
                   mlperf_dir=str(paths.mlperf_dir or ""), atlas_rounds_dir=paths.atlas_rounds_dir)

    @property
    def raw(self) -> Path:
        return Path(self.raw_dir)

    @property
    def reports(self) -> Path:
        return Path(self.reports_dir)

    @property
    def mlperf(self) -> Path | None:
        return Path(self.mlperf_dir) if self.mlperf_dir else None

    def chart_cache(self, document: str) -> Path:
        """A document's drawn charts (publish/chart_cache.py), beside the warehouse: <warehouse name>_charts/<document>/
        (the report's and the atlas's apart: each build keeps only the charts it used)."""
        return cache_dir(Path(self.warehouse), "charts") / document

    def pdf_cache(self, document: str) -> Path:
        """A document's printed PDFs (publish/pdf_parts.py), beside the warehouse: <warehouse name>_pdf/<document>/."""
        return cache_dir(Path(self.warehouse), "pdf") / document

    def round_file(self, asset: str, round_key: str) -> str:
        """Where RoundStore keeps one round of one asset: <atlas_rounds_dir>/<asset>/<round>.parquet."""
        return f"{self.atlas_rounds_dir.rstrip('/')}/{asset}/{round_key}.parquet"

    @contextmanager
    def connect(self, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        with connect(Path(self.warehouse), read_only=read_only) as conn:
            yield conn


class RoundStore(dg.ConfigurableIOManagerFactory):
    """One Parquet file per round partition: <base_dir>/<asset>/<round>.parquet, in a folder or under an
    fsspec URL (s3://...), through Dagster's UPathIOManager.

    A local file is written whole (store.write_atomic, as the charts and PDFs kept per content), so a
    killed run leaves the previous round's file whole (object stores such as S3 replace an object at once).
    Not a content-addressed cache like those: Dagster keeps a round per partition and decides from its
    data version (defs/mlperf/rounds.scored_version) when it is stale.
    Several processes or machines may write different rounds at the same time; the atlas marts
    read the files with DuckDB (read_parquet), so no two processes ever write one DuckDB file.
    Written with polars itself: dagster-polars' IO manager imports pyarrow.dataset and pandas, 51 MiB
    of every process that loads the definitions, for nothing the atlas uses.
    """

    base_dir: str

    def create_io_manager(self, context) -> "RoundFiles":
        from upath import UPath

        return RoundFiles(UPath(self.base_dir))


class RoundFiles(dg.UPathIOManager):
    extension = ".parquet"

    def dump_to_path(self, context: dg.OutputContext, obj: pl.DataFrame, path) -> None:
        if getattr(path, "protocol", "") not in ("", "file", "local"):
            with path.open("wb") as handle:
                obj.write_parquet(handle)
            return
        parquet = io.BytesIO()  # one round's tables: a few MB at most
        obj.write_parquet(parquet)
        write_atomic(Path(str(path)), parquet.getbuffer())

    def load_from_path(self, context: dg.InputContext, path) -> pl.DataFrame:
        with path.open("rb") as handle:
            return pl.read_parquet(handle)

    def get_metadata(self, context: dg.OutputContext, obj: pl.DataFrame) -> dict:
        return frame_metadata(context.asset_key.path[-1], obj)


@dg.definitions
def resources() -> dg.Definitions:
    settings = PipelineSettings.from_env()
    # In process: one DuckDB writer, and no 1.5 s process start per step. Rounds run in parallel
    # as separate runs (one per partition), never as steps of one run: see defs/mlperf/rounds.py.
    return dg.Definitions(
        resources={"settings": settings, ROUND_STORE: RoundStore(base_dir=settings.atlas_rounds_dir)},
        executor=dg.in_process_executor,
    )
