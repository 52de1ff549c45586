"""The relay: tails the global log from PostgreSQL and publishes it to Redis.

For each batch of committed events after its stored position (row 'relay' of
`log_positions`), in commit-safe order, the relay

1. publishes the events' public forms to the global and per-table Redis
   Streams and notifies `cardledger:notify` (`infra.redis_bus.publish`);
2. enqueues a projection catch-up job on the RQ queue "projections" when
   none is waiting and no job is looking (checked by the publishing script,
   `infra.queueing.publish_and_enqueue`);
3. stores its new position (at most every `STORE_INTERVAL_S` while busy, and
   before it sleeps or stops).

A position is stored only after its events were published, so a relay that
dies or loses Redis publishes those events again when it comes back: nothing
is lost. Publishing again does not duplicate entries (stream ids are log
positions, which Redis refuses twice); consumers may also dedupe by
`global_position`. While Redis is down the relay retries with exponential
backoff (capped), never moving its position past unpublished events.

When it finds nothing to publish it stays awake for `awake_grace` seconds
after its last non-empty batch (or after finding commits held back, below).
After a batch it looks again once about `EVENTS_PER_LOOK` events should have
committed at the recent commit rate (the events of the batches found in the
last `RATE_WINDOW_S`), never sooner than `poll_interval` nor later than
`MAX_POLL_INTERVAL_S`; twice as long after each look that found nothing, up
to `MAX_POLL_INTERVAL_S`. Only then does it sleep until an append
wakes it, for at most `idle_interval` seconds (the fallback, should a wake-up
be lost): it takes the "asleep" advisory lock (`RELAY_ASLEEP_KEY`), looks once
more, and waits for a notification on `LOG_CHANNEL`, which an append that
finds the lock held sends at its commit (migration 012). So under steady
writes the relay stays awake and appends send no NOTIFY (each serializes
commits on a lock global to the server); a burst after a quiet spell sends
one, from its first append. An append in flight holds the "asleep" lock in
shared mode, so the relay cannot fall asleep then; it polls as above instead,
as it does while committed events wait for an older transaction to end (the
commit-safe horizon).

Several relays may run: only one is active. Each takes a PostgreSQL session
advisory lock (pg_try_advisory_lock on a dedicated connection); the others
stand by and retry it, and one of them takes over when the active relay's
connection ends (the process died or was stopped).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Any

import psycopg
import redis

from infra import redis_bus, redis_clients
from infra.db import Conn, application_name, connect
from infra.event_store import START, LogPosition, LogTail, RecordedEvent, committed_after_in
from infra.metrics import count_error
from infra.pacing import RatePace
from infra.projections.checkpoint import (
    LOG_CHANNEL,
    RELAY_ASLEEP_KEY,
    RELAY_LOCK_KEY,
    RELAY_POSITION,
    ensure_position,
    read_position,
    store_position,
)
from infra.queueing import publish_and_enqueue
from infra.sql.session import (
    advisory_unlock,
    drop_notifications,
    listen,
    ping,
    try_advisory_lock,
    wait_for_notification,
)
from services.relay.metrics import RELAY_PUBLISHED

log = logging.getLogger("cardledger.relay")

COMPONENT = "relay"  # its connections' application_name: cardledger-relay

MAX_BACKOFF_S = 5.0
POLL_INTERVAL_S = 0.002  # the first wait after a batch, or while an append is in flight (its commit is near)
# The longest gap between two looks while awake: held back by a long transaction (a rebuild, a transaction in
# another database of the server), the looks slow down to this, and stay prompt when it ends.
MAX_POLL_INTERVAL_S = 0.01
PING_INTERVAL_S = 0.1  # how often the relay checks that the lock's session is still there
# While busy the relay stores its position at most this often (and before it sleeps or stops): one UPDATE and
# commit per batch cost more than the batch's publishing; after a crash, the events published since are
# published again, which adds nothing to the streams.
STORE_INTERVAL_S = 0.1
IDLE_INTERVAL_S = 1.0  # the longest sleep waiting for a wake-up
# How long the relay stays awake, polling, after a batch before it sleeps: commits a few ms apart would otherwise
# often find it asleep, each then sending a NOTIFY and costing the relay a lock, a look and an unlock.
AWAKE_GRACE_S = 0.2
# Each look and each batch has a fixed cost (the relay's SQL and Python, its backend's, the Redis script's) larger
# than an event's: under steady commits the relay waits for about this many events at the recent rate between
# looks (docs/performance.md, "The relay and the wake-ups").
EVENTS_PER_LOOK = 2.0
RATE_WINDOW_S = 0.2  # the recent commit rate: the events of the batches found in this long
MAX_JOB_REQUEST_IDS = 50


def redis_client(redis_url: str) -> redis.Redis:
    return redis_clients.connect(redis_url, socket_timeout=5, socket_connect_timeout=2, health_check_interval=10)


def batch_request_ids(events: list[RecordedEvent], limit: int = MAX_JOB_REQUEST_IDS) -> list[str]:
    """The distinct request ids in the events' metadata, in log order (at most `limit`)."""
    found: dict[str, None] = {}
    for event in events:
        request_id = event.metadata.get("request_id")
        if isinstance(request_id, str):
            found.setdefault(request_id)
            if len(found) >= limit:
                break
    return list(found)


