"""Download today's price lists from the providers' public endpoints into raw/prices/.

Snapshot files named `<provider>-[<kind>-]<region>-<date>.<ext>`, each in the provider's own format:
- AWS: the region's Price List bulk CSV (`/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv`),
  streamed to disk (hundreds of MB; memory stays flat). It holds the on-demand and the reserved
  terms. The smaller JSON indexes hold no prices (region_index.json only points at the same
  per-region files), and the region's JSON offer is larger than its CSV, so the CSV it is.
- AWS savings plans: the region's AWSComputeSavingsPlan offer (Compute and EC2 Instance plans),
  found through `/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json` and
  saved in its CSV form for the same reason (`aws-savings-plans-<region>-<date>.csv`).
- AWS spot advisor: the public spot-advisor-data.json (interruption buckets of every region),
  once per fetch (`aws-spot-advisor-<date>.json`; the date in the name is the file's only date).
- AWS spot price history needs AWS credentials (EC2 DescribeSpotPriceHistory is a signed API):
  it is skipped with one message saying how to add it by hand.
- Azure: Retail Prices API pages for Virtual Machines in the region (`$filter` on serviceName and
  armRegionName; every price type: Consumption with its spot meters, Reservation), primary meters
  only, with api-version 2023-01-01-preview so that Consumption items carry their savingsPlan
  rates, following NextPageLink.
- GCP: Cloud Billing Catalog SKUs of Compute Engine (6F81-5844-456A), following nextPageToken,
  kept to the SKUs sold in the region (on-demand, preemptible and commitment SKUs alike); needs
  an API key (env GCP_API_KEY, sent as a header so it never appears in a URL or a message).
  Without a key GCP is skipped with a message.
Pages are merged into one document in the provider's own page format (all items, no next link),
so a snapshot is one file that appears whole or not at all.

Files are written to a hidden temporary name in the same folder and then linked to the final
name, which fails if it exists: an existing snapshot is never overwritten, and a failed or
interrupted download leaves the folder as it was. Offline (connection refused, DNS failure,
timeout) ends with one FetchError line. Only the standard library does HTTP (urllib).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Callable, Iterable

from pipelines.config import today as calendar_today

AWS_URL = "https://pricing.us-east-1.amazonaws.com"
AWS_SPOT_ADVISOR_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
AWS_SAVINGS_PLAN_INDEX = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"
AZURE_URL = "https://prices.azure.com"
AZURE_API_VERSION = "2023-01-01-preview"  # the first that lists savingsPlan rates on Consumption items
GCP_URL = "https://cloudbilling.googleapis.com"
GCP_COMPUTE_SERVICE = "6F81-5844-456A"
USER_AGENT = "cost-to-train-pipeline/0.1 (price snapshot fetch)"
MAX_PAGES = 2000  # Azure VMs in one region are a few dozen pages; a loop of links must end


class FetchError(RuntimeError):
    """A download failed; the message is one line saying what and why."""


class Offline(FetchError):
    """The host could not be reached at all (connection refused, DNS failure, timeout)."""


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the three price APIs; tests point them at a local server."""

    aws: str = AWS_URL
    azure: str = AZURE_URL
    gcp: str = GCP_URL
    aws_spot_advisor: str = AWS_SPOT_ADVISOR_URL


@dataclass
class FetchReport:
    saved: list[Path] = field(default_factory=list)
    existing: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # one line per source that failed (fetch_all.py)
    rejected: list[str] = field(default_factory=list)  # one line per catalog kept aside (catalog_fetch.py)

    @property
    def messages(self) -> list[str]:
        return ([f"saved {_label(p)}" for p in self.saved]
                + [f"kept existing snapshot {_label(p)}" for p in self.existing] + self.skipped
                + [f"failed: {line}" for line in self.failed] + [f"kept aside: {line}" for line in self.rejected])


def _label(path: Path) -> str:
    """A snapshot's name; a catalog's with its folders (skypilot_<date>/<cloud>/vms.csv)."""
    return "/".join(path.parts[-3:]) if path.name == "vms.csv" else path.name


def snapshot_name(provider: str, region: str, day: date, kind: str = "") -> str:
    ext = "csv" if provider == "aws" and kind in ("", "savings-plans") else "json"
    middle = f"{kind}-" if kind else ""
    return f"{provider}-{middle}{region}-{day.isoformat()}.{ext}" if region else f"{provider}-{middle}{day.isoformat()}.{ext}"


def spot_history_message(region: str) -> str:
    return (f"skipped aws spot history {region}: EC2 DescribeSpotPriceHistory needs AWS credentials; save "
            f"`aws ec2 describe-spot-price-history --region {region} --product-descriptions Linux/UNIX "
            f"--instance-types <types> --start-time <date> --output json` as raw/prices/aws-spot-{region}-<date>.json")


