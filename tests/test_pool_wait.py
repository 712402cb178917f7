"""A run waiting for the duckdb_writer pool sleeps until its next claim (pipelines/pool_wait.py)."""

from __future__ import annotations

import time

from pipelines import pool_wait
from pipelines.dagster_internals import waiting_context as waiting


def test_the_wait_is_the_time_to_the_first_claim_and_never_negative():
    now = time.time()
    wait = pool_wait.interval_to_next_pending_claim_check
    assert 8.5 < wait(waiting({"a": now + 9, "b": now + 30})) <= 9
    assert wait(waiting({"a": now - 1, "b": now + 30})) == 0  # one may claim now
    assert wait(waiting({})) == 0
    assert not pool_wait.spins(wait)


def test_loading_the_definitions_installs_it_where_dagster_spins():
    import pipelines.definitions  # noqa: F401 - what every process that runs a job imports

    assert not pool_wait.spins()  # Dagster's own, or ours where Dagster's answered 0 for a claim a minute away
