"""Benchmark: reading a 1 GB AWS Price List CSV, against a bare DuckDB scan and against pandas.

    python -m bench.aws_price_bench [--repeats 3] [--size-gb 1.0]

The file holds on-demand rows and reserved terms as AWS lists them (per product 1 OnDemand row
and 12 reserved terms in 20 rows). Three measurements, each in a fresh subprocess so its peak RSS
(VmHWM, interpreter and imports included) is its own: (a) our read_price_file (every pricing
model of the file: on-demand and reserved price rows of our five instances, 5 x 13 = 65), (b)
DuckDB `select count(*) from read_csv(...)` with the same dialect options (the floor for any
reader that has to tokenize the file), (c) pandas read_csv of the whole file, then the same
filter and the same pairing of each reserved term's Hrs and Upfront Fee rows. Each run's kept
rows are checked against the 65 the file was written with.
Runs are interleaved and the file is read once beforehand, so every run sees a warm page cache.
Time is measured in the worker around the read only (not interpreter start-up).
Goals: (a) within 1.5x of (b), peak memory under 1 GB.

The file is generated once (bench/gen_aws_price_csv.py) into bench/out/ when that folder exists
(it is git-ignored and reused), otherwise into a temporary folder removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
OUT = REPO_ROOT / "bench" / "out"
REFERENCE = "DuckDB count(*) over read_csv"
GOAL_RATIO = 1.5
GOAL_PEAK_MIB = 1024
EXPECTED_ROWS = 65  # 5 instances x (1 on-demand + 12 reserved terms), as bench/gen_aws_price_csv.py writes them


# --- workers (run in a fresh interpreter) -------------------------------------------------------

def _work_ours(path: str) -> int:
    import polars as pl

    from bench.gen_aws_price_csv import OUR_INSTANCES
    from pipelines.ingest.prices import read_price_file

    instances = pl.DataFrame({
        "provider": ["aws"] * len(OUR_INSTANCES), "instance_type": list(OUR_INSTANCES),
        "accelerator": ["GPU"] * len(OUR_INSTANCES), "accelerator_count": [8] * len(OUR_INSTANCES),
        "accelerator_memory_gb": [40.0] * len(OUR_INSTANCES), "vcpus": [96] * len(OUR_INSTANCES),
        "memory_gib": [1152.0] * len(OUR_INSTANCES),
    })
    start = time.perf_counter()
    frame = read_price_file(Path(path), instances)
    _report(start, frame.height)


def _work_duckdb(path: str) -> None:
    import duckdb

    start = time.perf_counter()
    conn = duckdb.connect()
    (count,) = conn.sql(
        "select count(*) from read_csv($path, skip = 6, header = false, all_varchar = true, "
        "delim = ',', quote = '\"', escape = '\"')",
        params={"path": path},
    ).fetchall()[0]
    _report(start, count)


def _work_pandas(path: str) -> None:
    import pandas as pd

    from bench.gen_aws_price_csv import OUR_INSTANCES

    start = time.perf_counter()
    df = pd.read_csv(path, skiprows=5, dtype=str, keep_default_na=False)  # "NA" is a value here
    kept = df[
        df["TermType"].isin(["OnDemand", "Reserved"]) & df["Unit"].isin(["Hrs", "Quantity"])
        & df["Product Family"].isin(["Compute Instance", "Compute Instance (bare metal)"])
        & (df["Operating System"] == "Linux") & (df["Pre Installed S/W"] == "NA")
        & (df["License Model"] == "No License required") & (df["Tenancy"] == "Shared")
        & (df["CapacityStatus"] == "Used") & df["usageType"].str.contains("BoxUsage", na=False)
        & df["MarketOption"].isin(["", "OnDemand"]) & df["Instance Type"].isin(list(OUR_INSTANCES))
    ].copy()
    kept["price"] = kept["PricePerUnit"].astype(float)
    years = kept["LeaseContractLength"].map({"1yr": 1, "3yr": 3})
    kept["hourly"] = kept["price"].where(kept["Unit"] == "Hrs", kept["price"] / (years * 8760))
    terms = kept.groupby(["SKU", "OfferTermCode"])["hourly"].sum()  # Hrs + Upfront Fee / term hours
    _report(start, int((terms > 0).sum()))


def _report(start: float, rows: int) -> None:
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mib": _peak_mib(), "rows": rows}))


def _peak_mib() -> float:
    """This process's peak resident memory. VmHWM belongs to the process's own address space;
    ru_maxrss would also carry the parent's peak across fork and exec on Linux."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


