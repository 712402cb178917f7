"""Raw inputs as observable source assets whose data version is a content hash.

The UI then shows which assets are stale after a raw file really changed; touching a file
without changing its bytes changes nothing. Each subject declares its own raw inputs
(prices/raw.py, mlperf/raw.py, report/raw.py) as asset name -> RawInput and builds their assets with
``observable_assets``; the sensor (automation.py) and `make report` (pipelines/freshness.py) observe them
with ``observe``, so all three agree on what a change is.

An observation covers every file the readers may read for the input, listed by the function its readers list
them with (``RawInput.files``), so no file is read unobserved or observed unread: the data set's own, and for public
facts (the accelerator catalog, the carbon factors) the project's that a data set without its own falls back
to; for the MLPerf trees, the trees report.toml names outside RAW_DIR (by size and modification time: a
corpus is gigabytes). ``today`` is the one raw input that is no file: the day the readers check dates
against and the documents say they were generated. Imports no subject.
"""

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import dagster as dg

from pipelines.config import BUNDLED_RAW, build_day, today
from pipelines.defs.resources import PipelineSettings
from pipelines.fingerprint import file_lines, group_sha256, stat_text, walk
from pipelines.ingest.raw_files import input_files


class RawInput(NamedTuple):
    path: str  # under RAW_DIR
    glob: str
    holds: str  # what it holds, for the UI
    public_facts: bool = False  # a data set without its own reads the project's (defs/staging.public_facts)
    outside_trees: bool = False  # report.toml's mlperf_trees outside RAW_DIR are read with it
    # the folder's files as its readers list them (default: ingest/raw_files.input_files with `glob`); the readers
    # call the same function, so what is observed is what is read (prices: ingest/prices/files.price_files)
    listing: Callable[[Path], list[Path]] | None = None

    def files(self, root: Path) -> list[Path]:
        """The input's files under `root` (its path under RAW_DIR, or the project's raw/)."""
        return self.listing(root) if self.listing is not None else input_files(root, self.glob)


def _listing(settings: PipelineSettings, raw_input: RawInput) -> tuple[list[Path], Path]:
    """The data set's files of the input and the folder their names are relative to."""
    return _files_of(settings.raw, raw_input)


def _files_of(raw: Path, raw_input: RawInput) -> tuple[list[Path], Path]:
    root = raw / raw_input.path
    return raw_input.files(root), root if root.is_dir() else root.parent


def _outside_trees(raw: Path) -> list[Path]:
    """report.toml's mlperf_trees outside RAW_DIR (a bad report.toml: none; the run says what is wrong)."""
    from pipelines.ingest.report_config import mlperf_tree_roots

    try:
        return [tree for tree in mlperf_tree_roots(raw) if tree.is_dir() and not tree.is_relative_to(raw)]
    except Exception:  # noqa: BLE001 - any problem is the staging asset's to report, in its words
        return []


def _version(settings: PipelineSettings, raw_input: RawInput, files: list[Path], base: Path) -> str:
    """The input's data version. The data set's own files are named relative to their folder, as they always were
    (stored data versions stay valid); the project's public facts and outside trees are named apart, so moving a
    file between them is a change too."""
    lines = file_lines(files, base)
    if raw_input.public_facts and BUNDLED_RAW.resolve() != settings.raw.resolve():
        lines += file_lines(*_files_of(BUNDLED_RAW, raw_input), prefix="project:")
    if raw_input.outside_trees:
        for tree in _outside_trees(settings.raw):
            lines += [(f"tree:{path}", stat_text(path)) for path in walk(tree) if path.is_file()]
    return group_sha256(lines)


def raw_fingerprint(settings: PipelineSettings, raw_input: RawInput) -> str:
    """The input's data version alone: what the raw-file sensor compares every 30 s."""
    return _version(settings, raw_input, *_listing(settings, raw_input))


def observe(settings: PipelineSettings, raw_input: RawInput) -> tuple[str, dict]:
    """The input's data version and what the observation saw (shown in the UI), from one listing."""
    files, base = _listing(settings, raw_input)
    return _version(settings, raw_input, files, base), observed_files(files, base)


def observed_files(files: list[Path], base: Path) -> dict:
    """What an observation saw: how many files, how many bytes, and which (shown in the UI)."""
    shown = [f"- {f.relative_to(base)} ({f.stat().st_size:,} bytes)" for f in files[:50]]
    if len(files) > 50:
        shown.append(f"- ... and {len(files) - 50} more")
    return {
        "files": len(files),
        "bytes": sum(f.stat().st_size for f in files),
        "listing": dg.MetadataValue.md("\n".join(shown) or "(no files)"),
    }


def _observable(name: str, raw_input: RawInput):
    @dg.observable_source_asset(
        name=name,
        group_name="raw",
        description=f"{raw_input.holds} (RAW_DIR/{raw_input.path})",
        metadata={"path": f"RAW_DIR/{raw_input.path}"},
        tags={"dagster/kind/file": ""},
    )
    def _observe(settings: PipelineSettings) -> dg.ObserveResult:
        version, seen = observe(settings, raw_input)
        return dg.ObserveResult(data_version=dg.DataVersion(version), metadata=seen)

    return _observe


def observable_assets(raw_inputs: dict[str, RawInput]) -> list:
    """One observable source asset (group raw) per raw input."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)  # observable source assets are beta, and what fits
        return [_observable(name, raw_input) for name, raw_input in raw_inputs.items()]


# ---- the day ----------------------------------------------------------------------------------

TODAY = "today"


def day_version() -> str:
    """The two days a build depends on: the calendar day (UTC) that readers refuse later-dated rows against, and
    the day the documents say they were generated (SOURCE_DATE_EPOCH, else the calendar day)."""
    return f"today {today().isoformat()}, generated on {build_day().isoformat()}"


def _observe_day() -> dg.ObserveResult:
    return dg.ObserveResult(data_version=dg.DataVersion(day_version()))


with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)
    today_asset = dg.observable_source_asset(
        name=TODAY, group_name="raw", tags={"dagster/kind/date": ""},
        description="The day: the readers leave out rows dated after it and the documents say they were generated "
                    "on it (SOURCE_DATE_EPOCH, else today in UTC). A new day makes every asset that reads it stale.",
    )(_observe_day)
