"""`python -m tests.faults.delayed MODULE [ARGS...]`: run MODULE (services.projector, services.cli...) as
`python -m` would, with the pauses a fault test kills a process in, injected through the hooks production leaves
unset: after a projection batch is applied and before its commit (TEST_PROJECTION_BATCH_DELAY, seconds), and
between the turn clock's decision and its append (TEST_CLOCK_DELAY, seconds)."""

from __future__ import annotations

import logging
import os
import runpy
import sys
import time
from collections.abc import Callable

BATCH_DELAY_VARIABLE = "TEST_PROJECTION_BATCH_DELAY"
CLOCK_DELAY_VARIABLE = "TEST_CLOCK_DELAY"

log = logging.getLogger("cardledger.tests")


def pause_of(seconds: float, what: str) -> Callable[[], None]:
    def pause() -> None:
        log.warning("pausing %.1f s %s (a fault test's hook)", seconds, what)
        time.sleep(seconds)

    return pause


def delay_projection_batches(seconds: float) -> None:
    from infra.projections import runner

    runner.before_batch_commit = pause_of(seconds, "before a projection batch commits")


def delay_clock_appends(seconds: float) -> None:
    from services import clock

    clock.before_append = pause_of(seconds, "between the turn clock's decision and its append")


def main() -> None:
    module, *arguments = sys.argv[1:]
    if batch := float(os.environ.get(BATCH_DELAY_VARIABLE) or 0):
        delay_projection_batches(batch)
    if ticking := float(os.environ.get(CLOCK_DELAY_VARIABLE) or 0):
        delay_clock_appends(ticking)
    sys.argv = [module, *arguments]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
