"""Benchmark: the streaming fetch of a GPU cloud's catalog, a RunPod-sized file against a Lambda-sized one.

    python -m bench.catalog_fetch_bench [--repeats 3]

Two catalogs are written from real rows (RunPod's and Lambda's v8 layouts, one row of each, as in
tests/data/skypilot, repeated over generated instance types, regions and zones): RunPod-sized (about 2.1 MB, rows repeated
per zone, so the large-file rule of one row per distinct price applies) and Lambda-sized (about 74 KB).
Both are served by `python -m http.server` in a child process on 127.0.0.1 and fetched by
pipelines/ingest/catalog_fetch.py in this process; the peak is the Python heap allocated during the
fetch (tracemalloc), so the server's memory is not counted. The price reader (pipelines/ingest/prices/skypilot.py)
then reads each served file whole, the RunPod-sized one unreduced. Goal: the RunPod-sized file's peak no
higher than about the Lambda-sized one's (memory flat in the file's size), for the fetch and the read.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import date
from pathlib import Path

from bench.harness import Sample, row

# A real row of each file (catalogs/v8/runpod/vms.csv@01acdfd4, catalogs/v8/lambda/vms.csv@0f407038)
RUNPOD = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region,SpotPrice,Price,AvailabilityZone,GpuInfo",
          "1x_A100-80GB_SECURE,A100-80GB,1.0,8.0,117.0,IN,1.39,1.39,AP-IN-1,\"{'Gpus': [{'Name': 'A100 PCIe', "
          "'Manufacturer': 'Nvidia', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 80}}], 'TotalGpuMemoryInMiB': 80}\"")
LAMBDA = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice",
          "gpu_8x_v100,V100,8.0,92.0,448.0,6.32,us-east-1,\"{'Gpus': [{'Name': 'V100', 'Manufacturer': 'NVIDIA', "
          "'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",")
GPUS = ("A100-80GB", "H100-SXM", "H100-PCIe", "H200-SXM", "B200", "L40S", "RTX4090", "RTX5090", "A40", "L4",
        "RTXA6000", "MI300X")
REGIONS = ("IN", "JP", "CA", "CZ", "DK", "FR", "NL", "RO", "SE", "IS", "NO", "AU", "SG", "US", "DE", "GB")


def write_runpod(path: Path, target_bytes: int) -> int:
    """A RunPod-layout catalog of about target_bytes: each type in every region over several zones."""
    header, template = RUNPOD
    rows, size, n = [header], len(header), 0
    while size < target_bytes:
        gpu = GPUS[n % len(GPUS)]
        count = (1, 2, 4, 8)[(n // len(GPUS)) % 4]
        kind = ("SECURE", "COMMUNITY")[(n // (4 * len(GPUS))) % 2]
        name = f"{count}x_{gpu}_{kind}-{n // (8 * len(GPUS))}"
        for r, region in enumerate(REGIONS):
            for zone in range(1 + (n + r) % 6):
                line = template.replace("1x_A100-80GB_SECURE", name).replace(",IN,", f",{region},", 1) \
                    .replace("AP-IN-1", f"{region}-Z-{zone}")
                rows.append(line)
                size += len(line) + 1
        n += 1
    path.write_text("\n".join(rows) + "\n")
    return len(rows) - 1


def write_lambda(path: Path, target_bytes: int) -> int:
    """A Lambda-layout catalog of about target_bytes: each type in each region once."""
    header, template = LAMBDA
    rows, size, n = [header], len(header), 0
    while size < target_bytes:
        line = template.replace("gpu_8x_v100", f"gpu_{n // 17}x_type").replace("us-east-1", f"region-{n % 17}")
        rows.append(line)
        size += len(line) + 1
        n += 1
    path.write_text("\n".join(rows) + "\n")
    return len(rows) - 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fetch_once(url: str, cloud: str) -> Sample:
    from pipelines.ingest.catalog_fetch import fetch_catalogs

    out = Path(tempfile.mkdtemp(prefix="catalog-fetch-bench-"))
    try:
        tracemalloc.start()
        start = time.perf_counter()
        report = fetch_catalogs(out, [cloud], url, today=date(2026, 12, 6))
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        if report.failed or not report.saved:
            raise RuntimeError(f"fetch of {cloud} failed: {report.failed}")
        return Sample(seconds, peak / 2**20)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _read_once(path: Path, cloud: str) -> Sample:
    """The price reader over a whole catalog file as served (RunPod's with its rows per zone, not reduced)."""
    from pipelines.ingest.prices.skypilot import read_catalog

    tracemalloc.start()
    start = time.perf_counter()
    catalog = read_catalog(path, f"skypilot_2026-12-06/{cloud}/vms.csv")
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    if not catalog.prices.height:
        raise RuntimeError(f"no price read from {path}")
    return Sample(seconds, peak / 2**20)


def kept_copy(url: str, folder: Path) -> Path:
    """RunPod's catalog as the fetch keeps it (one row per distinct price and region), in `folder`."""
    from pipelines.ingest.catalog_fetch import fetch_catalogs

    return fetch_catalogs(folder, ["runpod"], url, today=date(2026, 12, 6)).saved[0]


def measure(repeats: int = 3) -> list[dict]:
    served = Path(tempfile.mkdtemp(prefix="catalog-fetch-served-"))
    port = _free_port()
    try:
        (served / "runpod").mkdir()
        (served / "lambda").mkdir()
        big_rows = write_runpod(served / "runpod" / "vms.csv", 2_167_070)  # RunPod's v8 file, 2026-12
        small_rows = write_lambda(served / "lambda" / "vms.csv", 73_947)  # Lambda's
        server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                   "--directory", str(served)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(50):  # wait for the server to listen
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            _fetch_once(url, "lambda")  # warm imports and the page cache
            big, small = [], []
            for _ in range(repeats):
                big.append(_fetch_once(url, "runpod"))
                small.append(_fetch_once(url, "lambda"))
            reduced = kept_copy(url, served / "kept")
        finally:
            server.terminate()
            server.wait(timeout=10)
        mb = (served / "runpod" / "vms.csv").stat().st_size / 1e6
        kb = (served / "lambda" / "vms.csv").stat().st_size / 1e3
        # the read: the served file whole against the fetch's reduction of it (one row per distinct price and
        # region), which gives the same offers and prices: what the read holds grows with the offers, not the rows
        _read_once(reduced, "runpod")  # warm imports
        whole_read = [_read_once(served / "runpod" / "vms.csv", "runpod") for _ in range(repeats)]
        reduced_read = [_read_once(reduced, "runpod") for _ in range(repeats)]
        reduced_kb = reduced.stat().st_size / 1e3
        return [row(f"catalog fetch, RunPod-sized vms.csv ({mb:.1f} MB, {big_rows:,} rows; Python heap peak)", big,
                    f"Lambda-sized vms.csv ({kb:.0f} KB, {small_rows:,} rows)", small),
                row(f"catalog read (prices reader), RunPod-sized vms.csv as served ({mb:.1f} MB, {big_rows:,} rows; "
                    "Python heap peak)", whole_read,
                    f"the same catalog as the fetch keeps it ({reduced_kb:.0f} KB: one row per price and region)",
                    reduced_read)]
    finally:
        shutil.rmtree(served, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    print(json.dumps(measure(parser.parse_args().repeats), indent=2))