WORKERS = {"ours": _work_ours, "duckdb": _work_duckdb, "pandas": _work_pandas}


# --- driver -------------------------------------------------------------------------------------

def _run_worker(kind: str, path: Path) -> dict:
    env = os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "bench.aws_price_bench", "--worker", kind, str(path)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{kind} worker failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _summary(runs: list[dict]) -> tuple[float, float, float]:
    seconds = [r["seconds"] for r in runs]
    return statistics.median(seconds), max(seconds) - min(seconds), max(r["peak_mib"] for r in runs)


def _warm(path: Path) -> None:
    with path.open("rb") as handle:
        while handle.read(16 << 20):
            pass


def _label(size_gb: float) -> str:
    return f"{size_gb:g} GB"


def measure(repeats: int = 3, size_gb: float = 1.0) -> list[dict]:
    """Median and spread of time, and peak memory, of our reader and pandas against DuckDB's scan."""
    from bench.gen_aws_price_csv import generate

    with tempfile.TemporaryDirectory() as tmp:
        folder = OUT if OUT.is_dir() else Path(tmp)
        path = folder / f"aws_ec2_us-east-1_{size_gb:g}gb_with_reserved.csv"  # the name says the row mix
        if not path.exists():
            generate(path, size_gb)
        _warm(path)
        runs: dict[str, list[dict]] = {kind: [] for kind in WORKERS}
        for _ in range(repeats):
            for kind in WORKERS:  # interleaved, so drift hits every reader alike
                runs[kind].append(_run_worker(kind, path))
        file_gb = path.stat().st_size / 1e9
    for kind in ("ours", "pandas"):
        wrong = [r["rows"] for r in runs[kind] if r["rows"] != EXPECTED_ROWS]
        if wrong:
            raise RuntimeError(f"{kind} kept {wrong[0]} price rows, the file holds {EXPECTED_ROWS}")
    ref_median, ref_spread, ref_peak = _summary(runs["duckdb"])
    rows = []
    for kind, name in (("ours", f"ingest {_label(size_gb)} AWS price CSV"),
                       ("pandas", f"pandas read_csv + filter, {_label(size_gb)} AWS price CSV")):
        median, spread, peak = _summary(runs[kind])
        rows.append({
            "name": name, "median_s": round(median, 3), "spread_s": round(spread, 3), "peak_mib": round(peak),
            "reference": REFERENCE, "ref_median_s": round(ref_median, 3), "ref_spread_s": round(ref_spread, 3),
            "ref_peak_mib": round(ref_peak), "ratio": round(median / ref_median, 2),
            "rows_kept": runs[kind][0]["rows"], "rows_scanned": runs["duckdb"][0]["rows"],
            "file_gb": round(file_gb, 2), "repeats": repeats,
            "within_goal": median / ref_median <= GOAL_RATIO and peak < GOAL_PEAK_MIB,
        })
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("path", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        WORKERS[args.worker](args.path)
        return
    rows = measure(args.repeats, args.size_gb)
    for row in rows:
        print(f"{row['name']}: median {row['median_s']} s (spread {row['spread_s']}), peak {row['peak_mib']} MiB, "
              f"{row['ratio']}x of {row['reference']} ({row['ref_median_s']} s, spread {row['ref_spread_s']}, "
              f"peak {row['ref_peak_mib']} MiB); kept {row['rows_kept']} of {row['rows_scanned']} rows; "
              f"goal {'met' if row['within_goal'] else 'NOT met'}")
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