class Relay:
    """One relay process's state; `run()` until `stop` is set."""

    def __init__(
        self,
        database_url: str,
        redis_url: str,
        stop: threading.Event,
        poll_interval: float = POLL_INTERVAL_S,
        batch_size: int = 500,
        max_backoff: float = MAX_BACKOFF_S,
        idle_interval: float = IDLE_INTERVAL_S,
        awake_grace: float = AWAKE_GRACE_S,
    ) -> None:
        self.database_url = database_url
        self.redis_url = redis_url
        self.stop = stop
        self.poll_interval = poll_interval
        self.idle_interval = idle_interval
        self.awake_grace = awake_grace
        self.batch_size = batch_size
        self.max_backoff = max_backoff
        self.active = threading.Event()  # set while this relay holds the lock
        self.session_pid: int | None = None  # the backend of the lock's session while connected (/readyz)
        self.published = 0  # events published by this relay (for tests and logs)
        self.wake_ups = 0  # sleeps ended by an append's notification (for tests)
        self.looks = 0  # reads of the log, those that found nothing included (for tests)
        self._next_poll = poll_interval
        self._looked_at = 0.0  # when the last look at the log began
        self._found_at = 0.0  # when a look last found events to publish
        self._pace = RatePace(EVENTS_PER_LOOK, poll_interval, max(MAX_POLL_INTERVAL_S, poll_interval), RATE_WINDOW_S)
        self._stored = START  # the position stored last, and when
        self._stored_at = 0.0

    # Leadership ---------------------------------------------------------------

    def run(self) -> None:
        """Stand by until the advisory lock is ours, then relay; repeat if the lock connection is lost."""
        while not self.stop.is_set():
            try:
                with psycopg.connect(
                    self.database_url, autocommit=True, fallback_application_name=application_name(COMPONENT)
                ) as lock_conn:
                    self.session_pid = lock_conn.info.backend_pid
                    try:
                        if not self._acquire(lock_conn):
                            continue
                        log.info("relay active (advisory lock %s taken)", RELAY_LOCK_KEY)
                        self.active.set()
                        try:
                            self._relay(lock_conn)
                        finally:
                            self.active.clear()
                    finally:
                        self.session_pid = None
            except psycopg.OperationalError as error:
                count_error("relay", "postgres_unavailable")
                log.warning("relay lost PostgreSQL (%s); retrying in 1 s", error)
                self.stop.wait(1.0)
            except Exception:
                count_error("relay", "unexpected")
                log.exception("relay failed; restarting from its stored position in 1 s")
                self.stop.wait(1.0)

    def _acquire(self, lock_conn: psycopg.Connection[Any]) -> bool:
        standby_logged = False
        while not self.stop.is_set():
            if try_advisory_lock(lock_conn, RELAY_LOCK_KEY):
                return True
            if not standby_logged:
                log.info("relay standing by: another relay holds advisory lock %s", RELAY_LOCK_KEY)
                standby_logged = True
            self.stop.wait(0.5)
        return False

    # Relaying -----------------------------------------------------------------

    def _relay(self, lock_conn: psycopg.Connection[Any]) -> None:
        client = redis_client(self.redis_url)
        try:
            with connect(self.database_url, COMPONENT) as conn:
                with conn.transaction():
                    ensure_position(conn, RELAY_POSITION)
                position = read_position(conn, RELAY_POSITION)
                self._stored, self._stored_at = position, time.monotonic()
                listen(conn, LOG_CHANNEL)
                tail = LogTail(conn)
                log.info("relay starting after %s", position)
                pinged = 0.0
                while not self.stop.is_set():
                    if time.monotonic() - pinged >= PING_INTERVAL_S:
                        ping(lock_conn)  # raises if the lock's session is gone
                        pinged = time.monotonic()
                    self._looked_at = time.monotonic()
                    self.looks += 1
                    events = tail.after(position, self.batch_size)
                    if events:
                        if not self.relay_batch(client, events):
                            break  # stopping: the position stays before the unpublished events
                        position = events[-1].log_position
                        if time.monotonic() - self._stored_at >= STORE_INTERVAL_S:
                            self._store(conn, position)
                        if len(events) == self.batch_size:
                            continue  # more are waiting
                    # After a batch that was not full, the next look is the wait's: it looks for commits itself.
                    self._wait_for_commits(conn, position)
                if position != self._stored:
                    self._store(conn, position)
        finally:
            client.close()

    def relay_batch(self, client: redis.Redis, events: list[RecordedEvent]) -> bool:
        """Pace the next look after the batch `events` just found, and publish it; False when the relay stopped
        before the batch was published."""
        self._found_at = time.monotonic()
        self._next_poll = self._interval_after(self._found_at, len(events))
        if not self._publish(client, events):
            return False
        self.published += len(events)
        RELAY_PUBLISHED.inc(len(events))
        return True

    def _wait_for_commits(self, conn: Conn, position: LogPosition) -> None:
        """Within `awake_grace` of the last batch, look again after the next poll interval; later, sleep until
        an append wakes the relay (at most `idle_interval`), unless an append is in flight or committed events
        wait behind an older transaction: then poll too."""
        if time.monotonic() - self._found_at < self.awake_grace:
            self._poll()
            return
        drop_notifications(conn)  # sent while the relay was awake: it has looked since
        if try_advisory_lock(conn, RELAY_ASLEEP_KEY):
            try:
                # Looked at after taking the lock: an append committed before it is seen here; one that
                # commits after it found the lock held and notifies.
                if not committed_after_in(conn, position):
                    if position != self._stored:
                        self._store(conn, position)
                    if wait_for_notification(conn, self.idle_interval, self.stop):
                        self.wake_ups += 1
                    self._next_poll = self.poll_interval
                    return
                # Committed events wait behind an older transaction: stay awake as after a batch, rather than
                # take the lock at every look (an append finding it held would NOTIFY).
                self._found_at = time.monotonic()
            finally:
                advisory_unlock(conn, RELAY_ASLEEP_KEY)
        self._poll()

    def _interval_after(self, now: float, found: int) -> float:
        """The wait before the next look after a batch of `found` events at `now`: `EVENTS_PER_LOOK` events at
        the commit rate of the batches of the last `RATE_WINDOW_S` (the events after the window's first batch over
        the time since it), within `poll_interval` .. `MAX_POLL_INTERVAL_S`; `poll_interval` when there is no
        earlier batch in the window (the first batch of a burst: more may follow at once)."""
        return self._pace.interval_after(now, found)

    def _poll(self) -> None:
        """Wait until the next poll interval after the last look began (the batch's publishing counts in it), and
        double the interval for the next time (up to `MAX_POLL_INTERVAL_S`)."""
        self.stop.wait(max(0.0, self._looked_at + self._next_poll - time.monotonic()))
        self._next_poll = min(self._next_poll * 2, max(MAX_POLL_INTERVAL_S, self.poll_interval))

    def _publish(self, client: redis.Redis, events: list[RecordedEvent]) -> bool:
        """Publish and enqueue, retrying while Redis is unavailable; False if stopped before it succeeded."""
        delay = 0.1
        meta = {
            "request_ids": batch_request_ids(events),
            "first_position": events[0].global_position,
            "last_position": events[-1].global_position,
        }
        while not self.stop.is_set():
            try:
                publish_and_enqueue(client, events, meta=meta)
                log.debug("relay published %d events", len(events), extra=meta)
                return True
            except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, OSError) as error:
                # Also a refused password (AuthenticationError): one line per attempt, no traceback; it keeps
                # retrying, so the relay carries on once the server accepts the credentials again.
                code = redis_bus.failure_code(error)
                count_error("relay", code)
                log.log(
                    logging.ERROR if code == "redis_auth_failed" else logging.WARNING,
                    "relay cannot publish events %s..%s: %s; retrying in %.1f s",
                    events[0].global_position,
                    events[-1].global_position,
                    redis_bus.describe_failure(error),
                    delay,
                )
                self.stop.wait(delay * random.uniform(0.8, 1.2))
                delay = min(delay * 2, self.max_backoff)
        return False

    def _store(self, conn: Conn, position: LogPosition) -> None:
        # One UPDATE on an autocommit connection: atomic by itself, one round trip instead of three.
        store_position(conn, RELAY_POSITION, position)
        self._stored, self._stored_at = position, time.monotonic()


def run_relay(
    database_url: str,
    redis_url: str,
    stop: threading.Event,
    poll_interval: float = POLL_INTERVAL_S,
    batch_size: int = 500,
    max_backoff: float = MAX_BACKOFF_S,
    idle_interval: float = IDLE_INTERVAL_S,
    awake_grace: float = AWAKE_GRACE_S,
) -> None:
    """Run a relay until `stop` is set (blocking). See the module docstring for its guarantees."""
    Relay(database_url, redis_url, stop, poll_interval, batch_size, max_backoff, idle_interval, awake_grace).run()
