"""The lag gauges read from PostgreSQL: events after a stored position, and how much older that position is."""

from __future__ import annotations

import psycopg
from prometheus_client.core import Metric

from infra.event_store import EventStore, NewEvent
from infra.projections.checkpoint import ensure_position, store_position
from services.metrics import LogLagCollector


def figures(collector: LogLagCollector) -> dict[str, dict[str, float]]:
    """{metric name: {label value: value}} of one scrape."""
    metrics: list[Metric] = list(collector.collect())
    return {m.name: {next(iter(s.labels.values())) if s.labels else "": s.value for s in m.samples} for m in metrics}


def test_lag_counts_the_events_after_each_position_and_their_age(store: EventStore, db_url: str) -> None:
    first = store.append("table-1", 0, [NewEvent("n", {"i": i}) for i in range(3)])
    later = store.append("table-2", 0, [NewEvent("n", {"i": 9})])
    with psycopg.connect(db_url, autocommit=True) as conn:
        for name in ("projection:behind", "projection:current"):
            ensure_position(conn, name)
        store_position(conn, "projection:behind", first[0].log_position)
        store_position(conn, "projection:current", later[-1].log_position)
    collector = LogLagCollector(
        "worker",
        db_url,
        "cardledger_projection",
        "projection",
        {"behind": "projection:behind", "current": "projection:current", "never": "projection:never"},
    )
    try:
        scraped = figures(collector)
    finally:
        collector._close()
    assert scraped["cardledger_projection_lag_events"] == {"behind": 3, "current": 0, "never": 4}
    lag = scraped["cardledger_projection_lag_seconds"]
    assert lag["behind"] == (later[-1].occurred_at - first[0].occurred_at).total_seconds()
    assert lag["current"] == 0
    # A position never stored counts from the start of the log: the first event's age.
    assert lag["never"] == (later[-1].occurred_at - first[0].occurred_at).total_seconds()
