"""Two `python -m pipelines.cli report` started at the same moment on the same warehouse, reports
folder and Dagster instance: both succeed without a lock error, the duckdb_writer pool limit of 1
from dagster.yaml makes the writers of one wait for the other's, and the published report is whole.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from types import SimpleNamespace

import dagster as dg
import polars as pl
import pytest

from pipelines.config import INSTANCE_YAML
from tests.pipeline_runner import REPO
from tests.small_raw import PRICE_DATE, write_small_raw

pytestmark = pytest.mark.slow


def pool_intervals(instance: dg.DagsterInstance, run_id: str, pool_steps: set[str]) -> list[tuple[float, float, str]]:
    starts, spans = {}, []
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None or entry.step_key not in pool_steps:
            continue
        if event.event_type_value == "STEP_START":
            starts[entry.step_key] = entry.timestamp
        elif event.event_type_value in ("STEP_SUCCESS", "STEP_FAILURE"):
            spans.append((starts[entry.step_key], entry.timestamp, entry.step_key))
    return spans


def test_two_reports_at_once_both_succeed(tmp_path):
    # the tests' small data set (the same job as the bundled data's, in seconds); DAGSTER_HOME is empty (both
    # processes install dagster.yaml at once) and there is no warehouse yet
    raw = write_small_raw(tmp_path / "data")
    dirs = SimpleNamespace(raw=raw, reports=tmp_path / "reports", warehouse=tmp_path / "warehouse" / "pipeline.duckdb",
                           dagster_home=tmp_path / "dagster_home")
    env = {**os.environ, "RAW_DIR": str(dirs.raw), "REPORTS_DIR": str(dirs.reports),
           "WAREHOUSE": str(dirs.warehouse), "DAGSTER_HOME": str(dirs.dagster_home),
           "SOURCE_DATE_EPOCH": "1764374400"}
    # --force: each builds every step, whenever it starts (without it, a run starting once the other's first steps
    # are done builds only what Dagster then reports stale, and the step counts below would depend on timing)
    procs = [subprocess.Popen([sys.executable, "-m", "pipelines.cli", "report", "--force"], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=900) for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode == 0, f"stdout:\n{out}\nstderr:\n{err[-4000:]}"
        assert "lock" not in err.lower()
        assert f"report: {dirs.reports / PRICE_DATE / 'report.html'}" in out

    # the published report is whole: one stored copy, complete, linked from the date and latest
    dated = dirs.reports / PRICE_DATE
    assert dated.is_symlink() and (dirs.reports / "latest").resolve() == dated.resolve()
    stored = sorted((dirs.reports / ".store").iterdir())
    assert [p.resolve() for p in stored] == [dated.resolve()]
    for name in ("report.html", "report.pdf", "data/cost_to_train.csv", "data/price_history.csv"):
        assert (dated / name).is_file() and (dated / name).stat().st_size > 0, name
    assert (dated / "report.pdf").read_bytes().startswith(b"%PDF-")
    assert not list((dirs.reports / ".build").iterdir())  # both builds were moved or cleaned away
    # figures by hand (tests/small_raw.py): big.8x, ResNet (System A, 30.0 min) at 24.00 USD/h = 12.00 USD
    cost = pl.read_csv(dated / "data" / "cost_to_train.csv")
    big = cost.filter((pl.col("comparison") == "one") & (pl.col("benchmark") == "resnet")
                      & (pl.col("instance_type") == "big.8x") & (pl.col("pricing_option") == "on_demand"))
    assert big["cost_to_train_usd"].to_list() == [pytest.approx(12.0)]
    assert cost.height == pl.read_parquet(dated / "data" / "cost_to_train.parquet").height

    # the instance both runs used had the project's limits, and the pool limit held across them
    assert (dirs.dagster_home / "dagster.yaml").read_text() == INSTANCE_YAML.read_text()
    old = os.environ.get("DAGSTER_HOME")
    os.environ["DAGSTER_HOME"] = str(dirs.dagster_home)
    try:
        with warnings.catch_warnings(), dg.DagsterInstance.get() as instance:
            warnings.simplefilter("ignore")
            runs = instance.get_run_records()
            assert len(runs) == 2 and all(r.dagster_run.status == dg.DagsterRunStatus.SUCCESS for r in runs)
            limits = {p.name: p.limit for p in instance.event_log_storage.get_pool_limits()}
            assert limits.get("duckdb_writer") == 1
            from pipelines.definitions import defs

            job = defs().resolve_job_def("report_job")
            pool_steps = {node.name for node in job.graph.node_defs if getattr(node, "pool", None) == "duckdb_writer"}
            assert {"stg_prices", "cost_to_train", "input_files"} <= pool_steps
            first, second = (pool_intervals(instance, r.dagster_run.run_id, pool_steps) for r in runs)
            assert len(first) == len(second) == len(pool_steps)
            # The limit is applied across the two processes: writer steps of one run waited for the
            # other's slot. (Dagster's SQLite storage claims slots with a select-then-update, so two
            # claims in the same instant can both win; the DuckDB lock wait in warehouse.connect()
            # covers that case, which is why neither run may fail on the lock.)
            blocked = [e for r in runs for e in instance.all_logs(r.dagster_run.run_id)
                       if e.dagster_event is not None and e.dagster_event.event_type_value == "ENGINE_EVENT"
                       and "blocked by limit for pool duckdb_writer" in (e.dagster_event.message or "")]
            assert blocked, "no writer step ever waited for the duckdb_writer pool"
            overlap = sum(max(0.0, min(a[1], b[1]) - max(a[0], b[0])) for a in first for b in second)
            pooled = sum(end - start for start, end, _ in first + second)
            assert overlap < pooled / 2, (overlap, pooled)  # serialized, not two runs side by side
    finally:
        if old is None:
            os.environ.pop("DAGSTER_HOME", None)
        else:
            os.environ["DAGSTER_HOME"] = old
