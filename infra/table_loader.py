"""Load a table's state from its stream without folding its whole history.

A table's state is its opening and seatings (deal_no 0), the `deal_ended`
event before the latest deal (which carries everything a finished deal leaves
behind), and every event from there on. So the cost is one or two deals'
events, however long the table has been playing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import psycopg

from domain.events import Event
from domain.table import DEAL_ENDED, DEAL_STARTED, TableState, fold
from infra.event_store import RecordedEvent, read_stream_in

Conn = psycopg.Connection[dict[str, Any]]


def load_table_events(conn: Conn, table_id: str, up_to_version: int | None = None) -> list[RecordedEvent]:
    """The events whose fold gives the table's state (at `up_to_version`, default the latest)."""
    row = conn.execute(
        """SELECT max(deal_no) AS deal_no FROM events
           WHERE stream_id = %s AND (%s::int IS NULL OR version <= %s::int)""",
        (table_id, up_to_version, up_to_version),
    ).fetchone()
    if row is None or row["deal_no"] is None:
        return []
    latest_deal = int(row["deal_no"])
    recent = conn.execute(
        """SELECT global_position, stream_id, version, type, schema_version, deal_no, data, metadata,
                  occurred_at, prev_hash, hash, tx_id::text::bigint AS tx_id
           FROM events
           WHERE stream_id = %s AND deal_no >= %s AND (%s::int IS NULL OR version <= %s::int)
           ORDER BY version""",
        (table_id, max(latest_deal - 1, 0), up_to_version, up_to_version),
    ).fetchall()
    events = [RecordedEvent(**r) for r in recent]
    if latest_deal <= 1:
        return events if events and events[0].version == 1 else read_stream_in(conn, table_id, 1, up_to_version)
    head = conn.execute(
        """SELECT global_position, stream_id, version, type, schema_version, deal_no, data, metadata,
                  occurred_at, prev_hash, hash, tx_id::text::bigint AS tx_id
           FROM events WHERE stream_id = %s AND deal_no = 0 ORDER BY version""",
        (table_id,),
    ).fetchall()
    return [RecordedEvent(**r) for r in head] + _from_last_finished_deal(events)


def _from_last_finished_deal(events: list[RecordedEvent]) -> list[RecordedEvent]:
    """From the `deal_ended` that precedes the latest `deal_started` (or the latest one) onwards."""
    starts = [i for i, e in enumerate(events) if e.type == DEAL_STARTED]
    limit = starts[-1] if starts else len(events)
    ends = [i for i, e in enumerate(events[:limit]) if e.type == DEAL_ENDED]
    return events[ends[-1] :] if ends else events


def fold_recorded(events: list[RecordedEvent]) -> TableState | None:
    if not events:
        return None
    state = fold(None, (Event(e.type, e.data) for e in events))
    return replace(state, version=events[-1].version)


def load_table(conn: Conn, table_id: str, up_to_version: int | None = None) -> TableState | None:
    return fold_recorded(load_table_events(conn, table_id, up_to_version))
