"""The command line: `python -m pipelines.cli COMMAND` (the make targets run these in .venv).

Bad input ends a command with one line naming the file, the place and the problem (exit status 2;
any other failure 1), never a stack trace; the published reports are left as they were. Runs are recorded in the data
set's DAGSTER_HOME, so they show in the Dagster UI with their lineage.

Imports stay light at the top (the standard library and modules that use nothing else): `--help`
answers at once and `make clean` runs without the virtual environment; each command imports the
heavy packages (Dagster, polars) it needs.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import time
from pathlib import Path

from pipelines.config import REMEMBERED, SETTINGS, Paths, remember
from pipelines.runs import failure_reason, run_job

PROG = "python -m pipelines.cli"
WIDTH = 100  # of --help, whatever the terminal

ABOUT = """\
The cost-to-train report: which cloud instance trains a model for the least money, and how much
that saves against the instance you use now, from MLPerf Training results and the cloud
providers' price lists. Every command works on one data set, the folder RAW_DIR; its reports,
warehouse and run history stay in folders of their own (see the settings), so one data set's
reports never replace another's."""

EXAMPLES = """\
examples:
  python -m pipelines.cli report                         # the bundled data: reports/<price date>/
  RAW_DIR=~/my-data python -m pipelines.cli report       # your data: ~/my-data/reports/<price date>/
  python -m pipelines.cli atlas --mlperf-dir ~/mlperf    # the MLPerf atlas: REPORTS_DIR/atlas/<price date>/
  GCP_API_KEY=... python -m pipelines.cli prices fetch   # today's price lists into RAW_DIR/prices/
  python -m pipelines.cli ui                             # the Dagster UI on http://127.0.0.1:3000
  python -m pipelines.cli estimate --parameters 8e9 --tokens 15e12 --sequence-length 8192   # your model's cost

`make report`, `make atlas MLPERF_DIR=...`, `make prices` and `make ui` run these commands in .venv
(`make` sets it up first); `python -m pipelines.cli COMMAND --help` says more about a command."""


def settings_help(names: list[str] | None = None) -> str:
    """The settings (all, or those named): meaning, default and the value they have now."""
    chosen = [s for s in SETTINGS if names is None or s.name in names]
    now = current_settings()
    width = max(len(s.name) for s in chosen) + 2
    lines = ["settings (environment variables):"]
    for s in chosen:
        texts = textwrap.wrap(s.meaning, WIDTH - width - 2) + textwrap.wrap(  # a default URL stays whole
            f"default: {s.default}", WIDTH - width - 2, break_long_words=False, break_on_hyphens=False)
        texts.append(f"now: {now[s.name]}")  # a path stays on one line, however long
        lines.append("  " + s.name.ljust(width) + texts[0])
        lines += [" " * (width + 2) + text for text in texts[1:]]
    return "\n".join(lines)


def current_settings() -> dict[str, str]:
    """What each setting is in this environment (secrets only as set / not set)."""
    paths = Paths.from_env().as_env()
    env = {s.name: os.environ.get(s.name, "").strip() for s in SETTINGS}
    return {**{name: env[name] or "not set" for name in env}, **paths,
            "GCP_API_KEY": "set" if env["GCP_API_KEY"] else "not set",
            "UI_HOST": env["UI_HOST"] or "127.0.0.1", "UI_PORT": env["UI_PORT"] or "3000"}


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, width=WIDTH, max_help_position=24)


# ---- report --------------------------------------------------------------------------------------
def _published(result, asset: str) -> dict:
    """The metadata of the run's last materialization of `asset` (where it was published), or {}."""
    events = [e for e in result.get_asset_materialization_events() if e.asset_key.to_user_string() == asset]
    return events[-1].materialization.metadata if events else {}


def _failed(reason: str) -> int:
    """A failed command's one line on stderr; its exit status (2 for bad input, 1 for anything else)."""
    from pipelines.domain.errors import exit_status

    print(f"error: {reason}", file=sys.stderr)
    return exit_status(reason)


UP_TO_DATE = ("up to date: Dagster reports nothing stale or missing (the data set, the code and the day are those "
              "of the published report); nothing rebuilt (--force builds anyway)")


