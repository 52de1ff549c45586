"""The relay's metrics, served on its own port (`CARDLEDGER_RELAY_METRICS_PORT`, default 9101; 0 disables; a
port already taken is logged and skipped): `cardledger_relay_events_published_total`, and at each scrape
`cardledger_relay_lag_events` and `cardledger_relay_lag_seconds` (`infra.metrics.LogLagCollector`), besides
the errors of `infra.metrics`."""

from __future__ import annotations

from prometheus_client import Counter

from infra.metrics import LogLagCollector, install_collector, serve_metrics
from infra.probes import RelaySession, relay_readiness
from infra.projections.checkpoint import RELAY_LOCK_KEY, RELAY_POSITION

RELAY_PUBLISHED = Counter(
    "cardledger_relay_events_published_total",
    "Events the relay published to Redis (a batch published again after a failure counts again)",
)


def start_relay_metrics(database_url: str, host: str, port: int, relay: RelaySession | None = None) -> int | None:
    """The relay's endpoint: lag of the relay's position, errors, and `relay`'s probes; the port served or None
    (`port` 0: none)."""
    if port == 0:
        return None
    install_collector(
        "relay-lag", LogLagCollector("relay", database_url, "cardledger_relay", None, {"": RELAY_POSITION})
    )
    readiness = relay_readiness(relay, database_url, RELAY_LOCK_KEY) if relay is not None else None
    return serve_metrics("relay", port, host, readiness)
