"""The RQ wiring of the projections: their queue, the one job (`CATCH_UP_ALL_JOB`, the dotted name of
`services.projector.jobs.catch_up_all`, named here only), and how it goes on the queue: from the relay (a
wake-up, `enqueue_projections`) or from a job that hands its work on to a successor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from infra import redis_bus
from infra.event_store import RecordedEvent

PROJECTIONS_QUEUE = "projections"
CATCH_UP_ALL_JOB = "services.projector.jobs.catch_up_all"  # RQ imports it by this name; a test checks it resolves
# Jobs travel as JSON (a function name and plain values), never as pickles: RQ's default would unpickle what
# anyone able to write to Redis put on the queue, which runs their code in the workers.
JOB_SERIALIZER = JSONSerializer


def enqueue_catch_up_all(
    client: redis.Redis,
    queue_name: str = PROJECTIONS_QUEUE,
    meta: dict[str, Any] | None = None,
    at_front: bool = False,
    job_id: str | None = None,
) -> Job:
    """Put a job that catches every projection up on the queue (no result kept; a failure kept for a day)."""
    queue = Queue(queue_name, connection=client, serializer=JOB_SERIALIZER)
    return queue.enqueue(
        CATCH_UP_ALL_JOB,
        result_ttl=0,
        failure_ttl=86_400,
        job_timeout=600,
        meta=meta,
        at_front=at_front,
        job_id=job_id,
    )


def enqueue_projections(
    client: redis.Redis, queue_name: str = PROJECTIONS_QUEUE, meta: dict[str, Any] | None = None
) -> int:
    """Enqueue one job that catches every projection up, unless one is still waiting or a running job will
    read the log again; returns the jobs enqueued.

    A waiting job has not started, so it will see every event committed before
    this call; so will a running job that holds the "looking" key
    (`redis_bus.PROJECTIONS_LOOKING_KEY`), as it reads the log once more after
    it lets the key go. One job per wake-up (not one per projection), and none
    while a job is looking, keeps RQ's own work small under load. `meta` (the
    batch's request ids and positions) goes with the job, for the worker's log.
    """
    queue = Queue(queue_name, connection=client)
    pipe = client.pipeline(transaction=False)
    pipe.exists(redis_bus.PROJECTIONS_LOOKING_KEY)
    pipe.llen(queue.key)
    looking, waiting = pipe.execute()
    if looking or waiting:
        return 0
    enqueue_catch_up_all(client, queue_name, meta)
    return 1


def publish_and_enqueue(
    client: redis.Redis,
    events: Sequence[RecordedEvent],
    queue_name: str = PROJECTIONS_QUEUE,
    meta: dict[str, Any] | None = None,
) -> int:
    """Publish a batch (`redis_bus.publish`) and, as `enqueue_projections` does, enqueue a job unless one is
    waiting or looking; returns the jobs enqueued. The check runs in the publishing script: under steady
    writes a job is looking, and the batch costs one round trip to Redis instead of two."""
    queue_key = Queue.redis_queue_namespace_prefix + queue_name  # Queue(...).key, without making a Queue
    _added, idle = redis_bus.publish_checking_queue(client, events, queue_key)
    if not idle:
        return 0
    enqueue_catch_up_all(client, queue_name, meta)
    return 1