def run_report(force: bool = False) -> int:
    """report_job in process, on what Dagster reports stale or missing (pipelines/freshness.py): nothing when the
    published report is that of the data set, the code and the day; everything with --force."""
    from pipelines.defs.resources import PipelineSettings
    from pipelines.freshness import REPORT, plan, published_in_place
    from pipelines.runs import definitions, execute, session

    paths = Paths.from_env()
    with session() as instance:
        settings = PipelineSettings.from_env()
        graph = definitions().resolve_asset_graph()
        todo = plan(instance, graph, settings, report_assets(), everything="--force" if force else None)
        if not todo.build:  # the published folder is in place (else its generation went up: defs/outputs.py)
            published = published_in_place(instance, settings, REPORT) or paths.reports_dir / "latest"
            print(f"report: {published / 'report.html'}")
            print(f"pdf:    {published / 'report.pdf'}")
            print(f"index:  {paths.reports_dir / 'index.html'}")
            print(UP_TO_DATE)
            warn_unknown_accelerators(published)
            return 0
        result = execute(instance, "report_job", asset_selection=todo.build)
    if not result.success:
        return _failed(failure_reason(result))
    meta = _published(result, "published_report")
    reports = paths.reports_dir
    print(f"report: {meta['html'].value if 'html' in meta else reports / 'latest' / 'report.html'}")
    print(f"pdf:    {meta['pdf'].value if 'pdf' in meta else reports / 'latest' / 'report.pdf'}")
    print(f"index:  {reports / 'index.html'}")
    print(f"built:  {len(todo.build)} asset(s) ({todo.why})")
    if "path" in meta:
        warn_unknown_accelerators(Path(meta["path"].value))
    return 0


def report_assets() -> list:
    """The assets report_job builds, from the definitions."""
    from pipelines.runs import definitions

    return sorted(definitions().resolve_job_def("report_job").asset_layer.executable_asset_keys, key=str)


UNKNOWN_ACCELERATORS = "catalog_unknown_accelerators.csv"


def warn_unknown_accelerators(report: Path) -> None:
    """One line on stderr naming the catalogs' accelerators no alias knows (their offers are never priced),
    from the published report's data/catalog_unknown_accelerators.csv; nothing when there is none."""
    import csv

    path = report / "data" / UNKNOWN_ACCELERATORS
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        return  # no such export: every catalog accelerator is known
    if not rows:
        return
    offers = sum(int(r["offers"]) for r in rows)
    named = "; ".join(f"{r['accelerator']} ({r['providers']}: {r['offers']} offer{'s' if r['offers'] != '1' else ''})"
                      for r in rows)
    print(f"warning: {len(rows)} accelerator(s) of the GPU clouds' catalogs unknown to accelerator_aliases.csv, "
          f"{offers} offer(s) never priced: {named} (listed in {path})", file=sys.stderr)


# ---- atlas ---------------------------------------------------------------------------------------
def run_atlas(mlperf_dir: str | None) -> int:
    """atlas_job in process: one run per round of MLPERF_DIR whose files changed since it was last
    scored (new rounds become partitions, vanished ones are dropped), then one run that prices the
    stored rounds with the price book and publishes."""
    if mlperf_dir:
        os.environ["MLPERF_DIR"] = str(Path(mlperf_dir).expanduser().resolve())
    paths = Paths.from_env()
    if paths.mlperf_dir is None:
        from pipelines.defs.mlperf.rounds import NOT_SET

        print(f"error: {NOT_SET}", file=sys.stderr)
        return 2
    from pipelines.defs.mlperf.sensor import record_partitions, round_changes
    from pipelines.defs.resources import PipelineSettings
    from pipelines.domain.errors import InputError, bad_input, exit_status
    from pipelines.freshness import ATLAS, plan, published_in_place
    from pipelines.runs import definitions, execute, session

    started = time.perf_counter()
    with session() as instance:
        settings = PipelineSettings.from_env()
        graph = definitions().resolve_asset_graph()
        # from the job's definition: its partitioned assets score a round, the others price and publish
        keys = definitions().resolve_job_def("atlas_job").asset_layer.executable_asset_keys
        publish = sorted((key for key in keys if graph.get(key).is_materializable
                          and graph.get(key).partitions_def is None), key=str)
        try:  # what mlperf_rounds_sensor requests, done here: the partitions recorded, each round's run executed
            changes = round_changes(instance, settings)
        except InputError as error:
            return _failed(bad_input(error))
        record_partitions(instance, changes.partition_requests())
        prints, stale = changes.prints, changes.stale
        for request in changes.round_runs():
            result = execute(instance, "atlas_job", partition_key=request.partition_key,
                             asset_selection=list(request.asset_selection))
            if not result.success:
                reason = failure_reason(result)
                print(f"error: round {request.partition_key}: {reason}", file=sys.stderr)
                return exit_status(reason)
        # A round scored, added or removed: the atlas's marts read every stored round, so all of it runs (not left
        # to Dagster's status of an asset over a whole dynamic partition set); else what Dagster reports stale.
        moved = "rounds scored, added or removed" if stale or changes.added or changes.removed else None
        todo = plan(instance, graph, settings, publish, ATLAS, everything=moved)
        if todo.build:
            result = execute(instance, "atlas_job", asset_selection=todo.build)
            if not result.success:
                return _failed(failure_reason(result))
            meta = {name: Path(value.value) for name, value in _published(result, ATLAS.asset).items()
                    if name in ("html", "pdf", "data")}
        else:
            published = published_in_place(instance, settings, ATLAS) or paths.reports_dir / "atlas" / "latest"
            meta = dict(zip(("html", "pdf", "data"), (published / name for name in ATLAS.files)))
    latest = paths.reports_dir / "atlas" / "latest"
    print(f"atlas:  {meta.get('html', latest / 'atlas.html')}")
    print(f"pdf:    {meta.get('pdf', latest / 'atlas.pdf')}")
    print(f"data:   {meta.get('data', latest / 'data')}")
    print(f"rounds: {len(prints)} in {paths.mlperf_dir}; scored now: {', '.join(stale) or 'none (all unchanged)'}")
    print(f"built:  {len(todo.build)} asset(s) ({todo.why})" if todo.build
          else "up to date: Dagster reports nothing of the atlas stale or missing; nothing rebuilt")
    if remember(paths.dagster_home, "MLPERF_DIR", str(paths.mlperf_dir)):
        print(f"kept:   MLPERF_DIR={paths.mlperf_dir} for this data set ({paths.dagster_home / REMEMBERED}): "
              f"the UI and the next make atlas use it")
    print(f"took:   {time.perf_counter() - started:.1f} s")
    return 0


