"""Projections of table state: the public table view (lobby), private seat views, and tricks per hand.

A table view row also carries the times the turn clock sweeps for (`turn_deadline`, `vacant_since`: pure
functions of the table's state, indexed; migration 010). Every seat of a table has a seat view row once the
table has had an event in a batch; an empty seat's row has no player (its player may have left).
"""

from __future__ import annotations

import json

from domain.events import JSON
from domain.games import game_named
from domain.table import TableState, public_view, seat_private, turn_deadline, vacant_since
from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.projections.base import ModelTable, Projection
from infra.projections.heads import ProjectionCaches, TableHead, fold_tables, states_before, table_heads

# Each batch's rows go as one jsonb array, taken apart by jsonb_to_recordset: one statement per batch, where
# executemany sends a statement per row (docs/performance.md, "Projections"). The array is JSON text put
# together from pieces encoded once: a table's public view is encoded once for its table view and its seats.
_UPSERT_TABLE_VIEWS = """
INSERT INTO table_views (table_id, game, status, seats, version, created_seq, view, turn_deadline, vacant_since,
                         updated_at)
SELECT table_id, game, status, seats, version, created_seq, view, turn_deadline, vacant_since, now()
FROM jsonb_to_recordset(%s::jsonb)
     AS row (table_id text, game text, status text, seats integer, version integer, created_seq bigint, view jsonb,
             turn_deadline timestamptz, vacant_since timestamptz)
ON CONFLICT (table_id) DO UPDATE
SET status = EXCLUDED.status,
    version = EXCLUDED.version,
    view = EXCLUDED.view,
    turn_deadline = EXCLUDED.turn_deadline,
    vacant_since = EXCLUDED.vacant_since,
    updated_at = now()
"""

# A seat's view is its table's public view with the seat's own keys over it (`domain.table.seat_view`), so the
# public view travels once per table and PostgreSQL joins each seat's part to it (jsonb ||: the right side's
# keys win, as dict.update does).
_UPSERT_SEAT_VIEWS = """
INSERT INTO seat_views (table_id, seat, player_id, version, view)
SELECT t.table_id, s.seat, s.player_id, t.version, t.public || s.private
FROM jsonb_to_recordset(%s::jsonb) AS t (table_id text, version integer, public jsonb, seats jsonb)
CROSS JOIN LATERAL jsonb_to_recordset(t.seats) AS s (seat integer, player_id text, private jsonb)
ON CONFLICT (table_id, seat) DO UPDATE
SET player_id = EXCLUDED.player_id,
    version = EXCLUDED.version,
    view = EXCLUDED.view
"""

_UPSERT_HAND_TRICKS = """
INSERT INTO hand_tricks (table_id, deal_no, seat, tricks)
SELECT table_id, deal_no, seat, tricks
FROM jsonb_to_recordset(%s::jsonb) AS row (table_id text, deal_no integer, seat integer, tricks integer)
ON CONFLICT (table_id, deal_no, seat) DO UPDATE
SET tricks = EXCLUDED.tricks
"""


def _encode(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"))


def _with(document: str, key: str, encoded: str) -> str:
    """The JSON object `document` with `key` set to the already encoded value (the key must be new)."""
    return f'{document[:-1]},"{key}":{encoded}}}'


def public_document(caches: ProjectionCaches, state: TableState) -> str:
    """The table's public view at `state` as JSON text, encoded once for the projections of a batch."""
    key = (state.table_id, state.version)
    document = caches.public_documents.get(key)
    if document is None:
        document = _encode(public_view(state))
        caches.public_documents.put(key, document)
    return document


def _table_view_row(caches: ProjectionCaches, state: TableState, head: TableHead) -> str:
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
    }
    return _with(_encode(fields), "view", public_document(caches, state))


def apply_table_views(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    folded = fold_tables(conn, caches, events)
    if not folded:
        return
    heads = table_heads(conn, caches, folded)
    rows = [_table_view_row(caches, states[-1], heads[table_id]) for table_id, states in sorted(folded.items())]
    conn.execute(_UPSERT_TABLE_VIEWS, ("[" + ",".join(rows) + "]",))


def apply_seat_views(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    folded = fold_tables(conn, caches, events)
    tables: list[str] = []
    for table_id, states in sorted(folded.items()):
        state = states[-1]
        # An empty seat's row too (player NULL): its player may have left since the row was written, and a
        # rebuild, which folds longer batches, must end with the same rows as the live model.
        seats = [
            {"seat": seat, "player_id": player_id, "private": seat_private(state, seat)}
            for seat, player_id in enumerate(state.players)
        ]
        if seats:
            fields = _encode({"table_id": table_id, "version": state.version, "seats": seats})
            tables.append(_with(fields, "public", public_document(caches, state)))
    if tables:
        conn.execute(_UPSERT_SEAT_VIEWS, ("[" + ",".join(tables) + "]",))


def _tricks(state: TableState | None) -> list[int] | None:
    """Tricks won per seat in the state's deal (the public view's "tricks"), None when it has none."""
    if state is None or state.deal_no < 1 or state.deal is None:
        return None
    tricks = game_named(state.game).public_state(state).get("tricks")
    return [int(count) for count in tricks] if isinstance(tricks, list) else None


def apply_hand_tricks(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    """Writes only the counts that changed since the state the batch started from: the row of a (table, deal,
    seat) holds the count of the deal's last state written, which for the deal in play is that state."""
    wanted = [event for event in events if event.deal_no >= 1]
    tables = {event.stream_id for event in wanted}
    if not tables:
        return
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
    if rows:
        conn.execute(_UPSERT_HAND_TRICKS, (_encode(list(rows.values())),))


TABLE_VIEWS = Projection(
    "table_views",
    (
        ModelTable(
            "table_views",
            "table_id, game, status, seats, version, created_seq, view, turn_deadline, vacant_since",
            "table_id",
        ),
    ),
    apply_table_views,
)
SEAT_VIEWS = Projection(
    "seat_views",
    (ModelTable("seat_views", "table_id, seat, player_id, version, view", "table_id, seat"),),
    apply_seat_views,
)
HAND_TRICKS = Projection(
    "hand_tricks",
    (ModelTable("hand_tricks", "table_id, deal_no, seat, tricks", "table_id, deal_no, seat"),),
    apply_hand_tricks,
)
