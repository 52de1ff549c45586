"""Reading the PostgreSQL event store: one function per query, each taking the caller's connection."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import psycopg
from psycopg.rows import args_row
from psycopg.types.numeric import IntLoader

from domain.table import DEAL_ENDED, DEAL_STARTED
from infra.db import Conn, ServiceConnection
from infra.event_store.model import DealFacts, IdempotencyRecord, LogPosition, RecordedEvent

# A transaction id (xid8, `events.tx_id`) is read as a Python int, as a bigint is. The events' rows then are the
# table's own columns in its order, which PostgreSQL returns as they are stored instead of computing each row
# again (a cast of tx_id did that). Registered for every connection made from now on.
psycopg.adapters.register_loader("xid8", IntLoader)

# The columns of a RecordedEvent, in the order of its fields (rows are made by position: `fetch_events`), which is
# also the order of the table's columns.
EVENT_COLUMNS = (
    "global_position, stream_id, version, type, schema_version, deal_no, data, metadata, "
    "occurred_at, prev_hash, hash, tx_id, hash_version"
)

# Each row made a RecordedEvent by position: every column list read through it names RecordedEvent's fields in
# order (tests/unit/test_event_columns.py).
_event_row = args_row(RecordedEvent)


def fetch_events(conn: Conn, query: str, params: Sequence[Any] | Mapping[str, Any]) -> list[RecordedEvent]:
    """The events a SELECT of `EVENT_COLUMNS` (in that order) returns."""
    with conn.cursor(row_factory=_event_row) as cursor:
        return cursor.execute(query, params).fetchall()


def fetch_events_kept(conn: Conn, query: str, params: Sequence[Any]) -> list[RecordedEvent]:
    """`fetch_events`, on the connection's kept cursor of event rows when it is a `ServiceConnection`: a cursor
    made per read sets up its parameter dumpers and row loaders anew each time (as `LogTail` says)."""
    if not isinstance(conn, ServiceConnection):
        return fetch_events(conn, query, params)
    cursor = conn.events_cursor
    if cursor is None or cursor.closed:
        cursor = conn.events_cursor = conn.cursor(row_factory=_event_row)
    rows: list[RecordedEvent] = cursor.execute(query, params).fetchall()
    return rows


def read_stream_in(
    conn: Conn, stream_id: str, from_version: int = 1, to_version: int | None = None, limit: int | None = None
) -> list[RecordedEvent]:
    upper = "" if to_version is None else " AND version <= %(to)s"
    return fetch_events(
        conn,
        f"""SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %(stream)s AND version >= %(from)s{upper}
            ORDER BY version LIMIT %(limit)s""",
        {"stream": stream_id, "from": from_version, "to": to_version, "limit": limit},
    )


# Only events whose writing transaction is older than the oldest transaction still running are returned
# (pg_snapshot_xmin), ordered by (tx_id, global_position): every transaction that could still commit has a
# larger tx_id than anything returned, so it lands after the reader's position.
READ_LOG_SQL = f"""SELECT {EVENT_COLUMNS} FROM events
    WHERE (tx_id, global_position) > (%s::text::xid8, %s)
      AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY events.tx_id, events.global_position
    LIMIT %s"""


def read_log_in(conn: Conn, after: LogPosition, limit: int) -> list[RecordedEvent]:
    """Committed events after `after`, in commit-safe order (`READ_LOG_SQL`)."""
    return fetch_events(conn, READ_LOG_SQL, (str(after.tx_id), after.global_position, limit))


class LogTail:
    """Reads of the log after a position (`READ_LOG_SQL`, prepared at once) again and again on one cursor, for a
    reader that looks every few milliseconds (the relay): a cursor made per read (`read_log_in`) sets up its
    query, parameter dumpers and row loaders anew each time."""

    def __init__(self, conn: Conn) -> None:
        self._cursor = conn.cursor(row_factory=_event_row)

    def after(self, position: LogPosition, limit: int) -> list[RecordedEvent]:
        """Committed events after `position`, in commit-safe order, as `read_log_in` reads them."""
        params = (str(position.tx_id), position.global_position, limit)
        return self._cursor.execute(READ_LOG_SQL, params, prepare=True).fetchall()


def committed_after_in(conn: Conn, after: LogPosition) -> bool:
    """Whether any committed event lies after `after`, safe to read yet or still held back by an older
    transaction that is running (`READ_LOG_SQL` returns only the former)."""
    # Not EXISTS: the generic plan of a prepared EXISTS (the relay runs this one often) scans the whole table when
    # nothing follows; ordered by the commit-order index with LIMIT 1, every plan reads that index's last page.
    row = conn.execute(
        """SELECT 1 AS found FROM events WHERE (tx_id, global_position) > (%s::text::xid8, %s)
           ORDER BY tx_id, global_position LIMIT 1""",
        (str(after.tx_id), after.global_position),
    ).fetchone()
    return row is not None


def stream_version_in(conn: Conn, stream_id: str) -> int | None:
    row = conn.execute("SELECT version FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
    return None if row is None else int(row["version"])


def global_positions_in(conn: Conn, stream_id: str, versions: Sequence[int]) -> dict[int, int]:
    """The global positions of the stream's events at `versions` (those that exist)."""
    rows = conn.execute(
        "SELECT version, global_position FROM events WHERE stream_id = %s AND version = ANY(%s)",
        (stream_id, list(versions)),
    ).fetchall()
    return {int(row["version"]): int(row["global_position"]) for row in rows}


