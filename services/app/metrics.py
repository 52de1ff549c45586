"""The write path's metric: `cardledger_events_appended_total{type}`, events committed by the application
(served by the API's /metrics)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from prometheus_client import Counter

EVENTS_APPENDED = Counter(
    "cardledger_events_appended_total",
    "Events committed to the log by the write path, by event type",
    ["type"],
)
APPEND_CONFLICTS = Counter(
    "cardledger_append_conflicts_total",
    "Appends refused because the table's stream moved on meanwhile (each attempt, retried or not)",
)


_APPENDED_BY_TYPE: dict[str, Any] = {}  # the counter's child of each event type, looked up once


def count_appended(types: Iterable[str]) -> None:
    """Count committed events (call after the transaction committed)."""
    for event_type in types:
        child = _APPENDED_BY_TYPE.get(event_type)
        if child is None:
            child = _APPENDED_BY_TYPE[event_type] = EVENTS_APPENDED.labels(event_type)
        child.inc()