def fetch_prices(
    raw_dir: Path,
    regions: Iterable[tuple[str, str]],
    endpoints: Endpoints = Endpoints(),
    gcp_api_key: str | None = None,
    today: date | None = None,
    timeout: float = 60.0,
) -> FetchReport:
    """Fetch every source of every (provider, region) into raw_dir/prices; FetchError on the first failure."""
    folder = Path(raw_dir) / "prices"
    folder.mkdir(parents=True, exist_ok=True)
    day = today or calendar_today()
    key = gcp_api_key if gcp_api_key is not None else os.environ.get("GCP_API_KEY", "").strip()
    report = FetchReport()
    for provider, region, kind, writer in _sources(list(regions)):
        target = folder / snapshot_name(provider, region, day, kind)
        if writer is None:
            report.skipped.append(spot_history_message(region))
            continue
        if target.exists():
            report.existing.append(target)
            continue
        if provider == "gcp" and not key:
            report.skipped.append(f"skipped gcp {region}: set GCP_API_KEY to fetch the Cloud Billing Catalog")
            continue
        if _save_new(target, lambda handle: writer(handle, region, endpoints, key, timeout)):
            report.saved.append(target)
        else:
            report.existing.append(target)
    return report


def _sources(regions: list[tuple[str, str]]) -> list[tuple[str, str, str, Callable | None]]:
    """(provider, region, kind, writer) of every download; writer None: skipped (needs credentials)."""
    out = []
    for provider, region in regions:
        if provider not in _WRITERS:
            raise FetchError(f"unknown provider {provider!r} (expected aws, azure or gcp)")
        out.append((provider, region, "", _WRITERS[provider]))
        if provider == "aws":
            out += [("aws", region, "savings-plans", _write_aws_savings_plans), ("aws", region, "spot", None)]
    if any(provider == "aws" for provider, _ in regions):
        out.append(("aws", "", "spot-advisor", _write_aws_spot_advisor))  # one file covers every region
    return out


# --- writing a snapshot atomically --------------------------------------------------------------

def _save_new(target: Path, write: Callable) -> bool:
    """Write via a hidden temp file, then link it to `target`; False if target appeared meanwhile."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, target)  # atomic, and refuses to replace an existing file
        except FileExistsError:
            return False
        return True
    finally:
        tmp.unlink(missing_ok=True)


# --- HTTP ---------------------------------------------------------------------------------------

def _open(url: str, what: str, timeout: float, headers: dict[str, str] | None = None):
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **(headers or {})})
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{what}: HTTP {exc.code} {exc.reason} from {_shown(url)}") from None
    except urllib.error.URLError as exc:
        raise Offline(f"{what}: offline? cannot reach {_host(url)} ({_reason(exc.reason)})") from None
    except (socket.timeout, TimeoutError, ConnectionError) as exc:
        raise Offline(f"{what}: offline? cannot reach {_host(url)} ({_reason(exc)})") from None


def _read_json(url: str, what: str, timeout: float, headers: dict[str, str] | None = None) -> dict:
    try:
        with _open(url, what, timeout, headers) as response:
            body = response.read()
    except (socket.timeout, TimeoutError, ConnectionError, urllib.error.URLError) as exc:
        raise FetchError(f"{what}: download from {_host(url)} broke off ({_reason(exc)})") from None
    try:
        doc = json.loads(body)
    except ValueError:
        raise FetchError(f"{what}: {_shown(url)} did not answer JSON") from None
    if not isinstance(doc, dict):
        raise FetchError(f"{what}: {_shown(url)} answered JSON that is not an object")
    return doc


def _reason(reason: object) -> str:
    if isinstance(reason, socket.gaierror):
        return "DNS lookup failed"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return "timed out"
    return str(reason).splitlines()[0] if str(reason) else type(reason).__name__


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


def _shown(url: str) -> str:
    """The URL without its query (which may carry keys or long filters)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


# --- providers ----------------------------------------------------------------------------------

def _write_aws(handle, region: str, endpoints: Endpoints, _key: str, timeout: float) -> None:
    url = f"{endpoints.aws.rstrip('/')}/offers/v1.0/aws/AmazonEC2/current/{urllib.parse.quote(region)}/index.csv"
    _stream_price_list_csv(handle, url, f"aws {region}", timeout)


def _write_aws_savings_plans(handle, region: str, endpoints: Endpoints, _key: str, timeout: float) -> None:
    what = f"aws savings plans {region}"
    index = _read_json(f"{endpoints.aws.rstrip('/')}{AWS_SAVINGS_PLAN_INDEX}", what, timeout)
    entries = index.get("regions") if isinstance(index.get("regions"), list) else []
    found = [e.get("versionUrl") for e in entries if isinstance(e, dict) and e.get("regionCode") == region]
    if not found or not isinstance(found[0], str) or not found[0].endswith(".json"):
        raise FetchError(f"{what}: the savings plan region index lists no offer for {region}")
    url = f"{endpoints.aws.rstrip('/')}/{found[0].lstrip('/').removesuffix('.json')}.csv"
    if urllib.parse.urlsplit(url).hostname != urllib.parse.urlsplit(endpoints.aws).hostname:
        raise FetchError(f"{what}: the region index points away from {_host(endpoints.aws)}: {_shown(url)}")
    _stream_price_list_csv(handle, url, what, timeout)


