"""Prometheus helpers the processes share: errors by component and code, a metrics endpoint on a port of its
own, collectors installed once, and the lag of a stored log position.

`cardledger_errors_total{component, code}` counts errors in every process (default registry). Each process
keeps its own metrics with it: the API's in `services.api.middleware.metrics` (and the events appended by the
write path, `services.app.metrics`), the relay's in `services.relay.metrics`, the workers' in
`services.projector.metrics`.

Lag in events counts the committed events after the stored position (in the log's commit-safe order). Lag in
seconds is the newest committed event's `occurred_at` minus the `occurred_at` of the event at the position (of
the oldest event when nothing was processed yet), 0 when nothing is behind.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import psycopg
from prometheus_client import REGISTRY, CollectorRegistry, Counter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from infra.probes import Check, Readiness, start_endpoint
from infra.sql import log_lag

log = logging.getLogger("cardledger.metrics")

QUERY_TIMEOUT_MS = 2000

ERRORS = Counter(
    "cardledger_errors_total",
    "Errors by component (api, relay, worker) and code (problem code for the API)",
    ["component", "code"],
)
NOT_READY = Counter(
    "cardledger_not_ready_total",
    "Answers of the relay's and the workers' /readyz that were not ready, by component and failing check",
    ["component", "check"],
)


def count_error(component: str, code: str) -> None:
    ERRORS.labels(component, code).inc()


def serve_metrics(
    component: str,
    port: int,
    host: str = "127.0.0.1",
    readiness: Readiness | None = None,
    registry: CollectorRegistry = REGISTRY,
) -> int | None:
    """Serve the default registry on http://host:port/metrics in a thread, with /livez and /readyz
    (`infra.probes`; without `readiness`, /readyz has no check and answers ready); the port, or None when
    not serving.

    A port already in use (several workers on one host) is logged, counted,
    and the process goes on without its endpoint.
    """
    if port == 0:
        return None
    try:
        port = start_endpoint(host, port, counted(component, readiness) if readiness is not None else dict, registry)
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
        head = log_lag.newest_occurred_at(conn)
        stored = log_lag.stored_positions(conn, self.positions.values())
        figures: dict[str, tuple[int, float]] = {}
        for value, name in self.positions.items():
            position = stored.get(name, log_lag.NOTHING_PROCESSED)
            behind = 0 if head is None else log_lag.events_after(conn, position)
            if behind == 0:
                figures[value] = (0, 0.0)
                continue
            at = log_lag.occurred_at(conn, position)
            lag = max(0.0, (head - at).total_seconds()) if head is not None and at is not None else 0.0
            figures[value] = (behind, lag)
        return figures