# ---- prices fetch --------------------------------------------------------------------------------
def run_price_fetch(args: argparse.Namespace) -> int:
    from pipelines.ingest.fetch_all import Choice
    from pipelines.ingest.price_fetch import FetchError

    try:  # an unknown name in PRICE_SOURCES or SKYPILOT_CLOUDS is refused before anything runs
        Choice.from_env(args.sources, args.clouds, args.catalog_url)
    except FetchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    config = {"aws_url": args.aws_url, "azure_url": args.azure_url, "gcp_url": args.gcp_url,
              "aws_spot_advisor_url": args.aws_spot_advisor_url, "timeout_seconds": args.timeout,
              "price_sources": args.sources, "skypilot_clouds": args.clouds, "skypilot_catalog_url": args.catalog_url}
    chosen = {key: value for key, value in config.items() if value is not None}
    result = run_job("fetch_prices_job", run_config={"ops": {"fetched_price_files": {"config": chosen}}})
    meta = _fetch_metadata(result)
    if not meta:  # failed before anything was fetched (offline, nothing reachable): one line
        print(f"error: {failure_reason(result)}", file=sys.stderr)
        return 1
    folder = Path(meta["folder"].value)
    for name in meta["saved"].value:
        print(f"saved:   {folder / name}")
    for name in meta["existing"].value:
        print(f"kept:    {folder / name} (already there; a snapshot is never overwritten)")
    for line in meta["skipped"].value:
        print(f"skipped: {line}")
    problems = [f"error: {line}" for line in meta["failed"].value] + [f"error: kept aside: {line}" for line in
                                                                       meta["rejected"].value]
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


def _fetch_metadata(result) -> dict:
    """What fetched_price_files did: its materialization's metadata, or that of its failure (some sources
    failed, the others' files stay); {} when it failed before fetching."""
    for event in result.get_asset_materialization_events():
        if event.asset_key.to_user_string() == "fetched_price_files":
            return event.materialization.metadata
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            failure = event.step_failure_data.user_failure_data
            if failure is not None and "folder" in (failure.metadata or {}):
                return failure.metadata
    return {}


# ---- ui ------------------------------------------------------------------------------------------
def run_estimate(args: argparse.Namespace) -> int:
    from pipelines.domain.errors import InputError, bad_input
    from pipelines.estimate import described, estimate_offers, render

    try:
        model = described(args.parameters, args.tokens, args.sequence_length, args.accelerators, args.deadline_days,
                          args.kind, args.layers, args.hidden_size, args.precision, args.total_parameters,
                          args.attention, args.qk_width, args.v_width, args.flops_per_token)
        sys.stdout.write(render(*estimate_offers(Paths.from_env().warehouse, model), args.format))
    except InputError as error:
        return _failed(bad_input(error))
    return 0


