"""Download the GPU clouds' public catalogs (SkyPilot's `<cloud>/vms.csv`) into dated snapshots.

Each cloud's file becomes `prices/skypilot_<date>/<cloud>/vms.csv`, the layout the price reader
(ingest/prices/skypilot.py) reads, with a `SOURCE.md` note beside it (the reader skips `.md`):
- only GPU rows are kept (a non-empty AcceleratorName), header and columns as they are; for the
  large files (RunPod, AWS, GCP, Azure) also only one row per distinct (InstanceType, Region,
  Price, SpotPrice): their rows repeat per availability zone, which the reader folds anyway;
- the file is read and filtered line by line, never held whole (memory flat in the file's size:
  bench/catalog_fetch_bench.py measures a RunPod-sized file against Lambda's);
- both files are written into a hidden folder of prices/ and renamed into place at once, so a
  snapshot appears whole or not at all, and an existing snapshot is never replaced;
- a catalog whose GPU rows fell by more than half against the cloud's previous snapshot is not
  put in place but kept aside under prices/.rejected/ (hidden: nothing reads it), and named:
  a broken upstream must not empty the market in silence.
Each cloud is fetched on its own: one that fails is named and leaves nothing behind, the others
are kept. Only the standard library does HTTP (price_fetch's urllib helpers).
"""

from __future__ import annotations

import csv
import http.client
import io
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

from pipelines.config import today as calendar_today
from pipelines.ingest.price_fetch import FetchError, Offline, _open, _shown

CATALOG_URL = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8"
# Every cloud of SkyPilot's catalogs/v8 that sells GPUs (checked against the repository, 2026-12).
GPU_CLOUDS = ("lambda", "nebius", "runpod", "oci", "cudo", "vast", "verda", "hyperstack", "hyperbolic",
              "jarvislabs", "lium", "mithril", "primeintellect", "seeweb", "shadeform", "spheron", "yotta",
              "daytona")
# Known but not fetched by default: AWS, GCP and Azure are priced from their own price lists, which the same
# `make prices` fetches that day (a second price of one instance on one date from another file is refused), and
# Azure's catalog file is large. SKYPILOT_CLOUDS=aws,gcp fetches them where PRICE_SOURCES leaves their own out.
KNOWN_CLOUDS = (*GPU_CLOUDS, "aws", "gcp", "azure")
# Files of megabytes whose rows repeat per availability zone: kept one row per distinct price.
LARGE_CLOUDS = {"runpod", "aws", "gcp", "azure"}
DEDUP_COLUMNS = ("InstanceType", "Region", "Price", "SpotPrice")
REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")  # as the reader needs
REJECTED = ".rejected"  # prices/.rejected/skypilot_<date>/<cloud>/: kept aside, read by nothing
_COMMIT = re.compile(r"/([0-9a-f]{40})(?:/|$)")  # a raw URL pinned to a commit names it


@dataclass
class CatalogFetch:
    """What a fetch of the catalogs did, cloud by cloud (each list holds one-line messages or paths)."""

    saved: list[Path] = field(default_factory=list)
    existing: list[Path] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    offline: str = ""  # why the catalog's host could not be reached at all ("" when it could)


@dataclass(frozen=True)
class Filtered:
    """Counts of one catalog streamed through the GPU-row filter."""

    rows: int  # data rows read
    kept: int  # GPU rows written


def snapshot_dir(prices: Path, day: date, cloud: str) -> Path:
    return prices / f"skypilot_{day.isoformat()}" / cloud


