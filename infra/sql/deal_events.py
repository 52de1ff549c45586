"""Reads of a table's events by what they are (openings, deal starts and ends, clock actions, one write's
events), for the audit; the event store reads them by position."""

from __future__ import annotations

from typing import Any

from domain.table import DEAL_ENDED, DEAL_STARTED, PLAYER_SEATED, TABLE_OPENED
from infra.event_store import Conn


def table_stream_ids(conn: Conn) -> list[str]:
    """Every table stream (streams whose first event opens a table), oldest first."""
    rows = conn.execute(
        "SELECT stream_id FROM events WHERE version = 1 AND type = %s ORDER BY global_position", (TABLE_OPENED,)
    ).fetchall()
    return [str(r["stream_id"]) for r in rows]


def stream_head(conn: Conn, stream_id: str) -> tuple[int, str] | None:
    """(version, last hash) of the stream's head row, or None when it has none."""
    row = conn.execute("SELECT version, last_hash FROM streams WHERE stream_id = %s", (stream_id,)).fetchone()
    return None if row is None else (int(row["version"]), str(row["last_hash"]))


# The event types are written into the statements' text, not passed: a prepared statement's generic plan can use
# a partial index (events_deal_starts, events_milestones) only when its predicate shows in the query.


def deal_start_and_end_rows(conn: Conn, table_id: str) -> list[dict[str, Any]]:
    """(deal_no, type, version) of every deal_started and deal_ended event of the table, in version order."""
    return conn.execute(
        f"""SELECT deal_no, type, version FROM events WHERE stream_id = %(table)s AND type = '{DEAL_STARTED}'
            UNION ALL
            SELECT deal_no, type, version FROM events WHERE stream_id = %(table)s AND type = '{DEAL_ENDED}'
            ORDER BY version""",
        {"table": table_id},
    ).fetchall()


ONE_DEAL_START_AND_END_SQL = f"""SELECT deal_no, type, version FROM events
      WHERE stream_id = %(table)s AND type = '{DEAL_STARTED}' AND deal_no = %(deal)s
    UNION ALL
    SELECT deal_no, type, version FROM events
      WHERE stream_id = %(table)s AND type = '{DEAL_ENDED}' AND deal_no = %(deal)s
    ORDER BY version"""


def one_deal_start_and_end_rows(conn: Conn, table_id: str, deal_no: int) -> list[dict[str, Any]]:
    """(deal_no, type, version) of the deal_started and deal_ended events of one deal, in version order; read
    through the partial indexes, so the cost does not grow with the deals the table has played."""
    return conn.execute(ONE_DEAL_START_AND_END_SQL, {"table": table_id, "deal": deal_no}).fetchall()


def timed_out_counts(conn: Conn, table_id: str, from_version: int, to_version: int | None) -> dict[str, int]:
    """By seat (as the events' text), how many events between the versions were marked "timed_out"."""
    rows = conn.execute(
        """SELECT data ->> 'seat' AS seat, count(*) AS n FROM events
           WHERE stream_id = %s AND version >= %s AND version <= coalesce(%s, 2147483647)
             AND data ->> 'timed_out' = 'true'
           GROUP BY 1""",
        (table_id, from_version, to_version),
    ).fetchall()
    return {str(row["seat"]): int(row["n"]) for row in rows if row["seat"] is not None}


# OFFSET 0 keeps the planner from adding a walk of the whole stream to the lookup by tx_id.
FIRST_VERSION_OF_WRITE_SQL = """SELECT min(version) AS first FROM (
        SELECT stream_id, version FROM events
        WHERE tx_id = (SELECT tx_id FROM events WHERE stream_id = %(table)s AND version = %(version)s)
        OFFSET 0) AS written
    WHERE stream_id = %(table)s"""


def first_version_of_write(conn: Conn, table_id: str, version: int) -> int | None:
    """The first event written in the same transaction as `version`; None when there is no such event. The
    transaction's events are found by tx_id alone (events_commit_order), then kept to the table's."""
    row = conn.execute(FIRST_VERSION_OF_WRITE_SQL, {"table": table_id, "version": version}).fetchone()
    return int(row["first"]) if row is not None and row["first"] is not None else None


OPENING_AND_SEATINGS_SQL = f"""SELECT stream_id, type, data FROM events
    WHERE stream_id = ANY(%s) AND type IN ('{TABLE_OPENED}', '{PLAYER_SEATED}')
    ORDER BY stream_id, version"""


def opening_and_seating_rows(conn: Conn, table_ids: list[str]) -> list[dict[str, Any]]:
    """(stream_id, type, data) of the tables' table_opened and player_seated events, by table and version (through
    events_milestones, so the cost does not grow with the deals the tables have played)."""
    return conn.execute(OPENING_AND_SEATINGS_SQL, (table_ids,)).fetchall()
