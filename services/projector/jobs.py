"""The RQ job functions of the projections (enqueued by the relay as `infra.queueing.CATCH_UP_ALL_JOB`).

They find PostgreSQL and the projector's caches through `configure(url, stop,
caches)` (called by `run_worker`, which makes the caches) or, in any other
process (a plain `rq worker projections`), the DATABASE_URL environment
variable and caches made on first use. Each thread keeps one connection.

A stop event given to `configure` ends a catch-up between two batches (each
batch is its own transaction, committed or not at all), so a worker asked to
stop finishes the batch in hand and returns.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import redis
from rq import get_current_job
from rq.job import Job

from infra import projections, redis_bus
from infra.config import Settings
from infra.db import Conn, connect
from infra.metrics import count_error
from infra.projections import ProjectionCaches
from infra.queueing import enqueue_catch_up_all
from services.logs import request_id_bound
from services.projector.metrics import PROJECTION_APPLIED
from services.projector.pace import RoundPace

COMPONENT = "projector"  # its connections' application_name: cardledger-projector

log = logging.getLogger("cardledger.projector.jobs")

# How long one job goes on catching up while events keep coming, and how long its "looking" key outlives a
# job that died without letting it go (the relay enqueues again after that; the polling fallback meanwhile).
LOOP_SECONDS = 5.0
LOOKING_TTL_MS = 2000
# How often a job that goes on renews its "looking" key: a Redis round trip every round would cost more than
# most rounds' catch-up (docs/performance.md, "The read models"); a quarter of its life leaves it ample margin.
RENEW_SECONDS = LOOKING_TTL_MS / 4000
# How long a job goes on finding nothing new before it stops: a round can find nothing while events are
# still being written (a running transaction holds back the log's commit-safe horizon).
IDLE_SECONDS = 0.05

_configured_url: str | None = None
_round_ended = float("-inf")  # when a job that goes on last ended a round in this process (time.monotonic)
_stop: threading.Event | None = None
_caches: ProjectionCaches | None = None
_local = threading.local()
_caches_made = threading.Lock()


class _Stopping(Exception):
    """Raised between two batches when the worker is stopping."""


def configure(database_url: str, stop: threading.Event | None = None, caches: ProjectionCaches | None = None) -> None:
    """Use `database_url` and `caches` for the jobs run in this process; stop catching up between batches once
    `stop` is set."""
    global _configured_url, _stop, _caches
    _configured_url = database_url
    _stop = stop
    _caches = caches


def caches() -> ProjectionCaches:
    """The caches configured for this process's jobs (made here on first use when none were)."""
    global _caches
    with _caches_made:
        if _caches is None:
            _caches = ProjectionCaches()
        return _caches


def database_url() -> str:
    global _configured_url
    if _configured_url is None:  # a plain `rq worker` process: its environment, read once
        _configured_url = Settings.from_env().database_url
    url = _configured_url
    if not url:
        raise RuntimeError("projection jobs need a database: call configure(url) or set DATABASE_URL")
    return url


def connection() -> Conn:
    """This thread's connection (autocommit: each batch makes its own transaction); reopened when broken."""
    url = database_url()
    conn: Conn | None = getattr(_local, "conn", None)
    if conn is not None and (conn.closed or conn.broken or getattr(_local, "url", None) != url):
        conn.close()
        conn = None
    if conn is None:
        conn = connect(url, COMPONENT)
        _local.conn, _local.url = conn, url
    return conn


def close_connection() -> None:
    conn: Conn | None = getattr(_local, "conn", None)
    if conn is not None:
        conn.close()
        _local.conn = None


def catch_up(name: str) -> int:
    """RQ job: catch projection `name` up with the log; returns the events applied."""
    if _stopping():
        return 0  # stopping: leave it to the other workers or the next start
    meta = _job_meta()
    request_ids = meta.get("request_ids") or []
    bound = request_ids[0] if isinstance(request_ids, list) and len(request_ids) == 1 else None
    with request_id_bound(bound):
        applied = 0

        def on_batch(count: int) -> None:
            nonlocal applied
            applied += count
            PROJECTION_APPLIED.labels(name).inc(count)
            if _stopping():
                raise _Stopping

        try:
            projections.catch_up(connection(), name, on_batch=on_batch, caches=caches())
        except _Stopping:
            log.info("projection %s: stopping after a committed batch", name, extra={"projection": name})
        except psycopg.OperationalError:
            count_error("worker", "postgres_unavailable")
            close_connection()
            raise
        except Exception:
            count_error("worker", "catch_up_failed")
            raise
        if meta:
            log.debug("catch-up job done", extra={"projection": name, "applied": applied, **meta})
        return applied


def _current_job() -> Job | None:
    """The RQ job running this call (None outside a job)."""
    try:
        return get_current_job()
    except Exception:  # no job context (polling fallback, a plain call)
        return None


def _job_meta() -> dict[str, Any]:
    """The meta of the RQ job running this call ({} outside a job)."""
    job = _current_job()
    return dict(job.meta) if job is not None else {}


