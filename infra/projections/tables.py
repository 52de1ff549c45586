"""Projections of table state: the table view (the public view, the lobby's, and each seat's own part) and
tricks per hand.

A table view row also carries each seated player's own keys of the seat view (`seat_parts`, by player id;
`domain.table.seat_private`) with the version they were written at (migration 015): a seat's view is the public
view with those keys over it, put together by the read (`infra.sql.table_views.projected_seat_view`). So a batch
writes one row per table it touches, not one more per seat repeating the public view.

The times the turn clock sweeps for (`turn_deadline`, `vacant_since`: pure functions of the table's state) are
in `table_clock` (migration 016), written by the same statement, only for the tables whose times changed: no
indexed column of `table_views` changes at an event, so its update can be HOT.
"""

from __future__ import annotations

from domain.events import JSON
from domain.games import game_named
from domain.table import TableState, public_view, seat_private, turn_deadline, vacant_since
from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.json_codec import dumps_text
from infra.projections.base import ModelTable, Projection, Upsert
from infra.projections.heads import ProjectionCaches, TableHead, fold_tables, states_before, table_heads

# Each batch's rows go as one jsonb array, taken apart by jsonb_to_recordset: one statement per batch, where
# executemany sends a statement per row (docs/performance.md, "The read models"). `{rows}` is where the array goes
# (`base.Upsert`).
_UPSERT_TABLE_VIEWS = """
INSERT INTO table_views (table_id, game, status, seats, version, created_seq, view, seat_parts, seat_parts_version,
                         updated_at)
SELECT table_id, game, status, seats, version, created_seq, view, seat_parts, version, now()
FROM jsonb_to_recordset({rows})
     AS row (table_id text, game text, status text, seats integer, version integer, created_seq bigint, view jsonb,
             seat_parts jsonb)
ON CONFLICT (table_id) DO UPDATE
SET status = EXCLUDED.status,
    version = EXCLUDED.version,
    view = EXCLUDED.view,
    seat_parts = EXCLUDED.seat_parts,
    seat_parts_version = EXCLUDED.seat_parts_version,
    updated_at = now()
"""

# A table's clock row: made at its first batch, then updated only when a time changed (the rows whose times are
# as stored are left out, neither locked nor written). A plain UPDATE, where ON CONFLICT DO UPDATE would lock
# each row first (a WAL record more); the batch's checkpoint, held, keeps other writers out.
_INSERT_TABLE_CLOCK = """
INSERT INTO table_clock (table_id, turn_deadline, vacant_since)
SELECT r.table_id, r.turn_deadline, r.vacant_since
FROM jsonb_to_recordset({rows}) AS r (table_id text, turn_deadline timestamptz, vacant_since timestamptz)
WHERE NOT EXISTS (SELECT FROM table_clock AS c WHERE c.table_id = r.table_id)
ON CONFLICT (table_id) DO NOTHING
"""
_UPDATE_TABLE_CLOCK = """
UPDATE table_clock AS c
SET turn_deadline = r.turn_deadline, vacant_since = r.vacant_since
FROM jsonb_to_recordset({rows}) AS r (table_id text, turn_deadline timestamptz, vacant_since timestamptz)
WHERE c.table_id = r.table_id
  AND (c.turn_deadline, c.vacant_since) IS DISTINCT FROM (r.turn_deadline, r.vacant_since)
"""

_UPSERT_HAND_TRICKS = """
INSERT INTO hand_tricks (table_id, deal_no, seat, tricks)
SELECT table_id, deal_no, seat, tricks
FROM jsonb_to_recordset({rows}) AS row (table_id text, deal_no integer, seat integer, tricks integer)
ON CONFLICT (table_id, deal_no, seat) DO UPDATE
SET tricks = EXCLUDED.tricks
"""


def seat_parts(state: TableState) -> dict[str, JSON]:
    """Each seated player's own keys of its seat view, by player id (an empty seat has none: nobody reads it).
    A player seated twice reads the first seat, as `TableState.seat_of` finds it."""
    parts: dict[str, JSON] = {}
    for seat, player_id in enumerate(state.players):
        if player_id is not None and player_id not in parts:
            parts[player_id] = seat_private(state, seat)
    return parts