def deal_holds_v1_private_in(conn: Conn, stream_id: str, deal_no: int) -> bool:
    """Whether deal `deal_no` of the stream has a private block hashed whole (hash version 1, written before
    migration 006): the deal's events are read from its `deal_started` on (the partial index of deal starts),
    so the cost is one deal's, whatever the table's history."""
    row = conn.execute(
        """SELECT EXISTS (
               SELECT 1 FROM events
               WHERE stream_id = %(stream)s AND deal_no = %(deal)s AND hash_version = 1
                 AND (data -> 'private') IS NOT NULL
                 AND version >= coalesce((SELECT version FROM events WHERE stream_id = %(stream)s
                                          AND deal_no = %(deal)s AND type = 'deal_started'), 1)
           ) AS held""",
        {"stream": stream_id, "deal": deal_no},
    ).fetchone()
    return bool(row is not None and row["held"])


def find_idempotency_in(conn: Conn, scope: str, key: str) -> IdempotencyRecord | None:
    row = conn.execute(
        # A record written before migration 014 has its answer in `response` (jsonb).
        "SELECT request_hash, coalesce(answer, response::json) AS response FROM idempotency_keys"
        " WHERE scope = %s AND key = %s",
        (scope, key),
    ).fetchone()
    if row is None:
        return None
    return IdempotencyRecord(scope, key, str(row["request_hash"]), row["response"])


def deal_facts_in(conn: Conn, stream_id: str, deal_numbers: Iterable[int]) -> dict[int, DealFacts]:
    """`EventStorage.deal_facts`: the deals' deal_started and deal_ended events (their partial indexes)."""
    wanted = sorted({n for n in deal_numbers if 1 <= n <= 2**31 - 1})
    if not wanted:
        return {}
    rows = conn.execute(
        f"""SELECT deal_no, type, data -> 'players' AS players FROM events
            WHERE stream_id = %(stream)s AND type = '{DEAL_STARTED}' AND deal_no = ANY(%(deals)s)
            UNION ALL
            SELECT deal_no, type, NULL FROM events
            WHERE stream_id = %(stream)s AND type = '{DEAL_ENDED}' AND deal_no = ANY(%(deals)s)""",
        {"stream": stream_id, "deals": wanted},
    ).fetchall()
    return deal_facts_of((int(row["deal_no"]), str(row["type"]), row["players"]) for row in rows)


def deal_facts_of(rows: Iterable[tuple[int, str, Any]]) -> dict[int, DealFacts]:
    """DealFacts from (deal_no, type, players of a deal_started) of deal start and end events."""
    players: dict[int, tuple[str | None, ...] | None] = {}
    ended: set[int] = set()
    for deal_no, kind, named in rows:
        if kind == DEAL_STARTED:
            players.setdefault(deal_no, tuple(named) if isinstance(named, list) else None)
        else:
            ended.add(deal_no)
    return {deal_no: DealFacts(named, deal_no in ended) for deal_no, named in players.items()}
