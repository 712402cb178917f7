"""`python -m pipelines.cli report|atlas`: run report_job (or atlas_job) in process and say where
the report (or the atlas, from MLPERF_DIR) is.

Bad input ends the run with one line naming the file, the place and the problem (exit 1),
never a stack trace; the published report is left as it was. Runs are recorded in the
project's DAGSTER_HOME, so they show in the Dagster UI with their lineage.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

from pipelines.config import REPO_ROOT, Paths
from pipelines.publish.store import remove_build


def _dagster_home() -> None:
    home = Path(os.environ.setdefault("DAGSTER_HOME", str(REPO_ROOT / ".dagster_home")))
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    template = REPO_ROOT / "dagster.yaml"
    if not config.exists() and template.exists():
        # atomically: a second `make report` starting at the same moment must never read a
        # half-written file (an empty one would silently drop the run and pool limits)
        tmp = config.with_name(f".dagster.yaml.{os.getpid()}.tmp")
        tmp.write_text(template.read_text())
        os.replace(tmp, config)
    _init_instance(home)


def _init_instance(home: Path) -> None:
    """Create the instance's SQLite storage one process at a time.

    Two runs creating a fresh DAGSTER_HOME at the same moment both stamp the schema version, and
    the instance then refuses to load ("more than one head present"). Under a file lock, the first
    process creates every database and the second finds them made.
    """
    import fcntl

    import dagster as dg

    with open(home / ".instance.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            with warnings.catch_warnings(), dg.DagsterInstance.get() as instance:
                warnings.simplefilter("ignore")
                instance.get_run_records(limit=1)
                instance.all_instigator_state()
                # the writers' pool row and its one slot, made here once rather than by two
                # runs' first steps at the same instant (which can leave two slots)
                from pipelines.defs.metadata import POOL

                if POOL not in {p.name for p in instance.event_log_storage.get_pool_limits()}:
                    instance.event_log_storage.initialize_concurrency_limit_to_default(POOL)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def one_line(text: str) -> str:
    """Whitespace runs (newlines included, e.g. from a quoted CSV cell) as single spaces."""
    return " ".join(str(text).split())


def failure_reason(result) -> str:
    """The first failed step's error, reduced to one line (InputError text when that is the cause)."""
    return one_line(_failure_reason(result))


def _failure_reason(result) -> str:
    from pipelines.errors import InputError

    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            error = event.step_failure_data.error
            chain = []
            while error is not None:
                chain.append(error)
                error = error.cause
            for err in chain:
                if err.cls_name == InputError.__name__:
                    # Dagster's message is "<module>.InputError: <path>:<where>: <problem>\n"
                    head, sep, text = err.message.partition(f"{InputError.__name__}: ")
                    return f"bad input: {text if sep and ' ' not in head.strip() else err.message}"
            last = chain[-1].message.strip().splitlines()
            return f"step {event.step_key} failed: {last[0] if last else chain[-1].cls_name}"
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            data = event.event_specific_data
            if not data.passed:
                return f"check {data.check_name} on {data.asset_key.to_user_string()} failed: {data.description}"
    return "the run failed (see the Dagster UI for the step that failed)"


RUN_LOCKS = "cli_runs"  # DAGSTER_HOME/cli_runs/<pid>.lock, flocked while that command line lives