def run_ui(args: argparse.Namespace) -> int:
    from pipelines.ui import serve

    return serve(args.host, args.port, stop_file=Path(args.stop_file) if args.stop_file else None)


# ---- clean ---------------------------------------------------------------------------------------
PUBLISHED = {"latest", "index.html", "atlas", ".build", ".store", ".publish.lock"}


def run_clean() -> int:
    paths = Paths.from_env()
    for path in remove_published(paths.reports_dir) + remove_warehouse(paths):
        print(f"removed: {path}")
    return 0


def remove_published(reports: Path) -> list[Path]:
    """What publishing made under REPORTS_DIR (pipelines/publish/store.py), nothing else."""
    import shutil

    from pipelines.publish.store import DATE_DIR, TMP_FILE, TMP_LINK

    removed = []
    for entry in sorted(reports.iterdir()) if reports.is_dir() else []:
        if entry.name in PUBLISHED or any(p.match(entry.name) for p in (DATE_DIR, TMP_FILE, TMP_LINK)):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry)
    return removed


def remove_warehouse(paths: Paths) -> list[Path]:
    """The DuckDB file and what is kept beside it (config.Paths.beside_warehouse: its log, the chart and PDF caches,
    made again by the next build, and the key of the last report built); its folder too when that leaves it empty."""
    import shutil

    removed = []
    for path in paths.beside_warehouse:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_file():
            path.unlink()
        else:
            continue
        removed.append(path)
    if paths.warehouse.parent.is_dir() and not any(paths.warehouse.parent.iterdir()):
        paths.warehouse.parent.rmdir()
    return removed


# ---- the parser ----------------------------------------------------------------------------------
def _command(commands, name: str, summary: str, description: str, settings: list[str]) -> argparse.ArgumentParser:
    return commands.add_parser(name, help=summary, description=description,
                               epilog=settings_help(settings) if settings else None,
                               formatter_class=_formatter)


class Parser(argparse.ArgumentParser):
    """argparse, naming the command meant for a near miss ("reprot": did you mean 'report'?), as every
    other name a user types is answered (pipelines/ingest/names.py)."""

    def error(self, message: str):
        import re

        from pipelines.ingest.names import did_you_mean

        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if wrong:
            message += did_you_mean(wrong.group(1), re.findall(r"'([^']*)'", wrong.group(2)))
        super().error(message)


