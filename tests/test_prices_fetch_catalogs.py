"""The fetch of the GPU clouds' public catalogs (SkyPilot's <cloud>/vms.csv) against a local HTTP server
serving real catalog rows (tests/data/skypilot/README.md says from which file and commit); never the
real internet."""

from __future__ import annotations

import csv
import shutil
import threading
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import polars as pl
import pytest

from pipelines import cli
from pipelines.config import today
from pipelines.ingest.accelerators import read_catalog_table
from pipelines.ingest.catalog_fetch import fetch_catalogs, previous_snapshot
from pipelines.ingest.catalog_instances import read_aliases, resolve, unknown_accelerators
from pipelines.ingest.fetch_all import Choice, fetch_all
from pipelines.ingest.price_fetch import FetchError, Offline
from pipelines.ingest.prices import read_price_folder
from pipelines.ingest.prices.skypilot import read_catalog_folder
from tests.test_prices_fetch import closed_port  # noqa: F401 (fixture)

DATA = Path(__file__).resolve().parent / "data" / "skypilot"
RAW = Path(__file__).resolve().parents[1] / "raw"
DAY = date(2026, 12, 6)


class Catalogs(BaseHTTPRequestHandler):
    """Serves <cloud>/vms.csv from `files` (cloud -> bytes); anything else is a 404."""

    files: dict[str, bytes] = {}

    def do_GET(self):  # noqa: N802 (http.server's naming)
        parts = self.path.strip("/").split("/")
        body = self.files.get(parts[-2]) if len(parts) >= 2 and parts[-1] == "vms.csv" else None
        if body is None:
            body = b"404: Not Found"
            self.send_response(404)
        else:
            self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # keep test output quiet
        pass


def fixture(name: str) -> bytes:
    return (DATA / name).read_bytes()


@pytest.fixture
def catalog_url():
    Catalogs.files = {"lambda": fixture("lambda_vms.csv"), "vast": fixture("vast_vms.csv"),
                      "runpod": fixture("runpod_vms.csv")}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Catalogs)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/catalogs/v8"
    httpd.shutdown()
    httpd.server_close()


