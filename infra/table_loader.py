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
from infra.event_store import _COLUMNS, RecordedEvent

Conn = psycopg.Connection[dict[str, Any]]


def load_table_events(conn: Conn, table_id: str, up_to_version: int | None = None) -> list[RecordedEvent]:
    """The events whose fold gives the table's state (at `up_to_version`, default the latest)."""
    rows = conn.execute(
        f"""WITH latest AS (
                SELECT coalesce(max(deal_no), 0) AS latest_deal FROM events
                WHERE stream_id = %(table)s AND (%(upto)s::int IS NULL OR version <= %(upto)s::int))
            SELECT {_COLUMNS} FROM events, latest
            WHERE stream_id = %(table)s
              AND (deal_no = 0 OR deal_no >= latest.latest_deal - 1)
              AND (%(upto)s::int IS NULL OR version <= %(upto)s::int)
            ORDER BY version""",
        {"table": table_id, "upto": up_to_version},
    ).fetchall()
    events = [RecordedEvent(**row) for row in rows]
    head = [e for e in events if e.deal_no == 0]
    recent = [e for e in events if e.deal_no != 0]
    return head + _from_last_finished_deal(recent)


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