def parser() -> argparse.ArgumentParser:
    top = Parser(prog=PROG, description=ABOUT, epilog=f"{settings_help()}\n\n{EXAMPLES}", formatter_class=_formatter)
    commands = top.add_subparsers(dest="command", metavar="COMMAND", title="commands", required=True)
    report = _command(commands, "report", "build the report of the data set in RAW_DIR and publish it",
             """\
Build the report of the data set in RAW_DIR and publish it: every asset of report_job (staging
tables, marts, HTML, PDF, CSV and Parquet exports) runs in this process, recorded in DAGSTER_HOME.

Writes REPORTS_DIR/<price date>/ (report.html, report.pdf, data/*.csv and data/*.parquet),
points REPORTS_DIR/latest at the newest price date and lists every report in
REPORTS_DIR/index.html; prints where they are. A failed run prints one line and exits with
status 2 for bad input (1 for any other failure), publishing nothing: every report published
before stays as it was.

When nothing changed since the last `report` (the files of RAW_DIR, the project's code and
packages, the day the report says it was generated) and its report is still the one published,
it says so and builds nothing; --force builds anyway. Drawn charts and printed PDFs are kept beside
the WAREHOUSE, so a build after a change draws and lays out only what changed.""",
             ["RAW_DIR", "REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "SOURCE_DATE_EPOCH"])
    report.add_argument("--force", action="store_true",
                        help="build and publish even when nothing changed since the last report")

    atlas = _command(commands, "atlas", "score every MLPerf Training result in MLPERF_DIR, price it, publish the atlas",
                     """\
The MLPerf atlas: score every MLPerf Training round in MLPERF_DIR as MLCommons scores it, price
every result on each cloud instance with the same accelerators (the data set's instance catalog
and price book: RAW_DIR/instances.csv, accelerators.csv and prices/), and publish
REPORTS_DIR/atlas/<price date>/ (atlas.html, atlas.pdf, data/*.csv and data/*.parquet), with
REPORTS_DIR/atlas/latest pointing at the newest. Runs atlas_job in this process, recorded in
DAGSTER_HOME: each training_results_vX.Y folder is a partition, scored again only when its files
changed (kept as Parquet in ATLAS_ROUNDS_DIR); a price change re-prices without reading a log.

MLPERF_DIR holds the result repositories side by side, for example:
  for v in 0.7 1.0 1.1 2.0 2.1 3.0 3.1 4.0 4.1 5.0 5.1; do
    git clone --depth 1 https://github.com/mlcommons/training_results_v$v; done""",
                     ["MLPERF_DIR", "ATLAS_ROUNDS_DIR", "RAW_DIR", "REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME"])
    atlas.add_argument("--mlperf-dir", metavar="DIR", default=None,
                       help="folder holding training_results_v0.7 ... v5.1 (default: $MLPERF_DIR)")

    prices = _command(commands, "prices", "prices fetch: download today's GPU cloud catalogs and AWS, Azure and GCP price "
                      "lists into RAW_DIR/prices",
                      "Price lists. `prices fetch` downloads today's snapshots; see `prices fetch --help`.", [])
    actions = prices.add_subparsers(dest="action", metavar="ACTION", title="actions", required=True)
    fetch = _command(actions, "fetch", "download today's price lists into RAW_DIR/prices",
                     """\
Download today's prices into RAW_DIR/prices, each source on its own (PRICE_SOURCES):
- skypilot: every GPU cloud's public catalog (SKYPILOT_CLOUDS), SKYPILOT_CATALOG_URL/<cloud>/vms.csv,
  read line by line and kept to its GPU rows (for RunPod, AWS, GCP and Azure one row per distinct
  instance type, region, price and spot price), into skypilot_<date>/<cloud>/vms.csv with a
  SOURCE.md note (URL, commit and its date where the source gives them). A catalog whose GPU rows
  fell by more than half against the cloud's previous snapshot is not used: it is kept aside in
  RAW_DIR/prices/.rejected/ and named;
- aws, azure, gcp: one snapshot file per provider, region and source, named
  <provider>-[<kind>-]<region>-<date> (the regions: REGIONS in pipelines/defs/prices/fetch.py,
  today AWS us-east-1, Azure eastus, GCP us-central1): the AWS Price List bulk CSV (on-demand and
  reserved), the AWS savings plan offer and spot advisor, the Azure Retail Prices API pages and
  the GCP Cloud Billing Catalog SKUs (with GCP_API_KEY; without it GCP is skipped and says so; AWS
  spot history needs AWS credentials and is skipped, saying how to add it).
Runs fetch_prices_job in this process, recorded in DAGSTER_HOME.

An existing snapshot is never overwritten and a failed download leaves nothing behind. A source
(or cloud) that fails is named in one line and the others are kept; the exit status is then 1. It
needs the internet; with nothing reachable it ends with one line and exit status 1. The next report
(or the UI's sensor) reads the new files.""",
                     ["RAW_DIR", "PRICE_SOURCES", "SKYPILOT_CLOUDS", "SKYPILOT_CATALOG_URL", "GCP_API_KEY",
                      "DAGSTER_HOME"])
    fetch.add_argument("--sources", metavar="LIST", default=None,
                       help="comma list of skypilot, aws, azure, gcp (default: $PRICE_SOURCES, else all)")
    fetch.add_argument("--clouds", metavar="LIST", default=None,
                       help="comma list of the catalog's clouds (default: $SKYPILOT_CLOUDS, else every GPU cloud)")
    fetch.add_argument("--catalog-url", metavar="URL", default=None,
                       help="the folder holding <cloud>/vms.csv (default: $SKYPILOT_CATALOG_URL, else SkyPilot's v8 "
                            "catalog on GitHub)")
    fetch.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                       help="give up on a provider after this long without an answer (default: 120)")
    for provider, name in (("aws", "AWS Price List"), ("azure", "Azure Retail Prices"), ("gcp", "GCP Cloud Billing")):
        fetch.add_argument(f"--{provider}-url", metavar="URL", default=None,
                           help=f"base URL of the {name} API, for a mirror or proxy (default: the provider's)")
    fetch.add_argument("--aws-spot-advisor-url", metavar="URL", default=None,
                       help="URL of the AWS spot advisor JSON, for a mirror or proxy (default: AWS's)")

    estimate = _command(commands, "estimate", "a described model's ten cheapest offers, from the built warehouse",
                        """\
Price a model described by its size and tokens on every offer whose accelerator has an MLPerf LLM
result (the report's chapter "Your model's cost", with the same marts and the same functions): the
budget is the model FLOP/s MLPerf's results achieved per accelerator, at the model's precision,
corrected by what published production runs took; prints the ten offers first in the report's
order with their instances, pricing option, offer kind, price age, budget GPU-hours, time and cost
with their ranges, the cost at MLPerf's own speed (the optimistic bound), what the budget includes,
and the basis results. Reads the WAREHOUSE that `report` built (read-only).""",
                        ["RAW_DIR", "WAREHOUSE"])
    estimate.add_argument("--parameters", type=float, required=True,
                          help="parameters (the active ones of a mixture of experts)")
    estimate.add_argument("--total-parameters", type=float, default=None,
                          help="a mixture of experts' total parameters (with --parameters its active ones)")
    estimate.add_argument("--tokens", type=float, required=True, help="training tokens")
    estimate.add_argument("--sequence-length", type=int, required=True, help="tokens per sequence")
    estimate.add_argument("--accelerators", type=int, default=None, help="cluster size to price (default: 1024)")
    estimate.add_argument("--deadline-days", type=float, default=None,
                          help="the smallest cluster (of at most --accelerators) that finishes within this many days")
    estimate.add_argument("--kind", default="pretrain", help="pretrain (default) or lora")
    estimate.add_argument("--layers", type=int, default=None, help="with --hidden-size: adds the attention FLOPs")
    estimate.add_argument("--hidden-size", type=int, default=None, help="with --layers: adds the attention FLOPs")
    estimate.add_argument("--attention", default="gqa", help="mha, gqa (default; widths = hidden size) or mla")
    estimate.add_argument("--qk-width", type=int, default=None, help="attention's query-key width (heads x dimension)")
    estimate.add_argument("--v-width", type=int, default=None, help="attention's value width (heads x dimension)")
    estimate.add_argument("--flops-per-token", type=float, default=None, help="stated model FLOPs per token")
    estimate.add_argument("--precision", default="bf16", help="what the model trains in: bf16 (default), fp8 or fp4")
    estimate.add_argument("--format", choices=["table", "csv", "json"], default="table", help="output (default: table)")

    ui = _command(commands, "ui", "start the Dagster UI and daemon for the data set; Ctrl-C stops everything",
                  """\
Start the Dagster UI and its daemon for the data set (`dg dev`: webserver, daemon and code
server) on UI_HOST:UI_PORT, with the instance in DAGSTER_HOME. The daemon runs the sensor that
rebuilds the report when a file under RAW_DIR changes, the daily schedule that fetches prices
and rebuilds, and the run queue; runs of the command line show there too.

Ctrl-C, SIGTERM or SIGHUP to this process, or the end of the process that started it, stops
everything it started. A busy port is refused rather than silently swapped.""",
                  ["RAW_DIR", "REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "PRICE_SOURCES", "SKYPILOT_CLOUDS",
                   "SKYPILOT_CATALOG_URL", "GCP_API_KEY", "UI_HOST", "UI_PORT"])
    ui.add_argument("--host", default=os.environ.get("UI_HOST") or "127.0.0.1",
                    help="address to listen on (default: $UI_HOST, else 127.0.0.1: this machine only)")
    ui.add_argument("--port", type=int, default=int(os.environ.get("UI_PORT") or 3000),
                    help="port to listen on (default: $UI_PORT, else 3000)")
    ui.add_argument("--stop-file", metavar="FILE", default=None,
                    help="also stop when FILE is deleted (make ui passes its target: make deletes it when interrupted)")

    _command(commands, "clean", "remove the data set's published reports and its warehouse",
             """\
Remove what the pipeline made for the data set: the reports published under REPORTS_DIR (the
dated folders, latest, index.html, atlas/ and unfinished builds) and the WAREHOUSE file. RAW_DIR,
the virtual environment and DAGSTER_HOME's run history stay.""",
             ["RAW_DIR", "REPORTS_DIR", "WAREHOUSE"])
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "report":
        return run_report(args.force)
    if args.command == "atlas":
        return run_atlas(args.mlperf_dir)
    if args.command == "prices":
        return run_price_fetch(args)
    if args.command == "ui":
        return run_ui(args)
    if args.command == "estimate":
        return run_estimate(args)
    return run_clean()


if __name__ == "__main__":
    sys.exit(main())
