"""The atlas's automation, driven tick by tick on the real definitions and a real (ephemeral)
Dagster instance: mlperf_rounds_sensor turns new round folders into partitions and scores a round
once per change of its files; automation carries a price change to the atlas only when it is on."""

from __future__ import annotations

import os
import warnings

import dagster as dg
import pytest

from pipelines.defs.mlperf.sensor import evaluate_rounds
from pipelines.defs.mlperf.rounds import MLPERF_ROUNDS, NOT_SET, ROUND_KEYS
from pipelines.defs.resources import PipelineSettings
from tests.atlas_fixtures import resnet_logs, system, write_logs
from tests.pipeline_runner import make_dirs, pipeline_env

QUIET = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


@pytest.fixture
def corpus(tmp_path):
    v10 = tmp_path / "mlperf" / "training_results_v1.0"
    system(v10, "Acme", "acme_a100")
    write_logs(v10 / "Acme/results/acme_a100/resnet", resnet_logs())
    return tmp_path / "mlperf"


def _defs():
    from pipelines.definitions import defs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return defs()


def _tick(instance, settings):
    return evaluate_rounds(dg.build_sensor_context(instance=instance), settings)


def test_new_round_becomes_a_partition_and_is_scored_once_per_change(tmp_path, corpus):
    dirs = make_dirs(tmp_path / "run")
    with pipeline_env(dirs, MLPERF_DIR=str(corpus)), dg.DagsterInstance.ephemeral() as instance:
        settings = PipelineSettings.from_env()
        first = _tick(instance, settings)
        (added,) = first.dynamic_partitions_requests
        assert added.partition_keys == ["v1.0"]
        (request,) = first.run_requests
        assert request.partition_key == "v1.0" and set(request.asset_selection) == set(ROUND_KEYS)
        assert "pipelines/warehouse" not in request.tags  # round runs write Parquet only: many may run at once

        instance.add_dynamic_partitions(MLPERF_ROUNDS.name, ["v1.0"])
        job = _defs().resolve_job_def("atlas_job")
        assert job.execute_in_process(instance=instance, partition_key="v1.0", asset_selection=ROUND_KEYS,
                                      run_config=QUIET).success
        assert (tmp_path / "run" / "warehouse" / "atlas_rounds" / "atlas_round_scores" / "v1.0.parquet").is_file()
        second = _tick(instance, settings)
        assert not second.run_requests and "all scored as they are" in second.skip_reason.skip_message

        # a log rewritten (new size and time): that round, once, under a new run key
        log = corpus / "training_results_v1.0/Acme/results/acme_a100/resnet/result_0.txt"
        log.write_text(log.read_text() + "\n")
        os.utime(log, ns=(1, 1))
        (again,) = _tick(instance, settings).run_requests
        assert again.partition_key == "v1.0" and again.run_key != request.run_key
        # the decision is Dagster's stale status of the round's partition, which the UI shows with its cause
        from pipelines.dagster_internals import stale_causes
        from pipelines.defs.mlperf.rounds import rounds_graph

        assert stale_causes(instance, rounds_graph(settings), ROUND_KEYS[0], "v1.0") == [
            ("has a new dependency data version", "mlperf_corpus")]


def test_a_round_whose_stored_file_is_gone_is_scored_again(tmp_path, corpus):
    """Dagster's history says the round is scored; its Parquet file says otherwise: scored again."""
    dirs = make_dirs(tmp_path / "run")
    with pipeline_env(dirs, MLPERF_DIR=str(corpus)), dg.DagsterInstance.ephemeral() as instance:
        settings = PipelineSettings.from_env()
        _tick(instance, settings)
        instance.add_dynamic_partitions(MLPERF_ROUNDS.name, ["v1.0"])
        assert _defs().resolve_job_def("atlas_job").execute_in_process(
            instance=instance, partition_key="v1.0", asset_selection=ROUND_KEYS, run_config=QUIET).success
        assert not _tick(instance, settings).run_requests
        (tmp_path / "run" / "warehouse" / "atlas_rounds" / "atlas_round_runs" / "v1.0.parquet").unlink()
        (request,) = _tick(instance, settings).run_requests
        assert request.partition_key == "v1.0"


def test_without_mlperf_dir_the_sensor_only_says_so(tmp_path):
    dirs = make_dirs(tmp_path / "run")
    with pipeline_env(dirs), dg.DagsterInstance.ephemeral() as instance:
        os.environ.pop("MLPERF_DIR", None)
        result = _tick(instance, PipelineSettings.from_env())
    assert result.skip_reason.skip_message == NOT_SET and not result.run_requests


def test_a_price_change_carries_the_atlas_only_when_it_is_on(tmp_path, corpus):
    """Automation rebuilds what is stale below a new price: the atlas's marts and publish too where the atlas is
    on (they carry REGENERATE), never the round partitions (re-pricing never scores a round)."""
    from pipelines.defs.metadata import REGENERATE

    def conditions(mlperf: str | None) -> dict[str, object]:
        dirs = make_dirs(tmp_path / str(bool(mlperf)))
        with pipeline_env(dirs):
            os.environ.pop("MLPERF_DIR", None)
            if mlperf:
                os.environ["MLPERF_DIR"] = mlperf
            graph = _defs().resolve_asset_graph()
        below = dg.AssetSelection.assets("stg_prices").downstream().resolve(graph)
        return {k.to_user_string(): graph.get(k).automation_condition for k in below
                if graph.get(k).group_name == "atlas"}

    on, off = conditions(str(corpus)), conditions(None)
    assert {"atlas_costs", "published_atlas"} <= set(on)
    assert all(condition == REGENERATE for condition in on.values())
    assert all(condition is None for condition in off.values())
    # the round tables read no price: a price change never reaches them
    assert not set(on) & {"atlas_round_scores", "atlas_round_runs", "atlas_round_systems"}


def test_make_atlas_takes_the_sensor_s_steps(tmp_path, corpus):
    """`make atlas` (pipelines/cli.run_atlas) repeats none of the sensor's bookkeeping: it calls round_changes, and
    records the same partition requests and runs the same round runs the sensor's tick asks the daemon for."""
    import inspect

    from pipelines import cli
    from pipelines.defs.mlperf.sensor import record_partitions, round_changes

    dirs = make_dirs(tmp_path / "run")
    with pipeline_env(dirs, MLPERF_DIR=str(corpus)), dg.DagsterInstance.ephemeral() as instance:
        settings = PipelineSettings.from_env()
        tick = _tick(instance, settings)
        changes = round_changes(instance, settings)
        assert [(r.partitions_def_name, list(r.partition_keys)) for r in changes.partition_requests()] == \
            [(r.partitions_def_name, list(r.partition_keys)) for r in tick.dynamic_partitions_requests]
        assert [(r.run_key, r.partition_key) for r in changes.round_runs()] == \
            [(r.run_key, r.partition_key) for r in tick.run_requests]
        record_partitions(instance, changes.partition_requests())
        assert instance.get_dynamic_partitions(MLPERF_ROUNDS.name) == ["v1.0"]
        assert not round_changes(instance, settings).partition_requests()
    source = inspect.getsource(cli.run_atlas)
    assert "round_changes(" in source and "record_partitions(" in source
    assert "add_dynamic_partitions" not in source and "delete_dynamic_partition" not in source
