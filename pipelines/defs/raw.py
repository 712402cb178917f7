"""Raw inputs as observable source assets whose data version is a content hash.

The UI then shows which assets are stale after a raw file really changed; touching a file
without changing its bytes changes nothing. Each subject declares its own raw inputs
(prices/raw.py, mlperf/raw.py, report/raw.py) as asset name -> (path under RAW_DIR, glob, what
it holds) and builds their assets with ``observable_assets``; automation.py hashes all of them.
Imports no subject.
"""


import warnings
from pathlib import Path

import dagster as dg

from pipelines.defs.resources import PipelineSettings
from pipelines.fingerprint import files_sha256
from pipelines.ingest.raw_files import input_files

RawInput = tuple[str, str, str]  # (path under RAW_DIR, glob, what it holds)


def _listing(settings: PipelineSettings, raw_input: RawInput) -> tuple[list[Path], Path]:
    """The input's files and the folder their names are relative to."""
    relative, pattern, _ = raw_input
    root = settings.raw / relative
    return input_files(root, pattern), root if root.is_dir() else root.parent


def raw_fingerprint(settings: PipelineSettings, raw_input: RawInput) -> str:
    return files_sha256(*_listing(settings, raw_input))


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
    relative, _, description = raw_input

    @dg.observable_source_asset(
        name=name,
        group_name="raw",
        description=f"{description} (RAW_DIR/{relative})",
        metadata={"path": f"RAW_DIR/{relative}"},
        tags={"dagster/kind/file": ""},
    )
    def _observe(settings: PipelineSettings) -> dg.ObserveResult:
        files, base = _listing(settings, raw_input)  # listed once: hashed and shown
        return dg.ObserveResult(data_version=dg.DataVersion(files_sha256(files, base)),
                                metadata=observed_files(files, base))

    return _observe


def observable_assets(raw_inputs: dict[str, RawInput]) -> list:
    """One observable source asset (group raw) per raw input."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.BetaWarning)  # observable source assets are beta, and what fits
        return [_observable(name, raw_input) for name, raw_input in raw_inputs.items()]
