"""Prometheus metrics of the API: request count and latency by route and status (one registry per app).

Under gunicorn each worker process has its own registry; scrape every worker
or run with prometheus_client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR).
"""

from __future__ import annotations

import time

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

REGISTRY_KEY = "cardledger.metrics"


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
        return Response(generate_latest(self.registry), mimetype=CONTENT_TYPE_LATEST)


def install_metrics(app: Flask) -> ApiMetrics:
    metrics = ApiMetrics()
    app.extensions[REGISTRY_KEY] = metrics

    @app.before_request
    def _start_timer() -> None:
        g.request_started = time.perf_counter()

    @app.after_request
    def _observe(response: Response) -> Response:
        started = g.get("request_started")
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        labels = (request.method, route, str(response.status_code))
        metrics.requests.labels(*labels).inc()
        if started is not None:
            metrics.latency.labels(*labels).observe(time.perf_counter() - started)
        return response

    return metrics


def metrics_of(app: Flask) -> ApiMetrics:
    found: ApiMetrics = app.extensions[REGISTRY_KEY]
    return found
