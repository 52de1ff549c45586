"""Reads of the `deal_settlements` and `closing_refunds` read models (built by
`infra.projections.deal_settlements`) for the settlement report.

Each read takes the report's filters (`SettlementFilter`): a half-open period (either end open), a table,
and for choosing the tables a player. Deals count by `settled_at` (settled deals only), closings by
`closed_at`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from infra.event_store import Conn


@dataclass(frozen=True, slots=True)
class SettlementFilter:
    start: datetime | None
    end: datetime | None
    player_id: str | None
    table_id: str | None


def _period(query: SettlementFilter) -> tuple[str, str, dict[str, Any]]:
    """The conditions of the period and the table on deal_settlements and on closing_refunds, with their
    parameters (the same for both)."""
    deals = ["settled_at IS NOT NULL"]
    closings = []
    params: dict[str, Any] = {}
    if query.start is not None:
        deals.append("settled_at >= %(start)s")
        closings.append("closed_at >= %(start)s")
        params["start"] = query.start
    if query.end is not None:
        deals.append("settled_at < %(end)s")
        closings.append("closed_at < %(end)s")
        params["end"] = query.end
    if query.table_id is not None:
        deals.append("table_id = %(table)s")
        closings.append("table_id = %(table)s")
        params["table"] = query.table_id
    return " AND ".join(deals), " AND ".join(closings) or "TRUE", params


def settled_table_ids(conn: Conn, query: SettlementFilter, after: str | None, limit: int) -> list[str]:
    """Up to `limit` tables, in table id order after `after`, that settled deals or were closed with a refund
    in the period (with a player: where the player has a row). Each side goes through its own index, at most
    `limit` tables."""
    chosen, chosen_closed, params = _period(query)
    if query.player_id is not None:
        chosen += " AND player_id = %(player)s"
        chosen_closed += " AND player_id = %(player)s"
        params["player"] = query.player_id
    if after is not None:
        chosen += " AND table_id > %(after)s"
        chosen_closed += " AND table_id > %(after)s"
        params["after"] = after
    rows = conn.execute(
        f"""SELECT table_id FROM (
                (SELECT DISTINCT table_id FROM deal_settlements WHERE {chosen} ORDER BY table_id LIMIT %(limit)s)
                UNION
                (SELECT DISTINCT table_id FROM closing_refunds WHERE {chosen_closed} ORDER BY table_id
                 LIMIT %(limit)s)
            ) AS found ORDER BY table_id LIMIT %(limit)s""",
        {**params, "limit": limit},
    ).fetchall()
    return sorted(str(row["table_id"]) for row in rows)


def account_sums(conn: Conn, query: SettlementFilter, table_ids: list[str]) -> list[dict[str, Any]]:
    """Per (table, account) of the given tables over the period: player, game, unit, amount, amount in cents,
    summed over the settled deals and the closing refunds."""
    where, closed, params = _period(query)
    return conn.execute(
        f"""SELECT table_id, account, min(player_id) AS player_id, min(game) AS game, min(unit) AS unit,
                   sum(amount) AS amount, sum(amount_cents) AS amount_cents
            FROM (SELECT table_id, account, player_id, game, unit, amount, amount_cents
                  FROM deal_settlements WHERE table_id = ANY(%(tables)s) AND {where}
                  UNION ALL
                  SELECT table_id, account, player_id, game, unit, amount, amount_cents
                  FROM closing_refunds WHERE table_id = ANY(%(tables)s) AND {closed}) AS entries
            GROUP BY table_id, account""",
        {**params, "tables": table_ids},
    ).fetchall()


def deal_counts(conn: Conn, query: SettlementFilter, table_ids: list[str]) -> dict[str, int]:
    """Per table of the given ones, the deals it settled in the period (a closing is none)."""
    where, _, params = _period(query)
    rows = conn.execute(
        f"""SELECT table_id, count(DISTINCT deal_no) AS deals
            FROM deal_settlements WHERE table_id = ANY(%(tables)s) AND {where} GROUP BY table_id""",
        {**params, "tables": table_ids},
    ).fetchall()
    return {str(row["table_id"]): int(row["deals"]) for row in rows}


def disagreeing_rows(conn: Conn, query: SettlementFilter, table_ids: list[str]) -> list[dict[str, Any]]:
    """The (table, deal, account, amount, result_net) rows of settled deals whose transfers disagree with their
    result (none, unless the log was tampered with; a partial index finds them)."""
    where, _, params = _period(query)
    return conn.execute(
        f"""SELECT table_id, deal_no, account, amount, result_net
            FROM deal_settlements WHERE table_id = ANY(%(tables)s) AND {where} AND NOT consistent""",
        {**params, "tables": table_ids},
    ).fetchall()
