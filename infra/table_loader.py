"""Load a table's state from its stream without folding its whole history.

A table's state is its opening and seatings (deal_no 0), the `deal_ended`
event before the latest deal (which carries everything a finished deal leaves
behind), and every event from there on. So the cost is about one deal's
events, however long the table has been playing. Seats that changed hands
between earlier deals are set right by the latest `deal_started`, which names
the players of its deal (the seatings and leavings folded before it, from an
older head, are overruled by it).
"""

from __future__ import annotations

from dataclasses import replace

from domain.events import Event
from domain.table import DEAL_ENDED, DEAL_STARTED, TableState, fold
from infra.db import Conn
from infra.event_store import EVENT_COLUMNS, RecordedEvent, fetch_events


def _table_events_sql(bounded: bool) -> str:
    """The events before the first deal (the opening and seatings, all tagged deal 0), then those from the end of
    the deal before the latest one (events are tagged with the deal started last, so that end is the deal_ended of
    deal number latest - 1), or, with no such end, from the start of that deal.

    Deal starts and ends are found in the partial indexes of their events (events_deal_starts, events_milestones),
    the rest by version. The event types are written into the text, not passed: a prepared statement's generic
    plan can use a partial index only when its predicate shows in the query. Two statements rather than one with
    `(%(upto)s IS NULL OR ...)`: a generic plan cannot use an index through that OR.
    """
    bound = " AND version <= %(upto)s" if bounded else ""
    starts = f"FROM events WHERE stream_id = %(table)s AND type = '{DEAL_STARTED}'{bound}"
    ends = f"FROM events WHERE stream_id = %(table)s AND type = '{DEAL_ENDED}'{bound}"
    return f"""SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %(table)s{bound}
          AND version < coalesce((SELECT min(version) {starts}), 2147483647)
        UNION ALL
        SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %(table)s{bound}
          AND version >= coalesce(
            (SELECT min(version) {ends} AND deal_no = (SELECT max(deal_no) - 1 {starts})),
            (SELECT min(version) {starts} AND deal_no >= (SELECT max(deal_no) - 1 {starts})))
        ORDER BY version"""


TABLE_EVENTS_SQL = _table_events_sql(bounded=False)
TABLE_EVENTS_UP_TO_SQL = _table_events_sql(bounded=True)
EVENTS_AFTER_SQL = f"SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %s AND version > %s ORDER BY version LIMIT %s"


def load_table_events(conn: Conn, table_id: str, up_to_version: int | None = None) -> list[RecordedEvent]:
    """The events whose fold gives the table's state (at `up_to_version`, default the latest)."""
    sql = TABLE_EVENTS_SQL if up_to_version is None else TABLE_EVENTS_UP_TO_SQL
    events = fetch_events(conn, sql, {"table": table_id, "upto": up_to_version})
    head = [e for e in events if e.deal_no == 0]
    recent = [e for e in events if e.deal_no != 0]
    return head + _from_last_finished_deal(recent)


def load_events_after(conn: Conn, table_id: str, version: int, limit: int) -> list[RecordedEvent]:
    """The table's first `limit` events after `version`, in order (what a state at `version` has not seen)."""
    return fetch_events(conn, EVENTS_AFTER_SQL, (table_id, version, limit))


class TableEventRows:
    """`TableEvents` (infra/storage/ports.py) on a PostgreSQL connection."""

    __slots__ = ("conn",)

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    def events_after(self, table_id: str, version: int, limit: int) -> list[RecordedEvent]:
        return load_events_after(self.conn, table_id, version, limit)

    def table_events(self, table_id: str, up_to_version: int | None = None) -> list[RecordedEvent]:
        return load_table_events(self.conn, table_id, up_to_version)


def bounded_table_events(stream: list[RecordedEvent]) -> list[RecordedEvent]:
    """What `load_table_events` reads, chosen from a whole stream (a store with no SQL): the events before the
    first deal start, and those from the start of the deal before the latest one on, then as it goes on."""
    starts = [e for e in stream if e.type == DEAL_STARTED]
    chosen = stream if not starts else [e for e in stream if e.version < starts[0].version]
    if starts:
        latest = max(e.deal_no for e in starts)
        first = min(e.version for e in starts if e.deal_no >= latest - 1)
        chosen = chosen + [e for e in stream if e.version >= first]
    head = [e for e in chosen if e.deal_no == 0]
    recent = [e for e in chosen if e.deal_no != 0]
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
    state = fold(None, (Event(e.type, e.data, e.occurred_at) for e in events))
    return replace(state, version=events[-1].version)


def evolve_recorded(state: TableState, events: list[RecordedEvent]) -> TableState:
    """`state` moved on by `events`, the stream's next events after `state.version`."""
    for offset, event in enumerate(events):
        if event.version != state.version + offset + 1:
            raise ValueError(f"event version {event.version} does not follow state version {state.version + offset}")
    return fold(state, [Event(event.type, event.data, event.occurred_at) for event in events]) if events else state


def load_table(conn: Conn, table_id: str, up_to_version: int | None = None) -> TableState | None:
    return fold_recorded(load_table_events(conn, table_id, up_to_version))
