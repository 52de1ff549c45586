"""The projection workers' metrics, served on a port of each worker's own (`CARDLEDGER_WORKER_METRICS_PORT`,
default 9102; 0 disables; a port already taken is logged and skipped):
`cardledger_projection_events_applied_total{projection}`, and at each scrape
`cardledger_projection_lag_events{projection}`, `cardledger_projection_lag_seconds{projection}`,
`cardledger_rq_queue_depth{queue}` and `cardledger_rq_failed_jobs{queue}`, besides the errors of
`infra.metrics`."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

import redis
from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from rq import Queue

from infra import redis_clients
from infra.metrics import LogLagCollector, count_error, install_collector, serve_metrics
from infra.probes import worker_readiness
from infra.projections import NAMES
from infra.projections.checkpoint import checkpoint_name
from infra.queueing import PROJECTIONS_QUEUE

log = logging.getLogger("cardledger.metrics")


PROJECTION_APPLIED = Counter(
    "cardledger_projection_events_applied_total",
    "Events applied to a read model by this worker, by projection",
    ["projection"],
)


class QueueDepthCollector(Collector):
    """Jobs waiting in, and failed on, RQ queues, read from Redis at each scrape."""

    def __init__(self, component: str, redis_url: str, queues: Iterable[str]) -> None:
        self.component = component
        self.redis_url = redis_url
        self.queues = tuple(queues)
        self._client: redis.Redis | None = None

    def describe(self) -> Iterable[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        if self._client is None:
            self._client = redis_clients.connect(self.redis_url, socket_timeout=2, socket_connect_timeout=2)
        depth = GaugeMetricFamily("cardledger_rq_queue_depth", "Jobs waiting in an RQ queue", labels=["queue"])
        failed = GaugeMetricFamily(
            "cardledger_rq_failed_jobs", "Jobs in an RQ queue's failed-job registry", labels=["queue"]
        )
        try:
            for name in self.queues:
                queue = Queue(name, connection=self._client)
                depth.add_metric([name], queue.count)
                failed.add_metric([name], queue.failed_job_registry.count)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            count_error(self.component, "metrics_redis_unavailable")
            log.warning("%s queue metrics unavailable: %s", self.component, type(error).__name__)
            return
        yield depth
        yield failed


def start_worker_metrics(database_url: str, redis_url: str, host: str, port: int) -> int | None:
    """A worker's endpoint: lag of every projection, RQ queue depth, errors; returns the port served or None
    (`port` 0: none)."""
    if port == 0:
        return None
    positions = {name: checkpoint_name(name) for name in NAMES}
    install_collector(
        "projection-lag", LogLagCollector("worker", database_url, "cardledger_projection", "projection", positions)
    )
    install_collector("rq-queues", QueueDepthCollector("worker", redis_url, [PROJECTIONS_QUEUE]))
    return serve_metrics("worker", port, host, worker_readiness(database_url, redis_url))
