"""The atlas's round store (defs/resources.RoundStore): one Parquet file per round partition, written
atomically, read back by a downstream asset, described in the UI. Real Dagster runs on an ephemeral
instance, real files."""

from __future__ import annotations

import dagster as dg
import polars as pl

from pipelines.defs.resources import ROUND_STORE, RoundStore
from pipelines.publish import store

ROUNDS = dg.StaticPartitionsDefinition(["v4.1", "v5.0"])
FRAME = pl.DataFrame({"round": ["v5.0", "v5.0"], "benchmark": ["bert", "llama2_70b_lora"],
                      "minutes": [10.25, 28.0]})


def _assets(frame):
    @dg.asset(name="atlas_round_scores", partitions_def=ROUNDS, io_manager_key=ROUND_STORE)
    def scores():
        return frame

    @dg.asset(partitions_def=ROUNDS, io_manager_key="io_manager", ins={"atlas_round_scores": dg.AssetIn()})
    def rows(atlas_round_scores: pl.DataFrame) -> int:
        return atlas_round_scores.height

    return [scores, rows]


def _run(tmp_path, frame, selection=None):
    return dg.materialize(_assets(frame), partition_key="v5.0", selection=selection, raise_on_error=False,
                          resources={ROUND_STORE: RoundStore(base_dir=str(tmp_path / "rounds"))})


def test_a_round_is_one_parquet_file_read_back_and_described(tmp_path):
    result = _run(tmp_path, FRAME)
    assert result.success
    path = tmp_path / "rounds" / "atlas_round_scores" / "v5.0.parquet"
    assert pl.read_parquet(path).equals(FRAME)
    assert result.output_for_node("rows") == 2  # loaded through the store by the downstream asset
    meta = result.asset_materializations_for_node("atlas_round_scores")[0].metadata
    assert meta["dagster/row_count"].value == 2
    columns = meta["dagster/column_schema"].schema.columns
    assert [(c.name, c.type) for c in columns] == [("round", "String"), ("benchmark", "String"),
                                                   ("minutes", "Float64")]
    assert "llama2_70b_lora" in meta["preview"].value
    assert sorted(p.name for p in path.parent.iterdir()) == ["v5.0.parquet"]


def test_a_write_that_dies_halfway_keeps_the_stored_round_whole(tmp_path, monkeypatch):
    assert _run(tmp_path, FRAME).success
    path = tmp_path / "rounds" / "atlas_round_scores" / "v5.0.parquet"
    before = path.read_bytes()
    halves = []

    def dies_halfway(point):  # called with the first half of the new file on disk: a killed run goes no further
        halves.append(point)
        raise OSError("killed")

    monkeypatch.setattr(store, "kill_point", dies_halfway)
    assert not _run(tmp_path, FRAME.with_columns(minutes=pl.col("minutes") * 2), selection=["atlas_round_scores"]).success
    assert halves == ["write:v5.0.parquet"]
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["v5.0.parquet"]  # no temporary file left
