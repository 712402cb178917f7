"""What the pipeline writes, observed like what it reads: the warehouse file and the published folders.

Dagster's history says an asset was built; whether what it wrote is still there, Dagster cannot see by itself. So
each output is an observable source asset (group outputs) that the assets writing into it depend on, observed by
the step that observes the raw inputs (defs/automation.observe_inputs: raw_files_sensor every tick, `make report`
and `make atlas` first):

- ``warehouse``: the DuckDB file; every asset that keeps a table in it (kind duckdb) depends on it;
- ``published_report_folder``, ``published_atlas_folder``: REPORTS_DIR/<price date>/ (and atlas/<price date>/) as
  the last build published it; the publishing asset and the documents of its run's build folder depend on it.
  (defs/versions.py adds these dependencies, read from the definitions.)

The data version of an output is its *generation*: it stays the same while the output is where the last build left
it, while it is still gone, and once it was built again; it goes up by one when the output is found gone after a
build wrote it (the warehouse deleted, `make clean`, a published folder removed or replaced by another data set's
run). Its readers are then stale to Dagster, with the cause "has a new dependency data version": `make report`
(Dagster's stale status, pipelines/freshness.py) and the daemon (automation's any_deps_updated, defs/metadata.py
REGENERATE) rebuild the same assets, and the UI shows why. A version that said "there" or "gone" would change
again once the build wrote the output, and make everything stale after every rebuild: the generation changes on
a loss only. Only what changes a version is recorded (an observation is what automation counts as an update).
Path-independent: a data set moved or copied with its instance and outputs keeps its generations.

What a generation cannot see: an output lost and written again between two observations (the sensor observes
every 15 s; `make report` always first).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from pipelines.defs.regeneration import last_observation
from pipelines.defs.resources import PipelineSettings

GROUP = "outputs"
WAREHOUSE = "warehouse"
WAREHOUSE_KIND = "duckdb"  # the kind of every asset that keeps a table in the warehouse


@dataclass(frozen=True)
class Publication:
    """A published document set: the asset that publishes it, the observable source standing for its published
    folder, the folder under REPORTS_DIR it publishes into and the files a published folder holds. Its documents
    (published together: the publishing asset moves its run's build folder) are what reads the folder source
    (``documents``)."""

    asset: str
    folder_asset: str
    under: str  # "" or "atlas"
    files: tuple[str, ...]

    def reports(self, settings: PipelineSettings) -> Path:
        return settings.reports / self.under if self.under else settings.reports


REPORT = Publication("published_report", "published_report_folder", "", ("report.html", "report.pdf", "data"))
ATLAS = Publication("published_atlas", "published_atlas_folder", "atlas", ("atlas.html", "atlas.pdf", "data"))
PUBLICATIONS = (REPORT, ATLAS)
OUTPUTS = (WAREHOUSE, *(p.folder_asset for p in PUBLICATIONS))  # every output observed, by asset name


def documents(graph, publication: Publication) -> set[dg.AssetKey]:
    """The documents of a publication: what reads its published folder (defs/versions.py makes the publishing asset
    and what it reads outside the warehouse read it)."""
    folder = dg.AssetKey(publication.folder_asset)
    return set(graph.get(folder).child_keys) if graph.has(folder) else set()


# ---- where each output is now ----------------------------------------------------------------------

def published_in_place(instance: dg.DagsterInstance, settings: PipelineSettings, publication: Publication) -> Path | None:
    """The dated folder the latest build published, when it is still the one published for its date under this
    data set's reports folder (REPORTS_DIR, or REPORTS_DIR/atlas), with its files; else None."""
    records = instance.fetch_materializations(dg.AssetKey(publication.asset), limit=1).records
    if not records or "path" not in records[0].asset_materialization.metadata:
        return None
    name = Path(records[0].asset_materialization.metadata["path"].value).name  # the price date
    reports = publication.reports(settings)
    dated, stored = reports / name, reports / ".store" / f"{name}.{records[0].run_id}"
    if not dated.is_symlink() or dated.resolve() != stored.resolve():
        return None
    return dated if all((stored / file).exists() for file in publication.files) else None


def _written_since(instance: dg.DagsterInstance, key: dg.AssetKey, keys: list[dg.AssetKey] | None) -> bool:
    """Whether any of `keys` (None: any asset) was materialized after the latest observation of `key`."""
    found = instance.fetch_observations(key, limit=1).records
    if not found:
        return True
    since = found[0].storage_id
    return any(record.asset_entry.last_materialization_record is not None
               and record.asset_entry.last_materialization_record.storage_id > since
               for record in instance.get_asset_records(keys))


def _generation(instance: dg.DagsterInstance, key: dg.AssetKey, there: bool,
                writers: list[dg.AssetKey] | None) -> str:
    """The output's generation: one up when it is not there although `writers` wrote it since it was last observed
    (it was there then, or was written since); the same otherwise; "1" before its first observation."""
    version, _ = last_observation(instance, key)
    if version is None or not version.isdigit():
        return "1"
    lost = not there and _written_since(instance, key, writers)
    return str(int(version) + 1) if lost else version


def lost(settings: PipelineSettings, name: str) -> str:
    """What a new generation of an output means, for the user."""
    if name == WAREHOUSE:
        return f"the warehouse {settings.warehouse} is missing"
    return "the published folder is gone or was replaced"


def observe_output(instance: dg.DagsterInstance, settings: PipelineSettings, name: str) -> tuple[str, dict]:
    """An output's data version (its generation) and what the observation found (shown in the UI)."""
    key = dg.AssetKey(name)
    if name == WAREHOUSE:
        path = Path(settings.warehouse)
        there = path.is_file()
        # any build writes the warehouse (a run that only publishes reads it, so it was there)
        return _generation(instance, key, there, None), {"found": f"{path}" if there else f"no file {path}"}
    publication = next(p for p in PUBLICATIONS if p.folder_asset == name)
    folder = published_in_place(instance, settings, publication)
    there = folder is not None
    version = _generation(instance, key, there, [dg.AssetKey(publication.asset)])
    return version, {"found": str(folder) if there else "the folder the last build published is gone or was "
                                                         "replaced (or none was published)"}


# ---- the observable source assets ------------------------------------------------------------------

def _observable(name: str, description: str):
    def _observe(context, settings: PipelineSettings) -> dg.ObserveResult:
        version, found = observe_output(context.instance, settings, name)
        return dg.ObserveResult(data_version=dg.DataVersion(version), metadata=found)

    return dg.observable_source_asset(name=name, group_name=GROUP, description=description,
                                      tags={"dagster/kind/file": ""})(_observe)


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)  # observable source assets are beta (as defs/raw.py's)
    output_assets = [
        _observable(WAREHOUSE, "The DuckDB warehouse file (WAREHOUSE). Its data version is its generation, one up "
                               "each time it is found gone after a build wrote it: every asset keeping a table in "
                               "it is then stale (built again, by `make report` and by the daemon alike)."),
        *(_observable(p.folder_asset, f"The folder {p.asset} published last (REPORTS_DIR/{p.under + '/' if p.under else ''}"
                                      f"<price date>/). Its data version is its generation, one up each time that "
                                      f"folder is found gone or replaced: the documents are then stale and published "
                                      f"again.")
          for p in PUBLICATIONS),
    ]