def fetch_catalogs(raw_dir: Path, clouds: list[str], base_url: str = CATALOG_URL, today: date | None = None,
                   timeout: float = 60.0) -> CatalogFetch:
    """Fetch `<base_url>/<cloud>/vms.csv` of every cloud into raw_dir/prices; never raises FetchError."""
    prices = Path(raw_dir) / "prices"
    prices.mkdir(parents=True, exist_ok=True)
    day = today or calendar_today()
    report = CatalogFetch()
    for index, cloud in enumerate(clouds):
        target = snapshot_dir(prices, day, cloud) / "vms.csv"
        if target.exists():
            report.existing.append(target)
            continue
        try:
            outcome = _fetch_one(prices, cloud, day, base_url, timeout)
        except Offline as exc:
            # The host is unreachable: the other clouds' files sit on it too, so they are not tried.
            untried = clouds[index + 1:]
            report.failed.append(f"skypilot {exc}" + (f"; not tried: {', '.join(untried)}" if untried else ""))
            report.offline = f"skypilot {exc}"
            break
        except FetchError as exc:
            report.failed.append(f"skypilot {exc}")
            continue
        if isinstance(outcome, Path):
            report.saved.append(outcome)
        else:
            report.rejected.append(outcome)
    _remove_if_empty(prices / f"skypilot_{day.isoformat()}")
    return report


def _fetch_one(prices: Path, cloud: str, day: date, base_url: str, timeout: float) -> Path | str:
    """The saved vms.csv, or the one-line reason it was kept aside; FetchError when it failed."""
    url = f"{base_url.rstrip('/')}/{cloud}/vms.csv"
    staging = Path(tempfile.mkdtemp(prefix=f".skypilot_{day.isoformat()}-{cloud}.", suffix=".part", dir=prices))
    staging.chmod(0o755)  # mkdtemp's folder is private; the snapshot folder is an ordinary one
    try:
        with _open(url, cloud, timeout) as response:
            counts = _write_gpu_rows(response, staging / "vms.csv", cloud, url)
            headers = response.headers
        previous = previous_snapshot(prices, cloud, day)
        before = gpu_rows(previous) if previous else None
        _write_note(staging / "SOURCE.md", cloud, url, headers, counts, previous, before)
        if before is not None and counts.kept * 2 < before:
            aside = _move_into_place(staging, prices / REJECTED / f"skypilot_{day.isoformat()}" / cloud, replace=True)
            return (f"skypilot {cloud}: {counts.kept} GPU rows against {before} in "
                    f"{previous.relative_to(prices).as_posix()} (fell by more than half): not used, kept aside "
                    f"as {aside / 'vms.csv'}")
        return _move_into_place(staging, snapshot_dir(prices, day, cloud)) / "vms.csv"
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# --- streaming filter ---------------------------------------------------------------------------