def data_rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def fetch_env(monkeypatch, tmp_path: Path, url: str, clouds: str) -> Path:
    """`prices fetch` of the catalogs only, into tmp_path/raw, run history in tmp_path/home."""
    monkeypatch.setenv("RAW_DIR", str(tmp_path / "raw"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PRICE_SOURCES", "skypilot")
    monkeypatch.setenv("SKYPILOT_CLOUDS", clouds)
    monkeypatch.setenv("SKYPILOT_CATALOG_URL", url)
    # the command line writes every path setting into the environment (runs.prepare_instance): each is set
    # here (empty reads as unset) so that monkeypatch removes it after the test, never leaving it for the next
    # test of this process (delenv of an unset name records nothing to undo)
    for name in ("REPORTS_DIR", "WAREHOUSE", "ATLAS_ROUNDS_DIR", "MLPERF_DIR"):
        monkeypatch.setenv(name, "")
    return tmp_path / "raw" / "prices"


def test_prices_fetch_writes_each_catalog_with_gpu_rows_only_and_the_reader_reads_them(
        tmp_path, catalog_url, monkeypatch, capsys):
    prices = fetch_env(monkeypatch, tmp_path, catalog_url, "lambda,vast")
    assert cli.main(["prices", "fetch"]) == 0
    day = today().isoformat()
    folder = prices / f"skypilot_{day}"
    out = capsys.readouterr()
    assert out.out.splitlines() == [f"saved:   {folder / 'lambda' / 'vms.csv'}", f"saved:   {folder / 'vast' / 'vms.csv'}"]
    assert not out.err
    # the header and the GPU rows as published, the CPU row left out; vast's rows all have GPUs
    lam = data_rows(folder / "lambda" / "vms.csv")
    published = data_rows(DATA / "lambda_vms.csv")
    assert lam == [published[0]] + [row for row in published[1:] if row[1]]
    assert [row[0] for row in lam[1:]] == ["gpu_8x_v100", "gpu_8x_h100_sxm5"]
    assert data_rows(folder / "vast" / "vms.csv") == data_rows(DATA / "vast_vms.csv")
    note = (folder / "lambda" / "SOURCE.md").read_text()
    assert f"- source: {catalog_url}/lambda/vms.csv" in note and "- commit: not given" in note
    assert "- rows: 2 of 3 kept" in note
    # nothing else left in the price folder (no temporary folder)
    assert sorted(p.name for p in prices.iterdir()) == [f"skypilot_{day}"]

    # the price reader reads them (and skips the notes)
    catalog = read_catalog_folder(prices)
    assert sorted(catalog.offers["provider"].unique()) == ["lambda", "vast"]
    instances = pl.DataFrame({"provider": ["lambda", "vast"], "instance_type": ["gpu_8x_h100_sxm5", "8x-H100_SXM-32-65536"],
                              "accelerator": ["H100", "H100"], "accelerator_count": [8, 8],
                              "accelerator_memory_gb": [80.0, 80.0], "vcpus": [208, 32], "memory_gib": [1800.0, 64.0]})
    read = read_price_folder(prices, instances)
    assert sorted((r["provider"], r["region"], r["usd_per_hour"], r["offer_kind"]) for r in read.to_dicts()) == [
        ("lambda", "us-east-1", 31.92, "list"), ("vast", "Vietnam, VN, AS", 16.0, "marketplace")]

    # again the same day: an existing snapshot is kept, never overwritten
    Catalogs.files["lambda"] = fixture("vast_vms.csv")
    assert cli.main(["prices", "fetch"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith(f"kept:    {folder / 'lambda' / 'vms.csv'}")
    assert data_rows(folder / "lambda" / "vms.csv") == lam


def test_a_large_catalog_keeps_one_row_per_distinct_price(tmp_path, catalog_url):
    # RunPod repeats a region's price per availability zone: 3 CA zones at one price are one row
    report = fetch_catalogs(tmp_path, ["runpod"], catalog_url, today=DAY)
    assert [p.parent.name for p in report.saved] == ["runpod"] and not report.failed
    kept = data_rows(report.saved[0])
    assert kept[0] == data_rows(DATA / "runpod_vms.csv")[0]
    assert [(row[0], row[5], row[7]) for row in kept[1:]] == [("1x_A100-80GB_SECURE", "IN", "1.39"),
                                                              ("1x_A100-80GB_SECURE", "CA", "1.39")]
    assert read_catalog_folder(tmp_path / "prices").offers["instance_type"].to_list() == ["1x_A100-80GB_SECURE"]


def test_one_cloud_failing_leaves_the_others_and_exits_non_zero(tmp_path, catalog_url, monkeypatch, capsys):
    prices = fetch_env(monkeypatch, tmp_path, catalog_url, "lambda,nebius")  # nebius: 404
    assert cli.main(["prices", "fetch"]) == 1
    out = capsys.readouterr()
    day = today().isoformat()
    assert out.out.splitlines() == [f"saved:   {prices / f'skypilot_{day}' / 'lambda' / 'vms.csv'}"]
    assert out.err.splitlines() == [f"error: skypilot nebius: HTTP 404 Not Found from {catalog_url}/nebius/vms.csv"]
    assert sorted(p.name for p in (prices / f"skypilot_{day}").iterdir()) == ["lambda"]
    assert sorted(p.name for p in prices.iterdir()) == [f"skypilot_{day}"]  # nothing of nebius's left behind


def test_an_error_page_or_a_cut_off_file_is_not_saved(tmp_path, catalog_url):
    Catalogs.files["lambda"] = b"<html><body>rate limited</body></html>\n"
    Catalogs.files["vast"] = fixture("vast_vms.csv").rsplit(b",", 3)[0]  # the last row cut off mid-line
    report = fetch_catalogs(tmp_path, ["lambda", "vast"], catalog_url, today=DAY)
    assert report.saved == [] and len(report.failed) == 2
    assert report.failed[0].startswith(f"skypilot lambda: {catalog_url}/lambda/vms.csv:1 is not a SkyPilot catalog: "
                                       "no column(s) InstanceType, AcceleratorName")
    assert report.failed[1] == f"skypilot vast: {catalog_url}/vast/vms.csv:5 has 8 fields, the header has 9 (cut off?)"
    assert list((tmp_path / "prices").iterdir()) == []


def test_nothing_reachable_writes_nothing_and_is_one_line(tmp_path, closed_port, monkeypatch, capsys):  # noqa: F811
    with pytest.raises(Offline) as info:
        fetch_all(tmp_path, Choice(sources=("skypilot",), clouds=("lambda", "vast"), catalog_url=closed_port), [],
                  today=DAY, timeout=5)
    message = str(info.value)
    assert "\n" not in message and message == ("offline? no price source could be reached (skypilot lambda: offline? "
                                               f"cannot reach {closed_port[7:]} (connection refused)); nothing was written")
    assert list((tmp_path / "prices").iterdir()) == []
    # through the command line: one line on stderr, nothing on stdout, exit status 1
    prices = fetch_env(monkeypatch, tmp_path / "cli", closed_port, "lambda,vast")
    assert cli.main(["prices", "fetch", "--timeout", "5"]) == 1
    out = capsys.readouterr()
    assert not out.out and len(out.err.splitlines()) == 1
    assert out.err.startswith("error: fetching today's price lists failed: offline? no price source could be reached")
    assert not any(prices.rglob("*"))


def test_a_catalog_whose_gpu_rows_fell_by_more_than_half_is_kept_aside(tmp_path, catalog_url):
    prices = tmp_path / "prices"
    previous = prices / "skypilot_2026-12-04" / "lambda" / "vms.csv"
    previous.parent.mkdir(parents=True)
    previous.write_bytes(fixture("lambda_vms.csv") + fixture("lambda_b200_gh200.csv"))  # 4 GPU rows
    published = fixture("lambda_vms.csv").splitlines(keepends=True)
    Catalogs.files["lambda"] = b"".join(published[:2] + published[3:])  # header, CPU row, H100: 1 GPU row
    report = fetch_catalogs(tmp_path, ["lambda", "vast"], catalog_url, today=DAY)
    aside = prices / ".rejected" / "skypilot_2026-12-06" / "lambda" / "vms.csv"
    assert report.rejected == [f"skypilot lambda: 1 GPU rows against 4 in skypilot_2026-12-04/lambda/vms.csv "
                               f"(fell by more than half): not used, kept aside as {aside}"]
    assert [p.parent.name for p in report.saved] == ["vast"]  # the other cloud is kept
    assert not (prices / "skypilot_2026-12-06" / "lambda").exists() and aside.is_file()
    # the reader never sees the rejected copy: lambda's offers are still the previous snapshot's
    lam = read_catalog_folder(prices).prices.filter(pl.col("provider") == "lambda")
    assert set(lam["as_of"]) == {date(2026, 12, 4)}
    assert previous_snapshot(prices, "lambda", DAY) == previous
    # a fall of exactly half is accepted
    Catalogs.files["lambda"] = fixture("lambda_vms.csv")
    report = fetch_catalogs(tmp_path, ["lambda"], catalog_url, today=date(2026, 12, 7))
    assert report.rejected == [] and [p.parent.name for p in report.saved] == ["lambda"]


def test_unknown_names_are_one_line_naming_the_known_ones(monkeypatch, capsys):
    with pytest.raises(FetchError) as info:
        Choice.from_env(sources="skypilot,azur")
    assert str(info.value) == ("PRICE_SOURCES: unknown name 'azur'; did you mean 'azure'? "
                               "(known: skypilot, aws, azure, gcp)")
    monkeypatch.setenv("SKYPILOT_CLOUDS", "lambda,coreweave")
    monkeypatch.delenv("PRICE_SOURCES", raising=False)
    assert cli.main(["prices", "fetch"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: SKYPILOT_CLOUDS: unknown name 'coreweave' (known: lambda,")
    assert "yotta, daytona, aws, gcp, azure)" in err
    assert Choice.from_env(sources="", clouds=" lambda , vast,lambda").clouds == ("lambda", "vast")


def test_unknown_accelerators_of_a_fetched_catalog_are_one_warning_line(tmp_path, catalog_url, capsys):
    fetch_catalogs(tmp_path, ["lambda", "vast"], catalog_url, today=DAY)
    offers = read_catalog_folder(tmp_path / "prices").offers
    models = [m for m in read_catalog_table(RAW / "accelerators.csv")["cloud_model"].to_list() if m]
    unknown = unknown_accelerators(resolve(offers, read_aliases(RAW / "accelerator_aliases.csv", models)))
    report = tmp_path / "report"
    (report / "data").mkdir(parents=True)
    unknown.write_csv(report / "data" / cli.UNKNOWN_ACCELERATORS)  # as report_data exports the mart
    cli.warn_unknown_accelerators(report)
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    # Lambda's V100 states no form factor (16 or 32 GB SXM2, or PCIe): named, never guessed; nor is the RTX 5090 in
    # the alias table. Vast's 8x H100 SXM is priced (its SizeInMiB, the memory of all 8 GPUs, read per GPU; SXM from
    # its type), and its bare 1x H200 is the SXM part (the alias table: NVIDIA's H200 card is always named NVL)
    assert err == ("warning: 2 accelerator(s) of the GPU clouds' catalogs unknown to accelerator_aliases.csv, "
                   "2 offer(s) never priced: RTX5090 (vast: 1 offer); "
                   f"V100 (lambda: 1 offer) (listed in {report / 'data' / cli.UNKNOWN_ACCELERATORS})\n")
    # no unknown accelerator, no line
    unknown.clear().write_csv(report / "data" / cli.UNKNOWN_ACCELERATORS)
    cli.warn_unknown_accelerators(report)
    assert capsys.readouterr().err == ""


def test_the_step_that_matches_offers_counts_the_unknown_accelerators_in_its_metadata(tmp_path, catalog_url):
    from tests.pipeline_runner import make_dirs, run_pipeline

    dirs = make_dirs(tmp_path)
    for folder in (dirs.raw / "prices").glob("skypilot_*"):  # only the fetched catalogs: the counts are known
        shutil.rmtree(folder)
    fetch_catalogs(dirs.raw, ["lambda", "vast"], catalog_url, today=DAY)
    result = run_pipeline(dirs, selection=["stg_accelerators", "stg_catalog_offers"])
    assert result.success
    meta = result.asset_materializations_for_node("stg_catalog_offers")[0].metadata
    assert (meta["unknown_accelerator_count"].value, meta["unknown_accelerator_offers"].value) == (2, 2)
    assert "- RTX5090: 1 offer(s) (vast)" in meta["unknown_accelerators"].value
