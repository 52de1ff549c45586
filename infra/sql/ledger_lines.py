"""Reads of the `ledger_lines` read model (built by `infra.projections.ledger`)."""

from __future__ import annotations

from typing import Any

from infra.event_store import Conn

_COLUMNS = """global_position, line_no, version, event_type, deal_no, account, player_id, amount, unit,
              amount_cents, reason, occurred_at"""


def first_lines(conn: Conn, table_id: str, limit: int) -> list[dict[str, Any]]:
    """The table's first `limit` ledger lines, in log order."""
    return conn.execute(
        f"""SELECT {_COLUMNS} FROM ledger_lines WHERE table_id = %s
            ORDER BY global_position, line_no LIMIT %s""",
        (table_id, limit),
    ).fetchall()


def lines_after(conn: Conn, table_id: str, position: int, line_no: int, limit: int) -> list[dict[str, Any]]:
    """The table's `limit` ledger lines after line `line_no` (as stored, from 0) of `position`, in log order."""
    return conn.execute(
        f"""SELECT {_COLUMNS} FROM ledger_lines
            WHERE table_id = %(table)s AND global_position >= %(position)s
              AND (global_position > %(position)s OR line_no > %(line)s)
            ORDER BY global_position, line_no LIMIT %(limit)s""",
        {"table": table_id, "position": position, "line": line_no, "limit": limit},
    ).fetchall()


def account_totals(conn: Conn, table_id: str) -> list[dict[str, Any]]:
    """Per account of the whole table: player, amount, amount in cents and line count."""
    return conn.execute(
        """SELECT account, min(player_id) AS player_id, sum(amount) AS amount, sum(amount_cents) AS amount_cents,
                  count(*) AS lines
           FROM ledger_lines WHERE table_id = %s GROUP BY account""",
        (table_id,),
    ).fetchall()