def _write_gpu_rows(response, path: Path, cloud: str, url: str) -> Filtered:
    """Copy the header and the GPU rows of the response to `path`, line by line."""
    text = io.TextIOWrapper(response, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    try:
        header = [h.strip() for h in next(reader, [])]
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise FetchError(f"{cloud}: {_shown(url)}:1 is not a SkyPilot catalog: no column(s) "
                             f"{', '.join(missing)} in its header ({','.join(header)[:120] or 'empty'})")
        accelerator, instance_type = header.index("AcceleratorName"), header.index("InstanceType")
        dedup = [header.index(c) for c in DEDUP_COLUMNS if c in header] if cloud in LARGE_CLOUDS else []
        # The catalogs list an instance type's rows together, so the rows seen are forgotten when the type
        # changes: memory stays that of one instance type's rows, whatever the file's size. A type listed
        # twice apart keeps a few repeated rows, which the reader folds as it folds zones.
        seen: set[tuple[str, ...]] = set()
        current = None
        rows = kept = 0
        with path.open("w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(header)
            for cells in reader:
                rows += 1
                if len(cells) != len(header):
                    raise FetchError(f"{cloud}: {_shown(url)}:{reader.line_num} has {len(cells)} fields, "
                                     f"the header has {len(header)} (cut off?)")
                if not cells[accelerator].strip():
                    continue
                if dedup:
                    if cells[instance_type] != current:
                        current = cells[instance_type]
                        seen.clear()
                    key = tuple(cells[i] for i in dedup)
                    if key in seen:
                        continue
                    seen.add(key)
                writer.writerow(cells)
                kept += 1
            out.flush()
            os.fsync(out.fileno())
    except UnicodeDecodeError:
        raise FetchError(f"{cloud}: {_shown(url)} is not UTF-8 text (near line {reader.line_num + 1})") from None
    except csv.Error as exc:
        raise FetchError(f"{cloud}: {_shown(url)}:{reader.line_num} is not valid CSV: {exc}") from None
    except (TimeoutError, ConnectionError, http.client.HTTPException) as exc:
        raise FetchError(f"{cloud}: download from {_shown(url)} broke off ({type(exc).__name__})") from None
    if kept == 0:
        raise FetchError(f"{cloud}: {_shown(url)} holds no GPU rows ({rows} rows, none with an AcceleratorName)")
    return Filtered(rows, kept)


def gpu_rows(path: Path) -> int:
    """Rows with an AcceleratorName in a catalog file (0 when it cannot be read as one)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            header = [h.strip() for h in next(reader, [])]
            if "AcceleratorName" not in header:
                return 0
            column = header.index("AcceleratorName")
            return sum(1 for cells in reader if len(cells) > column and cells[column].strip())
    except (OSError, UnicodeDecodeError, csv.Error):
        return 0


def previous_snapshot(prices: Path, cloud: str, day: date) -> Path | None:
    """The cloud's newest snapshot before `day` in the data set (prices/skypilot_<date>/<cloud>/vms.csv)."""
    dated = []
    for folder in prices.glob("skypilot_*"):
        stamp = folder.name.removeprefix("skypilot_")
        try:
            when = date.fromisoformat(stamp)
        except ValueError:
            continue
        if when < day and (folder / cloud / "vms.csv").is_file():
            dated.append((when, folder / cloud / "vms.csv"))
    return max(dated)[1] if dated else None


# --- the note and the move into place -----------------------------------------------------------

def _write_note(path: Path, cloud: str, url: str, headers, counts: Filtered, previous: Path | None,
                before: int | None) -> None:
    """SOURCE.md: where the file came from, its commit and date where the source gives them."""
    commit = _COMMIT.search(url)
    fetched = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    how = ("GPU rows only (a non-empty AcceleratorName), one per distinct " + ", ".join(DEDUP_COLUMNS)
           if cloud in LARGE_CLOUDS else "GPU rows only (a non-empty AcceleratorName)")
    lines = [
        f"# SkyPilot catalog: {cloud}/vms.csv", "",
        f"- source: {_shown(url)}",
        f"- fetched: {fetched}",
        f"- commit: {commit.group(1) if commit else 'not given (the URL names a branch, not a commit)'}",
        f"- commit date: not given; the server's Last-Modified: {headers.get('Last-Modified') or 'not given'}",
        f"- ETag: {headers.get('ETag') or 'not given'}",
        f"- rows: {counts.kept} of {counts.rows} kept: {how}; header and columns as published",
        f"- previous snapshot: {previous.parent.parent.name + '/' + cloud + '/vms.csv' if previous else 'none'}"
        + (f" ({before} GPU rows)" if previous else ""),
        "", "Fetched by `python -m pipelines.cli prices fetch` (pipelines/ingest/catalog_fetch.py).", "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def _move_into_place(staging: Path, target: Path, replace: bool = False) -> Path:
    """Rename the staging folder to `target` in one step; an existing snapshot is kept, never replaced."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if replace and target.exists():
        shutil.rmtree(target)  # an earlier rejected copy of the same day: the newest one is kept aside
    try:
        os.rename(staging, target)  # atomic; refuses a non-empty target folder
    except OSError as exc:
        raise FetchError(f"{target.name}: {target} appeared meanwhile and is kept ({exc.strerror})") from None
    return target


def _remove_if_empty(folder: Path) -> None:
    """A day's folder none of whose clouds arrived is not left behind."""
    try:
        folder.rmdir()
    except OSError:
        pass
