"""What `make report` builds: the assets Dagster reports stale or missing, and nothing else.

1. The raw inputs and the day are observed as raw_files_sensor observes them (defs/automation.observe_inputs):
   each observation is recorded in the instance (no run) when its data version is new, so what the UI then
   shows is what was decided on.
2. Dagster's stale status, the UI's "Stale" and "Materialize stale": an asset is stale when the data version of
   an input or its own code version (defs/versions.py) changed since it was built; missing when it was never
   built. What reads a stale asset is built in the same run (Dagster calls it stale only once the asset it reads
   has a new data version, that is after the run).
3. What that status cannot see is added, each for a reason:
   - an asset whose blocking check failed on its latest build (or never ran on it): built again with its check,
     so a bad input is refused by every run, not only the first;
   - everything, when the warehouse file is gone (`make clean`, another WAREHOUSE): the history says built,
     the tables are not there;
   - the documents, when the report their last build published is no longer the one published for its date
     (removed, or replaced by another data set's run).
   The documents of one kind are built together (the last one publishes the run's build folder).
Nothing to build means the published report is that of the data set, the code and the day.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import dagster as dg
from dagster._core.definitions.data_version import StaleStatus
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

from pipelines.defs.automation import observe_inputs
from pipelines.defs.regeneration import stale_status
from pipelines.defs.resources import PipelineSettings



@dataclass(frozen=True)
class Publication:
    """A published document set: the asset that publishes it, the documents one run writes into its build folder
    and publishes together, and the files a published folder holds."""
    asset: str
    documents: tuple[str, ...]
    files: tuple[str, ...]


REPORT = Publication("published_report", ("report_html", "report_pdf", "report_data", "published_report"),
                     ("report.html", "report.pdf", "data"))
ATLAS = Publication("published_atlas", ("atlas_html", "atlas_pdf", "atlas_data", "published_atlas"),
                    ("atlas.html", "atlas.pdf", "data"))


@dataclass(frozen=True)
class Plan:
    build: list[dg.AssetKey]  # sorted; empty: up to date
    why: str  # one line for the user


def _check_failed(instance: dg.DagsterInstance, check: dg.AssetCheckKey) -> bool:
    """A blocking check that did not pass on its asset's latest build (failed, or never evaluated on it)."""
    record = instance.get_latest_asset_check_evaluation_record(check)
    if record is None or record.status != AssetCheckExecutionRecordStatus.SUCCEEDED:
        return True
    target = record.evaluation.target_materialization_data if record.evaluation else None
    latest = instance.fetch_materializations(check.asset_key, limit=1).records
    return bool(latest) and target is not None and target.storage_id != latest[0].storage_id


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


def published_in_place(instance: dg.DagsterInstance, settings: PipelineSettings, publication: Publication) -> Path | None:
    """The dated folder the latest build published, when it is still the one published for its date (under
    REPORTS_DIR, or REPORTS_DIR/atlas) with its files; else None."""
    records = instance.fetch_materializations(dg.AssetKey(publication.asset), limit=1).records
    if not records:
        return None
    meta = records[0].asset_materialization.metadata
    if "path" not in meta:
        return None
    dated = Path(meta["path"].value)
    reports = dated.parent
    stored = reports / ".store" / f"{dated.name}.{records[0].run_id}"
    if reports not in (settings.reports, settings.reports / "atlas"):
        return None
    if dated.resolve() != stored.resolve() or not all((stored / name).exists() for name in publication.files):
        return None
    return dated


def plan(instance: dg.DagsterInstance, graph, settings: PipelineSettings, keys: list[dg.AssetKey],
         publication: Publication = REPORT, everything: str | None = None) -> Plan:
    """What to build of `keys` (a job's assets), after observing their raw inputs (see the module's docstring);
    all of them when `everything` says why (--force), the inputs observed all the same."""
    wanted = {key for key in keys if graph.get(key).is_materializable}
    inputs = {parent for key in wanted for parent in graph.get(key).parent_keys if not graph.get(parent).is_materializable}
    changed = observe_inputs(instance, settings, inputs)
    if not everything and not Path(settings.warehouse).is_file():
        everything = f"the warehouse {settings.warehouse} is missing"
    if everything:
        return Plan(sorted(wanted, key=str), everything)
    resolver = stale_status(instance, graph)
    build = {key for key in wanted if resolver.get_status(key) in (StaleStatus.STALE, StaleStatus.MISSING)}
    reasons = [f"changed: {', '.join(changed)}"] if changed else []
    if build and not changed:
        reasons.append("stale: " + ", ".join(sorted(k.to_user_string() for k in build)[:6]))
    blocked = {check.asset_key for check in graph.asset_check_keys
               if check.asset_key in wanted and graph.get_check_spec(check).blocking and _check_failed(instance, check)}
    if blocked - build:
        reasons.append("a check did not pass: " + ", ".join(sorted(k.to_user_string() for k in blocked - build)))
    build = with_what_checks_read(graph, wanted, build | blocked)
    documents = {dg.AssetKey(name) for name in publication.documents} & wanted
    gone = published_in_place(instance, settings, publication) is None
    if gone:
        reasons.append("the published folder is gone or was replaced")
    if gone or build & documents:
        build |= documents
    return Plan(sorted(build, key=str), "; ".join(reasons))
