"""A run that waits for a pool slot sleeps until its next claim instead of spinning a core.

Dagster 1.13's in-process executor, when every step left waits for a pool slot (duckdb_writer: one writer
at a time, across runs), sleeps for `InstanceConcurrencyContext.interval_to_next_pending_claim_check()`.
That returns min(0, time to the next claim), never more than 0, so the waiting run loops without sleeping:
of two reports started at once, each took 29 s of CPU instead of 10. Claims are retried exactly when they
were before (`claim` refuses a step until its timeout); only the spinning goes. `install` patches only a
Dagster that behaves so: once a release fixes it, this does nothing. The patch touches Dagster's internals, so it
lives in pipelines/dagster_internals.py with every other internal use."""

from __future__ import annotations

from pipelines.dagster_internals import claim_wait_spins, install_claim_wait, next_claim_wait

interval_to_next_pending_claim_check = next_claim_wait  # the wait: seconds until the first waiting step may claim
spins = claim_wait_spins  # whether a wait (Dagster's, by default) answers 0 for a claim a minute away


def install() -> None:
    install_claim_wait()
