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
from typing import Any

import redis
from rq import SimpleWorker
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
# How long RQ's command listener waits for a message before it looks at its stop flag again (RQ's own: 60 s).
COMMAND_WAIT_S = 1.0


class ThreadWorker(SimpleWorker):
    """Runs jobs in its own thread (no fork), stoppable from another thread, no signal handlers."""

    death_penalty_class = TimerDeathPenalty

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("serializer", JOB_SERIALIZER)
        super().__init__(*args, **kwargs)

    def _install_signal_handlers(self) -> None:
        pass

    def subscribe(self) -> None:
        """RQ's, with a listener that looks at its stop flag every `COMMAND_WAIT_S`."""
        self.pubsub = self.connection.pubsub()  # type: ignore[no-untyped-call]
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]
            sleep_time=COMMAND_WAIT_S, daemon=True, exception_handler=self._pubsub_exception_handler
        )

    def unsubscribe(self) -> None:
        stop_command_listener(self)

    def dequeue_job_and_maintain_ttl(self, timeout: int | None, max_idle_time: int | None = None) -> Any:
        """Wait for a job in 1 s steps until stopped (None); Redis errors propagate (the caller retries).

        In burst mode (`timeout` None) one look at the queues, None when they are empty.
        """
        self.set_state(WorkerStatus.IDLE)
        while not self._stop_requested:
            self.heartbeat()
            if self.should_run_maintenance_tasks:
                self.run_maintenance_tasks()  # type: ignore[no-untyped-call]
            try:
                result = self.queue_class.dequeue_any(
                    self._ordered_queues,
                    None if timeout is None else 1,
                    connection=self.connection,
                    job_class=self.job_class,
                    serializer=self.serializer,
                    death_penalty_class=self.death_penalty_class,
                )
            except DequeueTimeout:
                continue
            if result is not None or timeout is None:
                return result
        return None


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


def stop_command_listener(worker: ThreadWorker) -> None:
    """Stop the thread RQ listens for commands on. RQ stops it only when `work` returns; after an error (Redis
    lost) it would go on retrying every 2 s for the life of the process, one more thread per outage."""
    thread = worker.pubsub_thread
    if thread is None:
        return
    # The flag first, then the UNSUBSCRIBE whose reply wakes the thread: RQ sends it first, and a thread that
    # read the reply before the flag went down waited for a subscription for its whole wait (60 s in RQ).
    thread.stop()
    if worker.pubsub is not None:
        with contextlib.suppress(redis.RedisError):
            worker.pubsub.unsubscribe()
    thread.join(timeout=5)
    worker.pubsub_thread = None
    if worker.pubsub is not None:
        worker.pubsub.close()


def _run_rq(redis_url: str, stop: threading.Event) -> None:
    current: list[ThreadWorker] = []
    watcher = threading.Thread(target=_stop_when_set, args=(current, stop), daemon=True)
    watcher.start()
    delay = 0.5
    while not stop.is_set():
        client = redis_clients.connect(redis_url, socket_timeout=10, socket_connect_timeout=2)
        worker: ThreadWorker | None = None
        try:
            worker = ThreadWorker([QUEUE], connection=client)
            current[:] = [worker]
            if stop.is_set():
                break
            worker.work(logging_level="WARNING")
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
            if worker is not None:
                stop_command_listener(worker)
            client.close()
        if not stop.is_set():
            stop.wait(delay)
            delay = min(delay * 2, 5.0)
    jobs.close_connection()


def _stop_when_set(current: list[ThreadWorker], stop: threading.Event) -> None:
    stop.wait()
    for worker in current:
        worker._stop_requested = True


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
