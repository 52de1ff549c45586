"""Checkpoints of projections and the relay: rows of `log_positions`, and bounded reads of the global log."""

from __future__ import annotations

from typing import Any

from infra.db import Conn
from infra.event_store import LogPosition, RecordedEvent, fetch_events

# Projections never read an event's metadata, so a rebuild does not decode it.
_COLUMNS = (
    "global_position, stream_id, version, type, schema_version, deal_no, data, '{}'::json AS metadata, "
    "occurred_at, prev_hash, hash, tx_id::text::bigint AS tx_id, hash_version"
)


RELAY_POSITION = "relay"  # the relay's row
RELAY_LOCK_KEY = 7_410_221_002  # the advisory lock the active relay holds (its standby waits on it)
# The advisory lock the active relay holds while it sleeps: an append that finds it held wakes the relay
# (migration 012 holds the same number).
RELAY_ASLEEP_KEY = 7_410_221_004
LOG_CHANNEL = "cardledger_log"  # the channel those appends notify


def checkpoint_name(projection: str) -> str:
    return f"projection:{projection}"


def ensure_position(conn: Conn, name: str) -> None:
    conn.execute("INSERT INTO log_positions (name) VALUES (%s) ON CONFLICT (name) DO NOTHING", (name,))


def read_position(conn: Conn, name: str, for_update: bool = False) -> LogPosition:
    """The stored position `name` (START when missing); with `for_update`, the row stays locked until commit."""
    lock = " FOR UPDATE" if for_update else ""
    row = conn.execute(
        "SELECT tx_id::text::bigint AS tx_id, global_position FROM log_positions WHERE name = %s" + lock, (name,)
    ).fetchone()
    return LogPosition() if row is None else _position(row)


def lock_position(conn: Conn, name: str) -> LogPosition:
    """Create the row if needed and lock it (inside the caller's transaction)."""
    ensure_position(conn, name)
    return read_position(conn, name, for_update=True)


def ensure_positions(conn: Conn, names: list[str]) -> None:
    conn.execute("INSERT INTO log_positions (name) SELECT unnest(%s::text[]) ON CONFLICT (name) DO NOTHING", (names,))


def read_positions(conn: Conn, names: list[str]) -> dict[str, LogPosition]:
    rows = conn.execute(
        "SELECT name, tx_id::text::bigint AS tx_id, global_position FROM log_positions WHERE name = ANY(%s)",
        (names,),
    ).fetchall()
    return {str(row["name"]): _position(row) for row in rows}


def move_positions_if_free(conn: Conn, names: list[str], at: LogPosition, to: LogPosition) -> list[str]:
    """Lock the rows `names` (inside the caller's transaction) but those another transaction holds, and move
    those still at `at` to `to`; the names moved. The move commits (or rolls back) with the batch the caller
    applies after it in the same transaction; one statement where a lock and a store were two.

    A row another transaction moved since this statement's snapshot is locked as it is now and compared at
    that version (READ COMMITTED rechecks an UPDATE's condition on the row's newest version)."""
    rows = conn.execute(
        """UPDATE log_positions
           SET tx_id = %s::text::xid8, global_position = %s, updated_at = now()
           WHERE name IN (SELECT name FROM log_positions WHERE name = ANY(%s) FOR UPDATE SKIP LOCKED)
             AND tx_id = %s::text::xid8 AND global_position = %s
           RETURNING name""",
        (str(to.tx_id), to.global_position, names, str(at.tx_id), at.global_position),
    ).fetchall()
    return [str(row["name"]) for row in rows]


def _position(row: dict[str, Any]) -> LogPosition:
    return LogPosition(int(row["tx_id"]), int(row["global_position"]))


def store_position(conn: Conn, name: str, position: LogPosition) -> None:
    conn.execute(
        """UPDATE log_positions
           SET tx_id = %s::text::xid8, global_position = %s, updated_at = now()
           WHERE name = %s""",
        (str(position.tx_id), position.global_position, name),
    )


def read_log_between(conn: Conn, after: LogPosition, until: LogPosition, limit: int) -> list[RecordedEvent]:
    """Events after `after` up to and including `until`, in commit-safe order.

    `until` must be a position some reader has already reached (every
    transaction that wrote at or below it has ended), so no horizon is needed.
    """
    return fetch_events(
        conn,
        f"""SELECT {_COLUMNS} FROM events
            WHERE (tx_id, global_position) > (%s::text::xid8, %s)
              AND (tx_id, global_position) <= (%s::text::xid8, %s)
            ORDER BY events.tx_id, events.global_position
            LIMIT %s""",
        (str(after.tx_id), after.global_position, str(until.tx_id), until.global_position, limit),
    )


def count_between(conn: Conn, after: LogPosition, until: LogPosition) -> int:
    row = conn.execute(
        """SELECT count(*) AS n FROM events
           WHERE (tx_id, global_position) > (%s::text::xid8, %s)
             AND (tx_id, global_position) <= (%s::text::xid8, %s)""",
        (str(after.tx_id), after.global_position, str(until.tx_id), until.global_position),
    ).fetchone()
    return 0 if row is None else int(row["n"])
