"""The RQ job functions of the projections (enqueued by the relay as "services.projector.jobs.catch_up").

They find PostgreSQL through `configure(url)` (called by `run_worker`) or,
in any other process (a plain `rq worker projections`), the DATABASE_URL
environment variable. Each thread keeps one connection to it.

A stop event given to `configure` ends a catch-up between two batches (each
batch is its own transaction, committed or not at all), so a worker asked to
stop finishes the batch in hand and returns.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import redis
from psycopg.rows import dict_row
from rq import get_current_job
from rq.job import Job

from infra import projections, redis_bus
from services.logs import request_id_bound
from services.metrics import PROJECTION_APPLIED, count_error

log = logging.getLogger("cardledger.projector.jobs")

Conn = psycopg.Connection[dict[str, Any]]

# How long one job goes on catching up while events keep coming, and how long its "looking" key outlives a
# job that died without letting it go (the relay enqueues again after that; the polling fallback meanwhile).
LOOP_SECONDS = 5.0
LOOKING_TTL_MS = 2000
# The least time between the starts of two catch-ups of a job that goes on (at most 100 a second): one that
# finds a few events costs about as much as one that finds many, and back to back they would take the CPU
# of the processes writing the events.
ROUND_SECONDS = 0.01

_configured_url: str | None = None
_stop: threading.Event | None = None
_local = threading.local()


class _Stopping(Exception):
    """Raised between two batches when the worker is stopping."""


def configure(database_url: str, stop: threading.Event | None = None) -> None:
    """Use `database_url` for the jobs run in this process; stop catching up between batches once `stop` is set."""
    global _configured_url, _stop
    _configured_url = database_url
    _stop = stop


def database_url() -> str:
    url = _configured_url or os.environ.get("DATABASE_URL", "").strip()
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
        conn = psycopg.connect(url, autocommit=True, row_factory=dict_row)
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
            projections.catch_up(connection(), name, on_batch=on_batch)
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

    In an RQ job it goes on catching up for as long as new events keep coming (up to `LOOP_SECONDS`), so
    that under load one job does the work of many (RQ's bookkeeping cost each job about as much as
    catching up on the events it was enqueued for). Meanwhile it holds the "looking" key, and the relay
    enqueues no jobs. It lets the key go only just before a last catch-up, so an event the relay saw while
    the key was there is committed before that last look and is caught up by it.

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
                applied = _catch_up_while_events_come(job.connection, on_batch)
            else:
                applied = projections.catch_up_all(connection(), on_batch=on_batch)
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


def _catch_up_while_events_come(client: redis.Redis, on_batch: Callable[[dict[str, int]], None]) -> dict[str, int]:
    """Catch every projection up again and again, holding the "looking" key, until a catch-up finds nothing
    new or `LOOP_SECONDS` have passed; then let the key go and catch up once more (see `catch_up_all`).

    Redis errors on the key are ignored: a key not set only means more jobs, one not deleted expires."""
    applied = dict.fromkeys(projections.NAMES, 0)
    deadline = time.monotonic() + LOOP_SECONDS
    try:
        while True:
            started = time.monotonic()
            with contextlib.suppress(redis.RedisError):
                client.set(redis_bus.PROJECTIONS_LOOKING_KEY, 1, px=LOOKING_TTL_MS)
            counts = projections.catch_up_all(connection(), on_batch=on_batch)
            _add(applied, counts)
            if not any(counts.values()) or time.monotonic() >= deadline or _stopping():
                break
            _pause(started + ROUND_SECONDS - time.monotonic())
    finally:
        with contextlib.suppress(redis.RedisError):
            client.delete(redis_bus.PROJECTIONS_LOOKING_KEY)
    if not _stopping():
        _add(applied, projections.catch_up_all(connection(), on_batch=on_batch))
    return applied


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
