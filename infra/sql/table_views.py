"""Reads of the `table_views` read model (built by `infra.projections.tables`): the lobby, a table's public view,
a seat's view, and the turn clock's sweeps (its `table_clock` table)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain.events import JSON
from infra.event_store import Conn

Projected = tuple[int, int, dict[str, JSON]]  # (projected version, stream head version, view)


def projected_table_view(conn: Conn, table_id: str) -> Projected | None:
    """(projected version, stream head version, public view) of the table, or None when not projected."""
    row = conn.execute(
        """SELECT v.version, v.view, s.version AS head FROM table_views v
           JOIN streams s ON s.stream_id = v.table_id WHERE v.table_id = %s""",
        (table_id,),
    ).fetchone()
    return None if row is None else (int(row["version"]), int(row["head"]), dict(row["view"]))


def projected_seat_view(conn: Conn, table_id: str, player_id: str) -> Projected | None:
    """(projected version, stream head version, seat view) of the player's seat, or None when not projected.

    The seat view is the public view with the seat's own keys over it (jsonb ||: the right side's keys win, as
    `domain.table.seat_view` does). A row whose seat parts were not written at its version (moved by a worker
    of a release before migration 015) or that has no part for the player (not seated) is not projected."""
    row = conn.execute(
        """SELECT v.version, v.view || (v.seat_parts -> %s) AS view, s.version AS head FROM table_views v
           JOIN streams s ON s.stream_id = v.table_id
           WHERE v.table_id = %s AND v.seat_parts_version = v.version AND v.seat_parts ? %s""",
        (player_id, table_id, player_id),
    ).fetchone()
    return None if row is None else (int(row["version"]), int(row["head"]), dict(row["view"]))


def lobby_rows(conn: Conn, status: str | None, game: str | None, after: int, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` tables (created_seq, view) after `after` in creation order, of that status and game
    (None: any)."""
    return conn.execute(
        """SELECT created_seq, view FROM table_views
           WHERE created_seq > %s
             AND (%s::text IS NULL OR status = %s::text)
             AND (%s::text IS NULL OR game = %s::text)
           ORDER BY created_seq
           LIMIT %s""",
        (after, status, status, game, game, limit),
    ).fetchall()


def tables_with_turn_due(conn: Conn, now: datetime, limit: int) -> list[str]:
    """Tables whose turn deadline has passed at `now`, most overdue first."""
    rows = conn.execute(
        "SELECT table_id FROM table_clock WHERE turn_deadline <= %s ORDER BY turn_deadline LIMIT %s", (now, limit)
    ).fetchall()
    return [str(row["table_id"]) for row in rows]


def tables_vacant_since(conn: Conn, since: datetime, limit: int) -> list[str]:
    """Tables nobody has sat at since `since` or earlier, longest vacant first."""
    rows = conn.execute(
        "SELECT table_id FROM table_clock WHERE vacant_since <= %s ORDER BY vacant_since LIMIT %s", (since, limit)
    ).fetchall()
    return [str(row["table_id"]) for row in rows]
