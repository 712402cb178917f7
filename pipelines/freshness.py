"""What `make report` and `make atlas` build: the assets Dagster reports stale or missing, and nothing else.

1. The raw inputs, the day and the outputs (the warehouse file, the published folders: defs/outputs.py) are observed
   as raw_files_sensor observes them (defs/automation.observe_inputs): each observation is recorded in the instance
   (no run) when its data version is new, so what the UI then shows is what was decided on, and the daemon sees the
   same changes. A deleted warehouse or published folder is such a change: its generation goes up.
2. Dagster's stale status, the UI's "Stale" and "Materialize stale": an asset is stale when the data version of
   an input or its own code version (defs/versions.py) changed since it was built; missing when it was never
   built. What reads a stale asset is built in the same run (Dagster calls it stale only once the asset it reads
   has a new data version, that is after the run).
3. Two things a run started by hand builds as well, each what the UI shows on the asset:
   - an asset whose latest materialization failed (red in the UI): built again, so an error fixed by putting an
     input back as it was (the same data version as its last good build, so not stale) is cleared by the next
     run, and a bad input is refused by every run, not only the first;
   - an asset whose blocking check did not pass on its latest build (or never ran on it): built again with its
     check, which then blocks what reads it again.
   The daemon waits for a change instead (defs/metadata.py REGENERATE): retrying a failure on every tick would
   loop, and a changed input is a new observation either way.
   The documents of one publication are built together (the last one publishes the run's build folder).
Nothing to build means the published report is that of the data set, the code and the day.
"""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg

from pipelines.dagster_internals import check_passed_on_latest, stale_or_missing
from pipelines.defs.automation import observe_inputs
from pipelines.defs.outputs import ATLAS, OUTPUTS, REPORT, Publication, documents, lost, published_in_place
from pipelines.defs.regeneration import last_observation
from pipelines.defs.resources import PipelineSettings

__all__ = ["ATLAS", "REPORT", "Plan", "Publication", "failed_on_latest", "plan", "published_in_place",
           "with_what_checks_read"]


@dataclass(frozen=True)
class Plan:
    build: list[dg.AssetKey]  # sorted; empty: up to date
    why: str  # one line for the user


def failed_on_latest(instance: dg.DagsterInstance, keys) -> set[dg.AssetKey]:
    """Those of `keys` whose latest materialization attempt failed: what the UI shows as failed (red), read as the UI
    reads it from the instance's asset records. The latest run that planned the asset failed without materializing
    it (a step failed, or a step before it, or a blocking check stopped it); or, where the instance records failures
    per asset, a failure recorded after its latest materialization."""
    failed = set()
    for record in instance.get_asset_records(list(keys)):
        entry = record.asset_entry
        done = entry.last_materialization_record
        failure = entry.last_failed_to_materialize_record
        if failure is not None and (done is None or failure.storage_id > done.storage_id):
            failed.add(entry.asset_key)
            continue
        if entry.last_run_id is None or (done is not None and done.run_id == entry.last_run_id):
            continue
        run = instance.get_run_record_by_id(entry.last_run_id)
        if run is None or not run.dagster_run.is_finished or run.end_time is None:
            continue  # deleted, or still running
        if run.dagster_run.is_failure and (done is None or done.timestamp <= run.end_time):
            failed.add(entry.asset_key)
    return failed


def with_what_checks_read(graph, wanted: set[dg.AssetKey], build: set[dg.AssetKey]) -> set[dg.AssetKey]:
    """`build` and what reads it (Dagster calls an asset stale, not what reads it until it is built again: one run
    builds both), plus the asset of every check that reads one of them.

    A run executes an asset's checks with the asset only, and Dagster makes no asset stale when an input that only
    one of its checks reads (additional_deps) changed: comparisons_are_covered reads mappings.csv's table but
    belongs to stg_comparisons, so a new mappings.csv alone rebuilt stg_mappings and what reads it, never ran the
    check, and published an unknown system. Building the check's asset again runs the check in that run, where it
    blocks what reads the asset (the daemon's RECHECK requests the check in the same run for the same reason). The
    asset's own inputs did not change, so it gets the same data version and what reads it is not rebuilt for it.
    """
    closure = wanted & set(dg.AssetSelection.assets(*build).downstream().resolve(graph)) if build else set()
    return closure | {check.asset_key for check in graph.asset_check_keys
                      if check.asset_key in wanted and graph.get(check).parent_entity_keys & closure}


def _names(keys) -> str:
    return ", ".join(sorted(k.to_user_string() for k in keys)[:6]) + (", ..." if len(keys) > 6 else "")


def plan(instance: dg.DagsterInstance, graph, settings: PipelineSettings, keys: list[dg.AssetKey],
         publication: Publication = REPORT, everything: str | None = None) -> Plan:
    """What to build of `keys` (a job's assets), after observing their inputs and outputs (see the module's
    docstring); all of them when `everything` says why (--force), the inputs observed all the same."""
    wanted = {key for key in keys if graph.get(key).is_materializable}
    inputs = {parent for key in wanted for parent in graph.get(key).parent_keys if not graph.get(parent).is_materializable}
    changed = observe_inputs(instance, settings, inputs)
    if everything:
        return Plan(sorted(wanted, key=str), everything)
    build = stale_or_missing(instance, graph, wanted)
    inputs_changed = [name for name in changed if name not in OUTPUTS]
    reasons = [f"changed: {', '.join(inputs_changed)}"] if inputs_changed else []
    reasons += [lost(settings, name) for name in changed  # a first observation ("1") lost nothing
                if name in OUTPUTS and last_observation(instance, dg.AssetKey(name))[0] != "1"]
    if build and not reasons:
        reasons.append(f"stale: {_names(build)}")
    failed = failed_on_latest(instance, wanted) - build
    if failed:
        reasons.append(f"failed on its latest run: {_names(failed)}")
    blocked = {check.asset_key for check in graph.asset_check_keys
               if check.asset_key in wanted and graph.get_check_spec(check).blocking
               and not check_passed_on_latest(instance, check)} - build - failed
    if blocked:
        reasons.append(f"a check did not pass: {_names(blocked)}")
    build = with_what_checks_read(graph, wanted, build | failed | blocked)
    together = documents(graph, publication) & wanted
    if build & together:
        build |= together
    return Plan(sorted(build, key=str), "; ".join(reasons))
