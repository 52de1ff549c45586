"""What the database's current snapshot says about running transactions (a rebuild waits for writes in
flight before it takes the log's commit-safe horizon)."""

from __future__ import annotations

from infra.event_store import Conn


def next_transaction_id(conn: Conn) -> int:
    """The first transaction id not yet assigned when this snapshot was taken."""
    row = conn.execute("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS next_xid").fetchone()
    assert row is not None
    return int(row["next_xid"])


def oldest_running_transaction(conn: Conn) -> int:
    """The oldest transaction id still running (or the next one, when none runs)."""
    row = conn.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin").fetchone()
    assert row is not None
    return int(row["xmin"])
