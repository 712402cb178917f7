"""A run that waits for a pool slot sleeps until its next claim instead of spinning a core.

Dagster 1.13's in-process executor, when every step left waits for a pool slot (duckdb_writer: one writer
at a time, across runs), sleeps for `InstanceConcurrencyContext.interval_to_next_pending_claim_check()`.
That returns min(0, time to the next claim), never more than 0, so the waiting run loops without sleeping:
of two reports started at once, each took 29 s of CPU instead of 10. Claims are retried exactly when they
were before (`claim` refuses a step until its timeout); only the spinning goes. `install` patches only a
Dagster that behaves so: once a release fixes it, this does nothing."""

from __future__ import annotations

import time

from dagster._core.execution.plan.instance_concurrency_context import InstanceConcurrencyContext


def interval_to_next_pending_claim_check(context: InstanceConcurrencyContext) -> float:
    """Seconds until the first waiting step may claim its slot again (0: now)."""
    if not context._pending_claims:
        return 0.0
    now = time.time()
    return max(0.0, min((ready_at - now for ready_at in context._pending_timeouts.values()), default=0.0))


def spins(method=None) -> bool:
    """Whether `method` (Dagster's, by default) answers 0 for a step whose next claim is a minute away."""
    probe = object.__new__(InstanceConcurrencyContext)
    probe._pending_claims, probe._pending_timeouts = {"step"}, {"step": time.time() + 60}
    return (method or InstanceConcurrencyContext.interval_to_next_pending_claim_check)(probe) <= 0


def install() -> None:
    if spins():
        InstanceConcurrencyContext.interval_to_next_pending_claim_check = interval_to_next_pending_claim_check
