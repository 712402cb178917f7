"""The atlas's scoring, partitioned by MLPerf round: one partition per training_results_vX.Y folder
of MLPERF_DIR, each written as Parquet (one file per round and table) by the RoundStore IO manager.

Why partitions, and how they run in parallel. Scoring a round reads its logs (v1.0: 1,289 logs;
the whole corpus: 20,771 logs, 5 GB), so a round is scored again only when its files changed
(ingest/corpus_rounds.py: git tree ids of a clone, else sizes and modification times): each folder
is observed as its partition of mlperf_corpus, and Dagster's stale status of the round's tables
decides. A price or catalog change never scores a round: the marts re-price the stored scores. Dagster runs one partition per run (a backfill launches
one run per partition; the sensor below requests one run per changed round): a run's executor
parallelizes the steps of that run, and a partition is not a step. So rounds run side by side
as runs: here each round run scores its folder on both cores (score_corpus's worker processes),
one run at a time (dagster.yaml: DuckDB has one writer, and the writing runs must not interleave);
on Kubernetes the K8sRunLauncher starts each round run in its own pod, many at once (README,
"The MLPerf atlas"). Round runs never touch the DuckDB file: they write Parquet where any process
or machine can (ATLAS_ROUNDS_DIR, local or s3://), and the atlas marts read it with DuckDB.
"""


import json
import warnings
from pathlib import Path

import dagster as dg

from pipelines.dagster_internals import stale_or_missing
from pipelines.defs.metadata import input_errors_as_failures
from pipelines.defs.regeneration import record_observation
from pipelines.defs.resources import ROUND_STORE, PipelineSettings, RoundStore
from pipelines.fingerprint import text_sha256
from pipelines.ingest.corpus_rounds import corpus_rounds, round_fingerprint
from pipelines.ingest.mlperf.corpus import SYSTEMS_SCHEMA, score_corpus
from pipelines.ingest.mlperf.tree import RUNS_SCHEMA, SCORES_SCHEMA, SCORING_REVISION

MLPERF_ROUNDS = dg.DynamicPartitionsDefinition(name="mlperf_rounds")
CORPUS = "mlperf_corpus"  # the observable source asset standing for MLPERF_DIR
ROUND_TABLES = {  # asset -> what one round's Parquet file holds
    "atlas_round_scores": "Every benchmark entry of one round, scored by the round's rules (null time: see reason).",
    "atlas_round_runs": "Every result file of one round: minutes, scored or dropped, and why.",
    "atlas_round_systems": "Every systems JSON of one round, as submitted (the catalog is applied in atlas_systems).",
}
ROUND_KEYS = [dg.AssetKey(name) for name in ROUND_TABLES]
NOT_SET = "MLPERF_DIR is not set: the atlas needs the folder holding the training_results_vX.Y trees " \
          "(make atlas MLPERF_DIR=<folder>, python -m pipelines.cli atlas --mlperf-dir <folder>, " \
          "or set it for `make ui`)"
# The stored tables' columns and the scoring's revision: a round stored before a column was added
# (say the measured energy), or scored by rules since corrected, is stale and scored again, like a
# round whose files changed. Not a fingerprint.code_version of the scoring code: scoring the whole
# corpus takes minutes, so an edit that scores the same (a comment, a faster parser) must not rescore;
# SCORING_REVISION is raised by hand when scores change. Its value is in every stored round's data
# version: the same bytes as before the hashing had one home.
TABLES_VERSION = text_sha256(json.dumps([SCORING_REVISION] + [
    list(schema) for schema in (SCORES_SCHEMA, RUNS_SCHEMA, SYSTEMS_SCHEMA)]))[:12]


def scored_version(round_dir: Path) -> str:
    """The data version of a round's stored tables: its files' fingerprint and the tables' columns."""
    return f"{round_fingerprint(round_dir)}+{TABLES_VERSION}"


def mlperf_dir_or_fail(settings: PipelineSettings):
    """MLPERF_DIR, or a one-line dg.Failure saying it is not set."""
    if settings.mlperf is None:
        raise dg.Failure(description=NOT_SET, allow_retries=False)
    return settings.mlperf


