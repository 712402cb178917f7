"""`python -m pipelines.atlas --mlperf-dir DIR`: score every MLPerf Training round in DIR, price
every result on the cloud instances with the same accelerators, and publish the atlas to
REPORTS_DIR/atlas/<price date>/ (atlas.html, atlas.pdf, data/*.csv|parquet).

Why a command and not Dagster assets: the atlas reads a multi-gigabyte folder given on the command
line, outside RAW_DIR, and shares nothing with the main report's lineage; assets in pipelines/defs
would join the implicit job that `make report` and the automation sensor run. The steps are the
same pure functions (ingest, metrics, publish) and the same warehouse (atlas_* tables).

Bad input ends with one line naming the file, the place and the problem (exit 1).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import date
from pathlib import Path

from pipelines.config import Paths
from pipelines.errors import InputError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.atlas", description=__doc__.splitlines()[0])
    parser.add_argument("--mlperf-dir", default=os.environ.get("MLPERF_DIR"),
                        help="folder holding training_results_v0.7 ... v5.1 (default: $MLPERF_DIR)")
    parser.add_argument("--price-date", type=date.fromisoformat, default=None,
                        help="prices in force on this date (default: the newest atlas price)")
    parser.add_argument("--workers", type=int, default=None, help="processes scoring logs (default: CPUs)")
    args = parser.parse_args(argv)
    if not args.mlperf_dir:
        print("error: give the MLPerf folder: --mlperf-dir DIR or MLPERF_DIR=DIR", file=sys.stderr)
        return 2
    from pipelines.atlas.build import build

    paths = Paths.from_env()
    started = time.perf_counter()
    try:
        published = build(Path(args.mlperf_dir).expanduser(), paths.raw_dir, paths.reports_dir, paths.warehouse,
                          price_date=args.price_date, workers=args.workers)
    except InputError as error:
        print(f"error: bad input: {' '.join(str(error).split())}", file=sys.stderr)
        return 1
    print(f"atlas: {published / 'atlas.html'}")
    print(f"pdf:   {published / 'atlas.pdf'}")
    print(f"data:  {published / 'data'}")
    print(f"took:  {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
