"""The events' reads return the table's own columns in its order, so PostgreSQL computes nothing per row."""

from __future__ import annotations

from typing import Any

import psycopg

from infra.event_store import EVENT_COLUMNS, EventStore, NewEvent
from infra.event_store.model import LogPosition
from tests.horizon import wait_until_readable


def test_the_event_columns_are_the_events_table_columns_in_order(conn: psycopg.Connection[Any]) -> None:
    rows = conn.execute(
        """SELECT attname FROM pg_attribute WHERE attrelid = 'events'::regclass AND attnum > 0 AND NOT attisdropped
           ORDER BY attnum"""
    ).fetchall()
    assert [column.strip() for column in EVENT_COLUMNS.split(",")] == [row["attname"] for row in rows]


def test_a_transaction_id_reads_back_as_the_int_the_append_returned(store: EventStore, db_url: str) -> None:
    (recorded,) = store.append("table-xid8", 0, [NewEvent("n", {"a": 1})])

    wait_until_readable(db_url)
    (read,) = store.read_stream("table-xid8")
    (logged,) = [event for event in store.read_log(LogPosition(0, 0)) if event.stream_id == "table-xid8"]
    with psycopg.connect(db_url) as plain:  # a connection of no pool: the loader is psycopg's, for every connection
        row = plain.execute("SELECT tx_id FROM events WHERE stream_id = 'table-xid8'").fetchone()
    assert type(read.tx_id) is int and read.tx_id == recorded.tx_id == logged.tx_id
    assert row == (recorded.tx_id,)