def _observe_corpus(settings: PipelineSettings) -> dg.DataVersionsByPartition:
    """Each round folder's fingerprint, as the data version of its partition (none without MLPERF_DIR)."""
    if settings.mlperf is None:
        return dg.DataVersionsByPartition({})
    return dg.DataVersionsByPartition({key: round_fingerprint(path) for key, path in corpus_rounds(settings.mlperf).items()})


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)  # observable source assets are beta (as defs/raw.py's)
    mlperf_corpus = dg.observable_source_asset(
        name=CORPUS, group_name="raw", tags={"dagster/kind/file": ""}, partitions_def=MLPERF_ROUNDS,
        description="The MLPerf Training corpus in MLPERF_DIR: one training_results_vX.Y folder per round, each a "
                    "partition observed by its fingerprint (git tree ids, else sizes and modification times).",
    )(_observe_corpus)


@dg.multi_asset(
    outs={name: dg.AssetOut(group_name="atlas", io_manager_key=ROUND_STORE, kinds={"parquet", "polars"},
                            description=text, code_version=TABLES_VERSION)  # not the modules': see TABLES_VERSION
          for name, text in ROUND_TABLES.items()},
    partitions_def=MLPERF_ROUNDS,
    deps=[CORPUS],
    description="Scores one MLPerf round folder of MLPERF_DIR (official rules, layout quirks handled) into "
                "one Parquet file per table; never reads the warehouse.",
)
@input_errors_as_failures
def atlas_round(context: dg.AssetExecutionContext, settings: PipelineSettings):
    mlperf = mlperf_dir_or_fail(settings)
    key = context.partition_key
    rounds = corpus_rounds(mlperf)
    if key not in rounds:
        raise dg.Failure(description=f"{mlperf}: no folder training_results_{key} (the round was removed?)",
                         allow_retries=False)
    fingerprint = scored_version(rounds[key])  # before reading: a change meanwhile rescores next time
    scores, runs, systems = score_corpus(rounds[key], keep_runs=True)
    context.log.info(f"round {key}: {scores.height} entries, {runs.height} result files ({fingerprint})")
    version = dg.DataVersion(fingerprint)
    meta = {"round_folder": dg.MetadataValue.path(str(rounds[key])), "fingerprint": fingerprint}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)  # Output(data_version=...) is beta, and what fits
        outputs = [dg.Output(frame, name, data_version=version, metadata=meta)
                   for name, frame in zip(ROUND_TABLES, (scores, runs, systems))]
    yield from outputs


# ---- which rounds need scoring -------------------------------------------------------------------

def observe_rounds(instance: dg.DagsterInstance, prints: dict[str, str]) -> None:
    """Record each round's fingerprint as an observation of its corpus partition (no run), when it is new."""
    for key, fingerprint in prints.items():
        record_observation(instance, dg.AssetKey(CORPUS), fingerprint, partition=key)


def stored(settings: PipelineSettings, key: str) -> bool:
    """Every round table's file is there (a local store; an object store is trusted)."""
    if "://" in settings.atlas_rounds_dir:
        return True
    return all(Path(settings.round_file(asset.path[-1], key)).is_file() for asset in ROUND_KEYS)


def rounds_to_score(instance: dg.DagsterInstance, settings: PipelineSettings) -> tuple[dict[str, str], list[str]]:
    """(fingerprint of every round of MLPERF_DIR, the rounds to score). Each round folder is observed as its
    corpus partition; a round is scored when Dagster reports a table of it stale (its folder's fingerprint or the
    scoring's code version TABLES_VERSION changed since it was scored) or missing (a new round), or when its stored
    file is gone (which Dagster cannot see)."""
    rounds = corpus_rounds(mlperf_dir_or_fail(settings))
    prints = {key: round_fingerprint(path) for key, path in rounds.items()}
    observe_rounds(instance, prints)
    known = set(instance.get_dynamic_partitions(MLPERF_ROUNDS.name))
    graph = rounds_graph(settings)
    stale = [key for key in prints
             if key not in known or not stored(settings, key) or stale_or_missing(instance, graph, ROUND_KEYS, key)]
    return prints, stale


def rounds_graph(settings: PipelineSettings):
    """The rounds' part of the asset graph: the corpus and the round tables (all a round's stale status reads), with
    the resources they need."""
    return dg.Definitions(assets=[atlas_round, mlperf_corpus], resources={
        "settings": settings, ROUND_STORE: RoundStore(base_dir=settings.atlas_rounds_dir)}).resolve_asset_graph()

