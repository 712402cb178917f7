"""Benchmark: regenerating the report, each run in a new (cold) Python process, against floors.

Rows (every run a fresh interpreter, so imports and Dagster's start-up are paid every time):

1. ``python -m pipelines.cli report`` exactly as `make report` runs it:
   a) the first build: no warehouse and no caches (drawn charts, printed PDFs) beside it;
   b) a rerun with nothing changed: the command line observes the raw inputs and the day, asks Dagster what is
      stale or missing (pipelines/freshness.py), finds nothing and builds nothing;
   c) the same rerun with --force: every step runs; the caches the previous run left serve every chart and
      the PDF.
   Against the FLOOR: a process that imports the same libraries (dagster, duckdb, polars, jinja2,
   weasyprint, matplotlib.pyplot), opens the warehouse file, runs one query and writes a one-page PDF with
   WeasyPrint. Goal for b: at most 3x the floor.
   The Dagster instance (DAGSTER_HOME) is the same warm one for every run, as it is for a user (its sqlite
   schema is created by one untimed warm-up run); RAW_DIR is a copy of raw/.
2. The same regeneration with Dagster's default multiprocess executor (a process per step;
   the job is an asset job over the groups of report_job (what `make report` runs), with ``executor_def=dg.multiprocess_executor``, started with ``dg.execute_job`` on a
   reconstructable job) against row 1b (in process). Run once per bench (MULTIPROCESS_REPEATS):
   a process per step costs minutes on a loaded 2-core machine, and one run makes the point.
3. After a new price file: each run adds a snapshot of its own (prices/on_demand_<date>.csv, a new price
   date, p4d.24xlarge a little cheaper each time), then
   a) `make report` (``python -m pipelines.cli report``), and
   b) the daemon's run once the sensor observed the new file (row label: "the sensor's run"): what
      automation requests after a price change, i.e. the assets and checks that
      ``pipelines.defs.regeneration.regeneration`` gives for ``staging_readers(raw_prices)`` (stg_prices and
      everything downstream, the observation of their raw inputs, their checks), executed in process.
   Against one WeasyPrint pass over the same final HTML: a fresh process that imports WeasyPrint, lays out
   the report.html that run published (without its scripts, as the pipeline prints it) and writes the PDF.
   Goal: at most 1.5x (the charts whose points did not move are kept, and the layout starts from the rows
   the last one moved to new pages for their footnotes and the page numbers it found: one layout, not two;
   the pass leaves the numbers to WeasyPrint's target-counter(), as WeasyPrint alone would).
4. Scale: a data set 100x the bundled one (bench/gen_scaled_raw.py: 1,000 instances, 3,000
   mappings, 800 systems, ~900 result rows, ~1,600 prices in 13 snapshots, 200 comparisons).
   a) the pipeline without the report (staging, blocking checks, marts: report_job's groups
      but report), fresh warehouse, against DIRECT: one process that reads the same CSVs and
      report.toml with DuckDB and polars, does the same joins and the cost arithmetic and writes
      cost_to_train.csv (no validation, no Dagster, no report). The two results are compared
      (every cost to train equal within 1e-9 relative) or the benchmark fails. Goal: at most 2x.
      The scaled places' DAGSTER_HOME is created beforehand (untimed), as for rows 1-3.
   b) the full report (HTML and PDF included) on the 100x inputs with the report's scope of the
      bundled one (2 comparisons of 5 instances), fresh warehouse and caches, against 1a: what 100x
      more input costs the report. A report of all 200 comparisons would be ~1,800 pages; rendering
      cost per page is the render benchmark's subject (bench/render_bench.py).

Run: .venv/bin/python -m bench.pipeline_bench [repeats] [--quick]
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
import tempfile
from pathlib import Path

from bench.harness import PYTHON, REPO, BenchError, Sample, bench_env, row, run_callable, run_command

RERUN_GOAL = 3.0
PRICE_GOAL = 1.5
SCALE_GOAL = 2.0
SCALE_FACTOR = 100
MULTIPROCESS_REPEATS = 1
QUICK_FACTOR = 10
FLOOR_LIBS = "dagster, duckdb, polars, jinja2, weasyprint, matplotlib.pyplot"


# ---- what runs in the fresh processes (imports inside: the parent stays light) -----------------

def floor(warehouse: str, pdf: str) -> None:
    """The floor: same libraries imported, the DuckDB file opened and queried, a one-page PDF."""
    import dagster  # noqa: F401
    import duckdb
    import jinja2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    import polars  # noqa: F401
    import weasyprint

    conn = duckdb.connect(warehouse)
    conn.sql("select count(*) from information_schema.tables").fetchall()
    conn.close()
    html = jinja2.Template("<html><body><h1>{{ t }}</h1><p>One page.</p></body></html>").render(t="Floor")
    weasyprint.HTML(string=html).write_pdf(pdf)


def one_pass(html_path: str, pdf: str) -> None:
    """One WeasyPrint pass over a published report.html: lay it out as the pipeline prints it (scripts dropped,
    the templates folder as base) and write the tagged PDF."""
    from weasyprint import HTML

    from pipelines.config import TEMPLATES_DIR
    from pipelines.publish.pdf import TemplatesOnlyFetcher
    from pipelines.publish.render import for_print

    html = for_print(Path(html_path).read_text(encoding="utf-8"))
    HTML(string=html, base_url=str(TEMPLATES_DIR) + "/", url_fetcher=TemplatesOnlyFetcher()).write_pdf(
        pdf, pdf_variant="pdf/ua-1")


def _instance():
    from pipelines.config import Paths
    from pipelines.runs import prepare_instance

    prepare_instance(Paths.from_env())
    import dagster as dg

    return dg.DagsterInstance.get()


def _quiet() -> dict:
    return {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}


def price_change_selection(graph):
    """The assets and checks automation runs after a change to prices/ only (tests/test_sensor.py checks the
    requests)."""
    import dagster as dg

    try:
        from pipelines.defs.regeneration import regeneration, staging_readers
    except ImportError:  # no sensor yet: stg_prices and downstream, with their checks
        keys = set(dg.AssetSelection.assets("stg_prices").downstream().resolve(graph))
        return keys, {c for c in graph.asset_check_keys if c.asset_key in keys}
    assets, checks = regeneration(graph, staging_readers(graph, ["raw_prices"]))
    return set(assets), set(checks)


def run_selection(which: str) -> None:
    """Execute part of the implicit asset job in process: 'prices' (what automation runs after a
    price change) or 'marts' (report_job's groups but the report: staging and marts)."""
    import warnings

    import dagster as dg

    from pipelines.definitions import defs
    from pipelines.defs.jobs import REPORT_GROUPS  # what `make report` builds: never the price fetch

    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    definitions = defs()
    graph = definitions.resolve_asset_graph()
    job = definitions.resolve_implicit_global_asset_job_def()
    if which == "prices":
        assets, checks = price_change_selection(graph)
    elif which == "marts":
        assets = set(dg.AssetSelection.groups(*(g for g in REPORT_GROUPS if g != "report")).resolve(graph))
        checks = {c for c in graph.asset_check_keys if c.asset_key in assets}
    else:
        raise ValueError(which)
    with _instance() as instance:
        result = job.get_subset(asset_selection=assets, asset_check_selection=checks).execute_in_process(
            run_config=_quiet(), instance=instance, raise_on_error=False)
    if not result.success:
        from pipelines.runs import failure_reason

        sys.exit(f"run failed: {failure_reason(result)}")


def multiprocess_job():
    """The implicit asset job with Dagster's default multiprocess executor (reconstructable)."""
    import warnings

    import dagster as dg

    from pipelines.definitions import defs
    from pipelines.defs.jobs import REPORT_GROUPS

    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    job = dg.define_asset_job("bench_multiprocess", selection=dg.AssetSelection.groups(*REPORT_GROUPS),
                              executor_def=dg.multiprocess_executor)
    return dg.Definitions.merge(defs(), dg.Definitions(jobs=[job])).resolve_job_def("bench_multiprocess")


def run_multiprocess() -> None:
    import dagster as dg

    with _instance() as instance:
        result = dg.execute_job(dg.reconstructable(multiprocess_job), instance=instance, run_config=_quiet())
    if not result.success:
        sys.exit("multiprocess run failed")


def direct(raw_dir: str, out_csv: str) -> None:
    """DuckDB and polars alone: read the CSVs and report.toml, join, compute cost, write a CSV."""
    import tomllib

    import duckdb
    import polars as pl

    raw = Path(raw_dir)
    config = tomllib.loads((raw / "report.toml").read_text(encoding="utf-8"))
    rows = []
    for c in config["comparisons"]:
        benches = c.get("benchmarks", config["benchmarks"])
        for position, key in enumerate(c["instances"]):
            provider, itype = key.split("/")
            for bench in benches:
                rows.append((c["id"], position, provider, config["regions"][provider], itype, bench,
                             key == c["baseline"]))
    comparisons = pl.DataFrame(rows, orient="row", schema=["comparison", "position", "provider", "region",
                                                           "instance_type", "benchmark", "is_baseline"])
    conn = duckdb.connect()
    instances = pl.DataFrame(conn.sql(f"select provider, instance_type, accelerator, accelerator_count "
                         f"from read_csv('{raw}/instances.csv')"))
    mappings = pl.DataFrame(conn.sql(f"select provider, instance_type, benchmark, system "
                        f"from read_csv('{raw}/mappings.csv', types={{'system': 'varchar'}})"))
    price_date = config.get("price_date")
    prices_all = conn.sql(f"select provider, region, instance_type, usd_per_hour, as_of::date as as_of "
                          f"from read_csv('{raw}/prices/*.csv', union_by_name=true)")
    limit = f"date '{price_date}'" if price_date else "(select max(as_of) from prices_all)"
    prices = pl.DataFrame(conn.sql(f"select provider, region, instance_type, usd_per_hour from prices_all where as_of <= {limit} "
                      "qualify row_number() over (partition by provider, region, instance_type "
                      "order by as_of desc) = 1"))
    summary = conn.sql(f"select * from read_csv('{raw}/results/*.csv', union_by_name=true, all_varchar=true)")
    meta = ["division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
            "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes",
            "private_id", "details_url", "code_url"]
    bench_cols = [c for c in summary.columns if c not in meta]
    times = pl.DataFrame(conn.sql(
        "with long as (unpivot summary on " + ", ".join(f'"{c}"' for c in bench_cols)
        + " into name benchmark value minutes) "
        "select regexp_extract(details_url, '/systems/([^/]+)\\.json$', 1) as system, benchmark, "
        "minutes::double as time_to_train_minutes from long where minutes <> '' "
        "qualify row_number() over (partition by system, benchmark order by "
        "string_split(regexp_extract(details_url, 'training_results_v([0-9.]+)', 1), '.')::integer[] desc) = 1"
    ))
    cost = (
        comparisons.join(instances, on=["provider", "instance_type"], how="left")
        .join(mappings, on=["provider", "instance_type", "benchmark"], how="left")
        .join(times, on=["system", "benchmark"], how="left")
        .join(prices, on=["provider", "region", "instance_type"], how="left")
        .with_columns((pl.col("usd_per_hour") * pl.col("time_to_train_minutes") / 60.0).alias("cost_to_train_usd"))
    )
    baseline = cost.filter(pl.col("is_baseline")).select(
        "comparison", "benchmark", pl.col("cost_to_train_usd").alias("baseline_cost_usd"),
        pl.col("time_to_train_minutes").alias("baseline_minutes"))
    cost = cost.join(baseline, on=["comparison", "benchmark"], how="left").with_columns(
        (100.0 * (1.0 - pl.col("cost_to_train_usd") / pl.col("baseline_cost_usd"))).alias("savings_pct"),
        (pl.col("baseline_minutes") / pl.col("time_to_train_minutes")).alias("speedup"),
    ).drop("baseline_minutes").sort("comparison", "benchmark", "position")
    cost.write_csv(out_csv)


# ---- the benchmark ---------------------------------------------------------------------------

class _Place:
    """A temporary RAW_DIR copy, reports folder, warehouse and warm DAGSTER_HOME."""

    def __init__(self, root: Path, raw_source: Path | None = None, factor: int | None = None,
                 comparisons: int | None = None):
        self.root = root
        self.raw = root / "raw"
        if factor is not None:
            from bench.gen_scaled_raw import generate

            self.counts = generate(self.raw, factor, comparisons)
        else:
            shutil.copytree(raw_source or REPO / "raw", self.raw)
            self.counts = {}
        self.warehouse = root / "warehouse" / "pipeline.duckdb"
        self.env = bench_env(raw_dir=self.raw, reports_dir=root / "reports", warehouse=self.warehouse,
                             dagster_home=root / "dagster_home")

    def warm_instance(self) -> None:
        """Create DAGSTER_HOME's storage (untimed), as a user's .dagster_home already has it."""
        run_command([PYTHON, "-c", "from pipelines.config import Paths; from pipelines.runs import prepare_instance; "
                                  "prepare_instance(Paths.from_env())"], env=self.env)

    def drop_warehouse(self) -> None:
        """No warehouse, and none of the caches beside it (<warehouse name>_charts/, _pdf/): a first build."""
        for suffix in ("", ".wal"):
            Path(str(self.warehouse) + suffix).unlink(missing_ok=True)
        for cache in ("_charts", "_pdf"):
            shutil.rmtree(self.warehouse.with_name(self.warehouse.stem + cache), ignore_errors=True)

    def one_pass(self) -> Sample:
        """One WeasyPrint pass over the report the last run published."""
        return run_callable("bench.pipeline_bench:one_pass", str(self.root / "reports" / "latest" / "report.html"),
                            str(self.root / "one_pass.pdf"), env=self.env)

    def report(self, *args: str) -> Sample:
        return run_command([PYTHON, "-m", "pipelines.cli", "report", *args], env=self.env)

    def selection(self, which: str) -> Sample:
        return run_callable("bench.pipeline_bench:run_selection", which, env=self.env)

    def multiprocess(self) -> Sample:
        return run_callable("bench.pipeline_bench:run_multiprocess", env=self.env, sample_tree=True)

    def floor(self) -> Sample:
        return run_callable("bench.pipeline_bench:floor", str(self.warehouse), str(self.root / "floor.pdf"),
                            env=self.env)

    def direct(self) -> Sample:
        return run_callable("bench.pipeline_bench:direct", str(self.raw), str(self.root / "direct.csv"),
                            env=self.env)


NEW_SNAPSHOT_INSTANCE = ("aws", "us-east-1", "p4d.24xlarge", 21.957642)  # compared in two comparisons


def add_price_file(raw: Path, run: int) -> Path:
    """A new snapshot, as a user drops one in: prices/on_demand_<a date after every snapshot>.csv with the p4d
    1 % cheaper per run, so every run has a new price date and a new price."""
    from datetime import date, timedelta

    provider, region, instance, price = NEW_SNAPSHOT_INSTANCE
    newest = max(date.fromisoformat(r["as_of"]) for f in (raw / "prices").glob("*.csv")
                 for r in csv.DictReader(f.open(newline="", encoding="utf-8")) if r.get("as_of"))
    day = newest + timedelta(days=1)
    path = raw / "prices" / f"on_demand_{day.isoformat()}.csv"
    path.write_text("provider,region,instance_type,usd_per_hour,as_of,source\n"
                    f"{provider},{region},{instance},{price * (0.99 - 0.01 * run):.6f},{day.isoformat()},"
                    "bench: a new snapshot\n", encoding="utf-8")
    return path


def check_direct_matches(place: _Place) -> int:
    """Every cost to train of the direct script equals the pipeline's mart (relative 1e-9)."""
    import duckdb
    import polars as pl

    with duckdb.connect(str(place.warehouse), read_only=True) as conn:
        ours = pl.DataFrame(conn.sql("select comparison, benchmark, instance_type, cost_to_train_usd from cost_to_train"))
    theirs = pl.read_csv(place.root / "direct.csv").select("comparison", "benchmark", "instance_type",
                                                            "cost_to_train_usd")
    joined = ours.join(theirs, on=["comparison", "benchmark", "instance_type"], how="full", suffix="_direct")
    if joined.height != ours.height or ours.height != theirs.height:
        raise BenchError(f"cost rows differ: pipeline {ours.height}, direct {theirs.height}, joined {joined.height}")
    bad = joined.filter(
        (pl.col("cost_to_train_usd").is_null() != pl.col("cost_to_train_usd_direct").is_null())
        | ((pl.col("cost_to_train_usd") - pl.col("cost_to_train_usd_direct")).abs()
           > 1e-9 * pl.col("cost_to_train_usd").abs())
    )
    if bad.height:
        raise BenchError(f"{bad.height} costs differ between pipeline and direct script, e.g. {bad.row(0)}")
    return ours.height


def step_breakdown(dagster_home: Path, job_name: str | None = None, top: int = 3) -> str:
    """Where the newest successful run (of a job) spent its time: the slowest steps, the rest together."""
    import dagster as dg

    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        filters = dg.RunsFilter(statuses=[dg.DagsterRunStatus.SUCCESS], job_name=job_name)
        records = instance.get_run_records(filters=filters, limit=1)
        if not records:
            return "no run"
        run = records[0].dagster_run
        stats = [s for s in instance.get_run_step_stats(run.run_id) if s.start_time and s.end_time]
        total = instance.get_run_stats(run.run_id)
    steps = sorted(((s.end_time - s.start_time, s.step_key) for s in stats), reverse=True)
    rest = steps[top:]
    parts = [f"{key} {seconds:.2f} s" for seconds, key in steps[:top]]
    if rest:
        parts.append(f"{len(rest)} other steps {sum(x for x, _ in rest):.2f} s")
    span = (total.end_time - total.start_time) if total.start_time and total.end_time else None
    return ", ".join(parts) + (f" (run {span:.2f} s from start to end; the rest of the process is start-up)"
                               if span else "")


def _safe(fn, *args) -> str:
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - a detail must not lose the row
        return f"unavailable ({type(exc).__name__}: {exc})"


def _verdict(ratio: float, goal: float) -> str:
    return "met" if ratio <= goal else "missed"


def measure(repeats: int = 3, quick: bool = False, factor: int | None = None) -> list[dict]:
    """Rows 1a, 1b, 2, 3, 4a, 4b (see the module docstring); ``quick``: scale factor 10, no row 2."""
    factor = factor or (QUICK_FACTOR if quick else SCALE_FACTOR)
    rows = []
    with tempfile.TemporaryDirectory(prefix="pipeline_bench_") as tmp:
        base = _Place(Path(tmp) / "bundled")
        base.report()  # warm-up, untimed: creates DAGSTER_HOME's storage, the warehouse and its caches
        fresh, rerun, forced, floor_s, multi = [], [], [], [], []
        new_file, new_file_pass, sensor, sensor_pass = [], [], [], []
        home = base.root / "dagster_home"
        steps = {}  # row -> where its last run spent the time, read right after that run (later runs are newer)
        for i in range(repeats):
            floor_s.append(base.floor())
            base.drop_warehouse()
            fresh.append(base.report())
            rerun.append(base.report())
            forced.append(base.report("--force"))
            steps["forced"] = _safe(step_breakdown, home, "report_job")
            add_price_file(base.raw, 2 * i)
            new_file.append(base.report())
            steps["new_file"] = _safe(step_breakdown, home, "report_job")
            new_file_pass.append(base.one_pass())
            add_price_file(base.raw, 2 * i + 1)
            sensor.append(base.selection("prices"))
            sensor_pass.append(base.one_pass())
            if i < (0 if quick else MULTIPROCESS_REPEATS):  # a process per step: slow; one run makes the point
                multi.append(base.multiprocess())
        floor_name = f"floor: import {FLOOR_LIBS}; open DuckDB; 1-page PDF"
        rows.append(row("report, first build: no warehouse, no chart or PDF cache", fresh, floor_name, floor_s))
        rows.append(row("report rerun, nothing changed (make report)", rerun, floor_name, floor_s,
                        goal_ratio=RERUN_GOAL))
        rows.append(row("report rerun, nothing changed, --force: every step, charts and PDF from the caches", forced,
                        floor_name, floor_s, last_run_steps=steps["forced"]))
        if multi:
            rows.append(row("report rerun, multiprocess executor", multi,
                            "in-process executor (row above: --force)", forced[:len(multi)]))
        pass_name = "one WeasyPrint pass over that run's report.html (fresh process)"
        rows.append(row("after a new price file: make report", new_file, pass_name, new_file_pass,
                        goal_ratio=PRICE_GOAL, last_run_steps=steps["new_file"]))
        rows.append(row("after a new price file: the sensor's run", sensor, pass_name, sensor_pass,
                        goal_ratio=PRICE_GOAL, last_run_steps=_safe(step_breakdown, home, "__ASSET_JOB")))

        scaled = _Place(Path(tmp) / f"x{factor}", factor=factor)
        scaled_report = _Place(Path(tmp) / f"x{factor}_report", factor=factor, comparisons=2)
        scaled.warm_instance()
        scaled_report.warm_instance()
        marts, direct_s, big_report = [], [], []
        for _ in range(repeats):
            direct_s.append(scaled.direct())
            scaled.drop_warehouse()
            marts.append(scaled.selection("marts"))
            scaled_report.drop_warehouse()
            big_report.append(scaled_report.report())
        compared = check_direct_matches(scaled)
        sizes = ", ".join(f"{v:,} {k}" for k, v in scaled.counts.items())
        rows.append(row(f"x{factor} data: staging + checks + marts (no report), fresh warehouse", marts,
                        "DuckDB + polars directly: same CSVs, joins, cost, CSV out", direct_s,
                        goal_ratio=SCALE_GOAL, data=sizes, costs_compared=compared,
                        last_run_steps=_safe(step_breakdown, scaled.root / "dagster_home", "__ASSET_JOB")))
        rows.append(row(f"x{factor} data, full report of the bundled scope (2 comparisons), first build",
                        big_report, "report, first build (row 1a)", fresh))
    for r in rows:
        r["ratio"] = round(r["median_s"] / r["ref_median_s"], 2)
        if "goal_ratio" in r:
            r["verdict"] = _verdict(r["ratio"], r["goal_ratio"])
    return rows


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for r in measure(int(args[0]) if args else 3, quick="--quick" in sys.argv):
        print(json.dumps(r))
