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

from dataclasses import dataclass, replace

from domain.events import Event
from domain.table import DEAL_ENDED, DEAL_STARTED, TABLE_EVENT_TYPES, TableState, fold
from infra.db import Conn
from infra.errors import TableLogInconsistent
from infra.event_store import EVENT_COLUMNS, RecordedEvent, fetch_events, fetch_events_kept


@dataclass(frozen=True, slots=True)
class KnownTable:
    """A table's state as loaded from (or just committed to) its stream, with the hash that chains on from it."""

    state: TableState  # state.version is the stream's version
    last_hash: str  # the hash of the stream's event at that version


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
    return head + from_last_finished_deal(recent)


def load_events_after(conn: Conn, table_id: str, version: int, limit: int) -> list[RecordedEvent]:
    """The table's first `limit` events after `version`, in order (what a state at `version` has not seen)."""
    return fetch_events_kept(conn, EVENTS_AFTER_SQL, (table_id, version, limit))


class TableEventRows:
    """`TableEvents` (services/app/ports.py) on a PostgreSQL connection."""

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
    return head + from_last_finished_deal(recent)


def from_last_finished_deal(events: list[RecordedEvent]) -> list[RecordedEvent]:
    """The part of a table's dealt events (deal_no > 0, in order) that its current state needs: from the
    `deal_ended` that precedes the latest `deal_started` (or the latest one) onwards. Readers that fetch events
    themselves (the remote verifier, through the API) fold `head + from_last_finished_deal(rest)` as the loader
    does."""
    starts = [i for i, e in enumerate(events) if e.type == DEAL_STARTED]
    limit = starts[-1] if starts else len(events)
    ends = [i for i, e in enumerate(events[:limit]) if e.type == DEAL_ENDED]
    return events[ends[-1] :] if ends else events


def fold_recorded(events: list[RecordedEvent]) -> TableState | None:
    """The state the events fold to; TableLogInconsistent naming the first event that does not apply."""
    if not events:
        return None
    try:
        state = fold(None, (Event(e.type, e.data, e.occurred_at) for e in events))
    except Exception:
        raise first_failing(None, events) from None
    return replace(state, version=events[-1].version)


def evolve_recorded(state: TableState, events: list[RecordedEvent]) -> TableState:
    """`state` moved on by `events`, the stream's next events after `state.version`; TableLogInconsistent naming
    the first event that does not apply."""
    for offset, event in enumerate(events):
        if event.version != state.version + offset + 1:
            raise ValueError(f"event version {event.version} does not follow state version {state.version + offset}")
    if not events:
        return state
    try:
        return fold(state, [Event(event.type, event.data, event.occurred_at) for event in events])
    except Exception:
        raise first_failing(state, events) from None


def first_failing(state: TableState | None, events: list[RecordedEvent]) -> TableLogInconsistent:
    """The error naming the first of `events` that does not apply (folded one at a time: only on failure)."""
    for event in events:
        try:
            state = fold(state, [Event(event.type, event.data, event.occurred_at)])
        except Exception as error:
            return TableLogInconsistent(event.stream_id, event.version, event.type, f"{type(error).__name__}: {error}")
    last = events[-1]
    return TableLogInconsistent(last.stream_id, last.version, last.type, "the events fold one by one but not together")


def load_table(conn: Conn, table_id: str, up_to_version: int | None = None) -> TableState | None:
    return fold_recorded(load_table_events(conn, table_id, up_to_version))


def _before_deal_sql() -> str:
    """The events whose fold gives the table-level state between deal `previous` and the next one, at `upto`:
    the opening and seatings (before the first deal start), the table events from deal `previous`'s start to
    its end (its deal_started, which names the deal's players, and, in an honest log, nothing else: seats are
    taken and left only between deals), and every event from its deal_ended to `upto`.

    Deal `previous`'s game events are not read: they change only the table's `deal` (the game's state of that
    deal), which the next deal_started resets; everything else a deal leaves behind (result, carry, next
    commitment, client seeds) its deal_ended carries. The start and end are found in events_deal_starts and
    events_milestones; the table events within the deal by version, their types written into the text."""
    types = ", ".join(f"'{kind}'" for kind in sorted(TABLE_EVENT_TYPES))
    start = (
        f"(SELECT min(version) FROM events WHERE stream_id = %(table)s AND type = '{DEAL_STARTED}'"
        " AND deal_no = %(previous)s AND version <= %(upto)s)"
    )
    end = (
        f"(SELECT min(version) FROM events WHERE stream_id = %(table)s AND type = '{DEAL_ENDED}'"
        " AND deal_no = %(previous)s AND version <= %(upto)s)"
    )
    first_start = f"(SELECT min(version) FROM events WHERE stream_id = %(table)s AND type = '{DEAL_STARTED}')"
    return f"""SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %(table)s AND version <= %(upto)s
          AND version < coalesce({first_start}, 2147483647)
        UNION ALL
        SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %(table)s AND version >= {start}
          AND version < {end} AND type IN ({types})
        UNION ALL
        SELECT {EVENT_COLUMNS} FROM events WHERE stream_id = %(table)s AND version >= {end}
          AND version <= %(upto)s
        ORDER BY version"""


BEFORE_DEAL_SQL = _before_deal_sql()


def load_table_before_deal(conn: Conn, table_id: str, deal_no: int, up_to_version: int) -> TableState | None:
    """The table's state at `up_to_version`, a version between the end of deal `deal_no - 1` and the start of
    deal `deal_no` (what the audit of deal `deal_no` replays from), without folding deal `deal_no - 1`'s game
    events: its `deal` is None (the next deal_started resets it), every other field is `load_table`'s.

    That is the same state only when the log shows deal `deal_no - 1` started, ended, then the events up to
    `up_to_version`, and its deal_started names the players; for any other log (a first deal, a deal start or
    end missing or out of place, a gap) this is `load_table`, which folds what the log holds."""
    if deal_no < 2:
        return load_table(conn, table_id, up_to_version)
    events = fetch_events(conn, BEFORE_DEAL_SQL, {"table": table_id, "previous": deal_no - 1, "upto": up_to_version})
    if not _is_between_deals(events, deal_no - 1, up_to_version):
        return load_table(conn, table_id, up_to_version)
    return fold_recorded(events)


def _is_between_deals(events: list[RecordedEvent], previous: int, up_to_version: int) -> bool:
    """Whether `events` (from `BEFORE_DEAL_SQL`) are the opening, deal `previous`'s start (naming its players),
    its end, and every version from that end to `up_to_version`."""
    starts = [i for i, e in enumerate(events) if e.type == DEAL_STARTED]
    ends = [i for i, e in enumerate(events) if e.type == DEAL_ENDED]
    if len(starts) != 1 or len(ends) != 1 or not events or events[0].version != 1:
        return False
    start, end = events[starts[0]], events[ends[0]]
    if start.deal_no != previous or end.deal_no != previous or not isinstance(start.data.get("players"), list):
        return False
    tail = [e.version for e in events[ends[0] :]]
    return starts[0] < ends[0] and tail == list(range(end.version, up_to_version + 1))
