"""How far stored log positions (`log_positions`: the relay's, each projection's) are behind the newest
committed event, in events and in seconds, for the processes' lag metrics."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import psycopg

NOTHING_PROCESSED = ("0", 0)  # (tx_id as text, global_position) of a position never stored


def newest_occurred_at(conn: psycopg.Connection[Any]) -> datetime | None:
    """The `occurred_at` of the newest committed event, None when the log is empty."""
    row = conn.execute("SELECT occurred_at FROM events ORDER BY tx_id DESC, global_position DESC LIMIT 1").fetchone()
    return None if row is None else row[0]


def stored_positions(conn: psycopg.Connection[Any], names: Iterable[str]) -> dict[str, tuple[str, int]]:
    """(tx_id as text, global_position) of the named positions that are stored."""
    rows = conn.execute(
        "SELECT name, tx_id::text, global_position FROM log_positions WHERE name = ANY(%s)", (list(names),)
    ).fetchall()
    return {str(name): (str(tx_id), int(gp)) for name, tx_id, gp in rows}


def events_after(conn: psycopg.Connection[Any], position: tuple[str, int]) -> int:
    """Committed events after `position` in the log's commit-safe order."""
    row = conn.execute(
        "SELECT count(*) FROM events WHERE (tx_id, global_position) > (%s::text::xid8, %s)", position
    ).fetchone()
    return int(row[0]) if row is not None else 0


def occurred_at(conn: psycopg.Connection[Any], position: tuple[str, int]) -> datetime | None:
    """The `occurred_at` of the event at `position`, else of the oldest event (nothing processed yet)."""
    row = conn.execute(
        """SELECT occurred_at FROM events WHERE tx_id = %s::text::xid8 AND global_position = %s
           UNION ALL (SELECT occurred_at FROM events ORDER BY tx_id, global_position LIMIT 1)
           LIMIT 1""",
        position,
    ).fetchone()
    return None if row is None else row[0]
