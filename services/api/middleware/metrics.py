"""Prometheus metrics of the API: request count and latency by route and status (one registry per app).

GET /metrics answers, besides these, the process-wide metrics of
`services.app.metrics` (events appended by type) and `infra.metrics` (errors by code). Under gunicorn
(`services.gunicorn_conf`) every worker process writes its values to files in
PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode) and
/metrics, whichever worker answers, sums the files of all workers: one scrape
sees the whole server. Without that variable (tests, a single process),
/metrics shows this process's registries.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

import flask
from flask import Flask, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from infra.db import ServicePool
from infra.metrics import serve_metrics
from services.api.deps import holder

REGISTRY_KEY = "cardledger.metrics"

DB_POOL = Gauge(
    "cardledger_db_pool_connections",
    "The API's PostgreSQL pool, summed over its processes: connections in use and idle, the maximum, callers waiting",
    ["state"],
    multiprocess_mode="livesum",
)


def record_pool_usage(usage: Mapping[str, int]) -> None:
    """Set `cardledger_db_pool_connections` from `infra.db.ServicePool.usage()`."""
    for state, value in usage.items():
        DB_POOL.labels(state).set(value)


class ApiMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "cardledger_http_requests_total",
            "HTTP requests answered, by method, route and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "cardledger_http_request_duration_seconds",
            "Time to answer an HTTP request, by method, route and status",
            ["method", "route", "status"],
            registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
        )

    def render(self) -> Response:
        multiprocess_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if multiprocess_dir:
            registry = CollectorRegistry()
            MultiProcessCollector(registry, multiprocess_dir)  # type: ignore[no-untyped-call]
            body = generate_latest(registry)
        else:
            body = generate_latest(self.registry) + generate_latest(REGISTRY)
        return Response(body, mimetype=CONTENT_TYPE_LATEST)


# Any token is a method name to HTTP: as a label each new one would be a new series, without end.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


POOL_GAUGE_SECONDS = 1.0  # how often a worker refreshes the pool gauge, at most: not on every request


def install_metrics(app: Flask) -> ApiMetrics:
    metrics = ApiMetrics()
    app.extensions[REGISTRY_KEY] = metrics
    pool_gauge_due = [0.0]  # when this process next refreshes the pool gauge
    # Each series' child, looked up once (labels are bounded: known methods, the app's routes, statuses).
    counters: dict[tuple[str, str, str], Any] = {}
    timers: dict[tuple[str, str, str], Any] = {}

    @app.after_request
    def _observe(response: Response) -> Response:
        started = flask.g.get("request_started")  # stamped by the first hook (middleware.request_ids)
        served = flask.request
        route = served.url_rule.rule if served.url_rule is not None else "unmatched"
        method = served.method if served.method in KNOWN_METHODS else "other"
        labels = (method, route, str(response.status_code))
        counted = counters.get(labels)
        if counted is None:
            counted = counters[labels] = metrics.requests.labels(*labels)
        counted.inc()
        if started is not None:
            timed = timers.get(labels)
            if timed is None:
                timed = timers[labels] = metrics.latency.labels(*labels)
            timed.observe(time.perf_counter() - started)
        now = time.monotonic()
        if now >= pool_gauge_due[0]:
            pool_gauge_due[0] = now + POOL_GAUGE_SECONDS
            built = holder(app).built  # never built here: a probe must not open the pool
            if built is not None and isinstance(built.pool, ServicePool):
                record_pool_usage(built.pool.usage())
        return response

    return metrics


def metrics_of(app: Flask) -> ApiMetrics:
    found: ApiMetrics = app.extensions[REGISTRY_KEY]
    return found


def serve_api_metrics(multiprocess_dir: str, host: str, port: int) -> int | None:
    """Serve every gunicorn worker's metrics (the multiprocess files) on http://host:port/metrics, from the arbiter,
    with /livez; the port, or None when off (`port` 0) or taken. /metrics is not on the API's
    public port: its error counts and activity are the operator's."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, multiprocess_dir)  # type: ignore[no-untyped-call]
    return serve_metrics("api", port, host, registry=registry)
