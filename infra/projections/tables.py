"""Projections of table state: the public table view (lobby), private seat views, and tricks per hand."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from domain.table import public_view, seat_view
from infra.event_store import RecordedEvent
from infra.projections.base import ModelTable, Projection
from infra.projections.heads import fold_tables, table_heads

Conn = psycopg.Connection[dict[str, Any]]

CHA_KAU_TSZ = "cha-kau-tsz"

_UPSERT_TABLE_VIEW = """
INSERT INTO table_views (table_id, game, status, seats, version, created_seq, view, updated_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, now())
ON CONFLICT (table_id) DO UPDATE
SET status = EXCLUDED.status,
    version = EXCLUDED.version,
    view = EXCLUDED.view,
    updated_at = now()
"""

_UPSERT_SEAT_VIEW = """
INSERT INTO seat_views (table_id, seat, player_id, version, view)
VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (table_id, seat) DO UPDATE
SET player_id = EXCLUDED.player_id,
    version = EXCLUDED.version,
    view = EXCLUDED.view
"""

_UPSERT_HAND_TRICKS = """
INSERT INTO hand_tricks (table_id, deal_no, seat, tricks)
VALUES (%s, %s, %s, %s)
ON CONFLICT (table_id, deal_no, seat) DO UPDATE
SET tricks = EXCLUDED.tricks
"""


def apply_table_views(conn: Conn, events: list[RecordedEvent]) -> None:
    folded = fold_tables(conn, events)
    if not folded:
        return
    heads = table_heads(conn, folded)
    rows = []
    for table_id, states in sorted(folded.items()):
        state = states[-1]
        head = heads[table_id]
        view = Jsonb(public_view(state))
        rows.append((table_id, state.game, state.status, state.seats, state.version, head.created_seq, view))
    with conn.cursor() as cur:
        cur.executemany(_UPSERT_TABLE_VIEW, rows)


def apply_seat_views(conn: Conn, events: list[RecordedEvent]) -> None:
    folded = fold_tables(conn, events)
    rows = []
    for table_id, states in sorted(folded.items()):
        state = states[-1]
        for seat, player_id in enumerate(state.players):
            if player_id is not None:
                rows.append((table_id, seat, player_id, state.version, Jsonb(seat_view(state, seat))))
    if rows:
        with conn.cursor() as cur:
            cur.executemany(_UPSERT_SEAT_VIEW, rows)


def apply_hand_tricks(conn: Conn, events: list[RecordedEvent]) -> None:
    wanted = [event for event in events if event.deal_no >= 1]
    tables = {event.stream_id for event in wanted}
    if not tables:
        return
    heads = table_heads(conn, tables)
    ours = {table_id for table_id, head in heads.items() if head.game == CHA_KAU_TSZ}
    folded = fold_tables(conn, [event for event in events if event.stream_id in ours])
    rows: list[tuple[str, int, int, int]] = []
    for table_id, states in sorted(folded.items()):
        for state in states:
            if state.deal_no < 1 or state.deal is None:
                continue
            tricks = public_view(state).get("tricks")
            if not isinstance(tricks, list):
                continue
            rows.extend((table_id, state.deal_no, seat, int(count)) for seat, count in enumerate(tricks))
    if rows:
        with conn.cursor() as cur:
            cur.executemany(_UPSERT_HAND_TRICKS, rows)


TABLE_VIEWS = Projection(
    "table_views",
    (ModelTable("table_views", "table_id, game, status, seats, version, created_seq, view", "table_id"),),
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
