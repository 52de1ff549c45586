"""The database session itself: advisory locks held by a session (one active relay, one sweeping clock),
and whether the session is still there."""

from __future__ import annotations

from typing import Any

import psycopg


def try_advisory_lock(conn: psycopg.Connection[Any], key: int) -> bool:
    """Take the session advisory lock `key` on `conn` if nobody holds it; True when taken (or held already)."""
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    return row is not None and bool(row[0])


def ping(conn: psycopg.Connection[Any]) -> None:
    """One round trip; raises when the connection (and a session lock it holds) is gone."""
    conn.execute("SELECT 1")
