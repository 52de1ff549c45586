"""A projection worker: an RQ worker on queue "projections" plus a polling fallback.

The RQ worker runs the catch-up jobs the relay enqueues (a low-latency
wake-up). The fallback thread catches every projection up every second on its
own, so a lost job, a dead relay or a Redis outage delays the read models by
at most about a second and loses nothing: the log in PostgreSQL is the source,
Redis only the signal. Both paths are exactly-once (see infra.projections).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from datetime import timedelta

import redis
from rq import Queue, SimpleWorker
from rq.exceptions import DequeueTimeout
from rq.timeouts import TimerDeathPenalty
from rq.worker import WorkerStatus

from infra import redis_bus, redis_clients
from infra.config import DEFAULT_ABANDON_AFTER
from infra.metrics import count_error
from infra.projections import ProjectionCaches
from infra.queueing import JOB_SERIALIZER, PROJECTIONS_QUEUE
from services.clock import start_clock_thread
from services.projector import jobs

log = logging.getLogger("cardledger.projector")

QUEUE = PROJECTIONS_QUEUE
FALLBACK_INTERVAL_S = 1.0
RQ_LOGGERS = ("rq.worker", "rq.job")  # what `Worker.work(logging_level="WARNING")` quietened
DEQUEUE_WAIT_S = 1  # how long a wait for a job lasts before the worker looks at its stop event again


def projection_worker(client: redis.Redis) -> SimpleWorker:
    """An RQ worker of queue "projections" on `client` that runs each job in the calling thread, its timeout kept
    by a timer (RQ's default, SIGALRM, works in the main thread only)."""
    worker = SimpleWorker([QUEUE], connection=client, serializer=JOB_SERIALIZER)
    worker.death_penalty_class = TimerDeathPenalty
    for name in RQ_LOGGERS:  # RQ's line per job is noise beside the projections' own logs
        logging.getLogger(name).setLevel(logging.WARNING)
    return worker


def work(client: redis.Redis, stop: threading.Event, burst: bool = False) -> int:
    """Run the queue's jobs in this thread until `stop` is set (with `burst`, until the queue is empty); the
    number of jobs run. RQ's `Worker.work` would install signal handlers, which only the main thread may, and
    looks at its stop flag only between jobs or after a dequeue's timeout (minutes); this loop waits for a
    job a second at a time. Redis errors propagate (the caller retries)."""
    worker = projection_worker(client)
    worker.register_birth()  # type: ignore[no-untyped-call]
    done = 0
    try:
        # RQ's commands (`rq.command`): a shutdown becomes a SIGINT to the process, which sets `stop`
        # (`services.cli`); a thread of RQ's own, stopped below.
        worker.subscribe()  # type: ignore[no-untyped-call]
        while not stop.is_set():
            worker.heartbeat()
            if worker.should_run_maintenance_tasks:
                worker.run_maintenance_tasks()  # type: ignore[no-untyped-call]
            worker.set_state(WorkerStatus.IDLE)
            try:
                found = Queue.dequeue_any(
                    worker.queues,
                    None if burst else DEQUEUE_WAIT_S,
                    connection=client,
                    job_class=worker.job_class,
                    serializer=worker.serializer,
                    death_penalty_class=worker.death_penalty_class,
                )
            except DequeueTimeout:
                continue
            if found is None:
                return done
            job, queue = found
            worker.execute_job(job, queue)
            done += 1
        return done
    finally:
        stop_command_listener(worker)
        worker.register_death()  # type: ignore[no-untyped-call]


def stop_command_listener(worker: SimpleWorker) -> None:
    """Stop the thread `worker` listens for RQ's commands on, also after Redis was lost (when RQ's listener
    would go on retrying every 2 s for the life of the process, one more thread per outage)."""
    thread, pubsub = worker.pubsub_thread, worker.pubsub
    if thread is None:  # `subscribe` failed (Redis lost) before its thread started
        if pubsub is not None:
            pubsub.close()
        return
    # The flag first, then the UNSUBSCRIBE whose reply wakes the thread (RQ's `unsubscribe` sends it first: a
    # thread that read the reply before the flag went down waited for a subscription for 60 s).
    thread.stop()
    if pubsub is not None:
        with contextlib.suppress(redis.RedisError):
            pubsub.unsubscribe()
    thread.join(timeout=5)
    worker.pubsub_thread = None
    if pubsub is not None:
        pubsub.close()


def poll_forever(stop: threading.Event, interval: float = FALLBACK_INTERVAL_S) -> None:
    """Catch every projection up every `interval` seconds until `stop` is set, unless a job of this process is
    going on (`jobs.job_went_on_within`): its rounds are catching up already."""
    while not stop.is_set():
        try:
            if not jobs.job_went_on_within(interval):
                jobs.catch_up_all()
        except Exception:
            log.exception("projection polling fallback failed; retrying in %.1f s", interval)
            count_error("worker", "catch_up_failed")
        stop.wait(interval)
    jobs.close_connection()


def _run_rq(redis_url: str, stop: threading.Event) -> None:
    delay = 0.5
    while not stop.is_set():
        client = redis_clients.connect(redis_url, socket_timeout=10, socket_connect_timeout=2)
        try:
            work(client, stop)
            delay = 0.5
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            code = redis_bus.failure_code(error)  # a refused password too: one line per attempt, then retried
            count_error("worker", code)
            log.log(
                logging.ERROR if code == "redis_auth_failed" else logging.WARNING,
                "projection worker: %s; retrying in %.1f s (the polling fallback keeps the projections up)",
                redis_bus.describe_failure(error),
                delay,
            )
        except Exception:
            count_error("worker", "unexpected")
            log.exception("projection worker failed; restarting in %.1f s", delay)
        finally:
            client.close()
        if not stop.is_set():
            stop.wait(delay)
            delay = min(delay * 2, 5.0)
    jobs.close_connection()


def run_worker(
    database_url: str,
    redis_url: str,
    stop: threading.Event,
    fallback_interval: float = 1.0,
    clock: bool = True,
    abandon_after: timedelta = DEFAULT_ABANDON_AFTER,
) -> None:
    """Run an RQ worker on queue "projections" and the polling fallback until `stop` is set (blocking), and
    with `clock` the turn clock's thread (`services.clock`: one worker's clock sweeps, the others stand by)."""
    jobs.configure(database_url, stop, ProjectionCaches())  # this worker's own, shared by its two threads
    poller = threading.Thread(target=poll_forever, args=(stop, fallback_interval), name="projection-poller")
    poller.start()
    ticker = start_clock_thread(database_url, stop, abandon_after) if clock else None
    try:
        _run_rq(redis_url, stop)
    finally:
        poller.join()
        if ticker is not None:
            ticker.join(timeout=10)
