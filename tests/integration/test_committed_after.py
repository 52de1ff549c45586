"""`committed_after_in`, the relay's look for commits before it sleeps: right answers, and a plan that reads the
commit-order index, not the table, whatever plan the server caches for it (the relay runs it often, on a
connection that prepares it)."""

from __future__ import annotations

import json
from typing import Any

import psycopg

from infra.event_store import START, EventStore, LogPosition, NewEvent, committed_after_in


def positions(conn: psycopg.Connection[Any]) -> list[LogPosition]:
    """Every event's position in commit order (read directly: the log's reads hold back events that other
    databases' running transactions could still precede)."""
    rows = conn.execute("SELECT tx_id, global_position FROM events ORDER BY tx_id, global_position").fetchall()
    return [LogPosition(int(row["tx_id"]), int(row["global_position"])) for row in rows]


def test_it_says_whether_an_event_follows_a_position(store: EventStore, conn: psycopg.Connection[Any]) -> None:
    assert not committed_after_in(conn, START)
    for n in range(3):
        store.append("stream-a", n, [NewEvent("plain", {"n": n})])
    log = positions(conn)
    assert committed_after_in(conn, START)
    assert committed_after_in(conn, log[1])
    assert not committed_after_in(conn, log[-1])


def test_its_generic_plan_reads_the_commit_order_index(store: EventStore, conn: psycopg.Connection[Any]) -> None:
    for n in range(200):
        store.append(f"stream-{n % 7}", n // 7, [NewEvent("plain", {"n": n})])
    conn.execute("ANALYZE events")
    conn.execute("SET plan_cache_mode = force_generic_plan")
    statements: list[str] = []

    class Noting:
        def execute(self, query: str, params: Any = None) -> Any:
            statements.append(query)
            return conn.execute(query, params)

    last = positions(conn)[-1]
    assert not committed_after_in(Noting(), last)  # type: ignore[arg-type]
    (query,) = statements
    prepared = query.replace("%s", "$1", 1).replace("%s", "$2", 1)
    conn.execute(f"PREPARE committed_after (text, bigint) AS {prepared}")
    rows = conn.execute(
        f"EXPLAIN (FORMAT JSON) EXECUTE committed_after ('{last.tx_id}', {last.global_position})"
    ).fetchall()
    plan = json.dumps([list(row.values()) if isinstance(row, dict) else list(row) for row in rows])
    assert "Seq Scan" not in plan
    assert "events_commit_order" in plan
