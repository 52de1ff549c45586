"""Projections of table state: the public table view (lobby), private seat views, and tricks per hand.

A table view row also carries the times the turn clock sweeps for (`turn_deadline`, `vacant_since`: pure
functions of the table's state, indexed; migration 010). Every seat of a table has a seat view row once the
table has had an event in a batch; an empty seat's row has no player (its player may have left).
"""

from __future__ import annotations

from psycopg.types.json import Jsonb

from domain.events import JSON
from domain.games import game_named
from domain.table import public_view, seat_view, turn_deadline, vacant_since
from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.projections.base import ModelTable, Projection
from infra.projections.heads import ProjectionCaches, fold_tables, table_heads

# Each batch's rows go as one jsonb array, taken apart by jsonb_to_recordset: one statement and one JSON
# encoding per batch, where executemany sends a statement per row (docs/performance.md, "Projections").
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

_UPSERT_SEAT_VIEWS = """
INSERT INTO seat_views (table_id, seat, player_id, version, view)
SELECT table_id, seat, player_id, version, view
FROM jsonb_to_recordset(%s::jsonb) AS row (table_id text, seat integer, player_id text, version integer, view jsonb)
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


def apply_table_views(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    folded = fold_tables(conn, caches, events)
    if not folded:
        return
    heads = table_heads(conn, caches, folded)
    rows: list[JSON] = []
    for table_id, states in sorted(folded.items()):
        state = states[-1]
        deadline, vacant = turn_deadline(state), vacant_since(state)
        rows.append(
            {
                "table_id": table_id,
                "game": state.game,
                "status": state.status,
                "seats": state.seats,
                "version": state.version,
                "created_seq": heads[table_id].created_seq,
                "view": public_view(state),
                "turn_deadline": None if deadline is None else deadline.isoformat(),
                "vacant_since": None if vacant is None else vacant.isoformat(),
            }
        )
    conn.execute(_UPSERT_TABLE_VIEWS, (Jsonb(rows),))


def apply_seat_views(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    folded = fold_tables(conn, caches, events)
    rows: list[JSON] = []
    for table_id, states in sorted(folded.items()):
        state = states[-1]
        public = public_view(state)
        for seat, player_id in enumerate(state.players):
            # An empty seat's row too (player NULL): its player may have left since the row was written, and a
            # rebuild, which folds longer batches, must end with the same rows as the live model.
            view = seat_view(state, seat, public)
            rows.append(
                {"table_id": table_id, "seat": seat, "player_id": player_id, "version": state.version, "view": view}
            )
    if rows:
        conn.execute(_UPSERT_SEAT_VIEWS, (Jsonb(rows),))


def apply_hand_tricks(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    wanted = [event for event in events if event.deal_no >= 1]
    tables = {event.stream_id for event in wanted}
    if not tables:
        return
    heads = table_heads(conn, caches, tables)
    ours = {table_id for table_id, head in heads.items() if game_named(head.game).counts_tricks}
    folded = fold_tables(conn, caches, [event for event in events if event.stream_id in ours])
    rows: dict[tuple[str, int, int], JSON] = {}  # by key: the statement may change each row only once
    for table_id, states in sorted(folded.items()):
        for state in states:
            if state.deal_no < 1 or state.deal is None:
                continue
            tricks = public_view(state).get("tricks")
            if not isinstance(tricks, list):
                continue
            for seat, count in enumerate(tricks):
                rows[(table_id, state.deal_no, seat)] = {
                    "table_id": table_id,
                    "deal_no": state.deal_no,
                    "seat": seat,
                    "tricks": int(count),
                }
    if rows:
        conn.execute(_UPSERT_HAND_TRICKS, (Jsonb(list(rows.values())),))


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
