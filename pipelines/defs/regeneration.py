"""What a change means in the asset graph, and what Dagster says is stale.

What is stale is Dagster's to say: its stale status (the UI's Stale; pipelines/dagster_internals.stale_or_missing)
once the changed inputs are observed (``record_observation``): `make report`, `make atlas` (pipelines/freshness.py)
and the rounds (defs/mlperf/rounds.py) build from it, and the daemon's automation (defs/automation.py) from the same
observations. ``regeneration`` is one run of some assets and everything downstream, for what Dagster's status cannot
see: mlperf_rounds_sensor's run when a round is removed
(nothing is materialized, so nothing is stale) and the benchmark's price run. ``IN_FLIGHT``: the run statuses of a
queued or running run. This module imports no subject (prices, mlperf, report, atlas), so a subject's sensor can use
it without an import loop through the wiring that imports the subjects.
"""

from __future__ import annotations

from collections.abc import Iterable

import dagster as dg

from pipelines.dagster_internals import DATA_VERSION_TAG

FETCH_ASSET = dg.AssetKey("fetched_price_files")
ATLAS_GROUP = "atlas"
IN_FLIGHT = [
    dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED,
]


def staging_readers(graph, raw_names: Iterable[str]) -> set[dg.AssetKey]:
    """The materializable assets that read these raw inputs directly."""
    keys = {dg.AssetKey(name) for name in raw_names}
    return {
        child
        for key in keys if graph.has(key)
        for child in graph.get(key).child_keys
        if graph.get(child).is_materializable
    }


def regeneration(graph, roots: set[dg.AssetKey], atlas: bool = False) -> tuple[list[dg.AssetKey], list[dg.AssetCheckKey]]:
    """Assets and checks of one run that rebuilds `roots` and everything downstream of them.

    The run also observes the raw inputs of the assets it materializes (their data version is then
    recorded on each materialization) and runs every check that reads one of its assets, so a
    check on an asset outside the run still blocks when the run changed what it looks at.
    The atlas (group atlas) comes along only when `atlas` says it is on and its rounds are scored;
    its round partitions never do (a price or catalog change re-prices the stored rounds; rounds
    are scored by mlperf_rounds_sensor, one run per round).
    """
    materialized = {
        key for key in dg.AssetSelection.assets(*roots).downstream().resolve(graph)
        if graph.get(key).is_materializable and key != FETCH_ASSET and graph.get(key).partitions_def is None
        and (atlas or graph.get(key).group_name != ATLAS_GROUP)
    }
    observed = {
        parent for key in materialized for parent in graph.get(key).parent_keys
        if graph.get(parent).is_observable and not graph.get(parent).is_materializable
    }
    checks = {
        check for check in graph.asset_check_keys
        if check.asset_key in materialized or graph.get(check).parent_entity_keys & materialized
    }
    return sorted(materialized | observed, key=str), sorted(checks, key=str)


def record_observation(instance: dg.DagsterInstance, key: dg.AssetKey, version: str, metadata: dict | None = None,
                       partition: str | None = None) -> bool:
    """Record an observation of a source asset (or one partition of it) without a run, when its data version differs
    from the last one recorded; whether it did. What `make report`, `make atlas` and the rounds sensor observe."""
    if last_observation(instance, key, partition)[0] == version:
        return False
    instance.report_runless_asset_event(dg.AssetObservation(asset_key=key, partition=partition, metadata=metadata or {},
                                                            tags={DATA_VERSION_TAG: version}))
    return True


def last_observation(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str | None = None) -> tuple[str | None, dict]:
    """The data version and metadata of the latest observation of a source asset (or one partition of it);
    (None, {}) when it was never observed."""
    found = instance.fetch_observations(dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition])
                                        if partition else key, limit=1).records
    observation = found[0].asset_observation if found else None
    if observation is None:
        return None, {}
    return observation.data_version, {name: value.value for name, value in observation.metadata.items()}
