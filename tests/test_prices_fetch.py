"""The fetch step against a local HTTP server serving fixture pages (never the real internet)."""

from __future__ import annotations

import json
import socket
import threading
import urllib.parse
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dagster as dg
import polars as pl
import pytest

from pipelines.config import today as calendar_today
from pipelines.defs.prices.fetch import fetched_price_files
from pipelines.ingest.price_fetch import Endpoints, FetchError, fetch_prices, spot_history_message
from pipelines.ingest.prices import read_price_folder
from tests.price_fixtures import (
    aws_csv_2025, azure_pages, gcp_pages, instances, savings_plan_csv, savings_plan_json, spot_advisor,
)

DAY = date(2025, 6, 1)
REGIONS = [("aws", "us-east-1"), ("azure", "eastus"), ("gcp", "us-central1")]
KEY = "test-key"
SP_VERSION = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20250601000000/us-east-1/index"
SAVED = ["aws-savings-plans-us-east-1-2025-06-01.csv", "aws-spot-advisor-2025-06-01.json",
         "aws-us-east-1-2025-06-01.csv", "azure-eastus-2025-06-01.json", "gcp-us-central1-2025-06-01.json"]


class PriceApi(BaseHTTPRequestHandler):
    """Serves the three APIs' fixture pages; records every request for the tests."""

    requests: list = []
    aws_body = aws_csv_2025().encode()
    azure_next_host = None  # a host for a NextPageLink that leaves the server

    def do_GET(self):  # noqa: N802 (http.server's naming)
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        self.requests.append((url.path, query, dict(self.headers)))
        base = f"http://{self.headers['Host']}"
        if url.path.startswith("/offers/v1.0/aws/AmazonEC2/current/") and url.path.endswith("/index.csv"):
            return self._send(self.aws_body, "text/csv")
        if url.path == "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json":
            index = {"disclaimer": "", "publicationDate": "2025-06-01T00:00:00Z",
                     "regions": [{"regionCode": "us-east-1", "versionUrl": f"{SP_VERSION}.json"}]}
            return self._send(json.dumps(index).encode())
        if url.path == f"{SP_VERSION}.csv":
            return self._send(savings_plan_csv().encode(), "text/csv")
        if url.path == f"{SP_VERSION}.json":
            return self._send(json.dumps(savings_plan_json()).encode())
        if url.path == "/spot-advisor-data.json":
            return self._send(json.dumps(spot_advisor()).encode())
        if url.path == "/api/retail/prices":
            pages = azure_pages(base=(self.azure_next_host or base) + "/api/retail/prices")
            return self._send(json.dumps(pages[1] if "$skip" in query else pages[0]).encode())
        if url.path == "/v1/services/6F81-5844-456A/skus":
            if self.headers.get("X-Goog-Api-Key") != KEY:
                return self._send(b'{"error": {"code": 403}}', status=403)
            pages = gcp_pages()
            token = query.get("pageToken", [""])[0]
            index = int(token.removeprefix("token-") or 0)
            return self._send(json.dumps(pages[index]).encode())
        self._send(b"not found", "text/plain", 404)

    def _send(self, body: bytes, kind: str = "application/json", status: int = 200):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # keep test output quiet
        pass