def _table_view_row(state: TableState, head: TableHead) -> str:
    deadline, vacant = turn_deadline(state), vacant_since(state)
    fields = {
        "table_id": state.table_id,
        "game": state.game,
        "status": state.status,
        "seats": state.seats,
        "version": state.version,
        "created_seq": head.created_seq,
        "turn_deadline": None if deadline is None else deadline.isoformat(),
        "vacant_since": None if vacant is None else vacant.isoformat(),
        "view": public_view(state),
        "seat_parts": seat_parts(state),
    }
    return dumps_text(fields)


def table_view_rows(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> str | None:
    """The table view rows of the tables the batch touches, as one jsonb array (None when it touches none)."""
    folded = fold_tables(conn, caches, events)
    if not folded:
        return None
    heads = table_heads(conn, caches, folded)
    rows = [_table_view_row(states[-1], heads[table_id]) for table_id, states in sorted(folded.items())]
    return "[" + ",".join(rows) + "]"


_TABLE_VIEWS_UPSERT = Upsert(table_view_rows, _UPSERT_TABLE_VIEWS, (_INSERT_TABLE_CLOCK, _UPDATE_TABLE_CLOCK))
_TABLE_VIEWS_ALONE = _TABLE_VIEWS_UPSERT.alone()


def apply_table_views(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    rows = table_view_rows(conn, events, caches)
    if rows is not None:
        conn.execute(_TABLE_VIEWS_ALONE, (rows,))


def _tricks(state: TableState | None) -> list[int] | None:
    """Tricks won per seat in the state's deal (the public view's "tricks"), None when it has none."""
    if state is None or state.deal_no < 1 or state.deal is None:
        return None
    tricks = game_named(state.game).public_state(state).get("tricks")
    return [int(count) for count in tricks] if isinstance(tricks, list) else None


def hand_trick_rows(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> str | None:
    """The counts that changed since the state the batch started from, as one jsonb array (None when none did):
    the row of a (table, deal, seat) holds the count of the deal's last state written, which for the deal in
    play is that state."""
    wanted = [event for event in events if event.deal_no >= 1]
    tables = {event.stream_id for event in wanted}
    if not tables:
        return None
    heads = table_heads(conn, caches, tables)
    ours = {table_id for table_id, head in heads.items() if game_named(head.game).counts_tricks}
    mine = [event for event in events if event.stream_id in ours]
    folded = fold_tables(conn, caches, mine)
    before = states_before(conn, caches, mine)
    rows: dict[tuple[str, int, int], JSON] = {}  # by key: the statement may change each row only once
    for table_id, states in sorted(folded.items()):
        last = before.get(table_id)
        written = (last.deal_no, _tricks(last)) if last is not None else None
        for state in states:
            tricks = _tricks(state)
            if tricks is None:
                continue
            was = written[1] if written is not None and written[0] == state.deal_no else None
            for seat, count in enumerate(tricks):
                if was is None or seat >= len(was) or was[seat] != count:
                    rows[(table_id, state.deal_no, seat)] = {
                        "table_id": table_id,
                        "deal_no": state.deal_no,
                        "seat": seat,
                        "tricks": count,
                    }
            written = (state.deal_no, tricks)
    return dumps_text(list(rows.values())) if rows else None


_HAND_TRICKS_UPSERT = Upsert(hand_trick_rows, _UPSERT_HAND_TRICKS)
_HAND_TRICKS_ALONE = _HAND_TRICKS_UPSERT.alone()


def apply_hand_tricks(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    rows = hand_trick_rows(conn, events, caches)
    if rows is not None:
        conn.execute(_HAND_TRICKS_ALONE, (rows,))


TABLE_VIEWS = Projection(
    "table_views",
    (
        ModelTable(
            "table_views",
            "table_id, game, status, seats, version, created_seq, view, seat_parts, seat_parts_version",
            "table_id",
        ),
        ModelTable("table_clock", "table_id, turn_deadline, vacant_since", "table_id"),
    ),
    apply_table_views,
    _TABLE_VIEWS_UPSERT,
)
HAND_TRICKS = Projection(
    "hand_tricks",
    (ModelTable("hand_tricks", "table_id, deal_no, seat, tricks", "table_id, deal_no, seat"),),
    apply_hand_tricks,
    _HAND_TRICKS_UPSERT,
)
