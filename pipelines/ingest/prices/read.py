"""Read one price file or a whole folder of them into the one validated price frame.

A folder holds dated snapshots in any mix of formats; history is never overwritten, so the
folder's result is every snapshot's rows, one price per (provider, region, instance_type, as_of)
(see combine.py). GCP SKU pages are special: an instance price is composed from several SKUs
that may sit on different pages (files), so the folder reader collects the unit prices of every
GCP page first and composes once (see gcp.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from pipelines.errors import InputError
from pipelines.ingest.prices import aws, azure, detect, gcp
from pipelines.ingest.prices.combine import collapse_duplicates
from pipelines.ingest.prices.instances import check_instances
from pipelines.ingest.prices.normalized import PRICE_COLUMNS, empty_prices, read_normalized_csv

# Files in a price folder that are not price files: notes and in-flight downloads.
_SKIPPED_SUFFIXES = (".md", ".txt", ".part", ".tmp")


def read_price_file(path: Path, instances: pl.DataFrame, root: Path | None = None) -> pl.DataFrame:
    """Prices in one file of any supported format, filtered to `instances` (provider formats).

    `root` is the folder the `file` column is relative to (default: the file's own folder).
    """
    path = Path(path)
    root = Path(root) if root is not None else path.parent
    check_instances(instances)
    prices, units = _parse(path, _relative(path, root), instances)
    if not units.is_empty():
        prices = pl.concat([prices, gcp.compose(units, instances, root)])
    return _finish(prices, root)


def read_price_folder(folder: Path, instances: pl.DataFrame) -> pl.DataFrame:
    """Every snapshot in every price file under `folder` (recursively; hidden files skipped)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(folder, None, "is not a folder of price files")
    check_instances(instances)
    files = sorted(
        (p for p in folder.rglob("*") if p.is_file() and _is_price_file(p.relative_to(folder))),
        key=lambda p: p.relative_to(folder).as_posix(),
    )
    if not files:
        raise InputError(folder, None, "holds no price files")
    parsed = [_parse(p, _relative(p, folder), instances) for p in files]
    prices = [frame for frame, _ in parsed]
    units = pl.concat([u for _, u in parsed])
    if not units.is_empty():
        prices.append(gcp.compose(units, instances, folder))
    return _finish(pl.concat(prices), folder)


def _is_price_file(rel: Path) -> bool:
    if any(part.startswith(".") for part in rel.parts):
        return False
    return not (rel.name.lower().startswith("readme") or rel.suffix.lower() in _SKIPPED_SUFFIXES)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def _finish(prices: pl.DataFrame, root: Path) -> pl.DataFrame:
    return (
        collapse_duplicates(prices.select(PRICE_COLUMNS), root)
        .sort(["provider", "region", "instance_type", "as_of"], maintain_order=True)
    )


def _parse(path: Path, rel: str, instances: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(prices, GCP unit prices) of one file; one of the two is empty."""
    kind = detect.sniff(path)
    if kind == detect.NORMALIZED_CSV:
        return read_normalized_csv(path, rel), gcp.empty_units()
    if kind == detect.AWS_CSV:
        return aws.read_aws_csv(path, rel, instances), gcp.empty_units()
    doc = _load_json(path)
    kind = detect.json_kind(doc, path)
    if kind == detect.AWS_JSON:
        return aws.read_aws_json(doc, path, rel, instances), gcp.empty_units()
    if kind == detect.AZURE_JSON:
        return azure.read_azure_json(doc, path, rel, instances), gcp.empty_units()
    return empty_prices(), gcp.unit_prices(doc, path, rel)


def _load_json(path: Path) -> object:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InputError(path, raw[: exc.start].count(b"\n") + 1, "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"is not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # over-long integers, absurd nesting
        raise InputError(path, None, f"is not valid JSON: {type(exc).__name__}") from None