@pytest.fixture
def server():
    PriceApi.requests = []
    PriceApi.azure_next_host = None
    PriceApi.aws_body = aws_csv_2025().encode()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), PriceApi)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield Endpoints(aws=base, azure=base, gcp=base, aws_spot_advisor=f"{base}/spot-advisor-data.json")
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_fetch_saves_one_snapshot_per_source_that_reads_back(tmp_path, server):
    report = fetch_prices(tmp_path, REGIONS, endpoints=server, gcp_api_key=KEY, today=DAY)
    assert sorted(p.name for p in (tmp_path / "prices").iterdir()) == SAVED
    assert sorted(p.name for p in report.saved) == SAVED
    assert report.skipped == [spot_history_message("us-east-1")]  # spot history needs AWS credentials
    assert "\n" not in report.skipped[0] and "needs AWS credentials" in report.skipped[0]
    # both Azure pages and all four GCP pages were followed and merged; the savings plan offer came
    # through the region index, in its CSV form
    assert sum(1 for path, _, _ in PriceApi.requests if path == "/api/retail/prices") == 2
    assert sum(1 for path, _, _ in PriceApi.requests if path.endswith("/skus")) == 4
    assert [path for path, _, _ in PriceApi.requests if path.startswith("/savingsPlan")] == [
        "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json", f"{SP_VERSION}.csv"]
    azure_query = next(q for p, q, _ in PriceApi.requests if p == "/api/retail/prices")
    assert "armRegionName eq 'eastus'" in azure_query["$filter"][0]
    assert "priceType" not in azure_query["$filter"][0]  # reservations too, not only Consumption
    assert azure_query["api-version"] == ["2023-01-01-preview"]  # savingsPlan rates come only with the preview
    assert azure_query["meterRegion"] == ["'primary'"]
    assert all(KEY not in path + json.dumps(q) for path, q, _ in PriceApi.requests)  # key only in a header
    azure = json.loads((tmp_path / "prices" / "azure-eastus-2025-06-01.json").read_text())
    assert azure["NextPageLink"] is None and azure["Count"] == len(azure["Items"])
    gcp = json.loads((tmp_path / "prices" / "gcp-us-central1-2025-06-01.json").read_text())
    assert all("us-central1" in s["serviceRegions"] for s in gcp["skus"])

    prices = read_price_folder(tmp_path / "prices", instances())
    got = {(r["provider"], r["instance_type"]): r["usd_per_hour"]
           for r in prices.filter(pl.col("pricing_model") == "on_demand").iter_rows(named=True)}
    assert got == {
        ("aws", "p3.16xlarge"): 24.48, ("aws", "p3dn.24xlarge"): 31.212, ("aws", "p4d.24xlarge"): 21.957642,
        ("aws", "p5.48xlarge"): 55.04, ("azure", "Standard_ND40rs_v2"): 22.032,
        ("azure", "Standard_ND96asr_v4"): 27.197, ("azure", "Standard_ND96isr_H100_v5"): 98.32,
        ("gcp", "a2-highgpu-8g"): 29.38708, ("gcp", "n1-highmem-96+8xV100"): 25.518544,
    }
    # every pricing model the sources sell reads back (tests/test_prices_*.py check the figures)
    assert prices.group_by("provider", "pricing_model").len().sort("provider", "pricing_model").rows() == [
        ("aws", "on_demand", 4), ("aws", "reserved", 14), ("aws", "savings_plan", 5),
        ("azure", "on_demand", 3), ("azure", "reserved", 6), ("azure", "savings_plan", 6), ("azure", "spot", 3),
        ("gcp", "committed_use", 3), ("gcp", "on_demand", 2), ("gcp", "spot", 2),
    ]


def test_a_region_without_a_savings_plan_offer_is_a_clear_error(tmp_path, server):
    with pytest.raises(FetchError, match="aws savings plans eu-north-1: the savings plan region index lists no offer"):
        fetch_prices(tmp_path, [("aws", "eu-north-1")], endpoints=server, today=DAY)


def test_an_existing_snapshot_is_never_overwritten(tmp_path, server):
    fetch_prices(tmp_path, REGIONS[:1], endpoints=server, today=DAY)
    path = tmp_path / "prices" / "aws-us-east-1-2025-06-01.csv"
    before = path.read_bytes()
    PriceApi.aws_body = before.replace(b"21.9576420000", b"19.0000000000")
    report = fetch_prices(tmp_path, REGIONS[:1], endpoints=server, today=DAY)
    assert (report.saved, [p.name for p in report.existing]) == ([], [
        "aws-us-east-1-2025-06-01.csv", "aws-savings-plans-us-east-1-2025-06-01.csv", "aws-spot-advisor-2025-06-01.json"])
    assert path.read_bytes() == before
    # the next day's fetch is a new snapshot file; the same publication read twice is one price
    PriceApi.aws_body = before
    fetch_prices(tmp_path, REGIONS[:1], endpoints=server, today=date(2025, 6, 2))
    assert len(list((tmp_path / "prices").iterdir())) == 6  # price list, savings plans, advisor per day
    prices = read_price_folder(tmp_path / "prices", instances())
    p4d = prices.filter((pl.col("instance_type") == "p4d.24xlarge") & (pl.col("pricing_model") == "on_demand"))
    assert p4d["usd_per_hour"].to_list() == [21.957642]


def test_without_a_gcp_key_gcp_is_skipped_with_a_message(tmp_path, server, monkeypatch):
    monkeypatch.delenv("GCP_API_KEY", raising=False)
    report = fetch_prices(tmp_path, REGIONS, endpoints=server, today=DAY)
    assert sorted(p.name for p in report.saved) == [name for name in SAVED if not name.startswith("gcp")]
    assert report.skipped == [spot_history_message("us-east-1"),
                              "skipped gcp us-central1: set GCP_API_KEY to fetch the Cloud Billing Catalog"]


def test_a_wrong_gcp_key_is_a_clear_error(tmp_path, server):
    with pytest.raises(FetchError, match="gcp us-central1: HTTP 403"):
        fetch_prices(tmp_path, REGIONS[2:], endpoints=server, gcp_api_key="wrong", today=DAY)
    assert list((tmp_path / "prices").iterdir()) == []


