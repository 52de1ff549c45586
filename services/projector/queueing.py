"""The RQ queue of the projection jobs, and how a catch-up job goes on it: from the relay (a wake-up) or from
a job that hands its work on to a successor (`services.projector.jobs`)."""

from __future__ import annotations

from typing import Any

import redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

PROJECTIONS_QUEUE = "projections"
CATCH_UP_ALL_JOB = "services.projector.jobs.catch_up_all"
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