def _stream_price_list_csv(handle, url: str, what: str, timeout: float) -> None:
    try:
        with _open(url, what, timeout) as response:
            head = response.read(64)
            if not head.lstrip(b"\xef\xbb\xbf").lstrip(b'"').startswith(b"FormatVersion"):
                raise FetchError(f"{what}: {_shown(url)} is not an AWS Price List CSV")
            handle.write(head)
            shutil.copyfileobj(response, handle, 1 << 20)
    except (socket.timeout, TimeoutError, ConnectionError) as exc:
        raise FetchError(f"{what}: download from {_host(url)} broke off ({_reason(exc)})") from None


def _write_aws_spot_advisor(handle, _region: str, endpoints: Endpoints, _key: str, timeout: float) -> None:
    what = "aws spot advisor"
    doc = _read_json(endpoints.aws_spot_advisor, what, timeout)
    if not isinstance(doc.get("spot_advisor"), dict):
        raise FetchError(f"{what}: {_shown(endpoints.aws_spot_advisor)} holds no spot_advisor table")
    handle.write(json.dumps(doc).encode())


def _write_azure(handle, region: str, endpoints: Endpoints, _key: str, timeout: float) -> None:
    what = f"azure {region}"
    # Every price type (Consumption with its spot meters and savings plans, Reservation; the reader
    # leaves DevTestConsumption out). Filter values are case-sensitive in the preview API: written
    # exactly as the items spell them. Primary meters only: the preview also lists non-primary ones.
    odata = f"serviceName eq 'Virtual Machines' and armRegionName eq '{region.replace(chr(39), '')}'"
    url = f"{endpoints.azure.rstrip('/')}/api/retail/prices?" + urllib.parse.urlencode(
        {"api-version": AZURE_API_VERSION, "currencyCode": "USD", "meterRegion": "'primary'", "$filter": odata},
        quote_via=urllib.parse.quote)
    first, items = None, []
    def next_url(doc: dict, _url: str) -> str | None:
        link = doc.get("NextPageLink")
        return link if isinstance(link, str) and link else None

    for page in _pages(url, what, timeout, endpoints.azure, next_url):
        if not isinstance(page.get("Items"), list):
            raise FetchError(f"{what}: a page has no Items list")
        first = first or page
        items += page["Items"]
    merged = {k: v for k, v in first.items() if k not in ("Items", "NextPageLink", "Count")}
    handle.write(json.dumps({**merged, "Items": items, "NextPageLink": None, "Count": len(items)}).encode())


def _write_gcp(handle, region: str, endpoints: Endpoints, key: str, timeout: float) -> None:
    what = f"gcp {region}"
    base = f"{endpoints.gcp.rstrip('/')}/v1/services/{GCP_COMPUTE_SERVICE}/skus"

    def page_url(token: str = "") -> str:
        query = {"currencyCode": "USD", "pageSize": "5000"} | ({"pageToken": token} if token else {})
        return f"{base}?{urllib.parse.urlencode(query)}"

    def next_url(doc: dict, _url: str) -> str | None:
        token = doc.get("nextPageToken")
        return page_url(token) if isinstance(token, str) and token else None

    skus = []
    pages = _pages(page_url(), what, timeout, endpoints.gcp, next_url, headers={"X-Goog-Api-Key": key})
    for page in pages:
        if not isinstance(page.get("skus"), list):
            raise FetchError(f"{what}: a page has no skus list")
        skus += [s for s in page["skus"] if isinstance(s, dict) and region in (s.get("serviceRegions") or [])]
    handle.write(json.dumps({"skus": skus, "nextPageToken": ""}).encode())


def _pages(url: str, what: str, timeout: float, base: str, next_of: Callable, headers=None):
    """Every page from `url` on, following next links that stay on the base URL's host."""
    seen = set()
    allowed = urllib.parse.urlsplit(base).hostname
    while url:
        if url in seen or len(seen) >= MAX_PAGES:
            raise FetchError(f"{what}: pagination does not end (page {len(seen) + 1})")
        seen.add(url)
        page = _read_json(url, what, timeout, headers)
        yield page
        url = next_of(page, url)
        if url and urllib.parse.urlsplit(url).hostname != allowed:
            raise FetchError(f"{what}: next page link leaves {allowed}: {_shown(url)}")


_WRITERS = {"aws": _write_aws, "azure": _write_azure, "gcp": _write_gcp}
