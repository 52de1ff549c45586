"""Prometheus metrics shared by the processes, and the relay's and workers' own metrics endpoints.

In every process (default registry):

- `cardledger_events_appended_total{type}`: events committed by the write path (API processes);
- `cardledger_errors_total{component, code}`: errors by component (api, relay, worker) and stable code;
- `cardledger_append_conflicts_total`: appends that found their stream moved on (API, the workers' clock);
- `cardledger_db_pool_connections{state}`: the API's pool, set after each request (summed over gunicorn's
  workers);
- `cardledger_not_ready_total{component, check}`: the relay's and workers' failing readiness checks.

The relay and the workers serve the default registry on their own port
(`CARDLEDGER_RELAY_METRICS_PORT`, default 9101; `CARDLEDGER_WORKER_METRICS_PORT`,
default 9102; 0 disables; a port already taken is logged and skipped, the
process goes on), with /livez and /readyz beside it (`services.probes`). At
each scrape they read from PostgreSQL and Redis:

- relay: `cardledger_relay_lag_events`, `cardledger_relay_lag_seconds`;
- worker: `cardledger_projection_lag_events{projection}`, `cardledger_projection_lag_seconds{projection}`,
  `cardledger_rq_queue_depth{queue}`, `cardledger_rq_failed_jobs{queue}`.

Lag in events counts the committed events after the stored position (in the
log's commit-safe order). Lag in seconds is the newest committed event's
`occurred_at` minus the `occurred_at` of the event at the position (of the
oldest event when nothing was processed yet), 0 when nothing is behind.

The API's request metrics are in `services.api.metrics`; under gunicorn they
use prometheus_client's multiprocess mode (`services.gunicorn_conf`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import psycopg
import redis
from prometheus_client import REGISTRY, Counter, Gauge
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from services.probes import Check, Readiness, RelaySession, relay_readiness, start_endpoint, worker_readiness

log = logging.getLogger("cardledger.metrics")

RELAY_PORT_VARIABLE = "CARDLEDGER_RELAY_METRICS_PORT"
WORKER_PORT_VARIABLE = "CARDLEDGER_WORKER_METRICS_PORT"
DEFAULT_RELAY_PORT = 9101
DEFAULT_WORKER_PORT = 9102
QUERY_TIMEOUT_MS = 2000

EVENTS_APPENDED = Counter(
    "cardledger_events_appended_total",
    "Events committed to the log by the write path, by event type",
    ["type"],
)
ERRORS = Counter(
    "cardledger_errors_total",
    "Errors by component (api, relay, worker) and code (problem code for the API)",
    ["component", "code"],
)
RELAY_PUBLISHED = Counter(
    "cardledger_relay_events_published_total",
    "Events the relay published to Redis (a batch published again after a failure counts again)",
)
APPEND_CONFLICTS = Counter(
    "cardledger_append_conflicts_total",
    "Appends refused because the table's stream moved on meanwhile (each attempt, retried or not)",
)
DB_POOL = Gauge(
    "cardledger_db_pool_connections",
    "The API's PostgreSQL pool, summed over its processes: connections in use and idle, the maximum, callers waiting",
    ["state"],
    multiprocess_mode="livesum",
)
NOT_READY = Counter(
    "cardledger_not_ready_total",
    "Answers of the relay's and the workers' /readyz that were not ready, by component and failing check",
    ["component", "check"],
)
PROJECTION_APPLIED = Counter(
    "cardledger_projection_events_applied_total",
    "Events applied to a read model by this worker, by projection",
    ["projection"],
)


def count_appended(types: Iterable[str]) -> None:
    """Count committed events (call after the transaction committed)."""
    for event_type in types:
        EVENTS_APPENDED.labels(event_type).inc()


def count_error(component: str, code: str) -> None:
    ERRORS.labels(component, code).inc()


def record_pool_usage(usage: Mapping[str, int]) -> None:
    """Set `cardledger_db_pool_connections` from `infra.db.FastPool.usage()`."""
    for state, value in usage.items():
        DB_POOL.labels(state).set(value)


# Ports -----------------------------------------------------------------------


def metrics_port(variable: str, default: int, environ: Mapping[str, str] = os.environ) -> int:
    """The port in `variable` (0 disables); a malformed value is logged and the default used."""
    raw = environ.get(variable, "").strip()
    if not raw:
        return default
    try:
        port = int(raw, 10)
    except ValueError:
        log.warning("%s must be a port number, got %r; using %d", variable, raw, default)
        return default
    if not 0 <= port <= 65535:
        log.warning("%s must be between 0 and 65535, got %d; using %d", variable, port, default)
        return default
    return port


def serve_metrics(component: str, port: int, host: str = "127.0.0.1", readiness: Readiness | None = None) -> int | None:
    """Serve the default registry on http://host:port/metrics in a thread, with /livez and /readyz
    (`services.probes`; without `readiness`, /readyz has no check and answers ready); the port, or None when
    not serving.

    A port already in use (several workers on one host) is logged, counted,
    and the process goes on without its endpoint.
    """
    if port == 0:
        return None
    try:
        port = start_endpoint(host, port, counted(component, readiness) if readiness is not None else dict)
    except (OSError, OverflowError) as error:
        count_error(component, "metrics_port_unavailable")
        log.warning(
            "%s metrics endpoint not started: %s:%d is unavailable (%s); going on without it",
            component,
            host,
            port,
            error,
            extra={"component": component, "port": port},
        )
        return None
    log.info("%s metrics on http://%s:%d/metrics", component, host, port, extra={"component": component, "port": port})
    return port


def counted(component: str, readiness: Readiness) -> Readiness:
    """`readiness`, counting each failing check in `cardledger_not_ready_total` (what an alert can watch)."""

    def checked() -> dict[str, Check]:
        checks = readiness()
        for name, check in checks.items():
            if not check["ok"]:
                NOT_READY.labels(component, name).inc()
        return checks

    return checked


_installed: dict[str, Collector] = {}
_installed_lock = threading.Lock()


def install_collector(key: str, collector: Collector) -> None:
    """Register `collector` with the default registry, replacing the one installed under `key` before."""
    with _installed_lock:
        previous = _installed.pop(key, None)
        if previous is not None:
            REGISTRY.unregister(previous)
        REGISTRY.register(collector)
        _installed[key] = collector


# Collectors ------------------------------------------------------------------


class LogLagCollector(Collector):
    """Lag of stored log positions behind the newest committed event, read from PostgreSQL at each scrape.

    `positions` maps a label value to a row name of `log_positions`. With
    `label` None there is one position and the gauges carry no label.
    """

    def __init__(
        self, component: str, database_url: str, prefix: str, label: str | None, positions: Mapping[str, str]
    ) -> None:
        self.component = component
        self.database_url = database_url
        self.prefix = prefix
        self.label = label
        self.positions = dict(positions)
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def describe(self) -> Iterable[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        try:
            with self._lock:
                figures = self._read()
        except psycopg.Error as error:
            count_error(self.component, "metrics_query_failed")
            log.warning("%s lag metrics unavailable: %s", self.component, type(error).__name__)
            self._close()
            return
        labels = [self.label] if self.label else []
        events = GaugeMetricFamily(
            f"{self.prefix}_lag_events", "Committed events after the stored position", labels=labels
        )
        seconds = GaugeMetricFamily(
            f"{self.prefix}_lag_seconds",
            "Newest committed event's occurred_at minus the occurred_at at the stored position (0 when caught up)",
            labels=labels,
        )
        for value, (behind, lag) in figures.items():
            label_values = [value] if self.label else []
            events.add_metric(label_values, behind)
            seconds.add_metric(label_values, lag)
        yield events
        yield seconds

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = psycopg.connect(
                self.database_url,
                autocommit=True,
                connect_timeout=3,
                options=f"-c statement_timeout={QUERY_TIMEOUT_MS}",
                application_name=f"cardledger-{self.component}-metrics",
            )
        return self._conn

    def _close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _read(self) -> dict[str, tuple[int, float]]:
        conn = self._connection()
        head = conn.execute(
            "SELECT occurred_at FROM events ORDER BY tx_id DESC, global_position DESC LIMIT 1"
        ).fetchone()
        rows = conn.execute(
            "SELECT name, tx_id::text, global_position FROM log_positions WHERE name = ANY(%s)",
            (list(self.positions.values()),),
        ).fetchall()
        stored = {str(name): (tx_id, int(gp)) for name, tx_id, gp in rows}
        figures: dict[str, tuple[int, float]] = {}
        for value, name in self.positions.items():
            tx_id, global_position = stored.get(name, ("0", 0))
            if head is None:
                figures[value] = (0, 0.0)
                continue
            counted = conn.execute(
                "SELECT count(*) FROM events WHERE (tx_id, global_position) > (%s::text::xid8, %s)",
                (tx_id, global_position),
            ).fetchone()
            behind = int(counted[0]) if counted is not None else 0
            if behind == 0:
                figures[value] = (0, 0.0)
                continue
            at = conn.execute(
                """SELECT occurred_at FROM events WHERE tx_id = %s::text::xid8 AND global_position = %s
                   UNION ALL (SELECT occurred_at FROM events ORDER BY tx_id, global_position LIMIT 1)
                   LIMIT 1""",
                (tx_id, global_position),
            ).fetchone()
            lag = max(0.0, (head[0] - at[0]).total_seconds()) if at is not None else 0.0
            figures[value] = (behind, lag)
        return figures


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
        from rq import Queue

        if self._client is None:
            self._client = redis.Redis.from_url(self.redis_url, socket_timeout=2, socket_connect_timeout=2)
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


# Process setups ----------------------------------------------------------------


def start_relay_metrics(
    database_url: str, host: str, relay: RelaySession | None = None, environ: Mapping[str, str] = os.environ
) -> int | None:
    """The relay's endpoint: lag of the relay's position, errors, and `relay`'s probes; the port served or None."""
    from services.relay.relay import RELAY_LOCK_KEY, RELAY_POSITION

    port = metrics_port(RELAY_PORT_VARIABLE, DEFAULT_RELAY_PORT, environ)
    if port == 0:
        return None
    install_collector(
        "relay-lag", LogLagCollector("relay", database_url, "cardledger_relay", None, {"": RELAY_POSITION})
    )
    readiness = relay_readiness(relay, database_url, RELAY_LOCK_KEY) if relay is not None else None
    return serve_metrics("relay", port, host, readiness)


def start_worker_metrics(
    database_url: str, redis_url: str, host: str, environ: Mapping[str, str] = os.environ
) -> int | None:
    """A worker's endpoint: lag of every projection, RQ queue depth, errors; returns the port served or None."""
    from infra.projections import NAMES
    from infra.projections.checkpoint import checkpoint_name
    from services.projector.worker import QUEUE

    port = metrics_port(WORKER_PORT_VARIABLE, DEFAULT_WORKER_PORT, environ)
    if port == 0:
        return None
    positions = {name: checkpoint_name(name) for name in NAMES}
    install_collector(
        "projection-lag", LogLagCollector("worker", database_url, "cardledger_projection", "projection", positions)
    )
    install_collector("rq-queues", QueueDepthCollector("worker", redis_url, [QUEUE]))
    return serve_metrics("worker", port, host, worker_readiness(database_url, redis_url))
