"""The log's commit-safe horizon for a reader that must say what it covers: the newest transaction that wrote to
the log, whether the horizon (`pg_snapshot_xmin`, see `infra.event_store.read.READ_LOG_SQL`) has passed it,
committed events a position has not reached, and the transaction holding the horizon back."""

from __future__ import annotations

from dataclasses import dataclass

from infra.db import Conn
from infra.event_store import LogPosition


@dataclass(frozen=True)
class HorizonHolder:
    """The oldest running transaction of the server (any database): what keeps newer events unreadable."""

    xid: str
    pid: int | None  # None for a prepared transaction (no session holds it)
    database: str | None
    application_name: str | None
    state: str | None
    open_seconds: float | None


def newest_writer(conn: Conn) -> int | None:
    """The newest transaction id among the committed events (the last page of the commit-order index)."""
    row = conn.execute("SELECT tx_id::text::bigint AS tx_id FROM events ORDER BY tx_id DESC LIMIT 1").fetchone()
    return None if row is None else int(row["tx_id"])


def horizon_passed(conn: Conn, tx_id: int) -> bool:
    """Whether every transaction up to `tx_id` has ended, so all their events are readable in commit-safe order."""
    row = conn.execute(
        "SELECT pg_snapshot_xmin(pg_current_snapshot()) > %s::text::xid8 AS passed", (str(tx_id),)
    ).fetchone()
    return row is not None and bool(row["passed"])


def unread_through(conn: Conn, after: LogPosition, tx_id: int) -> int:
    """Committed events after `after` written by transactions up to `tx_id` (a range of the commit-order index)."""
    row = conn.execute(
        """SELECT count(*) AS unread FROM events
           WHERE (tx_id, global_position) > (%s::text::xid8, %s) AND tx_id <= %s::text::xid8""",
        (str(after.tx_id), after.global_position, str(tx_id)),
    ).fetchone()
    return 0 if row is None else int(row["unread"])


def horizon_holder(conn: Conn) -> HorizonHolder | None:
    """The oldest running transaction with an xid: a session (pg_stat_activity shows its xid only to a role
    allowed to read it: superuser, pg_read_all_stats, or the same role) or a prepared transaction. None when
    PostgreSQL does not tell this role."""
    row = conn.execute(
        """SELECT xid, pid, database, application_name, state, open_seconds FROM (
               SELECT backend_xid AS xid, pid, datname::text AS database, application_name, state,
                      extract(epoch FROM now() - xact_start)::float8 AS open_seconds
               FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()
               UNION ALL
               SELECT transaction, NULL, database::text, 'prepared transaction ' || gid, 'prepared',
                      extract(epoch FROM now() - prepared)::float8
               FROM pg_prepared_xacts
           ) AS running
           ORDER BY age(xid) DESC LIMIT 1"""
    ).fetchone()
    if row is None:
        return None
    return HorizonHolder(
        xid=str(row["xid"]),
        pid=None if row["pid"] is None else int(row["pid"]),
        database=row["database"],
        application_name=row["application_name"] or None,
        state=row["state"],
        open_seconds=None if row["open_seconds"] is None else round(float(row["open_seconds"]), 1),
    )
