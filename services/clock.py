"""The turn clock: plays for seats whose time ran out, unseats players not ready, closes abandoned tables.

Design: a sweep, not a timer per turn.

- What is due is a pure function of the log. A table's turn deadline is the
  time of the event that started the turn plus the table's `turn_seconds`
  (`domain.table.turn_deadline`), and its vacancy the time of the event that
  left it empty (`domain.table.vacant_since`). Nothing about the clock is kept
  anywhere but in the event log, so restarting Redis, the workers or the whole
  stack loses no timeout and invents none: the next sweep finds what is due.
- A sweep (`Clock.sweep(now)`, every `INTERVAL_S` by default) asks the
  `table_clock` table of the `table_views` projection for the tables whose
  `turn_deadline` has passed or whose `vacant_since` is older than
  `CARDLEDGER_ABANDON_AFTER` (partial indexes of migration 016, so a sweep
  costs what is due, not the number of tables), then for each loads the table's committed state and, if the deadline
  has really passed in that state, appends the default action with the same
  guarded append as a player's action (`CardLedger.clock_tick`): expected
  version = the version the clock read, which is the version whose event
  started the clock. A player who acted meanwhile moved the version on: the
  append fails and the clock does nothing. A clock that fires twice for the same
  turn (two sweeps, two processes, a retry after a crash) finds the turn taken
  by the first. So each turn gets exactly one action, a player's or the
  clock's, recorded as an ordinary game event with `"timed_out": true` and the
  metadata actor "clock".
- Per-turn delayed jobs (RQ's scheduler) were not used: they would need a
  second durable store of timers beside the log that had to agree with it
  (a job lost with Redis is a turn that never times out; a job that survives
  a turn already played must be recognised as stale anyway, which is the
  version check above), and a scheduler process of their own.
- A lagging read model only delays the clock (by the projection's lag, usually
  milliseconds): the decision is taken on the table's committed state, never
  on the read model.

Where it runs: a thread of every projection worker (`cardledger worker`, so
`cardledger up`, compose and Kubernetes run it without a process of their own).
Only one clock sweeps at a time: the one holding a PostgreSQL session advisory
lock (`CLOCK_LOCK_KEY`) on a connection of its own; the others stand by and
take over within about a second when that connection ends (its worker died or
stopped). Two clocks sweeping at once would still be correct, only wasteful.

`CARDLEDGER_ABANDON_AFTER`: how long a table may have nobody seated before
the service closes it; seconds ("86400") or a duration ("24h", "90m", "1d12h",
"45s"), from 60 seconds to 365 days; default 24 h (`infra.config.abandon_after`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import psycopg_pool

from infra.config import DEFAULT_ABANDON_AFTER
from infra.db import application_name, open_pool
from infra.sql.session import ping, try_advisory_lock
from infra.storage.postgres import PostgresStorage
from services.app.commands import ClockWrite
from services.app.ledger import CardLedger

log = logging.getLogger("cardledger.clock")

COMPONENT = "clock"  # its connections' application_name: cardledger-clock

CLOCK_LOCK_KEY = 7_410_221_003  # the advisory lock of the sweeping clock (the relay's is ...002)
INTERVAL_S = 1.0
SWEEP_LIMIT = 200  # tables taken per sweep and kind; the rest are taken by the next sweeps
# A test's hook (tests/faults/delayed.py), never set in production: called between a decision and its append,
# so that a test can kill the clock there.
before_append: Callable[[], None] | None = None


@dataclass
class Clock:
    """Sweeps for what is due and acts on it through `ledger` (see the module's doc). `now` is always a
    parameter, so tests move time as they like; the running loop passes the wall clock."""

    ledger: CardLedger
    abandon_after: timedelta = DEFAULT_ABANDON_AFTER
    pause: Callable[[], None] | None = None  # fault injection: between a decision and its append
    limit: int = SWEEP_LIMIT
    written: list[ClockWrite] = field(default_factory=list)  # what this clock appended, for its caller

    def due(self, now: datetime) -> list[str]:
        """Tables the read model says are due at `now`: turn deadlines passed, then abandoned tables."""
        return self.ledger.queries.tables_due(now, self.abandon_after, self.limit)

    def tick(self, table_id: str, now: datetime) -> ClockWrite | None:
        """Act at one table if something is due there at `now` in its committed state."""
        written = self.ledger.commands.clock_tick(table_id, now, self.abandon_after, self.pause)
        if written is not None:
            self.written.append(written)
            log.info(
                "clock at table %s: %s (seats %s) at version %d",
                table_id,
                written.kind,
                list(written.seats),
                written.expected_version,
            )
        return written

    def sweep(self, now: datetime | None = None) -> list[ClockWrite]:
        """One sweep at `now` (default: the wall clock): every table due acted on once."""
        moment = now if now is not None else datetime.now(UTC)
        done = []
        for table_id in self.due(moment):
            try:
                written = self.tick(table_id, moment)
            except Exception:  # one table's trouble must not stop the clock of the others
                log.exception("clock at table %s failed; it is tried again at the next sweep", table_id)
                continue
            if written is not None:
                done.append(written)
        return done


def run_clock(
    database_url: str,
    stop: threading.Event,
    interval: float = INTERVAL_S,
    after: timedelta = DEFAULT_ABANDON_AFTER,
    make_ledger: Callable[[], tuple[CardLedger, Callable[[], None]]] | None = None,
) -> None:
    """Sweep every `interval` seconds while this process holds the clock's advisory lock; stand by otherwise.
    Blocks until `stop` is set."""
    clock: Clock | None = None
    close: Callable[[], None] = lambda: None  # noqa: E731
    try:
        while not stop.is_set():
            try:
                if clock is None:
                    ledger, close = (make_ledger or (lambda: _ledger(database_url)))()
                    clock = Clock(ledger, after, before_append)
                with psycopg.connect(
                    database_url, autocommit=True, fallback_application_name=application_name(COMPONENT)
                ) as lock_conn:
                    if not _acquire(lock_conn, stop, interval):
                        continue
                    log.info("turn clock active (advisory lock %s taken)", CLOCK_LOCK_KEY)
                    while not stop.is_set():
                        started = time.monotonic()
                        clock.sweep()
                        clock.written.clear()
                        ping(lock_conn)  # the lock lives with this connection: is it still here?
                        stop.wait(max(0.0, interval - (time.monotonic() - started)))
            except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as error:
                log.warning("turn clock lost PostgreSQL (%s); retrying in %.1f s", error, interval)
                stop.wait(interval)
            except Exception:
                log.exception("turn clock failed; restarting in %.1f s", interval)
                stop.wait(interval)
    finally:
        close()


def _acquire(lock_conn: psycopg.Connection[Any], stop: threading.Event, interval: float) -> bool:
    logged = False
    while not stop.is_set():
        if try_advisory_lock(lock_conn, CLOCK_LOCK_KEY):
            return True
        if not logged:
            log.info("turn clock standing by: another process holds advisory lock %s", CLOCK_LOCK_KEY)
            logged = True
        stop.wait(interval)
    return False


def _ledger(database_url: str) -> tuple[CardLedger, Callable[[], None]]:
    """A CardLedger of its own (a small pool; no signing key: the clock's writes answer nobody)."""
    pool = open_pool(database_url, min_size=1, max_size=2, component=COMPONENT)
    return CardLedger(PostgresStorage(pool), auditor_token=None), pool.close


def start_clock_thread(
    database_url: str, stop: threading.Event, after: timedelta = DEFAULT_ABANDON_AFTER
) -> threading.Thread:
    thread = threading.Thread(
        target=run_clock, args=(database_url, stop), kwargs={"after": after}, name="turn-clock", daemon=True
    )
    thread.start()
    return thread
