"""Every use of Dagster's internals (``dagster._...``) in the project, in one place: what Dagster offers no public
way to do. Everything else uses the public API (``import dagster as dg``).

Written against Dagster DAGSTER_VERSION; tests/test_dagster_internals.py fails loudly on any other version, so an
upgrade re-checks each use below against the new release before the pin moves:

- ``stale_or_missing``, ``stale_causes``: Dagster's stale status, what the UI shows as Stale and "Materialize
  stale" builds (``CachingStaleStatusResolver`` over an ``AssetGraphView``, its queryer's
  ``prefetch_asset_records`` reading every asset's record at once); `make report`, `make atlas` and the rounds sensor
  build from it (pipelines/freshness.py, defs/mlperf/rounds.py).
- ``DATA_VERSION_TAG``: the tag that carries an observation's data version, for observations recorded without a
  run (defs/regeneration.record_observation: the sensor and `make report` observe the raw inputs that way).
- ``check_passed_on_latest(...)``: whether an asset check's latest evaluation passed, and on the asset's latest
  materialization (``get_latest_asset_check_evaluation_record``, ``AssetCheckExecutionRecordStatus``).
- ``install_claim_wait``: the in-process executor's wait for a pool slot (``InstanceConcurrencyContext``), which
  spins a core in 1.13 (pipelines/pool_wait.py says why and what the fix does).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime, timezone

import dagster as dg
from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView, TemporalContext
from dagster._core.definitions.data_version import DATA_VERSION_TAG, CachingStaleStatusResolver, StaleStatus
from dagster._core.execution.plan.instance_concurrency_context import InstanceConcurrencyContext
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

DAGSTER_VERSION = "1.13.27"  # the release every use above was written against and checked on

__all__ = ["DAGSTER_VERSION", "DATA_VERSION_TAG", "check_passed_on_latest", "stale_or_missing", "stale_causes",
           "next_claim_wait", "claim_wait_spins", "install_claim_wait"]


# ---- stale status ----------------------------------------------------------------------------------

def _resolver(instance: dg.DagsterInstance, graph) -> CachingStaleStatusResolver:
    view = AssetGraphView(temporal_context=TemporalContext(effective_dt=datetime.now(timezone.utc), last_event_id=None),
                          instance=instance, asset_graph=graph)
    resolver = CachingStaleStatusResolver(instance, graph, view)
    # every asset's record in one query, not one query per asset as the status walks the graph (1.2 s -> 0.5 s)
    resolver.instance_queryer.prefetch_asset_records(graph.get_all_asset_keys())
    return resolver


def stale_or_missing(instance: dg.DagsterInstance, graph, keys: Iterable[dg.AssetKey],
                     partition: str | None = None) -> set[dg.AssetKey]:
    """Those of `keys` (of `partition`, for partitioned assets) that Dagster reports stale or missing, as of now:
    an input's data version or the asset's code version changed since it was built, or it never was."""
    resolver = _resolver(instance, graph)
    return {key for key in keys if resolver.get_status(key, partition) in (StaleStatus.STALE, StaleStatus.MISSING)}


def stale_causes(instance: dg.DagsterInstance, graph, key: dg.AssetKey,
                 partition: str | None = None) -> list[tuple[str, str]]:
    """Why Dagster reports the asset (partition) stale, as the UI says it: (reason, the dependency's name or "")."""
    causes = _resolver(instance, graph).get_stale_causes(key, partition)
    return [(cause.reason, cause.dependency.asset_key.to_user_string() if cause.dependency else "") for cause in causes]


# ---- asset checks ----------------------------------------------------------------------------------

def check_passed_on_latest(instance: dg.DagsterInstance, check: dg.AssetCheckKey) -> bool:
    """Whether the check's latest evaluation passed, on its asset's latest materialization (False when it failed,
    never ran, or ran on an earlier materialization than the latest)."""
    record = instance.get_latest_asset_check_evaluation_record(check)
    if record is None or record.status != AssetCheckExecutionRecordStatus.SUCCEEDED:
        return False
    target = record.evaluation.target_materialization_data if record.evaluation else None
    latest = instance.fetch_materializations(check.asset_key, limit=1).records
    return not (latest and target is not None and target.storage_id != latest[0].storage_id)


# ---- the wait for a pool slot ----------------------------------------------------------------------

def next_claim_wait(context: InstanceConcurrencyContext) -> float:
    """Seconds until the first waiting step may claim its slot again (0: now)."""
    if not context._pending_claims:
        return 0.0
    now = time.time()
    return max(0.0, min((ready_at - now for ready_at in context._pending_timeouts.values()), default=0.0))


def waiting_context(timeouts: dict[str, float]) -> InstanceConcurrencyContext:
    """A context whose steps wait for their slots until the given times (for claim_wait_spins and the tests)."""
    context = object.__new__(InstanceConcurrencyContext)
    context._pending_claims, context._pending_timeouts = set(timeouts), dict(timeouts)
    return context


def claim_wait_spins(method=None) -> bool:
    """Whether `method` (Dagster's, by default) answers 0 for a step whose next claim is a minute away."""
    probe = waiting_context({"step": time.time() + 60})
    return (method or InstanceConcurrencyContext.interval_to_next_pending_claim_check)(probe) <= 0


def install_claim_wait() -> None:
    """Dagster's wait replaced by next_claim_wait, only where Dagster's spins."""
    if claim_wait_spins():
        InstanceConcurrencyContext.interval_to_next_pending_claim_check = next_claim_wait
