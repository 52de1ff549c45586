"""The database session itself: advisory locks held by a session (one active relay, one sweeping clock, the
relay asleep), notifications it listens for, and whether the session is still there."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import tuple_row


def try_advisory_lock(conn: psycopg.Connection[Any], key: int) -> bool:
    """Take the session advisory lock `key` on `conn` if nobody holds it; True when taken (or held already)."""
    with conn.cursor(row_factory=tuple_row) as cursor:
        row = cursor.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    return row is not None and bool(row[0])


def advisory_unlock(conn: psycopg.Connection[Any], key: int) -> None:
    """Let go of the session advisory lock `key` taken on `conn`."""
    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))


def listen(conn: psycopg.Connection[Any], channel: str) -> None:
    """Have `conn`'s session receive the notifications of `channel` (an autocommit connection)."""
    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))


def drop_notifications(conn: psycopg.Connection[Any]) -> int:
    """Forget the notifications `conn` received so far, without waiting; returns how many."""
    return sum(1 for _ in conn.notifies(timeout=0))


def wait_for_notification(
    conn: psycopg.Connection[Any], timeout: float, stop: threading.Event, step: float = 0.25
) -> bool:
    """Wait up to `timeout` seconds for a notification on `conn` (looking at `stop` every `step`); True if one
    came, False on timeout or stop."""
    deadline = time.monotonic() + timeout
    while not stop.is_set():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        for _ in conn.notifies(timeout=min(step, remaining), stop_after=1):
            return True
    return False


def ping(conn: psycopg.Connection[Any]) -> None:
    """One round trip; raises when the connection (and a session lock it holds) is gone."""
    conn.execute("SELECT 1")