def catch_up_all() -> dict[str, int]:
    """RQ job: catch every projection up, sharing each batch between the projections at the same
    checkpoint; returns the events applied per projection.

    In an RQ job it goes on catching up for as long as new events keep coming (up to `LOOP_SECONDS`, then
    it hands on to a successor job), so that under load one job does the work of many and RQ's own
    bookkeeping stays small (docs/performance.md, "The read models"). Meanwhile it holds the
    "looking" key, and the relay enqueues no jobs. It lets the key go only just before a last catch-up, so
    an event the relay saw while the key was there is committed before that last look and is caught up by
    it (or by the successor, which starts after it was seen).

    If that fails, each projection is caught up on its own, so that one failing projection does not hold
    the others back; the first failure is raised after all have had their turn.
    """
    if _stopping():
        return {}
    job = _current_job()
    meta = dict(job.meta) if job is not None else {}
    request_ids = meta.get("request_ids") or []
    bound = request_ids[0] if isinstance(request_ids, list) and len(request_ids) == 1 else None
    with request_id_bound(bound):

        def on_batch(counts: dict[str, int]) -> None:
            for name, count in counts.items():
                PROJECTION_APPLIED.labels(name).inc(count)
            if _stopping():
                raise _Stopping

        try:
            if job is not None:
                applied = _catch_up_while_events_come(job, on_batch)
            else:
                applied = projections.catch_up_all(connection(), on_batch=on_batch, caches=caches())
        except _Stopping:
            log.info("projections: stopping after a committed batch")
            return {}
        except psycopg.OperationalError:
            count_error("worker", "postgres_unavailable")
            close_connection()
            raise
        except Exception:
            log.exception("catching all projections up together failed; catching each up on its own")
            return _catch_up_each()
        if meta:
            log.debug("catch-up job done", extra={"applied": applied, **meta})
        return applied


def _catch_up_while_events_come(job: Job, on_batch: Callable[[dict[str, int]], None]) -> dict[str, int]:
    """Catch every projection up again and again, holding the "looking" key (renewed every `RENEW_SECONDS`),
    until catch-ups have found nothing new for `IDLE_SECONDS`; then let the key go and catch up once more
    (see `catch_up_all`). Between two rounds it waits for about a few events at the recent rate (`pace`).

    The key names the job that holds it. A job that finds it held by another does nothing: the holder has
    still to look again, and one loop at a time is enough (two would let the key go under each other).

    After `LOOP_SECONDS` of finding events, the job hands its work on instead: it passes the key to a
    successor and puts that job at the front of its queue, so a worker free meanwhile goes on at once rather
    than waiting for the relay's next wake-up. The key's time to live covers a successor that never runs: the
    relay enqueues again once it has expired.

    Redis errors on the key are ignored: a key not set only means more jobs, one not deleted expires."""
    client: redis.Redis = job.connection
    applied = dict.fromkeys(projections.NAMES, 0)
    last_found = time.monotonic()
    deadline = last_found + LOOP_SECONDS
    holding = handed_on = False
    renewed = float("-inf")
    checkpoints = projections.Checkpoints()  # this job's: another worker's job starts from a fresh read
    pace = RoundPace()
    try:
        while True:
            started = time.monotonic()
            if started - renewed >= RENEW_SECONDS:
                if not _hold(client, job.id):
                    break  # another job holds the key: it looks again after this moment
                holding, renewed = True, started
            counts = projections.catch_up_all(connection(), on_batch=on_batch, caches=caches(), checkpoints=checkpoints)
            _add(applied, counts)
            now = time.monotonic()
            _note_round(now)
            if any(counts.values()):
                last_found = now
            if now - last_found >= IDLE_SECONDS or _stopping():
                break
            if now >= deadline:
                handed_on = _hand_on(job)
                break
            _pause(started + pace.interval_after(started, max(counts.values(), default=0)) - time.monotonic())
    finally:
        if holding and not handed_on:
            with contextlib.suppress(redis.RedisError):
                redis_bus.release_looking(client, job.id)
    if holding and not handed_on and not _stopping():
        _add(applied, projections.catch_up_all(connection(), on_batch=on_batch, caches=caches()))
    return applied


def _note_round(now: float) -> None:
    global _round_ended
    _round_ended = now


def job_went_on_within(seconds: float) -> bool:
    """Whether a job that goes on ended a round in this process in the last `seconds`: the polling fallback
    then has nothing to add, and a catch-up of its own would only take batches from under the job's feet."""
    return time.monotonic() - _round_ended < seconds


def _hold(client: redis.Redis, job_id: str) -> bool:
    """Take or keep the "looking" key; True unless another job holds it (also when Redis failed)."""
    try:
        return redis_bus.hold_looking(client, job_id, LOOKING_TTL_MS)
    except redis.RedisError:
        return True


def _hand_on(job: Job) -> bool:
    """Pass the "looking" key to a successor of `job` and put that job at the front of `job`'s queue; False
    (and a log line) if Redis refused either (a key passed to a job never enqueued expires)."""
    successor = str(uuid.uuid4())
    try:
        if not redis_bus.hold_looking(job.connection, job.id, LOOKING_TTL_MS, successor=successor):
            return False
        enqueue_catch_up_all(job.connection, job.origin, meta={"successor_of": job.id}, at_front=True, job_id=successor)
    except redis.RedisError:
        log.warning("could not hand the catch-up on to a successor job", exc_info=True)
        return False
    return True


def _pause(seconds: float) -> None:
    if seconds > 0:
        if _stop is not None:
            _stop.wait(seconds)
        else:
            time.sleep(seconds)


def _stopping() -> bool:
    return _stop is not None and _stop.is_set()


def _add(applied: dict[str, int], counts: dict[str, int]) -> None:
    for name, count in counts.items():
        applied[name] = applied.get(name, 0) + count


def _catch_up_each() -> dict[str, int]:
    applied: dict[str, int] = {}
    failure: Exception | None = None
    for name in projections.NAMES:
        try:
            applied[name] = catch_up(name)
        except Exception as error:
            failure = failure or error
    if failure is not None:
        raise failure
    return applied