@contextmanager
def _alive_while_running(home: Path):
    """Hold an flock on DAGSTER_HOME/cli_runs/<pid>.lock for as long as this process lives.

    The kernel drops the lock when the process dies, however it dies (SIGKILL, OOM, power cut),
    which is how the next command line tells a killed run from a running one. The file is
    locked before it gets its name, so no one ever sees it unlocked while its process lives.
    (The run id is not passed to execute_in_process: with an explicit run_id the duckdb_writer
    pool admitted two steps of concurrent runs at once, see tests/test_concurrent_runs.py.)
    """
    folder = home / RUN_LOCKS
    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / f"{os.getpid()}.lock"
    tmp = folder / f".{os.getpid()}.tmp"
    with open(tmp, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        os.replace(tmp, lock)
        try:
            yield
        finally:
            lock.unlink(missing_ok=True)


def _run_pid(instance, run_id: str) -> int | None:
    """The pid of the process that executed the run in process (its "Executing steps in process"
    engine event), or None."""
    import dagster as dg

    for record in instance.all_logs(run_id, of_type=dg.DagsterEventType.ENGINE_EVENT):
        data = record.dagster_event.engine_event_data if record.dagster_event else None
        pid = data.metadata.get("pid") if data and data.metadata else None
        if pid is not None:
            return int(pid.value)
    return None


def reap_killed_runs(instance, home: Path, reports: Path) -> list[str]:
    """Release what killed command-line runs still hold; returns their run ids.

    A run executing in process claims the duckdb_writer pool slot in the Dagster instance for
    each step and frees it when the step ends. A killed process frees nothing: its run stays
    STARTED and its slot claimed, so every later run would wait for that slot forever. A lock
    file DAGSTER_HOME/cli_runs/<pid>.lock that can be locked belongs to a command line that died:
    each unfinished run executed by that pid is marked failed, its pool slots are freed and its
    half-built report folder removed. (Runs launched from the UI have no such lock file; the
    daemon's run monitoring watches them.)
    """
    import dagster as dg

    folder = home / RUN_LOCKS
    if not folder.is_dir():
        return []
    dead: dict[int, object] = {}
    for lock in sorted(folder.glob("*.lock")):
        handle = open(lock, "a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            same = os.fstat(handle.fileno()).st_ino == os.stat(lock).st_ino  # not replaced meanwhile
        except (BlockingIOError, FileNotFoundError):
            handle.close()
            continue  # its process is alive, or it just ended
        if not same or not lock.stem.isdigit():
            handle.close()
            continue
        dead[int(lock.stem)] = (lock, handle)
    reaped = []
    try:
        if dead:
            unfinished = [dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.CANCELING]
            for run in instance.get_runs(filters=dg.RunsFilter(statuses=unfinished)):
                if _run_pid(instance, run.run_id) not in dead:
                    continue
                instance.report_run_failed(run, "its command-line process was killed before the run ended")
                if instance.event_log_storage.supports_global_concurrency_limits:
                    instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
                remove_build(reports / ".build" / run.run_id)
                remove_build(reports / "atlas" / ".build" / run.run_id)
                reaped.append(run.run_id)
    finally:
        for lock, handle in dead.values():
            lock.unlink(missing_ok=True)
            handle.close()
    return reaped


QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@contextmanager
def _instance():
    """The project's Dagster instance, with killed command-line runs released first."""
    _dagster_home()
    import dagster as dg

    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    home = Path(os.environ["DAGSTER_HOME"])
    with dg.DagsterInstance.get() as instance, _alive_while_running(home):
        reap_killed_runs(instance, home, Paths.from_env().reports_dir)
        yield instance


def _execute(job, instance, build: Path, **kwargs):
    """One in-process run; None when it succeeded, else its one-line reason (its build folder removed)."""
    # The console logger would print each failed step's stack trace: the reason is printed as one
    # line instead, and the run's full event log stays in DAGSTER_HOME (the UI).
    result = job.execute_in_process(run_config=QUIET, instance=instance, raise_on_error=False, **kwargs)
    if result.success:
        return result, None
    remove_build(build / ".build" / result.run_id)  # a failed run never publishes; published ones are untouched
    return result, failure_reason(result)


def _published(result, asset: str) -> dict:
    events = [e for e in result.get_asset_materialization_events() if e.asset_key.to_user_string() == asset]
    return events[-1].materialization.metadata if events else {}


def run_report() -> int:
    from pipelines.definitions import defs

    reports = Paths.from_env().reports_dir
    with _instance() as instance:
        result, error = _execute(defs().resolve_job_def("report_job"), instance, reports)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    meta = _published(result, "published_report")
    print(f"report: {meta['html'].value if 'html' in meta else reports / 'latest' / 'report.html'}")
    print(f"pdf:    {meta['pdf'].value if 'pdf' in meta else reports / 'latest' / 'report.pdf'}")
    print(f"index:  {reports / 'index.html'}")
    return 0


def run_atlas() -> int:
    """atlas_job in process: one run per round of MLPERF_DIR whose files changed since it was last
    scored (new rounds become partitions), then one run that prices the stored rounds and publishes."""
    from pipelines.defs.atlas_rounds import NOT_SET

    paths = Paths.from_env()
    if paths.mlperf_dir is None:
        print(f"error: {NOT_SET}", file=sys.stderr)
        return 2
    import dagster as dg

    from pipelines.definitions import defs
    from pipelines.defs.atlas_rounds import MLPERF_ROUNDS, ROUND_KEYS, rounds_to_score
    from pipelines.defs.jobs import ATLAS_PUBLISH
    from pipelines.defs.resources import PipelineSettings
    from pipelines.errors import InputError

    definitions = defs()
    job = definitions.resolve_job_def("atlas_job")
    atlas_reports = paths.reports_dir / "atlas"
    with _instance() as instance:
        try:
            prints, stale = rounds_to_score(instance, PipelineSettings.from_env())
        except InputError as error:
            print(f"error: bad input: {one_line(error)}", file=sys.stderr)
            return 1
        known = set(instance.get_dynamic_partitions(MLPERF_ROUNDS.name))
        instance.add_dynamic_partitions(MLPERF_ROUNDS.name, sorted(set(prints) - known))
        for gone in sorted(known - set(prints)):
            instance.delete_dynamic_partition(MLPERF_ROUNDS.name, gone)
        for key in stale:
            _, error = _execute(job, instance, atlas_reports, partition_key=key, asset_selection=ROUND_KEYS)
            if error:
                print(f"error: round {key}: {error}", file=sys.stderr)
                return 1
        publish = sorted(ATLAS_PUBLISH.resolve(definitions.resolve_asset_graph()), key=str)
        result, error = _execute(job, instance, atlas_reports, asset_selection=publish)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    meta = _published(result, "published_atlas")
    latest = atlas_reports / "latest"
    print(f"atlas:  {meta['html'].value if 'html' in meta else latest / 'atlas.html'}")
    print(f"pdf:    {meta['pdf'].value if 'pdf' in meta else latest / 'atlas.pdf'}")
    print(f"data:   {meta['data'].value if 'data' in meta else latest / 'data'}")
    print(f"rounds: {len(prints)} in {paths.mlperf_dir}; scored now: {', '.join(stale) or 'none (all unchanged)'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pipelines.cli", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["report", "atlas"])
    args = parser.parse_args(argv)
    return run_atlas() if args.command == "atlas" else run_report()


if __name__ == "__main__":
    sys.exit(main())
