"""`prices fetch` as a whole: every price source chosen, each fetched on its own.

The sources are the GPU clouds' public catalogs (`skypilot`, catalog_fetch.py) and the big three's
own price lists (`aws`, `azure`, `gcp`, price_fetch.py), chosen with PRICE_SOURCES; the catalogs'
clouds with SKYPILOT_CLOUDS. A source that fails is named in one line and the others are kept;
when no source could be reached at all, the whole fetch is one FetchError line (offline).
Standard library only, like the fetchers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pipelines.config import today as calendar_today
from pipelines.ingest.catalog_fetch import CATALOG_URL, GPU_CLOUDS, KNOWN_CLOUDS, fetch_catalogs
from pipelines.ingest.names import did_you_mean
from pipelines.ingest.price_fetch import Endpoints, FetchError, FetchReport, Offline, fetch_prices

PRICE_SOURCES = ("skypilot", "aws", "azure", "gcp")


@dataclass(frozen=True)
class Choice:
    """What to fetch: the sources, the catalog's clouds and where the catalog is."""

    sources: tuple[str, ...] = PRICE_SOURCES
    clouds: tuple[str, ...] = GPU_CLOUDS
    catalog_url: str = CATALOG_URL

    @classmethod
    def from_env(cls, sources: str | None = None, clouds: str | None = None, catalog_url: str | None = None) -> "Choice":
        """Arguments win over PRICE_SOURCES, SKYPILOT_CLOUDS and SKYPILOT_CATALOG_URL; FetchError for an unknown name."""
        return cls(
            sources=names("PRICE_SOURCES", _given(sources, "PRICE_SOURCES"), PRICE_SOURCES, PRICE_SOURCES),
            clouds=names("SKYPILOT_CLOUDS", _given(clouds, "SKYPILOT_CLOUDS"), KNOWN_CLOUDS, GPU_CLOUDS),
            catalog_url=_given(catalog_url, "SKYPILOT_CATALOG_URL") or CATALOG_URL,
        )


def _given(value: str | None, setting: str) -> str:
    return (value if value is not None else os.environ.get(setting, "")).strip()


def names(setting: str, text: str, known: tuple[str, ...], default: tuple[str, ...]) -> tuple[str, ...]:
    """A comma list of names, each one of `known` (empty: `default`); FetchError naming the first bad one."""
    chosen = [name.strip() for name in text.split(",") if name.strip()]
    for name in chosen:
        if name not in known:
            raise FetchError(f"{setting}: unknown name {name!r}{did_you_mean(name, known)} "
                             f"(known: {', '.join(known)})")
    return tuple(dict.fromkeys(chosen)) or default


def fetch_all(raw_dir: Path, choice: Choice, regions: list[tuple[str, str]], endpoints: Endpoints = Endpoints(),
              today: date | None = None, timeout: float = 60.0) -> FetchReport:
    """Every chosen source, each on its own; the failures are lines of `failed`.

    FetchError (one line) only when nothing could be reached at all: every source failed offline.
    """
    today = today or calendar_today()  # one day for every source, should the fetch run past midnight
    report = FetchReport()
    unreachable = []  # one line per source whose host could not be reached
    for source in choice.sources:
        if source == "skypilot":
            catalogs = fetch_catalogs(raw_dir, list(choice.clouds), choice.catalog_url, today, timeout)
            report.saved += catalogs.saved
            report.existing += catalogs.existing
            report.rejected += catalogs.rejected
            report.failed += catalogs.failed
            if catalogs.offline:
                unreachable.append(catalogs.offline)
            continue
        chosen = [(provider, region) for provider, region in regions if provider == source]
        try:
            got = fetch_prices(raw_dir, chosen, endpoints=endpoints, today=today, timeout=timeout)
        except Offline as exc:
            report.failed.append(str(exc))
            unreachable.append(str(exc))
            continue
        except FetchError as exc:
            report.failed.append(str(exc))
            continue
        report.saved += got.saved
        report.existing += got.existing
        report.skipped += got.skipped
    if unreachable and len(unreachable) == len(report.failed) and not (report.saved or report.existing or report.rejected):
        raise Offline(f"offline? no price source could be reached ({'; '.join(unreachable)}); nothing was written")
    return report