def test_offline_is_one_line_and_leaves_snapshots_untouched(tmp_path, closed_port):
    old = tmp_path / "prices" / "aws-us-east-1-2025-05-01.csv"
    old.parent.mkdir(parents=True)
    old.write_text("previous snapshot")
    with pytest.raises(FetchError) as info:
        fetch_prices(tmp_path, REGIONS, endpoints=Endpoints(closed_port, closed_port, closed_port), today=DAY)
    message = str(info.value)
    assert "\n" not in message and "connection refused" in message and message.startswith("aws us-east-1: offline?")
    assert [p.name for p in (tmp_path / "prices").iterdir()] == [old.name]  # no temp file left behind
    assert old.read_text() == "previous snapshot"


def test_dns_failure_is_reported_as_offline(tmp_path, monkeypatch):
    def no_dns(*args, **kwargs):
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    with pytest.raises(FetchError, match=r"azure eastus: offline\? cannot reach prices.example \(DNS lookup failed\)"):
        fetch_prices(tmp_path, REGIONS[1:2], endpoints=Endpoints(azure="http://prices.example"), today=DAY)


def test_an_error_page_instead_of_a_price_list_is_not_saved(tmp_path, server):
    PriceApi.aws_body = b"<html>maintenance</html>"
    with pytest.raises(FetchError, match="not an AWS Price List CSV"):
        fetch_prices(tmp_path, REGIONS[:1], endpoints=server, today=DAY)
    assert list((tmp_path / "prices").iterdir()) == []


def test_a_next_link_to_another_host_is_refused(tmp_path, server):
    PriceApi.azure_next_host = "http://elsewhere.example"
    with pytest.raises(FetchError, match="next page link leaves 127.0.0.1"):
        fetch_prices(tmp_path, REGIONS[1:2], endpoints=server, today=DAY)


def _run_config(endpoints: Endpoints) -> dict:
    return {"ops": {"fetched_price_files": {"config": {
        "aws_url": endpoints.aws, "azure_url": endpoints.azure, "gcp_url": endpoints.gcp,
        "aws_spot_advisor_url": endpoints.aws_spot_advisor, "timeout_seconds": 10,
        "price_sources": "aws,azure,gcp"}}}}  # the catalogs' fetch: tests/test_prices_fetch_catalogs.py


def test_asset_fetches_when_materialized_alone(tmp_path, server, monkeypatch):
    monkeypatch.setenv("RAW_DIR", str(tmp_path))
    monkeypatch.setenv("GCP_API_KEY", KEY)
    result = dg.materialize([fetched_price_files], run_config=_run_config(server))
    assert result.success
    assert len(list((tmp_path / "prices").iterdir())) == 5
    meta = result.asset_materializations_for_node("fetched_price_files")[0].metadata
    assert len(meta["saved"].value) == 5 and meta["skipped"].value == [spot_history_message("us-east-1")]


def test_asset_skips_itself_in_a_run_of_other_assets(tmp_path, server, monkeypatch):
    monkeypatch.setenv("RAW_DIR", str(tmp_path))

    @dg.asset
    def something_else() -> None:
        return None

    result = dg.materialize([fetched_price_files, something_else], run_config=_run_config(server))
    assert result.success
    assert not (tmp_path / "prices").exists()
    assert result.asset_materializations_for_node("fetched_price_files") == []


def test_asset_fails_with_the_one_line_reason_when_offline(tmp_path, closed_port, monkeypatch):
    monkeypatch.setenv("RAW_DIR", str(tmp_path))
    result = dg.materialize([fetched_price_files], run_config=_run_config(Endpoints(closed_port, closed_port, closed_port)),
                            raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert "connection refused" in str(failure.step_failure_data.user_failure_data.description)


def test_fetch_prices_job_is_loaded_from_the_defs_folder_and_fetches(tmp_path, server, monkeypatch):
    monkeypatch.setenv("RAW_DIR", str(tmp_path))
    monkeypatch.delenv("GCP_API_KEY", raising=False)
    from pipelines.definitions import defs

    job = defs().resolve_job_def("fetch_prices_job")
    result = job.execute_in_process(run_config=_run_config(server))
    assert result.success
    today = calendar_today()  # snapshots are named by the UTC date
    assert sorted(p.name for p in (tmp_path / "prices").iterdir()) == [
        f"aws-savings-plans-us-east-1-{today}.csv", f"aws-spot-advisor-{today}.json", f"aws-us-east-1-{today}.csv",
        f"azure-eastus-{today}.json"]
