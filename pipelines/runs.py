"""Run a Dagster job in this process, recorded in the data set's Dagster instance (DAGSTER_HOME).

What every command-line run needs, in one place: the instance prepared (the project's settings
copied in, its storage created once), runs of killed command lines released, the job executed in
process with a quiet console, and a failure reduced to one line. Runs show in the Dagster UI with
their lineage, as runs the daemon launches do.
"""

from __future__ import annotations

import fcntl
import functools
import os
import warnings
from contextlib import contextmanager
from pathlib import Path

from pipelines.config import INSTANCE_YAML, Paths
from pipelines.publish.store import remove_build


def install_settings(home: Path) -> str | None:
    """Copy the project's dagster.yaml into DAGSTER_HOME when it differs; a line saying so, or None.

    A copy that differs is kept as dagster.yaml.bak. Written to a temporary name and renamed: a
    second command starting at the same moment never reads a half-written file (an empty one
    would silently drop the run and pool limits).
    """
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    wanted = INSTANCE_YAML.read_bytes()
    if config.exists() and config.read_bytes() == wanted:
        return None
    tmp = config.with_name(f".dagster.yaml.{os.getpid()}.tmp")
    if config.exists():
        tmp.write_bytes(config.read_bytes())
        os.replace(tmp, config.with_name("dagster.yaml.bak"))
    tmp.write_bytes(wanted)
    os.replace(tmp, config)
    return f"instance settings copied from {INSTANCE_YAML.relative_to(INSTANCE_YAML.parents[1])} into {home}"


def prepare_instance(paths: Paths) -> str | None:
    """Point this process (and what it starts) at the data set's folders; set DAGSTER_HOME up.

    The settings go into the environment as absolute paths, so a process started from another
    folder (the UI's code server) resolves them the same way. Returns install_settings' line.
    """
    os.environ.update(paths.as_env())
    copied = install_settings(paths.dagster_home)
    _init_instance(paths.dagster_home)
    return copied


def _init_instance(home: Path) -> None:
    """Create the instance's SQLite storage one process at a time.

    Two runs creating a fresh DAGSTER_HOME at the same moment both stamp the schema version, and
    the instance then refuses to load ("more than one head present"). Under a file lock, the first
    process creates every database and the second finds them made.
    """
    import dagster as dg

    ready = home / ".instance.ready"  # written once the storage is made, by this version of Dagster
    if ready.is_file() and (home / "storage").is_dir() and ready.read_text() == dg.__version__:
        return  # made before: opening the instance twice cost every command 0.3 s
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
            ready.write_text(dg.__version__)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def one_line(text: str) -> str:
    """Whitespace runs (newlines included, e.g. from a quoted CSV cell) as single spaces."""
    return " ".join(str(text).split())


def failure_reason(result) -> str:
    """The first failed step's error, reduced to one line meant for the user who ran the command: the
    bad input (file, place, problem), the failing step's own words, or what went wrong and which run to
    open in the Dagster UI. Never a step's or check's name: those are the pipeline's, not the user's."""
    return one_line(_failure_reason(result))


def _failure_reason(result) -> str:
    from pipelines.domain.errors import InputError, bad_input

    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            data = event.step_failure_data
            error = data.error
            chain = []
            while error is not None:
                chain.append(error)
                error = error.cause
            for err in chain:
                if err.cls_name == InputError.__name__:
                    # Dagster's message is "<module>.InputError: <path>:<where>: <problem>\n"
                    head, sep, text = err.message.partition(f"{InputError.__name__}: ")
                    return bad_input(text if sep and ' ' not in head.strip() else err.message)
            if data.user_failure_data is not None and data.user_failure_data.description:
                # dg.Failure(description=...): the step said what went wrong in its own words, for a user
                return data.user_failure_data.description
            # an error no step foresaw (a bug, a full disk): what it says, and where the whole story is
            last = chain[-1].message.strip().splitlines() if chain else []
            return (f"the run failed: {last[0] if last else chain[-1].cls_name if chain else 'no error recorded'} "
                    f"(the Dagster UI shows the failed step of run {result.run_id})")
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            data = event.event_specific_data
            if not data.passed:
                return failed_check_reason(data.description)
    return f"the run failed (the Dagster UI shows the failed step of run {result.run_id})"


def failed_check_reason(description: str) -> str:
    """A failed blocking check's reason. The blocking checks are all checks of the input
    (pipelines/defs/prices/checks.py, pipelines/defs/report/checks.py): their description names the file
    and the place; the check's own name is for developers."""
    from pipelines.domain.errors import bad_input

    return bad_input(description)


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
                remove_builds(reports, run.run_id)
                reaped.append(run.run_id)
    finally:
        for lock, handle in dead.values():
            lock.unlink(missing_ok=True)
            handle.close()
    return reaped


# The console logger would print each step's events and a failed step's stack trace: the outcome
# is printed by the command as one line instead, and the run's full event log stays in
# DAGSTER_HOME, where the UI shows it.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@contextmanager
def session():
    """The data set's Dagster instance for command-line runs: prepared, this process marked alive,
    runs of killed command lines released."""
    paths = Paths.from_env()
    prepare_instance(paths)
    import dagster as dg

    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    with dg.DagsterInstance.get() as instance, _alive_while_running(paths.dagster_home):
        reap_killed_runs(instance, paths.dagster_home, paths.reports_dir)
        yield instance


def definitions():
    """The project's Dagster definitions, loaded once per process for the data set the environment names
    (they read their settings when they load): `make atlas` runs atlas_job once per changed round and
    once more to publish, and each load took 0.4 s."""
    return _definitions(Paths.from_env())


@functools.lru_cache(maxsize=4)
def _definitions(paths: Paths):  # `paths` is the cache's key: what the definitions read when they load
    from pipelines.definitions import defs

    return defs()


def execute(instance, job_name: str, run_config: dict | None = None, **selection):
    """Execute one run of a job of the project's definitions in this process.

    `selection` passes partition_key / asset_selection on to Dagster. Returns Dagster's
    ExecuteInProcessResult; a failed run has published nothing, and its half-built build folder
    is removed (published reports are untouched).
    """
    job = definitions().resolve_job_def(job_name)
    result = job.execute_in_process(run_config={**QUIET, **(run_config or {})}, instance=instance,
                                    raise_on_error=False, **selection)
    if not result.success:
        remove_builds(Paths.from_env().reports_dir, result.run_id)
    return result


def run_job(job_name: str, run_config: dict | None = None):
    """One run of a job in the data set's instance (see session and execute)."""
    with session() as instance:
        return execute(instance, job_name, run_config)


def remove_builds(reports: Path, run_id: str) -> None:
    """A run's unpublished build folders: the report's and the atlas's."""
    remove_build(reports / ".build" / run_id)
    remove_build(reports / "atlas" / ".build" / run_id)
