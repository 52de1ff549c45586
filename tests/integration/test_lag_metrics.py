"""The lag gauges read from PostgreSQL: events after a stored position, and how much older that position is."""

from __future__ import annotations

import time

import psycopg
from prometheus_client.core import Metric

from infra.event_store import EventStore, NewEvent
from infra.metrics import LogLagCollector
from infra.projections.checkpoint import ensure_position, store_position


def figures(collector: LogLagCollector) -> dict[str, dict[str, float]]:
    """{metric name: {label value: value}} of one scrape."""
    metrics: list[Metric] = list(collector.collect())
    return {m.name: {next(iter(s.labels.values())) if s.labels else "": s.value for s in m.samples} for m in metrics}


def test_lag_counts_the_events_after_each_position_and_their_age(store: EventStore, db_url: str) -> None:
    (oldest,) = store.append("table-1", 0, [NewEvent("n", {"i": 1})])
    time.sleep(0.002)
    middle = store.append("table-1", 1, [NewEvent("n", {"i": i}) for i in (2, 3)], head_hash=oldest.hash)
    time.sleep(0.002)
    (newest,) = store.append("table-2", 0, [NewEvent("n", {"i": 9})])
    assert oldest.occurred_at < middle[0].occurred_at < newest.occurred_at
    with psycopg.connect(db_url, autocommit=True) as conn:
        for name in ("projection:behind", "projection:current"):
            ensure_position(conn, name)
        store_position(conn, "projection:behind", middle[0].log_position)
        store_position(conn, "projection:current", newest.log_position)
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
    assert scraped["cardledger_projection_lag_events"] == {"behind": 2, "current": 0, "never": 4}
    lag = scraped["cardledger_projection_lag_seconds"]
    assert lag["behind"] == (newest.occurred_at - middle[0].occurred_at).total_seconds()
    assert lag["current"] == 0
    # A position never stored counts from the start of the log: the oldest event's age.
    assert lag["never"] == (newest.occurred_at - oldest.occurred_at).total_seconds()
